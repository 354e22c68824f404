// `skeleshare compile`'s performance figures in report.json: the MACs, GOPS and the bounds
// that no design with the chosen DSP blocks can beat (docs/cost-model.md, "Bounds").

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "tool_runner.h"

namespace skeleshare::testing {
namespace {

nlohmann::json compileReport(const std::filesystem::path& dir, const std::string& program, const std::string& budget) {
  {
    std::ofstream f(dir / "p.dsl");
    f << program;
  }
  auto r = runTool({"compile", (dir / "p.dsl").string(), "-o", (dir / "out").string(), "--dsp-budget", budget, "-q"}, dir);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return nlohmann::json::parse(readFile(dir / "out" / "report.json"));
}

// Two matrix-vector layers whose 512 x 64 weights (512 lines each, 732 cycles of the
// 0.7-lines-a-cycle port) take longer to read than to multiply: the layer bound is their
// traffic, twice, however many DSP blocks the design has, as long as each layer's 32,768
// MACs take at most 732 cycles on its lanes (at least 45; the design shares one 64-lane
// unit between the layers, which --overlap credits with the handover).
TEST(CliReport, TheLayerBoundAddsEachLayersComputeOrWeightTraffic) {
  auto dir = scratchDir();
  auto j = compileReport(dir,
                         "input v : i8[64];\nweight a : i8[512][64];\nweight b : i8[64][512];\n"
                         "output o = mv(b, requant(mv(a, v), 6));\n",
                         "1518");
  ASSERT_EQ(j["status"], "ok") << j.dump(2);
  EXPECT_EQ(j["macs"], 2 * 512 * 64);
  const int64_t lanes = 2 * j["dsp_used"].get<int64_t>();
  ASSERT_GE(lanes, (512 * 64 + 731) / 732) << "each layer would be compute bound";
  EXPECT_EQ(j["dsp_bound_cycles"], (2 * 512 * 64 + lanes - 1) / lanes);
  EXPECT_EQ(j["layer_bound_cycles"], 2 * 732);
  // a bound: the design the compiler chose takes longer
  EXPECT_LE(j["layer_bound_cycles"].get<int64_t>(), j["predicted_cycles"].get<int64_t>());
  EXPECT_DOUBLE_EQ(j["layer_bound_efficiency"].get<double>(), 2 * 732.0 / j["predicted_cycles"].get<double>());
}

// Without weights the layer bound is the compute bound: an input is not a weight.
TEST(CliReport, WithoutWeightsTheLayerBoundIsTheComputeBound) {
  auto dir = scratchDir();
  auto j = compileReport(dir, "input a : i8[16][64];\ninput b : i8[16][64];\noutput o = mm(a, b);\n", "64");
  ASSERT_EQ(j["status"], "ok") << j.dump(2);
  EXPECT_EQ(j["layer_bound_cycles"], j["dsp_bound_cycles"]);
  EXPECT_LE(j["layer_bound_cycles"].get<int64_t>(), j["predicted_cycles"].get<int64_t>());
}

}  // namespace
}  // namespace skeleshare::testing
