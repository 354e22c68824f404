// The shape of lowered programs: padding feeding a convolution is a masked address pattern
// (no buffer, no unit), element-wise stages fuse into their producer's unit, the other
// operators lower and agree with the skeleton interpreter, unsupported input is refused.

#include <gtest/gtest.h>

#include "skeleshare/ir/builders.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "../common/window_views.h"
#include "test_util.h"

namespace skeleshare::lower::test {
namespace {

const char* kPaddedConv = R"(
input  x : i8[6][5][3];
weight w : i8[4][3][3][3];
output o = relu(requant(conv(pad(x, 1), w), 4));
)";

TEST(Lowering, PadFeedingAConvIsAMaskedAddressPattern) {
  Loaded m = loadDslText(kPaddedConv);
  Program p;
  expectAgrees(m, 5, &p);
  // Buffers: x, w and o only; one unit; nothing of the padded shape 8 x 7 x 3 exists.
  ASSERT_EQ(p.buffers.size(), 3u);
  for (const auto& b : p.buffers) EXPECT_NE(b.shape, (std::vector<int64_t>{8, 7, 3})) << b.name;
  ASSERT_EQ(p.units.size(), 1u) << printProgram(p);
  const Unit& u = p.units[0];
  const Node* readX = nullptr;
  for (const auto& n : u.nodes)
    if (n.prim == Prim::Read && p.buffers[static_cast<size_t>(n.buffer)].name == "x") readX = &n;
  ASSERT_NE(readX, nullptr);
  // The read of x is over x itself, through masks with fill 0 on both padded coordinates.
  EXPECT_EQ(readX->addr.space, (std::vector<int64_t>{6, 5, 3}));
  int padMasks = 0;
  for (const auto& mk : readX->addr.masks)
    if (mk.fill == 0 && mk.lo == 0 && (mk.hi == 6 || mk.hi == 5)) ++padMasks;
  EXPECT_EQ(padMasks, 2) << readX->addr.str();
  // The window (3x3x3 = 27 elements) is read once per position, row group and chunk and
  // broadcast to the 4 output channels' lanes.
  EXPECT_EQ(readX->type.str(), "stm[6][5][1][1] vec[27] i8");  // positions, row groups, one chunk
  // The weights do not depend on the position: read once (one word of 4 x 27) and replayed
  // for the 30 positions from an on-chip buffer. requant and relu are stages of the same
  // unit, before its one write.
  std::vector<Prim> prims;
  for (const auto& n : u.nodes) prims.push_back(n.prim);
  EXPECT_EQ(prims, (std::vector<Prim>{Prim::Read, Prim::Repeat, Prim::SplitStm, Prim::Read, Prim::Broadcast, Prim::Mul,
                                      Prim::ReduceVec, Prim::ReduceStm, Prim::RoundShift, Prim::Saturate, Prim::Const,
                                      Prim::Max, Prim::Write}));
  EXPECT_EQ(u.nodes[0].type.str(), "stm[1][1] vec[4][27] i8");
  EXPECT_EQ(u.nodes[1].params, (std::vector<int64_t>{30, 0}));
  EXPECT_EQ(programResources(p).dsps, 4 * 27);
  EXPECT_EQ(nodeResources(u, u.nodes[1]).onChipBits, 2 * 4 * 27 * 8);  // two banks of one word
}

TEST(Lowering, WideRowsAreChunkedIntoSixtyFourLanes) {
  // N = 3*3*16 = 144: K = 64 lanes, ceil(144/64) = 3 chunks accumulated. The window's rows
  // are 48 columns; each is padded to 64 (its last 16 lanes masked to 0), so that each
  // chunk is one row: a run a chunk, where chunks of 64 flat columns would cut rows 2 and
  // 3 and take 5 runs a window.
  Loaded m = loadDslText(R"(
input  x : i8[4][4][16];
weight w : i8[5][3][3][16];
output o = conv(x, w);
)");
  Program p;
  expectAgrees(m, 2, &p);
  ASSERT_EQ(p.units.size(), 1u);
  const Node& rw = p.units[0].nodes[0];  // the weights: 3 chunks of 5 x 64, replayed per position
  EXPECT_EQ(rw.type.str(), "stm[1][3] vec[5][64] i8");
  const Node& rx = p.units[0].nodes[3];  // the window: 3 chunks of 64 per position, broadcast
  EXPECT_EQ(rx.type.str(), "stm[2][2][1][3] vec[64] i8");
  EXPECT_FALSE(rx.addr.linear().has_value());  // the window is a mixed-radix index
  EXPECT_EQ(readAccess(rx.addr, 1, 64).runs, 2 * 2 * 3);
  EXPECT_EQ(readAccess(rw.addr, 1, 5 * 64).runs, 3 * 5);  // a run a filter's row
  EXPECT_EQ(programResources(p).dsps, 5 * 64);
  bool accumulates = false;
  for (const auto& n : p.units[0].nodes) accumulates |= n.prim == Prim::ReduceStm;
  EXPECT_TRUE(accumulates);
}

TEST(Lowering, OperatorsAroundSkeletons) {
  Loaded m = loadDslText(R"(
input  x : i8[4][4][3];
input  v : i8[12];
weight w : i8[2][3][3][3];
weight b : i32[2];
weight f : i8[6][12];
let c = bias(conv(pad(x, 1, 0, 2, 1, fill=0), w), b);
let y = leaky_relu(c, 2);
let z = max(sub(y, c), min(c, y));
output o1 = requant(z, 3);
output o2 = cast(add(shr(mv(f, v), 2), mv(f, v)), i16);
output o3 = relu(transpose(maxpool(pad(requant(c, 2), 0, 1, 0, 1, fill=-128), 2, 1)));
output o4 = flatten(transpose(requant(c, 1)));
)");
  expectAgrees(m, 9);
  expectAgrees(m, 10);
}

TEST(Lowering, AMaxPoolTakesOneStepPerRowOfItsWindowsSideBySide) {
  // A 2x2 window's two columns of 16 channels are 32 bytes together in memory: one row of
  // two adjacent windows is a 64-byte line, so the two windows are the lanes of one step
  // (max trees) and one run, and the windows' rows two steps of an accumulator: an 8 x 8
  // output takes 64 steps (a window a step took 128, a step per element 256). Windows
  // that overlap (step 1, 48 bytes a row: one a step) and a pool without channels (all 6
  // windows of an output row in a step) lower alike.
  Loaded m = loadDslText(R"(
input  x : i8[16][16][16];
input  y : i8[12][12];
output o1 = maxpool(x, 2, 2);
output o2 = maxpool(x, 3, 1);
output o3 = maxpool(y, 2, 2);
)");
  Program p;
  expectAgrees(m, 5, &p);
  expectAgrees(m, 6);
  ASSERT_EQ(p.units.size(), 3u) << printProgram(p);
  AccessCounter counts;
  const Unit& pool = p.units[0];
  EXPECT_EQ(pool.nodes[0].type.str(), "stm[8][4][2] vec[2][16][2] i8") << printProgram(p);
  EXPECT_EQ(unitLoad(p, pool, counts, {}).busiest, 8 * 4 * 2);
  int64_t runs = 0;
  for (const Node& n : pool.nodes)
    if (n.prim == Prim::Read) runs += counts.read(n.addr, 1, n.type.vectorLanes()).runs;
  EXPECT_EQ(runs, 8 * 4 * 2);
  EXPECT_EQ(p.units[1].nodes[0].type.str(), "stm[14][14][3] vec[16][3] i8") << printProgram(p);
  EXPECT_EQ(unitLoad(p, p.units[1], counts, {}).busiest, 14 * 14 * 3);
  EXPECT_EQ(p.units[2].nodes[0].type.str(), "stm[6][1][2] vec[6][2] i8") << printProgram(p);
  EXPECT_EQ(unitLoad(p, p.units[2], counts, {}).busiest, 6 * 2);
}

TEST(Lowering, ElementwiseOnInputsAndBroadcastConstants) {
  Loaded m = loadDslText(R"(
input  x : i8[3][5];
input  y : i16[3][5];
output o1 = relu(x);
output o2 = add(x, 3);
output o3 = mul(x, y);
output o4 = pad(x, 1);
)");
  Program p;
  expectAgrees(m, 4, &p);
  EXPECT_EQ(programResources(p).dsps, 0);  // an element-wise mul is a logic multiplier
}

TEST(Lowering, SharedLetsAreComputedOnce) {
  Loaded m = loadDslText(R"(
input  x : i8[4][6];
weight w : i8[6][6];
let q = requant(mm(x, w), 3);
output o = requant(mm(q, q), 5);
)");
  Program p;
  expectAgrees(m, 8, &p);
  EXPECT_EQ(p.units.size(), 2u) << printProgram(p);
}

TEST(Lowering, AnOperandReadThroughACroppedResultIsGuardedByTheCrop) {
  // The matrix product's rows are padded 2 -> 3 and its results cropped back to 2; the
  // weight added to them is read with the result's 3 lanes, the third masked by the crop
  // (random program 599 failed here: the check did not see the crop's guard).
  Loaded m = loadIrText(R"(
input x : i8[7][3];
weight w1 : i8[2][3];
weight w3 : i8[7][2];
output out = Add(Requant[8](Mm(@x, @w1, \i8[2][3]. \i8[3]. PaddedMvRows(%1, %0, \i8[3][3]. \i8[3]. Mv(%1, %0, \i8[3][3]. \i8[3][3]. ParallelDot[3](%1, %0))))), @w3);
)");
  Program p;
  expectAgrees(m, 5, &p);
  EXPECT_EQ(p.units.size(), 1u) << printProgram(p);  // the add is fused, the crop is a mask
}

TEST(Lowering, AnOperandReadThroughACropInsideATileIsGuardedByTheCrop) {
  // Eleven filters tiled by one, each tile padded to the unit's two filters and cropped
  // back: the bias is read at tile + lane, and the crop's guard (lane < 1) bounds it to the
  // eleven biases (random program 629 failed here with the widening rules: the check saw
  // tile + lane over 0..11).
  Loaded m = loadIrText(R"(
input x : i8[6][7][1];
weight w : i8[11][3][3][1];
weight b : i32[11];
output out = Bias(TiledConvOCH(@x, @w, \i8[6][7][1]. \i8[1][3][3][1]. PaddedConvOCH(%1, %0, \i8[6][7][1]. \i8[2][3][3][1]. Conv(%1, %0, \i8[2][9]. \i8[9]. Mv(%1, %0, \i8[2][9]. \i8[2][9]. ParallelDot[2](%1, %0))))), @b);
)");
  Program p;
  expectAgrees(m, 7, &p);
  EXPECT_EQ(p.units.size(), 1u) << printProgram(p);  // the bias is fused, the crop is a mask
}

TEST(Lowering, APaddedKernelIsMaskedReadsAndACroppedWrite) {
  // A 1x1 convolution on a 5x6 image run on a 3x3 unit over 8x9: the image padded by
  // three rows and columns, the kernel by two, the 6x7 results cropped to 5x6.
  Loaded m = loadIrText(R"(
input x : i8[5][6][2];
weight w : i8[3][1][1][2];
output out = PaddedConvKS(@x, @w, \i8[8][9][2]. \i8[3][3][3][2]. Conv(%1, %0, \i8[3][18]. \i8[18]. Mv(%1, %0, \i8[3][18]. \i8[3][18]. ParallelDot[3](%1, %0))));
)");
  Program p;
  expectAgrees(m, 6, &p);
  EXPECT_EQ(p.units.size(), 1u) << printProgram(p);
  EXPECT_EQ(programResources(p).dsps, 3 * 18);  // the 3x3 unit's multipliers
}

TEST(Lowering, PairedColumnsAreAViewOfTheInputAndOfTheFilters) {
  // Two output columns a step: the padded 6x10x3 image read as 6x6x6 (its columns in pairs,
  // one zero pair), the 2 filters as 4 of 6 channels, shifted for the odd column; 4x4
  // tiles of the paired image, their channels padded to 8 per pair as a shared unit's are.
  Loaded m = loadIrText(R"(
input x : i8[4][8][3];
weight w : i8[2][3][3][3];
output out = Requant[2](PairedConvW(Pad[1, 1, 1, 1, 0](@x), @w, \i8[4][4][6]. \i8[4][3][3][6]. PaddedConvICH(%1, %0, \i8[4][4][16]. \i8[4][3][3][16]. Conv(%1, %0, \i8[4][144]. \i8[144]. Mv(%1, %0, \i8[4][144]. \i8[4][144]. ParallelDot[4](%1, %0))))));
)");
  Program p;
  expectAgrees(m, 11, &p);
  ASSERT_EQ(p.units.size(), 1u) << printProgram(p);
  EXPECT_EQ(programResources(p).dsps, 4 * 64);  // the 4-filter unit's lanes: 144 columns, 64 a step
  // the zero channels are dropped: one step a pair of windows (3 x 3 x 2 x 3 = 54 columns)
  int64_t steps = 0;
  for (const auto& n : p.units[0].nodes)
    if (n.prim == Prim::Mul) steps = n.type.streamSteps();
  EXPECT_EQ(steps, 4 * 4) << printProgram(p);
}

TEST(Lowering, PartialDotsAndLetsLower) {
  Loaded m;
  ir::Context& ctx = *m.ctx;
  const ir::Type* i8 = ctx.intType(8);
  int64_t sh[] = {4, 8};
  const ir::Type* mt = ctx.tensorType(sh, i8);
  const ir::Term* a = ctx.input("a", mt);
  const ir::Term* b = ctx.input("b", mt);
  m.module.decls = {{"a", ir::Decl::Kind::Input, mt}, {"b", ir::Decl::Kind::Input, mt}};
  m.module.outputs = {{"o", ctx.op(ir::Op::ParallelPartialDot, {a, b}, {2, 2})}};
  Program p;
  expectAgrees(m, 3, &p);
  EXPECT_EQ(programResources(p).dsps, 2 * 8);  // P * min(N, 64), as the cost model says
  // A let-bound design (App of a lambda): one instance, one call.
  const ir::Term* f = ir::dotF(ctx, 4, 8, i8, i8, 4);
  const ir::Term* use = ctx.app(ctx.app(ctx.var(0, f->type()), a), b);
  m.module.outputs = {{"o", ctx.app(ctx.lam(f->type(), use), f)}};
  expectAgrees(m, 4, &p);
  ASSERT_EQ(p.instances.size(), 1u);
  ASSERT_TRUE(p.units.back().call.has_value());
  EXPECT_EQ(programResources(p).dsps, 4 * 8);
}

TEST(Lowering, RefusesWhatItDoesNotLower) {
  // A non-linear stage inside a summed tiling would be applied to each tile's part.
  Loaded m = loadIrText(R"(
input a : i8[4][8];
input v : i8[8];
output o = TiledMv(@a, @v, \i8[4][4]. \i8[4]. Relu(Mv(%1, %0, \i8[4][4]. \i8[4][4]. ParallelDot[4](%1, %0))));
)");
  EXPECT_THROW(lowerModule(m.module, *m.ctx), LowerError);
}

// The estimate of the padded convolution: the window read is the busiest stage (three
// window rows of three pixels per position: three runs each, and one more where a row
// starts in the padding); the weights are read once.
TEST(Lowering, CycleEstimateCountsRunsAndLines) {
  Loaded m = loadDslText(kPaddedConv);
  Program p = lowerModule(m.module, *m.ctx);
  auto e = estimateCycles(p, {700, 4});
  ASSERT_EQ(e.perUnit.size(), 1u);
  const cost::UnitLoad& l = e.loads[0];
  AccessCount x = readAccess(p.units[0].nodes[3].addr, 1, 27);
  EXPECT_EQ(l.busiest, x.runs);
  EXPECT_GE(x.runs, 30 * 3);
  EXPECT_LE(x.runs, 30 * 3 + 6 + 5 + 6 + 5);  // at most one more per padded window row
  // The weights: one 4 x 27 word, read once; its rows are flattened (ky, kx, c) windows,
  // and a run stops where ky changes: three runs per row.
  EXPECT_EQ(readAccess(p.units[0].nodes[0].addr, 1, 4 * 27).runs, 12);
  EXPECT_EQ(e.total, cost::unitCycles(l, {700, 4}) + cost::kUnitSwitch);
}

// Lanes past a flattened window's end are masked by its top digit (a tail mask): the run
// of the window's last row goes on over all of them, past the wraps of the digits below
// (ss_agen). Three runs a window, not the 3 + 5 of one run per masked "row". Only when
// every mask fills alike: with another fill a mask of higher priority could decide them.
TEST(Lowering, MaskedTailLanesOfAWindowAreOneRun) {
  EXPECT_EQ(readAccess(test_support::paddedWindow(6, 7, 0), 1, 64).runs, 6 * 7 * 3);
  EXPECT_EQ(readAccess(test_support::paddedWindow(6, 7, 5), 1, 64).runs, 6 * 7 * 8);
}

// A partial dot's lanes, [chunks][lanes per chunk] over one flattened window, walk as one
// counter (agenParams): the window's runs are those of its 64 flat lanes, 3 a window, not
// one per chunk of 4 lanes (7 a 27-element window).
TEST(Lowering, ChunkAndLaneCountersOfOneIndexWalkAsOne) {
  const AddrGen chunks = test_support::paddedWindowInChunks(6, 7, 0);
  ASSERT_EQ(chunks.counters.size(), 4u);
  EXPECT_EQ(agenParams(chunks).nc, 3);
  EXPECT_EQ(agenParams(chunks).extents, agenParams(test_support::paddedWindow(6, 7, 0)).extents);
  EXPECT_EQ(readAccess(chunks, 1, 64).runs, 6 * 7 * 3);
  EXPECT_EQ(readAccess(chunks, 1, 64).lines, readAccess(test_support::paddedWindow(6, 7, 0), 1, 64).lines);
  // Counters that no single index reads as one stay apart: rows and columns.
  EXPECT_EQ(agenParams(AddrGen::identity({6, 7})).nc, 2);
}

// The counter keeps each walk's answer: asked again (a read, a write, other lanes), it
// answers as readAccess and writeAccess do, and walks each distinct question once.
TEST(Lowering, AccessCounterAnswersAsTheWalksDoAndWalksOnce) {
  Loaded m = loadDslText(kPaddedConv);
  Program p = lowerModule(m.module, *m.ctx);
  const AddrGen& window = p.units[0].nodes[3].addr;
  const AddrGen& weights = p.units[0].nodes[0].addr;
  AccessCounter counts;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t lanes : {27, 9}) {
      AccessCount a = counts.read(window, 1, lanes), b = readAccess(window, 1, lanes);
      EXPECT_EQ(a.runs, b.runs);
      EXPECT_EQ(a.lines, b.lines);
    }
    AccessCount w = counts.write(weights, 1, 4 * 27), v = writeAccess(weights, 1, 4 * 27);
    EXPECT_EQ(w.runs, v.runs);
    EXPECT_EQ(w.lines, v.lines);
    EXPECT_EQ(counts.read(weights, 1, 4 * 27).runs, 12);
  }
  EXPECT_EQ(counts.walks(), 4u);
}

