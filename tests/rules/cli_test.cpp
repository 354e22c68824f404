// `skeleshare saturate`: text and JSON reports, --disable, limits, malformed rule files
// and the DOT export of the paper's running example.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#define SKELESHARE_TOOL SKELESHARE_BINARY_DIR "/src/skeleshare"
#include "../tools/tool_runner.h"

using skeleshare::testing::runShell;
using skeleshare::testing::runTool;
using skeleshare::testing::scratchDir;

namespace {

std::string bench(const std::string& f) { return std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/" + f; }
std::string example() { return std::string(SKELESHARE_SOURCE_DIR) + "/tests/rules/programs/paper_example.dsl"; }

bool haveTool() {
  if (std::filesystem::exists(SKELESHARE_TOOL)) return true;
  ADD_FAILURE() << "build the skeleshare executable first: " << SKELESHARE_TOOL;
  return false;
}

TEST(SaturateCli, JsonReportSaturatesVgg) {
  if (!haveTool()) return;
  auto dir = scratchDir();
  auto r = runTool({"saturate", bench("vgg_cifar.dsl"), "--json"}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stop_reason"], "saturated");
  EXPECT_GT(j["enodes"].get<int>(), 1000);
  EXPECT_LT(j["enodes"].get<int>(), 4000);  // 3,448 (docs/rules.md)
  EXPECT_GT(j["eclasses"].get<int>(), 0);
  EXPECT_GT(j["iterations"].get<int>(), 1);
  EXPECT_LT(j["seconds"].get<double>(), 2.0);
  EXPECT_GT(j["peak_memory_bytes"].get<int64_t>(), 0);
  EXPECT_LT(j["peak_memory_bytes"].get<int64_t>(), int64_t{200} << 20);
  EXPECT_EQ(j["rules"]["R-PAD-MV"]["group"], "padding");
  EXPECT_GT(j["rules"]["R-PAD-MV"]["applied"].get<int>(), 0);
  EXPECT_GT(j["rules"]["R-TILE-CONV-HW"]["new_nodes"].get<int>(), 0);
  EXPECT_TRUE(j["rules"]["R-HALVE-PARALLELISM"].contains("matches"));
}

TEST(SaturateCli, SameInputSameOutput) {
  if (!haveTool()) return;
  auto dir = scratchDir();
  auto a = runTool({"saturate", bench("vgg_cifar.dsl"), "--dot", (dir / "a.dot").string()}, dir);
  auto b = runTool({"saturate", bench("vgg_cifar.dsl"), "--dot", (dir / "b.dot").string()}, dir);
  ASSERT_EQ(a.exitCode, 0);
  ASSERT_EQ(b.exitCode, 0);
  EXPECT_EQ(skeleshare::testing::readFile(dir / "a.dot"), skeleshare::testing::readFile(dir / "b.dot"));
}

TEST(SaturateCli, DisablePaddingRemovesExactlyThatGroup) {
  if (!haveTool()) return;
  auto dir = scratchDir();
  auto all = runTool({"saturate", bench("vgg_cifar.dsl"), "--json"}, dir);
  auto r = runTool({"saturate", bench("vgg_cifar.dsl"), "--json", "--disable", "padding"}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto ja = nlohmann::json::parse(all.out), j = nlohmann::json::parse(r.out);
  for (auto& [name, stats] : ja["rules"].items()) {
    std::string group = stats["group"];
    bool padding = group.find("padding") != std::string::npos;
    EXPECT_EQ(j["rules"].contains(name), !padding) << name;
  }
  EXPECT_TRUE(j["rules"].contains("R-TILE-CONV-HW"));
  EXPECT_LT(j["enodes"].get<int>(), ja["enodes"].get<int>());
  auto bad = runTool({"saturate", bench("vgg_cifar.dsl"), "--disable", "nosuchgroup"}, dir);
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("no rule is in group 'nosuchgroup'"), std::string::npos) << bad.err;
}

TEST(SaturateCli, LimitsAreStopReasons) {
  if (!haveTool()) return;
  auto dir = scratchDir();
  auto r = runTool({"saturate", bench("vgg_cifar.dsl"), "--json", "--iter-limit", "2"}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["stop_reason"], "iteration limit");
  r = runTool({"saturate", bench("vgg_cifar.dsl"), "--json", "--node-limit", "200"}, dir);
  EXPECT_EQ(nlohmann::json::parse(r.out)["stop_reason"], "node limit");
  r = runTool({"saturate", bench("stencil4.dsl")}, dir);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("stop reason: saturated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("R-TRANSPOSE-CONV1D-H"), std::string::npos);
  EXPECT_NE(r.out.find("peak memory:"), std::string::npos);
}

TEST(SaturateCli, MalformedRuleFileIsADiagnosticAndExit1) {
  if (!haveTool()) return;
  auto dir = scratchDir();
  std::filesystem::create_directories(dir / "rules");
  std::ofstream(dir / "rules" / "bad.rules") << "rule R-X group g:\n  Mv(?a, ?b, ?f) => Frob(?a);\n";
  auto r = runTool({"saturate", bench("stencil4.dsl"), "--rules", (dir / "rules").string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("bad.rules:2:21: error: unknown operator or template 'Frob'"), std::string::npos) << r.err;
  r = runTool({"saturate", bench("stencil4.dsl"), "--rules", (dir / "none").string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
}

TEST(SaturateCli, DotOfThePaperExampleShowsTheSharedMvAndRenders) {
  if (!haveTool()) return;
  auto dir = scratchDir();
  auto dot = dir / "example.dot";
  auto r = runTool({"saturate", example(), "--dot", dot.string()}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string text = skeleshare::testing::readFile(dot);
  EXPECT_NE(text.find("PaddedMv"), std::string::npos);
  EXPECT_NE(text.find("(shared)"), std::string::npos);
  // The shared class is the convolution's Mv: cMvF[64, 576], a function on i8[64][576].
  bool sharedMv = false;
  for (size_t p = text.find("(shared)"); p != std::string::npos; p = text.find("(shared)", p + 1)) {
    size_t line = text.rfind('\n', p);
    std::string l = text.substr(line + 1, p - line);
    sharedMv |= l.find("i8[64][576]") != std::string::npos && l.find("->") != std::string::npos;
  }
  EXPECT_TRUE(sharedMv) << "no shared class of type (i8[64][576] -> ...)";
  auto svg = runShell("dot -Tsvg " + skeleshare::testing::shellQuote(dot.string()) + " -o " +
                          skeleshare::testing::shellQuote((dir / "example.svg").string()),
                      dir);
  EXPECT_EQ(svg.exitCode, 0) << svg.err;
  EXPECT_GT(std::filesystem::file_size(dir / "example.svg"), 1000u);
}

}  // namespace
