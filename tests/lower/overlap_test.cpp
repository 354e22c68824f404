// Units that may start with the unit before them (lower/overlap.h), and what they then
// may not share with it: line RAMs and replay-pool RAMs.

#include <gtest/gtest.h>

#include "skeleshare/lower/line_rams.h"
#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/replay_pool.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/timing.h"

namespace skeleshare::lower {
namespace {

const std::vector<int64_t> kShape{64, 64};  // 64 lines of i8
const int64_t kRoomy = int64_t{1} << 40;    // an on-chip budget that any test design fits

int64_t m20kBits(const Program& prog) { return programResources(prog).m20kBlocks * kM20kBits; }

/// Buffers x, t0, t1, t2 (on chip), out, all of one shape; `copy(from, to)` adds a unit
/// that copies one buffer into another.
struct Chain {
  Program prog;
  std::vector<int64_t> shape;
  explicit Chain(std::vector<int64_t> s = kShape) : shape(std::move(s)) {
    prog.buffers.push_back({"x", 8, shape, Memory::OffChip, Role::Input});
    for (const char* t : {"t0", "t1", "t2"}) prog.buffers.push_back({t, 8, shape, Memory::OnChip, Role::Intermediate});
    prog.buffers.push_back({"out", 8, shape, Memory::OffChip, Role::Output});
  }
  void copy(int from, int to) { copy(from, to, AddrGen::identity(shape)); }
  void copy(int from, int to, const AddrGen& write) {
    prog.units.push_back({"u" + std::to_string(prog.units.size()), {}, std::nullopt});
    UnitBuilder b(prog, prog.units.back());
    b.write(to, write, b.read(from, AddrGen::identity(shape)));
  }
};

TEST(Overlap, AUnitStartsWithItsProducerWhenTheProducerLeavesEachLineFinal) {
  Chain c;
  c.copy(0, 1);
  c.copy(1, 2);
  c.copy(2, 3);
  c.copy(3, 4);
  const OverlapPlan plan = planOverlap(c.prog);
  EXPECT_EQ(plan.withPrevious, (std::vector<bool>{false, true, true, true}));
  // each unit's read (node 0) waits on the unit before it's write (node 1)
  EXPECT_EQ(plan.gatedOn.size(), 3u);
  for (size_t u = 1; u < 4; ++u) EXPECT_EQ(plan.gatedOn.at({u, 0u}), 1u);

  // Running beside each other, neighbours share no line RAM: t0 (u0..u1) and t2 (u1..u3,
  // as u2 starts with u1) meet, so three RAMs, where one after another two do.
  EXPECT_EQ(planLineRams(c.prog).rams.size(), 2u);
  applyOverlap(c.prog, kRoomy);
  EXPECT_EQ(c.prog.firstShared(2), 1u);
  EXPECT_EQ(c.prog.firstShared(0), 0u);
  EXPECT_EQ(gatedReads(c.prog, 2), (std::map<uint32_t, uint32_t>{{0u, 1u}}));
  EXPECT_EQ(planLineRams(c.prog).rams.size(), 3u);
}

TEST(Overlap, AUnitStartsWithItsProducerOnlyWhileTheRamsItThenNeedsFitTheDevice) {
  Chain c({1024, 64});  // 1,024 lines: each buffer takes M20K blocks
  c.copy(0, 1);
  c.copy(1, 2);
  c.copy(2, 3);
  c.copy(3, 4);
  const int64_t alone = m20kBits(c.prog);
  applyOverlap(c.prog, kRoomy);
  const int64_t together = m20kBits(c.prog);
  ASSERT_GT(together, alone);  // the third line RAM
  // with only the blocks that one unit at a time needs, the overlaps that take another
  // RAM are left out, and what is left fits
  applyOverlap(c.prog, alone);
  EXPECT_LE(m20kBits(c.prog), alone);
  EXPECT_EQ(c.prog.startsWithPrevious, (std::vector<bool>{false, true, false, true}));
  applyOverlap(c.prog, together);
  EXPECT_EQ(c.prog.startsWithPrevious, (std::vector<bool>{false, true, true, true}));
}

TEST(Overlap, AUnitWaitsForAProducerThatReturnsToItsLines) {
  Chain c;
  AddrGen columns = AddrGen::identity(kShape);
  columns.transpose(0, 1);
  c.copy(0, 1, columns);  // t0 written by columns: every line again for each column
  c.copy(1, 2);
  c.copy(2, 3);
  EXPECT_EQ(planOverlap(c.prog).withPrevious, (std::vector<bool>{false, false, true}));
}

TEST(Overlap, AUnitWaitsWhenItWritesWhatItsNeighbourUsesOrReadsATwiceWrittenBuffer) {
  {
    Chain c;
    c.copy(0, 1);
    c.copy(0, 1);  // writes t0 again, which u0 writes
    c.copy(1, 4);  // reads t0, which two units write
    EXPECT_EQ(planOverlap(c.prog).withPrevious, (std::vector<bool>{false, false, false}));
  }
  {
    Chain c;
    c.copy(1, 2);  // reads t0
    c.copy(3, 1);  // writes t0, which u0 reads: it must wait
    EXPECT_EQ(planOverlap(c.prog).withPrevious, (std::vector<bool>{false, false}));
  }
  {
    Chain c;
    c.copy(0, 1);
    c.copy(0, 2);  // independent of u0: starts with it, nothing to wait for
    const OverlapPlan plan = planOverlap(c.prog);
    EXPECT_EQ(plan.withPrevious, (std::vector<bool>{false, true}));
    EXPECT_TRUE(plan.gatedOn.empty());
    applyOverlap(c.prog, kRoomy);
    EXPECT_TRUE(gatedReads(c.prog, 1).empty());
  }
}

TEST(Overlap, NeighboursThatRunAtOnceReplayFromRamsOfTheirOwnSide) {
  // four units, each replaying x's rows (a block of 64 words of 64 lanes) twice, and
  // writing nothing: each may start with the one before it
  Chain c;
  for (int u = 0; u < 4; ++u) {
    c.prog.units.push_back({"u" + std::to_string(u), {}, std::nullopt});
    UnitBuilder b(c.prog, c.prog.units.back());
    AddrGen rows = AddrGen::identity(kShape);
    rows.counters[1].kind = DimKind::Vector;
    b.op(Prim::Repeat, {b.read(0, rows)}, {2, 0});
  }
  const OverlapPlan plan = planOverlap(c.prog);
  EXPECT_EQ(plan.withPrevious, (std::vector<bool>{false, true, true, true}));
  // one after another they share one RAM; side by side, u0 keeps it, u1 and u3 share
  // one, u2 takes a third: no two neighbours replay from one RAM
  EXPECT_EQ(planReplayPool(c.prog).slots.size(), 1u);
  applyOverlap(c.prog, kRoomy);
  const ReplayPool pool = planReplayPool(c.prog);
  ASSERT_EQ(pool.slots.size(), 3u);
  auto slot = [&](size_t u) { return pool.slotOf.at({u, 1u}); };
  EXPECT_NE(slot(0), slot(1));
  EXPECT_NE(slot(1), slot(2));
  EXPECT_NE(slot(2), slot(3));
  EXPECT_EQ(slot(1), slot(3));
  EXPECT_EQ(pool.slots[slot(3)].words, 128);
}

TEST(Overlap, AReplayedReadOfItsNeighboursBufferWaitsForTheBlockHoldingTheLastLine) {
  // u0 copies x into t0 row by row; u1, beside it, replays t0 twice, reading it by rows
  // or by columns (every vector an element of each of the 64 lines), each step a block of
  // its own (repeat at position 1) or all of it one block (position 0)
  auto gap = [](bool columns, int64_t position) {
    Chain c;
    c.copy(0, 1);
    c.prog.units.push_back({"u1", {}, std::nullopt});
    UnitBuilder b(c.prog, c.prog.units.back());
    AddrGen read = AddrGen::identity(kShape);
    if (columns) read.transpose(0, 1);
    read.counters[1].kind = DimKind::Vector;
    b.op(Prim::Repeat, {b.read(1, read)}, {2, position});
    applyOverlap(c.prog, kRoomy);
    EXPECT_EQ(c.prog.firstShared(1), 0u);
    const CycleEstimate e = estimateCycles(c.prog, cost::MemorySystem{700, 4});
    return e.end[1] - e.end[0];
  };
  // by rows a row's block replays once that row is written: the last row's two steps and
  // the pipeline are left after u0's end
  const int64_t rows = gap(false, 1);
  EXPECT_LT(rows, 20) << rows;
  // one block, or a first block that needs the last line: all 128 replayed steps are left
  EXPECT_EQ(gap(false, 0), 128 + 7);  // and the read's 5 stages and the repeat's 2
  EXPECT_EQ(gap(true, 1), gap(false, 0));
}

/// A call of instance 0 that multiplies x's rows by w's, `chunks` steps of 8 elements
/// accumulated per result; with `bias`, the products are added to a third port's values
/// after the vector sum (a second join of a port).
void addDotCall(Program& prog, int64_t chunks, bool bias = false) {
  Unit u{"c" + std::to_string(prog.units.size()), {}, Call{0, {}}};
  UnitBuilder b(prog, u);
  const int64_t rows = 64 / chunks;
  std::vector<Counter> ctr{{rows, DimKind::Stream}, {chunks, DimKind::Stream}, {4, DimKind::Vector}, {8, DimKind::Vector}};
  AddrGen gx = AddrGen::identity({rows, chunks * 8});
  gx.regroup(ctr, {Affine{0, {1, 0, 0, 0}}, Affine{0, {0, 8, 0, 1}}});
  AddrGen gw = AddrGen::identity({4, chunks * 8});
  gw.regroup(ctr, {Affine{0, {0, 0, 1, 0}}, Affine{0, {0, 8, 0, 1}}});
  const uint32_t m = b.op(Prim::Mul, {b.read(0, gx), b.read(1, gw)}, {1});
  uint32_t t = b.op(Prim::ReduceVec, {m}, {0});
  u.call->datapath = {m, t};
  if (bias) {
    AddrGen gb = AddrGen::identity({rows, chunks * 4});
    gb.regroup({{rows, DimKind::Stream}, {chunks, DimKind::Stream}, {4, DimKind::Vector}},
               {Affine{0, {1, 0, 0}}, Affine{0, {0, 4, 1}}});
    t = b.op(Prim::Add, {t, b.read(2, gb)});
    u.call->datapath.push_back(t);
  }
  const uint32_t acc = b.op(Prim::ReduceStm, {t}, {0});
  u.call->datapath.push_back(acc);
  AddrGen go = AddrGen::identity({rows, 4});
  go.counters[1].kind = DimKind::Vector;
  b.write(3 + static_cast<int>(prog.units.size()), go, b.op(Prim::Saturate, {acc}, {8}));
  prog.units.push_back(std::move(u));
}

Program dotCalls(int64_t chunks, bool bias = false) {
  Program prog;
  const int64_t rows = 64 / chunks;
  prog.buffers.push_back({"x", 8, {rows, 8 * chunks}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"w", 8, {4, 8 * chunks}, Memory::OffChip, Role::Weight});
  prog.buffers.push_back({"b", 32, {rows, 4 * chunks}, Memory::OffChip, Role::Weight});
  for (const char* o : {"o0", "o1"}) prog.buffers.push_back({o, 8, {rows, 4}, Memory::OffChip, Role::Output});
  prog.instances.push_back({"let1", "dot 4 x 8"});
  addDotCall(prog, chunks, bias);
  addDotCall(prog, chunks, bias);
  applyOverlap(prog, kRoomy);
  return prog;
}

TEST(Overlap, CallsInterleaveStepByStepOnlyWhenTheirInstanceKeepsNothingBetweenSteps) {
  // one result per step, the two ports joined by the multiplier: the second call, which
  // starts with the first, interleaves with it
  const Program perStep = dotCalls(1);
  ASSERT_EQ(perStep.firstShared(1), 0u);
  EXPECT_TRUE(stepsInterleave(perStep, 0));
  EXPECT_TRUE(interleavesSteps(perStep, 1));
  EXPECT_FALSE(interleavesSteps(perStep, 0));  // it has no neighbour
  // an accumulation over two steps keeps a sum between them: handed over stream by stream
  const Program summed = dotCalls(2);
  ASSERT_EQ(summed.firstShared(1), 0u);
  EXPECT_TRUE(handsOverStreams(summed, 1));
  EXPECT_FALSE(stepsInterleave(summed, 0));
  EXPECT_FALSE(interleavesSteps(summed, 1));
  // a port that joins the datapath after the multiplier would enter in another transfer
  const Program biased = dotCalls(1, true);
  EXPECT_FALSE(stepsInterleave(biased, 0));

  // The estimate: interleaved, the second call's steps follow the first call's steps, not
  // its end, so it ends sooner than handed over at the first's end.
  const CycleEstimate e = estimateCycles(perStep, cost::MemorySystem{700, 4});
  std::cerr << "interleaved: ends " << e.end[0] << ", " << e.end[1] << "; alone " << e.perUnit[0] << ", " << e.perUnit[1] << "\n";
  EXPECT_LT(e.total, e.oneAfterAnother);
}

}  // namespace
}  // namespace skeleshare::lower