// A read may run beside the write of its buffer only when that write leaves every line
// final as it moves on (writeLinesRise): its lines in rising order, each once.
TEST(Lowering, AWriteWhoseLinesRiseIsOneThatNeverReturnsToALine) {
  // rows of a 24 x 16 i8 buffer, a row a vector: 6 lines, each filled, then left
  AddrGen rows = AddrGen::identity({24, 16});
  EXPECT_TRUE(writeLinesRise(rows, 1, 16));
  EXPECT_TRUE(writeLinesRise(AddrGen::identity({64, 64}), 1, 64));
  // the same buffer by columns (a transposed write): every column visits every line
  AddrGen columns = AddrGen::identity({24, 16});
  columns.transpose(0, 1);
  EXPECT_FALSE(writeLinesRise(columns, 1, 24));
  // backwards: each line once, but falling
  AddrGen backwards = AddrGen::identity({8, 64});
  backwards.reverse(0);
  EXPECT_FALSE(writeLinesRise(backwards, 1, 64));
  // two 32-byte halves of each line, the left halves of all lines first: back to line 0
  AddrGen halves = AddrGen::identity({4, 64});
  halves.split(1, 32);
  halves.permute({1, 0, 2});
  EXPECT_FALSE(writeLinesRise(halves, 1, 32));
  // i32 elements: a 16-element row is a line, rows in order
  EXPECT_TRUE(writeLinesRise(AddrGen::identity({8, 16}), 4, 16));
}

