// Every small benchmark, lowered as written and with its ParallelDot parallelism cut to a
// quarter (a different design: fewer multiplier lanes, more steps, masked lanes), emitted
// as VHDL and simulated in GHDL with random memory wait states: bit-exact against the
// skeleton interpreter (the oracle).
//
// VGG and TinyYolo take 60 000 - 210 000 simulated cycles (address generation costs
// GHDL time per element): their tests are in the HeavySim suites, so that a pass that
// only needs the C++ checked (the Sanitize build) can skip them with `ctest -E HeavySim`.

#include <gtest/gtest.h>

#include "../lower/test_util.h"
#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

void simulateBenchmark(const std::string& file, bool quarter) {
  auto m = test_support::loadDsl(benchPath(file));
  if (quarter) lower::test::rewriteModuleP(m, [](int64_t p, int64_t) { return (p + 3) / 4; });
  lower::Program prog = lower::lowerModule(m.module, *m.ctx);
  auto inputs = ir::randomInputs(m.module, 5);
  auto want = ir::evaluateModule(m.module, *m.ctx, inputs);
  std::string name = file.substr(0, file.find('.')) + (quarter ? "_q" : "");
  Simulated s = emitAndSimulate(prog, inputs, name, 3, 50'000'000);
  ASSERT_TRUE(s.sim.ok) << s.sim.error << "\n" << s.sim.log;
  auto bad = firstMismatch(want, s.sim.outputs);
  EXPECT_FALSE(bad.has_value()) << bad->describe();
  EXPECT_GT(s.sim.cycles, 0);
  std::cerr << name << ": " << s.sim.cycles << " simulated cycles, " << s.design.dspLanes << " DSP multipliers\n";
}

std::string testName(const ::testing::TestParamInfo<const char*>& info) {
  std::string s = info.param;
  return s.substr(0, s.find('.'));
}

class SmallBenchmarkSim : public ::testing::TestWithParam<const char*> {};
TEST_P(SmallBenchmarkSim, AsWritten) { simulateBenchmark(GetParam(), false); }
TEST_P(SmallBenchmarkSim, QuarterParallelism) { simulateBenchmark(GetParam(), true); }
INSTANTIATE_TEST_SUITE_P(Vhdl, SmallBenchmarkSim, ::testing::Values("stencil4_small.dsl", "self_attention_small.dsl"),
                         testName);

// VGG: ~60 000 simulated cycles each, 10-20 s of GHDL. Skipped by `ctest -E HeavySim`.
class HeavySim : public ::testing::TestWithParam<const char*> {};
TEST_P(HeavySim, AsWritten) { simulateBenchmark(GetParam(), false); }
TEST_P(HeavySim, QuarterParallelism) { simulateBenchmark(GetParam(), true); }
INSTANTIATE_TEST_SUITE_P(Vhdl, HeavySim, ::testing::Values("vgg_cifar_small.dsl"), testName);

// TinyYolo: 140 000 - 210 000 simulated cycles, minutes of GHDL (bit-exact when run):
// on demand only, `test_vhdl --gtest_also_run_disabled_tests --gtest_filter='*TinyYolo*'`.
class TinyYoloSim : public ::testing::TestWithParam<const char*> {};
TEST_P(TinyYoloSim, AsWritten) { simulateBenchmark(GetParam(), false); }
TEST_P(TinyYoloSim, QuarterParallelism) { simulateBenchmark(GetParam(), true); }
INSTANTIATE_TEST_SUITE_P(DISABLED_HeavySim, TinyYoloSim,
                         ::testing::Values("tinyyolo_v2_small.dsl", "tinyyolo_v2_full_small.dsl"), testName);

}  // namespace
}  // namespace skeleshare::vhdl::test
