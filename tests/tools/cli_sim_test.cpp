// `skeleshare sim` end to end: compile to VHDL, simulate in GHDL, compare bit for bit.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "tool_runner.h"

namespace skeleshare::testing {
namespace {

std::string bench(const std::string& name) { return std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/small/" + name; }

TEST(CliSim, StencilAsWrittenPassesAndWritesTheDesign) {
  auto dir = scratchDir();
  auto r = runTool({"sim", bench("stencil4_small.dsl"), "--as-written", "--seed", "4", "--json", "-q", "-o",
                    (dir / "out").string()},
                   dir);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["result"], "PASS");
  EXPECT_GT(j["simulated_cycles"].get<int64_t>(), 0);
  EXPECT_GT(j["predicted_cycles"].get<int64_t>(), 0);
  EXPECT_EQ(j["top"], "stencil4_small_top");
  // compile order, the top, the testbench, the memory map in the report and the header
  std::string files = readFile(dir / "out" / "vhdl" / "files.txt");
  EXPECT_EQ(files.rfind("ss_pkg.vhd\n", 0), 0u) << files;
  EXPECT_NE(files.find("stencil4_small_top.vhd"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "vhdl" / "stencil4_small_tb.vhd"));
  auto report = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
  EXPECT_EQ(report["top"], "stencil4_small_top");
  EXPECT_EQ(report["memory_map"]["buffers"][0]["name"], "image");
  EXPECT_NE(readFile(dir / "out" / "stencil4_small_memory_map.h").find("STENCIL4_SMALL_IMAGE_BASE"), std::string::npos);
}

TEST(CliSim, ExtractedDesignsAtTwoBudgetsPass) {
  // Self-attention: 400 DSPs give the 320-multiplier design; 32 DSPs one shared instance
  // of 32 multipliers called five times.
  std::vector<int64_t> multipliers;
  for (const char* budget : {"400", "32"}) {
    auto dir = scratchDir();
    auto r = runTool({"sim", bench("self_attention_small.dsl"), "--dsp-budget", budget, "--seed", "9", "--json", "-q", "-o",
                      (dir / "out").string()},
                     dir);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["result"], "PASS");
    EXPECT_LE(j["dsp_multipliers"].get<int64_t>(), std::stoll(budget));
    multipliers.push_back(j["dsp_multipliers"].get<int64_t>());
    auto report = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
    EXPECT_EQ(report["lowered_dsps"], j["dsp_multipliers"]);  // a shared datapath is built once
    if (std::string(budget) == "32") {
      EXPECT_GT(report["lowered_calls"].get<int64_t>(), 1);
    }
  }
  EXPECT_NE(multipliers[0], multipliers[1]);
}

// Every benchmark's small variant, extracted at two DSP budgets that force different
// designs, simulated with 25% random memory wait states and compared bit for bit (issue #6,
// acceptance 1; self-attention is the test above). Extraction takes under a second at the
// default effort limit (a work count, so the designs are deterministic). TinyYolo-small's
// channel counts (2 ... 128) leave no single convolution function for all its layers, so it
// may build one convolution unit per layer (--max-conv-units 16), as in tests/lower.
struct BudgetPair {
  const char* file;
  const char* high;
  const char* low;
  std::vector<std::string> extra;
};

void PrintTo(const BudgetPair& p, std::ostream* os) { *os << p.file << " at " << p.high << " and " << p.low << " DSPs"; }

class CliSimBudgets : public ::testing::TestWithParam<BudgetPair> {};

TEST_P(CliSimBudgets, BothBudgetsPassBitExactWithDifferentDesigns) {
  const BudgetPair& p = GetParam();
  std::vector<std::pair<int64_t, int64_t>> designs;  // (DSP multipliers, shared calls)
  for (const char* budget : {p.high, p.low}) {
    auto dir = scratchDir();
    std::vector<std::string> args{"sim", bench(p.file), "--dsp-budget", budget, "--seed", "3", "--json", "-q", "-o",
                                  (dir / "out").string()};
    args.insert(args.end(), p.extra.begin(), p.extra.end());
    auto r = runTool(args, dir);
    ASSERT_EQ(r.exitCode, 0) << p.file << " at " << budget << " DSPs\n" << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["result"], "PASS");
    EXPECT_LE(j["dsp_multipliers"].get<int64_t>(), std::stoll(budget));
    auto report = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
    EXPECT_EQ(report["lowered_dsps"], j["dsp_multipliers"]);
    designs.emplace_back(j["dsp_multipliers"].get<int64_t>(), report["lowered_calls"].get<int64_t>());
    std::cerr << p.file << " at " << budget << " DSPs: " << j["dsp_multipliers"] << " multipliers, "
              << report["lowered_calls"] << " shared calls, " << j["simulated_cycles"] << " simulated cycles, "
              << j["predicted_cycles"] << " predicted, " << j["estimated_cycles"] << " estimated\n";
  }
  EXPECT_NE(designs[0], designs[1]) << "the two budgets should force different designs";
}

