// Every small benchmark, translated by the frontend, lowers to a program that verifies and
// computes what the skeleton interpreter computes, at maximal parallelism and with the
// ParallelDot parallelism halved (P need not divide M: padded lanes are masked).

#include <gtest/gtest.h>

#include "skeleshare/cost/cost_model.h"
#include "skeleshare/lower/resources.h"
#include "test_util.h"

namespace skeleshare::lower::test {
namespace {

class SmallBenchmark : public ::testing::TestWithParam<const char*> {};

TEST_P(SmallBenchmark, AgreesWithSkeletonInterpreter) {
  Loaded m = loadDsl(benchPath(GetParam()));
  expectAgrees(m, 1);
  expectAgrees(m, 7);
}

TEST_P(SmallBenchmark, AgreesWithParallelismHalved) {
  Loaded m = loadDsl(benchPath(GetParam()));
  for (int round = 0; round < 2; ++round) {
    rewriteModuleP(m, [](int64_t p, int64_t) { return (p + 1) / 2; });
    expectAgrees(m, 3 + static_cast<uint64_t>(round));
  }
}

TEST_P(SmallBenchmark, OddParallelismLeavesMaskedLanes) {
  Loaded m = loadDsl(benchPath(GetParam()));
  rewriteModuleP(m, [](int64_t p, int64_t mm) { return std::min<int64_t>(mm, p > 3 ? 3 : p); });
  expectAgrees(m, 11);
}

TEST_P(SmallBenchmark, DspsEqualTheCostModel) {
  Loaded m = loadDsl(benchPath(GetParam()));
  const cost::Device device = cost::findDevice(cost::kDefaultDevice, SKELESHARE_SOURCE_DIR);
  cost::CostModel model(device);
  for (int round = 0; round < 3; ++round) {
    Program prog = lowerModule(m.module, *m.ctx, lowerOptions(device));
    int64_t want = 0;
    for (const auto& o : m.module.outputs) want += cost::designCost(model, o.term).total(cost::kDsp);
    EXPECT_EQ(programResources(prog).dsps, want) << "round " << round;
    EXPECT_GT(want, 0);
    rewriteModuleP(m, [](int64_t p, int64_t) { return (p + 1) / 2; });
  }
}

INSTANTIATE_TEST_SUITE_P(Lower, SmallBenchmark,
                         ::testing::Values("vgg_cifar_small.dsl", "tinyyolo_v2_small.dsl", "tinyyolo_v2_full_small.dsl",
                                           "stencil4_small.dsl", "self_attention_small.dsl"),
                         [](const auto& info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

}  // namespace
}  // namespace skeleshare::lower::test
