// `skeleshare compile --emit shir` and `skeleshare lower`: the lowered program is written,
// report.json has the lowered numbers, and the mid-level interpreter agrees.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "tool_runner.h"

namespace skeleshare::testing {
namespace {

TEST(CliLower, CompileEmitShirWritesTheProgramAndItsNumbers) {
  auto dir = scratchDir();
  auto r = runTool({"compile", sourcePath("benchmarks/small/self_attention_small.dsl").string(), "-o", (dir / "out").string(),
                    "--dsp-budget", "64", "--emit", "shir", "--check-eval", "-q"},
                   dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
  EXPECT_EQ(j["lowered_dsps"], j["dsp_used"]);
  EXPECT_GT(j["estimated_cycles"].get<int64_t>(), 0);
  EXPECT_GT(j["onchip_memory_bits"].get<int64_t>(), 0);
  EXPECT_EQ(j["check_lowered"], "equal");
  std::string shir = readFile(dir / "out" / "design.shir");
  EXPECT_NE(shir.find("instance let1 : "), std::string::npos) << shir;  // this budget shares one Mv unit among the Mms
  EXPECT_NE(shir.find("call "), std::string::npos);
  // The lower command on the design it wrote gives the same numbers.
  auto l = runTool({"lower", (dir / "out" / "design.ir").string(), "-o", (dir / "low").string()}, dir);
  ASSERT_EQ(l.exitCode, 0) << l.err;
  auto lj = nlohmann::json::parse(readFile(dir / "low" / "lower.json"));
  EXPECT_EQ(lj["lowered_dsps"], j["lowered_dsps"]);
  EXPECT_EQ(lj["estimated_cycles"], j["estimated_cycles"]);
  EXPECT_EQ(lj["predicted_cycles"], j["predicted_cycles"]);
  EXPECT_EQ(readFile(dir / "low" / "design.shir"), shir);
}

// A unit whose result a Requant passes on as the program's output writes it to memory,
// not to an on-chip buffer: the extractor's model must price that write on the memory
// port, as the lowering does (cost::passesItsOutputOn). Taking only the root class (the
// Requant) as the output predicted this unit at 159 cycles; it is estimated at 217.
TEST(CliLower, AResultPassedOnToTheOutputIsPricedAsWrittenToMemory) {
  auto dir = scratchDir();
  {
    std::ofstream f(dir / "one.dsl");
    f << "input image : i8[64][64];\nweight w : i8[3];\n"
         "output o = requant(conv1d_w(pad(image, 0, 0, 1, 1), w), 3);\n";
  }
  auto r = runTool({"compile", (dir / "one.dsl").string(), "-o", (dir / "out").string(), "--emit", "shir", "-q"}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
  const double predicted = j["predicted_cycles"].get<double>(), estimated = j["estimated_cycles"].get<double>();
  EXPECT_NEAR(predicted / estimated, 1.0, 0.03) << predicted << " predicted, " << estimated << " estimated";
  EXPECT_EQ(readFile(dir / "out" / "design.shir").find("on-chip"), std::string::npos);  // nothing to keep on chip
}

// design.ir says which read shapes it was lowered with, and `lower` lowers it the same way
// unless --read-shapes says otherwise.
TEST(CliLower, LowerTakesTheReadShapesDesignIrNames) {
  auto dir = scratchDir();
  {
    std::ofstream f(dir / "conv.dsl");
    f << "input x : i8[26][26][3];\nweight w : i8[16][3][3][3];\n"
         "output y = relu(requant(conv(pad(x, 1, 1, 1, 1), w), 6));\n";
  }
  for (const char* shapes : {"boxes", "lines"}) {
    const std::string out = std::string("out_") + shapes;
    auto r = runTool({"compile", (dir / "conv.dsl").string(), "-o", (dir / out).string(), "--read-shapes", shapes,
                      "--emit", "shir", "-q"},
                     dir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(readFile(dir / out / "report.json"));
    EXPECT_EQ(j["read_shapes"], shapes);
    EXPECT_NE(readFile(dir / out / "design.ir").find(std::string("// read shapes: ") + shapes), std::string::npos);
    auto l = runTool({"lower", (dir / out / "design.ir").string(), "-o", (dir / (out + "_low")).string()}, dir);
    ASSERT_EQ(l.exitCode, 0) << l.err;
    auto lj = nlohmann::json::parse(readFile(dir / (out + "_low") / "lower.json"));
    EXPECT_EQ(lj["read_shapes"], shapes);
    EXPECT_EQ(lj["estimated_cycles"], j["estimated_cycles"]) << shapes;
    EXPECT_EQ(lj["predicted_cycles"], j["predicted_cycles"]) << shapes;
    EXPECT_EQ(readFile(dir / (out + "_low") / "design.shir"), readFile(dir / out / "design.shir")) << shapes;
  }
  // The flag wins over the file's line.
  auto l = runTool({"lower", (dir / "out_boxes" / "design.ir").string(), "-o", (dir / "forced").string(), "--read-shapes",
                    "lines"},
                   dir);
  ASSERT_EQ(l.exitCode, 0) << l.err;
  auto forced = nlohmann::json::parse(readFile(dir / "forced" / "lower.json"));
  EXPECT_EQ(forced["read_shapes"], "lines");
  EXPECT_GT(forced["estimated_cycles"].get<int64_t>(),
            nlohmann::json::parse(readFile(dir / "out_boxes_low" / "lower.json"))["estimated_cycles"].get<int64_t>());
  auto bad = runTool({"compile", (dir / "conv.dsl").string(), "-o", (dir / "bad").string(), "--read-shapes", "squares"}, dir);
  EXPECT_NE(bad.exitCode, 0);
}

TEST(CliLower, WithoutEmitNoShirIsWritten) {
  auto dir = scratchDir();
  auto r = runTool({"compile", sourcePath("benchmarks/small/stencil4_small.dsl").string(), "-o", dir.string(), "-q"}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "design.shir"));
  EXPECT_FALSE(nlohmann::json::parse(readFile(dir / "report.json")).contains("lowered_dsps"));
}

TEST(CliLower, BadInputIsAnInputError) {
  auto dir = scratchDir();
  std::ofstream(dir / "bad.ir") << "input a : i8[4];\noutput o = Nope(@a);\n";
  auto r = runTool({"lower", (dir / "bad.ir").string(), "-o", (dir / "out").string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "design.shir"));
}

// A design the lowering refuses (a fold that is not a sum or a maximum: a Horner
// polynomial) fails the compile, and its report says so: not the extraction's "ok" with
// no hardware.
TEST(CliLower, AFailedLoweringIsTheReportsStatus) {
  auto dir = scratchDir();
  std::ofstream(dir / "horner.dsl") << "input x : i8[16][8];\noutput s = map(x, \\row. reduce(row, 0, \\acc v. acc * 2 + v));\n";
  auto r = runTool({"compile", (dir / "horner.dsl").string(), "-o", (dir / "out").string(), "-q"}, dir);
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("the design cannot be lowered"), std::string::npos) << r.err;
  auto j = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["failed_stage"], "lower");
  EXPECT_NE(j["message"].get<std::string>().find("cannot be lowered"), std::string::npos) << j.dump(2);
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "vhdl" / "files.txt"));
}

}  // namespace
}  // namespace skeleshare::testing