// ss_read's aligners lose a stage per low bit that every run's line offset (among runs
// that access an element) and every run's first lane have zero (readAlignment).
TEST(Lowering, ARunsAlignmentIsTheLowZeroBitsOfEveryOffsetAndLaneItStartsAt) {
  // whole lines into whole vectors: no shift, no rotation
  RunAlignment lines = readAlignment(AddrGen::identity({8, 64}), 1, 64, 1 << 20);
  EXPECT_EQ(lines.offsetBits, 6);
  EXPECT_EQ(lines.laneBits, kMaxAlignmentBits);
  // two lines a vector: the second run starts at lane 64
  RunAlignment pairs = readAlignment(AddrGen::identity({8, 64}), 1, 128, 1 << 20);
  EXPECT_EQ(pairs.offsetBits, 6);
  EXPECT_EQ(pairs.laneBits, 6);
  // 24-byte rows start at bytes 0, 24, 48, 8, ... of their lines: multiples of 8
  EXPECT_EQ(readAlignment(AddrGen::identity({16, 24}), 1, 24, 1 << 20).offsetBits, 3);
  // i32 rows of 4 elements: 16 bytes apart
  EXPECT_EQ(readAlignment(AddrGen::identity({8, 4}), 4, 4, 1 << 20).offsetBits, 4);
  // a 3-wide window sliding by one byte starts anywhere
  AddrGen windows = AddrGen::identity({66});
  windows.slide(0, 3, 1);
  EXPECT_EQ(readAlignment(windows, 1, 3, 1 << 20).offsetBits, 0);
  // a read with more runs than it may walk keeps the aligners for any run
  RunAlignment unwalked = readAlignment(AddrGen::identity({8, 64}), 1, 64, 4);
  EXPECT_EQ(unwalked.offsetBits, 0);
  EXPECT_EQ(unwalked.laneBits, 0);
}

