// The extractor's load oracle (driver/skeleton_load.h): a dot measured at one step a call
// and at two, where the lowering replays the call's operands.

#include "skeleshare/driver/skeleton_load.h"

#include <gtest/gtest.h>

#include "skeleshare/cost/device.h"
#include "skeleshare/ir/builders.h"

namespace skeleshare::driver {
namespace {

using ir::Op;

class SkeletonLoadTest : public ::testing::Test {
 protected:
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  const ir::Type* square = ctx.tensorType(std::initializer_list<int64_t>{64, 64}, i8);
  cost::Device device = cost::findDevice(cost::kDefaultDevice, SKELESHARE_SOURCE_DIR);
  SkeletonLoads loads{device, true};

  static cost::ChildShape shape(const ir::Type* type, Op view = Op::Var, bool computed = false) {
    cost::ChildShape s;
    s.type = type;
    s.view = view;
    if (view != Op::Var) s.viewOf = type;
    s.computed = computed;
    return s;
  }

  /// Mm(a, b, cMvF[64, 64]) on 64 x 64 operands, b as `b`, as the cost model asks.
  std::optional<cost::SkeletonLoad> mm(const cost::ChildShape& b) {
    const ir::Term* f = ir::cMvF(ctx, 64, 64, i8, i8);
    const ir::Term* node = ctx.op(Op::Mm, {ctx.input("a", square), ctx.input("b", square), f});
    const cost::ChildShape kids[] = {shape(square), b, shape(f->type())};
    return loads(Op::Mm, {}, kids, node->type(), true);
  }
};

// Self-attention's projections at 1,024 blocks: x and the weights from memory. At one step
// a call the rows of x feed the multipliers straight from the port and stall with it; at
// two the lowering replays each row, and the steps wait for no line.
TEST_F(SkeletonLoadTest, ADotsStepsThatStallAtOneStepACallAreReplayedAtTwo) {
  auto l = mm(shape(square));
  ASSERT_TRUE(l && !l->refused);
  EXPECT_TRUE(l->stepsStall);
  EXPECT_FALSE(l->stepsStallAtTwoSteps);
  EXPECT_EQ(l->fillPerStep, 0);
}

// Its output, `a V` with V computed and read transposed: the read takes an element of every
// line for its first vector, so at two steps a call it passes over V's 64 lines once per
// step and its replay buffer's first block takes twice as long.
TEST_F(SkeletonLoadTest, ATransposedOperandFillsItsReplayBufferOncePerStepACall) {
  auto l = mm(shape(square, Op::Transpose, true));
  ASSERT_TRUE(l && !l->refused);
  EXPECT_GT(l->load.replayFill, 0);
  EXPECT_EQ(l->fillPerStep, l->load.replayFill);
}

// With --overlap the oracle also measures what a neighbour that calls the same shared
// instance can hide: the unit's lead and drain, and, fed through an operand another unit
// computes (the scores' K), its tail after that unit's last line. Without it, none of them.
TEST_F(SkeletonLoadTest, WithOverlapItMeasuresTheLeadTheDrainAndTheFedTail) {
  auto plain = mm(shape(square, Op::Var, true));
  ASSERT_TRUE(plain && !plain->refused);
  EXPECT_EQ(plain->lead + plain->drain + plain->fedTail + plain->fedLines, 0);
  SkeletonLoads handover{device, true};
  handover.measureOverlap(true);
  auto measure = [&](bool computed) {
    const ir::Term* f = ir::cMvF(ctx, 64, 64, i8, i8);
    const ir::Term* node = ctx.op(Op::Mm, {ctx.input("a", square), ctx.input("b", square), f});
    const cost::ChildShape kids[] = {shape(square), shape(square, Op::Var, computed), shape(f->type())};
    return handover(Op::Mm, {}, kids, node->type(), true);
  };
  auto fed = measure(true), unfed = measure(false);
  ASSERT_TRUE(fed && unfed);
  // the lead: the replay fill, the read's stages and the memory's latency
  EXPECT_GT(fed->lead, fed->load.replayFill);
  EXPECT_GT(fed->drain, 0);
  EXPECT_EQ(unfed->fedTail, 0);
  EXPECT_EQ(fed->fedLines, 64);  // K's 64 lines of 64 bytes
  EXPECT_GE(fed->fedAfter, fed->load.depth);
  // K is replayed as one block (lower::replayAfterLastLine): its replay after the last
  // line, not the unit's work on one line, is what is left
  EXPECT_GT(fed->fedTail, (fed->load.busiest + 63) / 64 + fed->fedAfter);
}

}  // namespace
}  // namespace skeleshare::driver