std::string budgetName(const ::testing::TestParamInfo<BudgetPair>& info) {
  std::string s = info.param.file;
  return s.substr(0, s.find('.'));
}

INSTANTIATE_TEST_SUITE_P(SmallBenchmarks, CliSimBudgets, ::testing::Values(BudgetPair{"stencil4_small.dsl", "1518", "32", {}}),
                         budgetName);
// VGG: one ParallelConv unit called 13 times, 288 and 208 DSP multipliers; TinyYolo:
// one convolution unit per layer (--max-conv-units 16; an effort of 30M, about 10 s of
// extraction, finds designs 3-20x faster than 10M does). 90 000 - 400 000 simulated
// cycles, 30-90 s of GHDL each: the same in every build type, so the Sanitize run skips
// them (`ctest -E HeavySim`, .ci/dev).
INSTANTIATE_TEST_SUITE_P(HeavySim, CliSimBudgets,
                         ::testing::Values(BudgetPair{"vgg_cifar_small.dsl", "512", "256", {}},
                                           BudgetPair{"tinyyolo_v2_small.dsl", "1024", "512",
                                                      {"--max-conv-units", "16", "--effort", "30000000"}}),
                         budgetName);

TEST(CliCompile, WritesVhdlByDefault) {
  auto dir = scratchDir();
  auto r = runTool({"compile", bench("stencil4_small.dsl"), "-o", (dir / "out").string(), "--emit", "shir", "--check-eval",
                    "-q"},
                   dir);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto report = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
  EXPECT_EQ(report["top"], "stencil4_small_top");
  EXPECT_EQ(report["check_eval"], "equal");
  EXPECT_EQ(report["check_lowered"], "equal");
  EXPECT_EQ(report["hardware"]["dsp_multiplier_lanes"], report["lowered_dsps"]);
  std::string files = readFile(dir / "out" / "vhdl" / "files.txt");
  EXPECT_NE(files.find("stencil4_small_top.vhd"), std::string::npos) << files;
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "design.shir"));
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "design.ir"));
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "vhdl" / "stencil4_small_quartus.tcl"));
}

TEST(CliSim, BothGhdlBackendsSimulateTheSameCycles) {
  // .ci/dev installs ghdl-llvm; mcode is GHDL's default. Same design, same seed: the
  // same outputs (PASS) and the same cycle count under either code generator.
  auto dir = scratchDir();
  std::vector<int64_t> cycles;
  for (const char* backend : {"mcode", "llvm"}) {
    auto r = runTool({"sim", bench("stencil4_small.dsl"), "--dsp-budget", "32", "--seed", "5", "--json", "-q",
                      "--ghdl-backend", backend, "-o", (dir / backend).string()},
                     dir);
    ASSERT_EQ(r.exitCode, 0) << backend << "\n" << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["result"], "PASS");
    EXPECT_EQ(j["ghdl_backend"], backend);
    cycles.push_back(j["simulated_cycles"].get<int64_t>());
  }
  EXPECT_EQ(cycles[0], cycles[1]);
  auto r = runTool({"sim", bench("stencil4_small.dsl"), "--ghdl-backend", "gcc", "-q"}, dir);
  EXPECT_EQ(r.exitCode, 2) << r.err;  // not a backend this build chooses from
}

TEST(CliSim, UsesGivenInputs) {
  auto dir = scratchDir();
  // an all-zero image gives all-zero edges through the whole pipeline
  std::string npy = (dir / "zero.npy").string();
  auto py = runShell("/usr/bin/python3 -c " +
                         shellQuote("import numpy; numpy.save('" + npy + "', numpy.zeros((8, 8), dtype=numpy.int8))"),
                     dir);
  ASSERT_EQ(py.exitCode, 0) << py.err;
  auto r = runTool({"sim", bench("stencil4_small.dsl"), "--as-written", "--input", "image=" + npy, "-q", "-o",
                    (dir / "out").string()},
                   dir);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
}

TEST(CliSim, BadInputsAreErrors) {
  auto dir = scratchDir();
  auto r = runTool({"sim", bench("stencil4_small.dsl"), "--as-written", "--input", "nosuch=x.npy", "-q"}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("declares no input or weight 'nosuch'"), std::string::npos) << r.err;
  r = runTool({"sim", bench("stencil4_small.dsl"), "--dsp-budget", "10", "--dsp-fraction", "0.5", "-q"}, dir);
  EXPECT_EQ(r.exitCode, 2) << r.err;
}

}  // namespace
}  // namespace skeleshare::testing