// A write's runs lie in one line each: a 128-lane vector of whole lines is written in two
// runs, at lanes 0 and 64; 24-byte rows start at multiples of 8 bytes, and one that
// crosses into the next line goes on there at byte 0, from lane 16 or 8.
TEST(Lowering, AWritesAlignmentCountsTheRunsItWrites) {
  RunAlignment lines = writeAlignment(AddrGen::identity({8, 128}), 1, 128, 1 << 20);
  EXPECT_EQ(lines.offsetBits, 6);
  EXPECT_EQ(lines.laneBits, 6);
  RunAlignment rows = writeAlignment(AddrGen::identity({16, 24}), 1, 24, 1 << 20);
  EXPECT_EQ(rows.offsetBits, 3);
  EXPECT_EQ(rows.laneBits, 3);
  // masked runs write nothing, so they do not count: a padded row's pad lanes
  AddrGen padded = AddrGen::identity({4, 64});
  padded.pad(1, 3, 0, 0);  // 67 lanes, the first 3 masked
  RunAlignment past = writeAlignment(padded, 1, 67, 1 << 20);
  EXPECT_EQ(past.offsetBits, 6);
  EXPECT_EQ(past.laneBits, 0);  // the row's data starts at lane 3
}

}  // namespace
}  // namespace skeleshare::lower::test
