// Every small benchmark, lowered as written, emitted as VHDL and simulated in GHDL with
// random memory wait states: bit-exact against the skeleton interpreter (the oracle).

#include <gtest/gtest.h>

#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

class SmallBenchmarkHardware : public ::testing::TestWithParam<const char*> {};

TEST_P(SmallBenchmarkHardware, SimulatesBitExact) {
  auto m = test_support::loadDsl(benchPath(GetParam()));
  lower::Program prog = lower::lowerModule(m.module, *m.ctx);
  auto inputs = ir::randomInputs(m.module, 5);
  auto want = ir::evaluateModule(m.module, *m.ctx, inputs);
  std::string name = GetParam();
  name = name.substr(0, name.find('.'));
  Simulated s = emitAndSimulate(prog, inputs, name, 3);
  ASSERT_TRUE(s.sim.ok) << s.sim.error << "\n" << s.sim.log;
  auto bad = firstMismatch(want, s.sim.outputs);
  EXPECT_FALSE(bad.has_value()) << bad->describe();
  EXPECT_GT(s.sim.cycles, 0);
  std::cerr << name << ": " << s.sim.cycles << " simulated cycles\n";
}

INSTANTIATE_TEST_SUITE_P(Vhdl, SmallBenchmarkHardware,
                         ::testing::Values("stencil4_small.dsl", "self_attention_small.dsl", "vgg_cifar_small.dsl",
                                           "tinyyolo_v2_small.dsl", "tinyyolo_v2_full_small.dsl"),
                         [](const auto& info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

}  // namespace
}  // namespace skeleshare::vhdl::test
