// The cost model's formulas (paper Section IV-C, Appendix A) on hand-built terms, the
// device files, and the let-aware design cost.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "skeleshare/cost/cost_model.h"
#include "skeleshare/cost/cycle_model.h"
#include "skeleshare/ir/builders.h"

using namespace skeleshare;
using namespace skeleshare::cost;
using ir::Op;

namespace {

Device arria() { return findDevice(kDefaultDevice, SKELESHARE_SOURCE_DIR); }

struct CostTest : ::testing::Test {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  CostModel model{arria()};
  const ir::Term* in(const char* name, std::vector<int64_t> dims) {
    return ctx.input(name, ctx.tensorType(dims, i8));
  }
  // Use cost of a closed term, every sub-term in place.
  std::array<int64_t, kDims> cost(const ir::Term* t) { return designCost(model, t).use; }
};

TEST(Device, ArriaFileHasThePapersBoard) {
  Device d = arria();
  EXPECT_EQ(d.name, "arria10_gx1150");
  EXPECT_EQ(d.dspBlocks, 1518);
  EXPECT_EQ(d.alms, 427200);
  EXPECT_EQ(d.m20kBlocks, 2713);
  EXPECT_DOUBLE_EQ(d.clockMhz, 200.0);
  EXPECT_EQ(d.hostLineBits, 512);
  EXPECT_EQ(d.simdWidth(), 64);
}

TEST(Device, MalformedFilesAreRejectedWithTheField) {
  auto msg = [](const std::string& text) {
    try {
      parseDevice(text, "dev.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(msg("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(msg(R"({"name": "x", "alms": 1, "m20k_blocks": 1, "clock_mhz": 1, "host_line_bits": 8})")
                .find("dsp_blocks"),
            std::string::npos);
  EXPECT_NE(msg(R"({"name": "x", "dsp_blocks": -3, "alms": 1, "m20k_blocks": 1, "clock_mhz": 1, "host_line_bits": 8})")
                .find("positive"),
            std::string::npos);
  EXPECT_NE(msg(R"({"name": "x", "dsp_blocks": 3, "alms": 1, "m20k_blocks": 1, "clock_mhz": 1, "host_line_bits": 12})")
                .find("multiple of 8"),
            std::string::npos);
  const std::string base = R"({"name": "x", "dsp_blocks": 3, "alms": 1, "m20k_blocks": 1, "clock_mhz": 1, "host_line_bits": 8)";
  const std::string modes = R"(, "dsp_modes": [{"max_bits": [18, 19], "products": 2}])";
  EXPECT_NE(msg(base + modes + "}").find("memory_lines_per_cycle"), std::string::npos);
  EXPECT_NE(msg(base + modes + R"(, "memory_lines_per_cycle": 1.5, "memory_latency_cycles": 2})").find("memory_lines_per_cycle"),
            std::string::npos);
  EXPECT_NE(msg(base + modes + R"(, "memory_lines_per_cycle": 0.5})").find("memory_latency_cycles"), std::string::npos);
  EXPECT_NE(msg(base + R"(, "memory_lines_per_cycle": 0.5, "memory_latency_cycles": 2})").find("dsp_modes"),
            std::string::npos);
  EXPECT_NE(msg(base + R"(, "memory_lines_per_cycle": 0.5, "memory_latency_cycles": 2, "dsp_modes": [{"max_bits": [19, 18], "products": 2}]})")
                .find("dsp_modes"),
            std::string::npos);
  EXPECT_EQ(msg(base + modes + R"(, "memory_lines_per_cycle": 0.5, "memory_latency_cycles": 2})"), "accepted");
  EXPECT_THROW(findDevice("no_such_board", SKELESHARE_SOURCE_DIR), std::runtime_error);
}

// Arria 10's DSP blocks: two products up to 18 x 19 bits, one up to 27 x 27, and wider
// products take several blocks.
TEST(Device, DspBlocksPackTwoNarrowProducts) {
  Device d = findDevice(kDefaultDevice, SKELESHARE_SOURCE_DIR);
  EXPECT_EQ(d.productsPerBlock(8, 8), 2);
  EXPECT_EQ(d.productsPerBlock(16, 8), 2);
  EXPECT_EQ(d.productsPerBlock(19, 18), 2);
  EXPECT_EQ(d.productsPerBlock(19, 19), 1);  // two 18 x 19 multipliers: one operand at most 18 bits
  EXPECT_EQ(d.productsPerBlock(27, 20), 1);
  EXPECT_EQ(d.productsPerBlock(32, 8), 0);
  EXPECT_EQ(d.dspBlocksFor(1408, 8, 8), 704);
  EXPECT_EQ(d.dspBlocksFor(27, 8, 8), 14);
  EXPECT_EQ(d.dspBlocksFor(10, 32, 32), 40);  // 2 x 2 blocks of 27 x 27 per product
}

// The memory port of the paper's board, as the cycle model reads it.
TEST(Device, MemoryPortOfTheBoard) {
  Device d = findDevice(kDefaultDevice, SKELESHARE_SOURCE_DIR);
  MemorySystem m = memorySystem(d);
  EXPECT_EQ(m.linesPerKilocycle, 700);
  EXPECT_EQ(m.latency, 4);
  // busiest stage or port, whichever is longer, plus depth and latency
  EXPECT_EQ(unitCycles({100, 10, 5}, m), 100 + 5 + 4);
  EXPECT_EQ(unitCycles({100, 140, 5}, m), 200 + 5 + 4);
  EXPECT_EQ(unitCycles({100, 141, 5}, m), 202 + 5 + 4);  // ceil(141 / 0.7)
  // an on-chip buffer's port moves a line per cycle, beside the external port
  EXPECT_EQ(unitCycles({100, 10, 5, 150}, m), 150 + 5 + 4);
  EXPECT_EQ(unitCycles({100, 140, 5, 150}, m), 200 + 5 + 4);
}

// A unit that starts with the unit before it (lower/overlap.h): where it ends.
TEST(Device, AUnitThatStartsWithItsNeighbourHidesItsLeadBehindIt) {
  // both start at 0; the neighbour ends at 100. A unit of 80 cycles, 20 of them its lead,
  // 10 its pipeline. Independent of the neighbour, it ends at its own 80
  auto unit = [](int64_t start, int64_t cycles = 80, int64_t tail = 10) {
    return OverlappingUnit{.start = start, .cycles = cycles, .lead = 20, .tail = tail};
  };
  EXPECT_EQ(overlappedEnd(unit(0), {100}), 80);
  // fed by it, at least its pipeline after the neighbour's last line
  EXPECT_EQ(overlappedEnd(unit(0), {100, true}), 110);
  EXPECT_EQ(overlappedEnd(unit(0), {50, true}), 80);
  // sharing one instance, it computes after the neighbour, its lead already done
  EXPECT_EQ(overlappedEnd(unit(0), {100, false, true}), 160);
  EXPECT_EQ(overlappedEnd(unit(95), {100, false, true}), 175);  // 5 of its lead hidden
  // handed over stream by stream, it takes the instance when the neighbour's last input
  // is in, 25 cycles before the neighbour's end
  EXPECT_EQ(overlappedEnd(unit(0), {100, false, true, 25}), 135);
  EXPECT_EQ(overlappedEnd(unit(90), {100, false, true, 25}), 170);  // never before its own start
  // and fed by it, no earlier than its pipeline after the neighbour
  EXPECT_EQ(overlappedEnd(unit(0, 20, 50), {100, true, true, 25}), 150);
}

// Two calls of an instance that interleave step by step: the unit takes the steps the
// neighbour leaves free, so only the instance's capacity, its own time after the
// neighbour's steps and the shared port bound it.
TEST(Device, AUnitThatInterleavesWithItsNeighbourFollowsItsStepsNotItsEnd) {
  // the neighbour ends at 200 but its 64 steps were all taken by 100 (it waited on memory)
  Neighbour prev{.end = 200, .sharesInstance = true, .interleaves = true, .stepsTaken = 100};
  OverlappingUnit u{.start = 0, .cycles = 80, .lead = 10, .steps = 64, .drain = 6};
  // 64 steps after the neighbour's, and 6 to drain: 170, not the 200 + 70 of a handover
  EXPECT_EQ(overlappedEnd(u, prev), 170);
  EXPECT_EQ(stepsTaken(u, prev), 164);
  // alone it needs 110 cycles, 100 after its lead (its port's, say): those follow the
  // neighbour's steps
  u.cycles = 110;
  EXPECT_EQ(overlappedEnd(u, prev), 200);
  // without the neighbour's steps in the way, its own start and lead
  prev.stepsTaken = 0;
  u.cycles = 80;
  EXPECT_EQ(overlappedEnd(u, prev), 80);
  EXPECT_EQ(stepsTaken(u, prev), 74);
  // a replay fill waits for the port to move the neighbour's lines first
  prev.portDone = 50;
  u.fill = 20;
  u.lead = 30;
  EXPECT_EQ(stepsTaken(u, prev), 50 + 20 + 64);
  // and the unit's own lines follow the neighbour's over the port
  u.port = 120;
  u.portTail = 8;
  EXPECT_EQ(portDone(u, prev), 170);
  EXPECT_EQ(overlappedEnd(u, prev), 178);
}

// A unit bound by its reads' runs, not its lines, beside a neighbour that holds the port
// (TinyYolo's convolution after a pool): its stalled stages wait for the neighbour's lines.
TEST(Device, StagesThatWaitOnLinesWaitWhileTheNeighbourHoldsThePort) {
  // the neighbour's lines take the port until 600; the unit needs 1,000 cycles alone, of
  // which 990 are runs of a read (100 lines: its port term ends at 600 + 143 + 10)
  Neighbour prev{.end = 650, .portDone = 600};
  OverlappingUnit u{.start = 0, .cycles = 1'000, .lead = 10, .port = 143, .portTail = 10};
  EXPECT_EQ(overlappedEnd(u, prev), 1'000);
  u.stalled = 990;
  EXPECT_EQ(overlappedEnd(u, prev), 600 + 990 + 10);
  // with the port free by its start, its own time
  prev.portDone = 0;
  EXPECT_EQ(overlappedEnd(u, prev), 1'000);
}

// A layer's bound: its MACs over the multipliers, or its weights over the port.
// Handed a shared instance by the unit before it, a unit starts its lead while that one
// runs and takes the instance when its last input is in: it saves its lead and the
// neighbour's drain and switch, which the extractor credits to every caller of it.
TEST(Device, AHandedOverUnitSavesItsLeadAndTheNeighboursDrainAndSwitch) {
  EXPECT_EQ(handoverCredit(20, 25), 20 + 25 + kUnitSwitch);
  EXPECT_EQ(handoverCredit(0, 0), kUnitSwitch);
  // the unit of 80 cycles, 20 of them its lead, beside a neighbour that ends at 100 and
  // lets the instance go 25 cycles before: it ends the credit before its end after it
  const OverlappingUnit unit{.start = 0, .cycles = 80, .lead = 20};
  EXPECT_EQ(overlappedEnd(unit, {100, false, true, 25}) + handoverCredit(20, 25), 100 + kUnitSwitch + 80);
}

TEST(Device, LayerBoundIsComputeOrWeightTraffic) {
  MemorySystem m = memorySystem(findDevice(kDefaultDevice, SKELESHARE_SOURCE_DIR));
  // self-attention's Q projection on 2,048 multipliers: 128 cycles of compute, its
  // 64 x 64 weights 64 lines (92 cycles of the port)
  EXPECT_EQ(layerBoundCycles(262'144, 4'096, 2'048, 64, m), 128);
  // a VGG-CIFAR 512 x 3 x 3 x 512 layer on 2 x 2 pixels: 36,864 weight lines, 52,663
  // cycles of the port, where its 9,437,184 MACs take 3,511 on 2,688 multipliers
  EXPECT_EQ(layerBoundCycles(9'437'184, 2'359'296, 2'688, 64, m), 52'663);
  EXPECT_EQ(layerBoundCycles(9'437'184, 2'359'296, 128, 64, m), 73'728);
  // a part line is a line; no multipliers count as one
  EXPECT_EQ(layerBoundCycles(0, 1, 1, 64, m), 2);
  EXPECT_EQ(layerBoundCycles(5, 0, 0, 64, m), 5);
  // an absurd program's saturated MAC count stays the largest count, not a negative one
  EXPECT_EQ(computeCycles(UINT64_MAX, 1), INT64_MAX);
  EXPECT_EQ(computeCycles(UINT64_MAX, 2), INT64_MAX);
  EXPECT_EQ(computeCycles(7, 2), 4);
}

TEST_F(CostTest, ParallelDotTimeAndDsps) {
  // M = 64, N = 576, P = 64: 1 * 9 passes, 64 * 64 DSPs (the 64-DSP cap per dot product).
  NodeCost c = model.nodeCost(ir::dotF(ctx, 64, 576, i8, i8, 64)->body()->body());
  EXPECT_EQ(c.dim[kTime].constant, 9);
  EXPECT_EQ(c.dim[kDsp].constant, 64 * 64 / 2);  // two i8 products per DSP block
  EXPECT_EQ(c.dim[kConvUnits].constant, 0);
  // Equals the paper's M*N / (P*min(N, 64)) when P | M and 64 | N.
  EXPECT_EQ(c.dim[kTime].constant, 64 * 576 / (64 * 64));
  // N < 64: min(N, 64) = N.
  NodeCost s = model.nodeCost(ir::dotF(ctx, 10, 27, i8, i8, 5)->body()->body());
  EXPECT_EQ(s.dim[kTime].constant, 2);  // 10*27 / (5*27)
  EXPECT_EQ(s.dim[kDsp].constant, (5 * 27 + 1) / 2);
  // P does not divide M: ceil(10/3) * ceil(100/64) = 4 * 2 passes.
  NodeCost u = model.nodeCost(ir::dotF(ctx, 10, 100, i8, i8, 3)->body()->body());
  EXPECT_EQ(u.dim[kTime].constant, 8);
  EXPECT_EQ(u.dim[kDsp].constant, 3 * 64 / 2);
  // ParallelPartialDot uses ParallelDot's formulas.
  const ir::Term* pmv = ir::pMvF(ctx, 64, 576, 9, i8, i8);
  NodeCost p = model.nodeCost(pmv->body()->body()->child(2)->body()->body());
  EXPECT_EQ(p.dim[kTime].constant, 9);
  EXPECT_EQ(p.dim[kDsp].constant, 2048);
}

TEST_F(CostTest, OneVggLayer) {
  // VGG layer 2: 34x34x64 padded input, 64 filters of 3x3x64, cMvF[64, 576].
  const ir::Term* conv = ctx.op(Op::Conv, {in("x", {34, 34, 64}), in("w", {64, 3, 3, 64}),
                                           ir::cMvF(ctx, 64, 576, i8, i8)});
  NodeCost c = model.nodeCost(conv);
  EXPECT_EQ(c.dim[kTime].str(), "0 + 1024*c2 + max(c0, c1)");
  auto k = cost(conv);
  EXPECT_EQ(k[kTime], 32 * 32 * 9);
  EXPECT_EQ(k[kDsp], 2048);
  EXPECT_EQ(k[kConvUnits], 1);
  // Element-wise and reshaping operators are fused: as slow as their input, no DSPs.
  const ir::Term* layer = ctx.op(Op::Relu, {ctx.op(Op::Requant, {conv}, {6})});
  EXPECT_EQ(cost(layer), k);
  // Two layers in a row: times and DSPs add up (nothing shared).
  const ir::Term* padded = ctx.op(Op::Pad, {layer}, {1, 1, 1, 1, 0});
  const ir::Term* two = ctx.op(Op::Conv, {padded, in("w2", {64, 3, 3, 64}), ir::cMvF(ctx, 64, 576, i8, i8)});
  auto k2 = cost(two);
  EXPECT_EQ(k2[kTime], 2 * 9216);
  EXPECT_EQ(k2[kDsp], 2 * 2048);
  EXPECT_EQ(k2[kConvUnits], 2);
}

TEST_F(CostTest, TiledAndPaddedSkeletons) {
  const ir::Type* i32 = ctx.intType(32);
  // TiledMv: 10 x 512 matrix in tiles of 64 columns: 8 calls of cMvF[10, 64] (1 pass each).
  const ir::Term* tmv = ctx.op(Op::TiledMv, {in("m", {10, 512}), in("v", {512}), ir::cMvF(ctx, 10, 64, i8, i8)});
  EXPECT_EQ(cost(tmv)[kTime], 8);
  EXPECT_EQ(cost(tmv)[kDsp], 320);
  // PaddedMv delegates: cMvF[10, 64] on 10 x 27.
  const ir::Term* pmv = ctx.op(Op::PaddedMv, {in("m2", {10, 27}), in("v2", {27}), ir::cMvF(ctx, 10, 64, i8, i8)});
  EXPECT_EQ(cost(pmv)[kTime], 1);
  // Zero padding of the columns a dot sums: the lowering drops the zero columns
  // (lower/zero_columns.h), so f's steps shrink to the real columns' share, ceil(share *
  // T(f)). TinyYolo's first layer: 3 channels padded to 64, 27 of 576 columns, one step of
  // 64 lanes where the padded window takes nine.
  const ir::Term* ich64 = ctx.op(Op::PaddedConvICH, {in("x0", {15, 15, 3}), in("w0", {16, 3, 3, 3}),
                                                     ir::cConvF(ctx, 15, 15, 64, 16, 3, i8, i8)});
  EXPECT_EQ(model.nodeCost(ich64).dim[kTime].str(), "max(0, (0 + c2) / 9) + max(c0, c1)");
  EXPECT_EQ(cost(ich64)[kTime], 13 * 13);
  // 16 of 64 channels: 144 columns, three steps of nine; 100 of 200 matrix columns: two of four.
  const ir::Term* ich16 = ctx.op(Op::PaddedConvICH, {in("x1", {15, 15, 16}), in("w1", {16, 3, 3, 16}),
                                                     ir::cConvF(ctx, 15, 15, 64, 16, 3, i8, i8)});
  EXPECT_EQ(cost(ich16)[kTime], 13 * 13 * 3);
  const ir::Term* pmv200 = ctx.op(Op::PaddedMv, {in("m3", {4, 100}), in("v3", {100}), ir::cMvF(ctx, 4, 200, i8, i8)});
  EXPECT_EQ(cost(pmv200)[kTime], 2);
  // TiledConvHW: 34x34 input -> 32x32 output, tiles of 18x18 -> 16x16 output: 4 tiles,
  // each a cConvF[18, 18, 64, 64, 3] of 256 positions * 9 passes.
  const ir::Term* tile = ctx.op(Op::TiledConvHW, {in("x", {34, 34, 64}), in("w", {64, 3, 3, 64}),
                                                  ir::cConvF(ctx, 18, 18, 64, 64, 3, i8, i8)});
  EXPECT_EQ(model.nodeCost(tile).dim[kTime].str(), "0 + 4*c2 + max(c0, c1)");
  EXPECT_EQ(cost(tile)[kTime], 4 * 256 * 9);
  EXPECT_EQ(cost(tile)[kConvUnits], 1);
  // TiledConvICH: 64 input channels in tiles of 16: 4 calls; TiledConvOCH: 64 -> 32: 2.
  const ir::Term* ich = ctx.op(Op::TiledConvICH, {in("x", {34, 34, 64}), in("w", {64, 3, 3, 64}),
                                                  ir::cConvF(ctx, 34, 34, 16, 64, 3, i8, i8)});
  EXPECT_EQ(model.nodeCost(ich).dim[kTime].linear[0].coef, 4);
  const ir::Term* och = ctx.op(Op::TiledConvOCH, {in("x", {34, 34, 64}), in("w", {64, 3, 3, 64}),
                                                  ir::cConvF(ctx, 34, 34, 64, 32, 3, i8, i8)});
  EXPECT_EQ(model.nodeCost(och).dim[kTime].linear[0].coef, 2);
  // Conv1D_W on 64x64 with 3 taps: 64 rows; Conv1D_H: 64 columns.
  const ir::Term* c1 = ctx.op(Op::Conv1DW, {in("img", {64, 64}), in("k", {3}), ir::cMvF(ctx, 62, 3, i8, i8)});
  EXPECT_EQ(cost(c1)[kTime], 64 * 1);
  EXPECT_EQ(cost(c1)[kDsp], 62 * 3 / 2);
  EXPECT_EQ(cost(c1)[kConvUnits], 0);  // 1D convolutions are not limited
  // MergePartialSum is latency-free.
  const ir::Term* part = ctx.input("ps", ctx.tensorType(std::vector<int64_t>{4, 3}, i32));
  EXPECT_EQ(model.nodeCost(ctx.op(Op::MergePartialSum, {part})).dim[kTime].str(), "0 + c0");
}

TEST_F(CostTest, LetBoundUnitsArePaidOnce) {
  // let f = cMvF[64, 576] in Tuple(Conv(x1, w1, f), Conv(x2, w2, f))
  const ir::Term* f = ir::cMvF(ctx, 64, 576, i8, i8);
  const ir::Term* v = ctx.var(0, f->type());
  const ir::Term* body = ctx.op(Op::Tuple, {ctx.op(Op::Conv, {in("x1", {34, 34, 64}), in("w1", {64, 3, 3, 64}), v}),
                                            ctx.op(Op::Conv, {in("x2", {10, 10, 64}), in("w2", {64, 3, 3, 64}), v})});
  const ir::Term* let = ctx.app(ctx.lam(f->type(), body), f);
  DesignCost d = designCost(model, let);
  EXPECT_EQ(d.sharedUnits, 1u);
  EXPECT_EQ(d.use[kTime], 1024 * (9 + kCommunicationCost) + 64 * (9 + kCommunicationCost));
  EXPECT_EQ(d.use[kDsp], 0);
  EXPECT_EQ(d.fixed[kDsp], 2048);
  EXPECT_EQ(d.total(kDsp), 2048);
  EXPECT_EQ(d.total(kConvUnits), 2);  // the Conv nodes themselves are in place
  // The same program without the let pays for the Mv twice.
  const ir::Term* flat = ctx.op(Op::Tuple, {ctx.op(Op::Conv, {in("x1", {34, 34, 64}), in("w1", {64, 3, 3, 64}), f}),
                                            ctx.op(Op::Conv, {in("x2", {10, 10, 64}), in("w2", {64, 3, 3, 64}), f})});
  DesignCost e = designCost(model, flat);
  EXPECT_EQ(e.use[kTime], 1024 * 9 + 64 * 9);
  EXPECT_EQ(e.total(kDsp), 2 * 2048);
}

/// A hardware model whose oracle reads every convolution's windows in `freshRuns` runs
/// per call and gives every unit an empty load (overhead: memory latency + unit switch).
CostModel freshWindows(int64_t freshRuns) {
  CostModel m{arria()};
  m.setLoadOracle([freshRuns](Op op, std::span<const int64_t>, std::span<const ChildShape>, const ir::Type*,
                              bool) -> std::optional<SkeletonLoad> {
    SkeletonLoad l;
    if (op == Op::Conv) l.freshRuns = freshRuns;
    return l;
  });
  return m;
}

TEST_F(CostTest, ATilingOfTheFiltersPaysTheFreshWindowsOnce) {
  // Two tiles of four filters; each call of f computes 8 x 8 positions in one step each.
  const ir::Term* f = ir::cConvF(ctx, 10, 10, 4, 4, 3, i8, i8);
  const ir::Term* och = ctx.op(Op::TiledConvOCH, {in("x", {10, 10, 4}), in("w", {8, 3, 3, 4}), f});
  const ir::Term* ich = ctx.op(Op::TiledConvICH, {in("x", {10, 10, 8}), in("w", {4, 3, 3, 8}), f});
  const int64_t overhead = memorySystem(arria()).latency + kUnitSwitch;
  for (int64_t fresh : {100, 300}) {
    CostModel m = freshWindows(fresh);
    // In f, the convolution's compute time is its steps; its time the fresh windows too.
    const ir::Term* conv = f->body()->body();
    NodeCost c = m.nodeCost(conv);
    ASSERT_TRUE(c.compute.has_value());
    EXPECT_EQ(c.compute->str(), "0 + 64*c2 + c0 + c1");
    EXPECT_EQ(c.dim[kTime].str(), fmt::format("max(0 + 64*c2, {}) + c0 + c1", fresh));
    ASSERT_TRUE(m.nodeCost(f).compute.has_value());
    EXPECT_EQ(m.nodeCost(f).compute->str(), "0 + C(c0)");
    // The filter tiles replay the windows: 2 calls of 64 steps, or the fresh windows once.
    EXPECT_NE(m.nodeCost(och).dim[kTime].str().find("2*C(c2)"), std::string::npos) << m.nodeCost(och).dim[kTime].str();
    EXPECT_EQ(designCost(m, och).use[kTime], std::max<int64_t>(2 * 64, fresh) + overhead) << fresh;
    // The channel tiles read other windows on every call: each call pays them.
    EXPECT_EQ(designCost(m, ich).use[kTime], 2 * std::max<int64_t>(64, fresh) + overhead) << fresh;
  }
  // The paper's model has no compute times.
  EXPECT_FALSE(model.nodeCost(f->body()->body()).compute.has_value());
  EXPECT_FALSE(model.nodeCost(f).compute.has_value());
}

// A unit's steps interfere with the memory port (5/8 of their sum, cycle_model.h) only when
// a late line can stall them; behind a replay buffer that plays each block twice or more
// they wait for no line (lower::stallingStages, the oracle's stepsStall).
TEST_F(CostTest, StepsThatNoLateLineStallsDoNotInterfereWithThePort) {
  const ir::Term* f = ir::cConvF(ctx, 10, 10, 4, 4, 3, i8, i8);
  const ir::Term* och = ctx.op(Op::TiledConvOCH, {in("x", {10, 10, 4}), in("w", {8, 3, 3, 4}), f});
  const int64_t overhead = memorySystem(arria()).latency + kUnitSwitch;
  for (bool stall : {true, false}) {
    CostModel m{arria()};
    m.setLoadOracle([stall](Op op, std::span<const int64_t>, std::span<const ChildShape>, const ir::Type*,
                            bool) -> std::optional<SkeletonLoad> {
      SkeletonLoad l;
      if (op == Op::TiledConvOCH) l.load.lines = 91;  // 130 cycles of the port at 0.7 lines a cycle
      l.stepsStall = stall;
      return l;
    });
    // two tiles of 64 steps: 128 cycles of steps beside the port's 130
    EXPECT_EQ(designCost(m, och).use[kTime], (stall ? (5 * (128 + 130) + 7) / 8 : 130) + overhead) << stall;
  }
}

// A dot's steps that stall at one step a call need not at two: the lowering then replays
// the call's operand vector (the oracle's stepsStallAtTwoSteps). And a replay buffer that
// a transposed operand fills once per step a call takes fillPerStep longer per step.
// (Self-attention's projections at 1,024 blocks were predicted at 272 cycles each where
// their lowered units take 238: two steps a call, the steps behind a replay buffer.)
TEST_F(CostTest, StepsThatStallOnlyAtOneStepACallAndAFillThatGrowsWithTheSteps) {
  const int64_t overhead = memorySystem(arria()).latency + kUnitSwitch;
  // 8 calls of a dot over 64 rows, 64 or 32 of them a step: 8 or 16 steps
  auto mm = [&](int64_t rowsPerStep) {
    return ctx.op(Op::Mm, {in("x", {8, 64}), in("w", {64, 64}), ir::mvF(ctx, 64, 64, i8, i8, rowsPerStep)});
  };
  auto time = [&](const ir::Term* t, bool stallAtTwo, int64_t perStep) {
    CostModel m{arria()};
    m.setLoadOracle([=](Op op, std::span<const int64_t>, std::span<const ChildShape>, const ir::Type*,
                        bool) -> std::optional<SkeletonLoad> {
      SkeletonLoad l;
      if (op != Op::Mm) return l;
      l.load.lines = 35;  // 50 cycles of the port
      l.load.replayFill = 40;
      l.stepsStallAtTwoSteps = stallAtTwo;
      l.fillPerStep = perStep;
      return l;
    });
    return designCost(m, t).use[kTime];
  };
  // one step a call: 5/8 (port 50 + fill 40 + 8 steps), however it is at two
  EXPECT_EQ(time(mm(64), true, 0), 62 + overhead);
  EXPECT_EQ(time(mm(64), false, 0), 62 + overhead);
  // two: 5/8 (50 + 40 + 16) if the steps still stall; if not, the one-step floor
  EXPECT_EQ(time(mm(32), true, 0), 67 + overhead);
  EXPECT_EQ(time(mm(32), false, 0), 62 + overhead);
  // a fill of 40 more for the second step: 16 steps after 80 cycles of fill
  EXPECT_EQ(time(mm(32), false, 40), 96 + overhead);
  EXPECT_EQ(time(mm(64), false, 40), 62 + overhead);
}

// With --overlap a unit-starting skeleton also has its time as a caller that a neighbour
// hands its shared instance to: less the credit, but no less than its steps or its tail
// after the unit that feeds it.
TEST_F(CostTest, AHandedOverCallerIsCreditedItsLeadAndDrainButNotBelowItsStepsOrFedTail) {
  // 8 calls of a dot over 64 rows, all of them a step: 8 steps
  const ir::Term* mm = ctx.op(Op::Mm, {in("x", {8, 64}), in("w", {64, 64}), ir::mvF(ctx, 64, 64, i8, i8, 64)});
  struct Given {
    int64_t lead, drain, fedTail = 0, fedLines = 0, fedAfter = 0;
  };
  auto costs = [&](Given g, bool overlap) {
    CostModel m{arria()};
    m.setOverlap(overlap);
    m.setLoadOracle([=](Op op, std::span<const int64_t>, std::span<const ChildShape>, const ir::Type*,
                        bool) -> std::optional<SkeletonLoad> {
      SkeletonLoad l;
      if (op != Op::Mm) return l;
      l.load.lines = 35;  // 50 cycles of the port
      l.load.replayFill = 10;
      l.lead = g.lead;
      l.drain = g.drain;
      l.fedTail = g.fedTail;
      l.fedLines = g.fedLines;
      l.fedAfter = g.fedAfter;
      return l;
    });
    std::vector<int64_t> use;
    for (size_t i = 0; i < mm->numChildren(); ++i) use.push_back(designCost(m, mm->child(i)).use[kTime]);
    return std::pair{m.nodeCost(mm), use};
  };
  auto [plain, use] = costs({30, 10}, false);
  EXPECT_FALSE(plain.overlap);
  EXPECT_TRUE(plain.startsUnit);
  auto exposed = [&](Given g) {
    auto [c, u] = costs(g, true);
    EXPECT_EQ(c.dim[kTime], plain.dim[kTime]);  // its time as before
    EXPECT_EQ(c.overlap->lead, g.lead);
    EXPECT_EQ(c.overlap->drain, g.drain);
    return c.overlap->exposed.evaluate(u);
  };
  const int64_t time = plain.dim[kTime].evaluate(use);
  EXPECT_EQ(exposed({30, 10}), time - handoverCredit(30, 10));
  EXPECT_EQ(exposed({500, 10}), 8);  // its steps
  EXPECT_EQ(exposed({500, 10, 70}), 70);  // its fed tail as measured
  // fed through one line: its busiest stage, the steps and the fill, then its pipeline
  EXPECT_EQ(exposed({500, 10, 0, 1, 20}), 8 + 10 + 20);
  EXPECT_EQ(exposed({500, 10, 0, 2, 20}), (8 + 10 + 1) / 2 + 20);
}

TEST(CostArith, Saturates) {
  EXPECT_EQ(satMul(kCostCap, 2), kCostCap);
  EXPECT_EQ(satAdd(kCostCap, kCostCap), kCostCap);
  EXPECT_EQ(satMul(3, 4), 12);
  CostExpr e{7, {{0, 3}}, {1, 2}, {}, {}};
  std::vector<int64_t> use{2, 5, 4};
  EXPECT_EQ(e.evaluate(use), 7 + 6 + 5);
}

TEST(Families, OfOperators) {
  EXPECT_EQ(familyOf(Op::PaddedConvICH), Family::Conv);
  EXPECT_EQ(familyOf(Op::TiledMvRows), Family::Mv);
  EXPECT_EQ(familyOf(Op::TiledMmK), Family::Mm);
  EXPECT_EQ(familyOf(Op::TransposedConv1DW), Family::Conv1D);
  EXPECT_EQ(familyOf(Op::Relu), Family::None);
  EXPECT_TRUE(isConvUnit(Op::ParallelConv));
  EXPECT_FALSE(isConvUnit(Op::TiledConvHW));
}

}  // namespace
