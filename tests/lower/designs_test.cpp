// Extracted, let-bound designs of the small benchmarks (written by `skeleshare compile` at
// three DSP budgets each, so with different sharing and data-transform decisions; see
// tests/lower/inputs/designs/README.md) lower to programs that verify, compute exactly
// what the skeleton interpreter computes, have the cost model's DSPs, make every shared
// function one instance, and contain no unit that only moves data.

#include <gtest/gtest.h>

#include <filesystem>

#include "skeleshare/cost/cost_model.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "test_util.h"

namespace skeleshare::lower::test {
namespace {

std::string designPath(const std::string& name) {
  return std::string(SKELESHARE_SOURCE_DIR) + "/tests/lower/inputs/designs/" + name + ".ir";
}

class Design : public ::testing::TestWithParam<const char*> {};

TEST_P(Design, AgreesWithSkeletonInterpreter) {
  Loaded m = loadIr(designPath(GetParam()));
  expectAgrees(m, 1);
}

TEST_P(Design, DspsEqualTheCostModelAndSharedFunctionsAreInstances) {
  Loaded m = loadIr(designPath(GetParam()));
  const cost::Device device = cost::findDevice(cost::kDefaultDevice, SKELESHARE_SOURCE_DIR);
  Program p = lowerModule(m.module, *m.ctx, lowerOptions(device));
  cost::CostModel model(device);
  ASSERT_EQ(m.module.outputs.size(), 1u);
  EXPECT_EQ(programResources(p).dsps, cost::designCost(model, m.module.outputs[0].term).total(cost::kDsp))
      << printProgram(p);
  // A let whose body computes is an instance; a let that only wraps another let's calls in
  // data transforms (0 DSPs of its own) has no datapath: its uses are calls of the inner one.
  size_t lets = 0;
  for (const ir::Term* t = m.module.outputs[0].term; t->op() == ir::Op::App && t->child(0)->op() == ir::Op::Lam;
       t = t->child(0)->body())
    ++lets;
  EXPECT_LE(p.instances.size() > 0, lets > 0);
  for (size_t i = 0; i < p.instances.size(); ++i) EXPECT_EQ(checkInstanceCalls(p, i), "");
}

TEST_P(Design, NoUnitOnlyMovesData) {
  Loaded m = loadIr(designPath(GetParam()));
  Program p = lowerModule(m.module, *m.ctx);
  for (const auto& name : dataMovementUnits(p)) ADD_FAILURE() << "unit " << name << " only moves data\n" << printProgram(p);
}

INSTANTIATE_TEST_SUITE_P(Lower, Design,
                         ::testing::Values("stencil4_small_1518", "stencil4_small_64", "stencil4_small_32",
                                           "self_attention_small_1518", "self_attention_small_128",
                                           "self_attention_small_32", "vgg_cifar_small_1518", "vgg_cifar_small_256",
                                           "vgg_cifar_small_128", "vgg_cifar_small_256_pad_of_pad", "tinyyolo_v2_small_1518", "tinyyolo_v2_small_1024",
                                           "tinyyolo_v2_small_512", "residual_conv_qdq_1518"));

// A value read twice inside a design's let body (here a residual connection: the first
// convolution's output feeds the second and the Add after it) is computed by one unit and
// read from its buffer, not computed again for the second reader.
TEST(Lower, AValueALetBodyReadsTwiceIsComputedOnce) {
  Loaded m = loadIr(designPath("residual_conv_qdq_1518"));
  Program p = lowerModule(m.module, *m.ctx);
  int w1 = -1;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].name == "w1") w1 = static_cast<int>(i);
  ASSERT_GE(w1, 0);
  int readers = 0;
  for (const Unit& u : p.units) {
    bool reads = false;
    for (const auto& n : u.nodes) reads = reads || (n.prim == Prim::Read && n.buffer == w1);
    readers += reads;
  }
  EXPECT_EQ(readers, 1) << printProgram(p);
}

}  // namespace
}  // namespace skeleshare::lower::test

namespace skeleshare::lower::test {
namespace {

// The full-size benchmarks' designs (`skeleshare compile benchmarks/NAME.dsl` at the full
// budget and at --dsp-fraction 0.25): they lower (too large to interpret in a test), verify,
// have the extractor's DSPs, and no unit of theirs is a materialised transpose, slide or pad.
class FullDesign : public ::testing::TestWithParam<const char*> {};

TEST_P(FullDesign, LowersWithTheCostModelsDspsAndNoDataMovementUnits) {
  Loaded m = loadIr(std::string(SKELESHARE_SOURCE_DIR) + "/tests/lower/inputs/designs/full/" + GetParam() + ".ir");
  const cost::Device device = cost::findDevice(cost::kDefaultDevice, SKELESHARE_SOURCE_DIR);
  Program p = lowerModule(m.module, *m.ctx, lowerOptions(device));
  EXPECT_TRUE(verify(p).empty());
  cost::CostModel model(device);
  ASSERT_EQ(m.module.outputs.size(), 1u);
  EXPECT_EQ(programResources(p).dsps, cost::designCost(model, m.module.outputs[0].term).total(cost::kDsp));
  for (const auto& name : dataMovementUnits(p)) ADD_FAILURE() << "unit " << name << " only moves data";
}

// With --overlap, lowerModule tries each dot's other placement of its row groups where the
// design's calls interleave, and keeps it where the estimate falls: in self-attention the
// key projection then keeps one group's block of its weights while x's 64 rows pass
// (Repeat[64, 1]), so it steps beside the query's projection once half its weights are in
// (1,024 blocks: 830 -> 789 cycles simulated, docs/lowering.md).
TEST(FullDesignPlacement, CallsThatInterleaveTakeTheDotPlacementThatLowersTheEstimate) {
  Loaded m = loadIr(std::string(SKELESHARE_SOURCE_DIR) + "/tests/lower/inputs/designs/full/self_attention_1.ir");
  const cost::Device device = cost::findDevice(cost::kDefaultDevice, SKELESHARE_SOURCE_DIR);
  auto weightsStay = [](const Program& p) {
    int n = 0;
    for (const Unit& u : p.units)
      for (const Node& node : u.nodes) n += node.prim == Prim::Repeat && node.params == std::vector<int64_t>{64, 1};
    return n;
  };
  LowerOptions searched = lowerOptions(device);
  searched.overlap = true;
  LowerOptions fixed = searched;
  fixed.otherDotPlacement.emplace();  // every dot as the template places it
  AccessCounter counts;
  const Program chosen = lowerModule(m.module, *m.ctx, searched);
  const Program plain = lowerModule(m.module, *m.ctx, fixed);
  EXPECT_TRUE(verify(chosen).empty());
  EXPECT_EQ(weightsStay(chosen), 1) << printProgram(chosen);
  EXPECT_EQ(weightsStay(plain), 0);
  EXPECT_LT(estimateCycles(chosen, searched.memory, counts).total, estimateCycles(plain, searched.memory, counts).total);
  // one unit after another nothing is searched
  EXPECT_EQ(weightsStay(lowerModule(m.module, *m.ctx, lowerOptions(device))), 0);
}

INSTANTIATE_TEST_SUITE_P(Lower, FullDesign,
                         ::testing::Values("stencil4_1", "stencil4_quarter", "self_attention_1", "self_attention_quarter",
                                           "tinyyolo_v2_1", "tinyyolo_v2_quarter", "vgg_cifar_1"));

}  // namespace
}  // namespace skeleshare::lower::test
