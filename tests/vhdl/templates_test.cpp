// The primitive templates in hardware, one small hand-built mid-level program each,
// simulated in GHDL under random memory wait states and read-data gaps (which stall the
// gathers and so put random gaps and back-pressure on every stream of the unit) and
// compared bit for bit with the mid-level interpreter.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "skeleshare/lower/lower.h"
#include "skeleshare/lower/printer.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/verifier.h"
#include "../common/dsl_module.h"
#include "../common/window_views.h"
#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

using lower::AddrGen;
using lower::Buffer;
using lower::Memory;
using lower::Prim;
using lower::Program;
using lower::Role;
using lower::Unit;
using lower::UnitBuilder;
constexpr auto S = lower::DimKind::Stream;
constexpr auto V = lower::DimKind::Vector;

Tensor randomTensor(int bits, std::vector<int64_t> shape, uint64_t seed) {
  Tensor t(bits, shape);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < t.size(); ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    t.setWrapped(i, static_cast<int64_t>(s % 65536) - 32768);
  }
  return t;
}

/// Adds an output buffer written with the identity of its shape from node x, whose
/// counters' kinds are copied from x's type.
void writeAll(Program& p, Unit& u, uint32_t x, const std::string& name) {
  const auto& t = u.nodes[x].type;
  p.buffers.push_back({name, t.bits, t.shape(), Memory::OffChip, Role::Output});
  AddrGen g = AddrGen::identity(t.shape());
  for (size_t i = 0; i < t.dims.size(); ++i) g.counters[i].kind = t.dims[i].kind;
  UnitBuilder(p, u).write(static_cast<int>(p.buffers.size() - 1), g, x);
}

/// Simulates on two seeds of the memory model and compares with lower::run.
void expectHardwareAgrees(Program& p, const std::string& name) {
  auto problems = lower::verify(p);
  ASSERT_TRUE(problems.empty()) << problems.front();
  std::map<std::string, Tensor> inputs;
  uint64_t k = 1;
  for (const auto& b : p.buffers)
    if (b.role == Role::Input || b.role == Role::Weight) inputs[b.name] = randomTensor(b.bits, b.shape, k++);
  auto want = lower::run(p, inputs);
  for (uint64_t seed : {1, 2}) {
    Simulated s = emitAndSimulate(p, inputs, name, seed, 200000);
    ASSERT_TRUE(s.sim.ok) << s.sim.error << "\n" << s.sim.log;
    auto bad = firstMismatch(want, s.sim.outputs);
    EXPECT_FALSE(bad.has_value()) << "seed " << seed << ": " << bad->describe();
  }
}

// Runs a testbench of ss_pkg's functions or of templates (tests/vhdl/NAME_tb.vhd, the
// templates in the order they are analysed) that writes "checked N errors E" and expects
// no errors in more than minChecked checks.
void expectPackageTestbenchPasses(const std::string& name, long long minChecked,
                                  const std::vector<std::string>& templates = {}) {
  auto dir = scratch(name);
  std::vector<std::filesystem::path> files{templateDir() + "/ss_pkg.vhd"};
  for (const std::string& t : templates) files.push_back(templateDir() + "/" + t + ".vhd");
  files.push_back(std::string(SKELESHARE_SOURCE_DIR) + "/tests/vhdl/tb_result.vhd");
  files.push_back(std::string(SKELESHARE_SOURCE_DIR) + "/tests/vhdl/" + name + "_tb.vhd");
  GhdlResult r = ghdlSimulate(dir, files, name + "_tb", {{"RESULT_FILE", "result.txt"}});
  ASSERT_TRUE(r.ok) << r.failedStep << "\n" << r.log;
  std::ifstream f(dir / "result.txt");
  std::string result;
  std::getline(f, result);
  EXPECT_NE(result.find("errors 0"), std::string::npos) << result;
  ASSERT_EQ(result.rfind("checked ", 0), 0u) << result;
  EXPECT_GT(std::stoll(result.substr(8)), minChecked) << result;
}

TEST(Templates, ChunkedConstantComparesAgreeWithLessThan) {
  // ss_pkg.below, which every address generator's run tests use, compares in 6-bit chunks
  // in synthesis; every width was swept
  expectPackageTestbenchPasses("below", 100'000);
}

TEST(Templates, ConstantProductsBySumsOfShiftsAreProducts) {
  // ss_pkg.times: the address generators' products by a constant, written as shifts and
  // adds so that synthesis builds no multiplier; every small constant and the powers of
  // two and their neighbours, positive and negative
  expectPackageTestbenchPasses("times", 30'000);
}

TEST(Templates, DivisionsByAConstantOverARangeAreQuotients) {
  // ss_pkg.udiv_stages: the address generators' floor division of a digit by a constant,
  // a shift and a product by a reciprocal in synthesis ("/" in simulation); every small
  // divisor and powers of two times 1, 3, 5, over ranges up to 2**24, with the last
  // quotient steps of each range
  expectPackageTestbenchPasses("udiv", 400'000);
}

TEST(Templates, ASlicedReplayRamReadsWhatAWholeOneDoes) {
  // ss_replay_ram cuts a RAM of more than 2**24 bits into slices of its word, each a
  // memory of its own (lower::kMaxMemoryBits): every slicing of random writes and reads,
  // uneven ones too, reads the words written, old data where a word is being written;
  // one written in beats (a mask of them per write) reads what was written beat by beat
  expectPackageTestbenchPasses("replay_ram", 1'000, {"ss_replay_ram"});
}

TEST(Templates, SimulatedShiftersAgreeWithTheStagesSynthesisBuilds) {
  // ss_pkg's shifters take slices in simulation and are barrel shifters in synthesis;
  // every unit, width and amount was checked
  expectPackageTestbenchPasses("shifters", 1'500);
}

TEST(Templates, SimulatedSumsWrapAsTheAdderTree) {
  // ss_reduce_vec sums 32-bit lanes in integer halves in simulation; extreme values carry
  // and wrap. Narrower sums run the tree synthesis builds, its nodes as wide as their sums.
  expectPackageTestbenchPasses("reduce_vec", 10'000, {"ss_reduce_vec"});
}

TEST(Templates, SimulatedDotAgreesWithItsPartsCycleForCycle) {
  // ss_dot keeps sums, not products, in simulation; beside the broadcast wires, ss_mul and
  // ss_reduce_vec it gets random operands and stalls, and every cycle's handshakes and
  // outputs agree
  expectPackageTestbenchPasses("dot", 40'000, {"ss_mul", "ss_reduce_vec", "ss_dot"});
}

TEST(Templates, BoxReadSpreadsARowOfWindowsBitExact) {
  // A padded convolution with box reads (lower::LowerOptions::boxReads): each row of 12
  // windows is read once as three image rows and spread by SelectLanes (wires, the padding
  // lanes a constant) into the windows, which VecToStm sends on one a step.
  auto m = test_support::loadDslText(R"(
input  x : i8[5][12][3];
weight w : i8[4][3][3][3];
output o = relu(requant(conv(pad(x, 1), w), 4));
)");
  lower::LowerOptions options;
  options.boxReads = true;
  Program p = lower::lowerModule(m.module, *m.ctx, options);
  bool selects = false;
  for (const auto& u : p.units)
    for (const auto& n : u.nodes) selects = selects || n.prim == Prim::SelectLanes;
  ASSERT_TRUE(selects) << lower::printProgram(p);
  expectHardwareAgrees(p, "t_box_read");
}

TEST(Templates, AddressGeneratorPaddingStrideAndRepeat) {
  Program p;
  p.buffers.push_back({"x", 8, {5, 6}, Memory::OffChip, Role::Input});
  Unit u;
  u.name = "pad_slide_repeat";
  AddrGen g = AddrGen::identity({5, 6});
  g.pad(0, 1, 2, -3);   // rows -1 .. 6 (fill -3)
  g.pad(1, 2, 0, 9);    // columns -2 .. 5 (fill 9)
  g.slide(1, 3, 2);     // windows of 3 columns, step 2
  g.repeat(0, 2);       // the whole view twice (stride 0)
  uint32_t r = UnitBuilder(p, u).read(0, g);
  writeAll(p, u, r, "y");
  p.units.push_back(u);
  expectHardwareAgrees(p, "t_addr_pad");
}

TEST(Templates, FlattenedWindowIsAMultiRadixGroup) {
  Program p;
  p.buffers.push_back({"x", 16, {4, 5, 3}, Memory::OffChip, Role::Input});
  Unit u;
  u.name = "flatten";
  AddrGen g = AddrGen::identity({4, 5, 3});
  g.slide(1, 2, 1);      // [4][4][2][3]
  g.permute({0, 1, 3, 2});
  g.flatten(2);          // (c, k) flattened, not contiguous in memory
  g.counters[2].kind = V;
  uint32_t r = UnitBuilder(p, u).read(0, g);
  writeAll(p, u, r, "y");
  p.units.push_back(u);
  expectHardwareAgrees(p, "t_addr_flatten");
}

// Runs (ss_agen): one access per cycle, the other elements of the run at constant offsets.
// Stride 2 over a padded row: runs start masked (a masked first element still locates
// the run), turn unmasked mid-run, cross 64-byte lines (the read's line pair and line
// misses) and end masked again; the vector (48 lanes) is more than a line's worth.
TEST(Templates, RunsWithStrideTwoCrossLinesAndMasks) {
  Program p;
  p.buffers.push_back({"x", 8, {200}, Memory::OffChip, Role::Input});
  Unit u;
  u.name = "runs_stride2";
  AddrGen g = AddrGen::identity({200});
  g.pad(0, 8, 8, -3);  // positions -8 .. 207 (fill -3)
  g.regroup({{3, S}, {48, V}}, {lower::Affine{1, {60, 2}}});  // 60*row + 2*lane + 1
  uint32_t r = UnitBuilder(p, u).read(0, g);
  writeAll(p, u, r, "y");
  p.units.push_back(u);
  expectHardwareAgrees(p, "t_runs_stride2");
}

// A window's masked tail lanes (ss_agen's tail masks): a zero-padded 3x3x3 window
// flattened and padded with zero lanes to 64, one window a cycle. The runs past the
// window's last row cross the digits' wraps; with another fill of the lanes they do not.
TEST(Templates, MaskedTailLanesOfAWindowReadAsOneRun) {
  std::map<int32_t, int64_t> cycles, estimated;
  for (int32_t fill : {0, 5}) {
    Program p;
    p.buffers.push_back({"x", 8, {6, 7, 3}, Memory::OffChip, Role::Input});
    Unit u;
    u.name = "tail";
    uint32_t r = UnitBuilder(p, u).read(0, test_support::paddedWindow(6, 7, fill));
    writeAll(p, u, r, "y");
    p.units.push_back(u);
    expectHardwareAgrees(p, fmt::format("t_tail_fill{}", fill));
    std::map<std::string, Tensor> inputs{{"x", randomTensor(8, {6, 7, 3}, 1)}};
    Simulated sim = emitAndSimulate(p, inputs, fmt::format("t_tail_fill{}_cycles", fill), 3);
    ASSERT_TRUE(sim.sim.ok) << sim.sim.error;
    cycles[fill] = sim.sim.cycles;
    estimated[fill] = lower::estimateCycles(p, testMemory()).total;
  }
  // The hardware takes the model's runs, 3 a window with the tail and 8 without (seed 3:
  // 175 cycles for 159 estimated, 369 for 350)
  for (int32_t fill : {0, 5}) {
    EXPECT_NEAR(static_cast<double>(cycles[fill]), static_cast<double>(estimated[fill]), 0.15 * estimated[fill])
        << "fill " << fill;
  }
  EXPECT_LT(cycles[0], cycles[5] * 3 / 4);
}

// The same window read into [16][4] lanes (a partial dot's chunks): ss_agen walks the
// two lane counters as one (agenParams), so the hardware reads the same elements in the
// same 3 runs a window as the 64 flat lanes, not 7.
TEST(Templates, ChunkedLanesOfAWindowWalkAsOneCounter) {
  std::map<std::string, int64_t> cycles;
  for (bool chunked : {false, true}) {
    Program p;
    p.buffers.push_back({"x", 8, {6, 7, 3}, Memory::OffChip, Role::Input});
    Unit u;
    u.name = "chunks";
    const AddrGen g = chunked ? test_support::paddedWindowInChunks(6, 7, 0) : test_support::paddedWindow(6, 7, 0);
    uint32_t r = UnitBuilder(p, u).read(0, g);
    writeAll(p, u, r, "y");
    p.units.push_back(u);
    const std::string name = chunked ? "t_chunked_lanes" : "t_flat_lanes";
    expectHardwareAgrees(p, name);
    std::map<std::string, Tensor> inputs{{"x", randomTensor(8, {6, 7, 3}, 1)}};
    Simulated sim = emitAndSimulate(p, inputs, name + "_cycles", 3);
    ASSERT_TRUE(sim.sim.ok) << sim.sim.error;
    cycles[name] = sim.sim.cycles;
  }
  EXPECT_EQ(cycles["t_chunked_lanes"], cycles["t_flat_lanes"]);
}

// Kept lines (ss_read's KEEP): a convolution's 3x3x3 windows over rows of 40 columns,
// each window a segment of three rows in three lines. Keeping 4 lines the read requests
// each row's lines about once per output row where keeping 1 it requests 3 a window: the
// same vectors (bit-exact on two seeds), and the cycles of the model's lines.
TEST(Templates, KeptLinesServeTheWindowsBesideEachOther) {
  std::map<int64_t, int64_t> cycles, estimated, lines;
  for (int64_t keep : {1, 4}) {
    Program p;
    p.buffers.push_back({"x", 8, {6, 40, 3}, Memory::OffChip, Role::Input});
    Unit u;
    u.name = "kept";
    uint32_t r = UnitBuilder(p, u).read(0, test_support::paddedWindow(6, 40, 0));
    if (keep > 1) u.nodes[r].params = {keep};
    writeAll(p, u, r, "y");
    p.units.push_back(u);
    const std::string name = fmt::format("t_kept{}", keep);
    expectHardwareAgrees(p, name);
    std::map<std::string, Tensor> inputs{{"x", randomTensor(8, {6, 40, 3}, 1)}};
    Simulated sim = emitAndSimulate(p, inputs, name + "_cycles", 3);
    ASSERT_TRUE(sim.sim.ok) << sim.sim.error;
    cycles[keep] = sim.sim.cycles;
    estimated[keep] = lower::estimateCycles(p, testMemory()).total;
    lines[keep] = lower::readAccess(p.units[0].nodes[r].addr, 1, 64, keep).lines;
  }
  EXPECT_LT(lines[4] * 4, lines[1]);
  for (int64_t keep : {1, 4})
    EXPECT_NEAR(static_cast<double>(cycles[keep]), static_cast<double>(estimated[keep]), 0.15 * estimated[keep])
        << "keep " << keep;
  EXPECT_LT(cycles[4], cycles[1]);
}

// Stride 0 innermost: every lane of a vector is the same element (a broadcast run).
TEST(Templates, BroadcastRunsRepeatOneElementAcrossTheLanes) {
  Program p;
  p.buffers.push_back({"x", 16, {5, 6}, Memory::OffChip, Role::Input});
  Unit u;
  u.name = "broadcast";
  AddrGen g = AddrGen::identity({5, 6});
  g.repeat(2, 20);  // [5][6][20], the last with stride 0
  g.counters[2].kind = V;
  uint32_t r = UnitBuilder(p, u).read(0, g);
  writeAll(p, u, r, "y");
  p.units.push_back(u);
  expectHardwareAgrees(p, "t_broadcast");
}

// Write runs: a transposed write (stride 3 elements of 16 bits: runs of byte-enabled
// elements with gaps, several lines per vector) and a padded write (masked lanes are
// dropped inside and at the start of runs).
TEST(Templates, WriteRunsWithStrideAndMaskedLanes) {
  Program p;
  p.buffers.push_back({"x", 16, {3, 48}, Memory::OffChip, Role::Input});
  p.buffers.push_back({"t", 16, {48, 3}, Memory::OffChip, Role::Output});
  p.buffers.push_back({"c", 16, {3, 44}, Memory::OffChip, Role::Output});
  Unit u;
  u.name = "write_runs";
  UnitBuilder b(p, u);
  AddrGen gx = AddrGen::identity({3, 48});
  gx.counters[1].kind = V;
  uint32_t x = b.read(0, gx);
  AddrGen gt = AddrGen::identity({48, 3});
  gt.transpose(0, 1);  // [3][48], stride 3
  gt.counters[1].kind = V;
  b.write(1, gt, x);
  AddrGen gc = AddrGen::identity({3, 44});
  gc.pad(1, 1, 3, 0);  // [3][48]: lanes 0, 45, 46, 47 fall outside and are dropped
  gc.counters[1].kind = V;
  b.write(2, gc, x);
  p.units.push_back(u);
  expectHardwareAgrees(p, "t_write_runs");
}

TEST(Templates, StreamVectorConversionsAndReductions) {
  Program p;
  p.buffers.push_back({"x", 8, {3, 4, 6}, Memory::OffChip, Role::Input});
  Unit u;
  u.name = "convert_reduce";
  UnitBuilder b(p, u);
  AddrGen g = AddrGen::identity({3, 4, 6});
  g.counters[2].kind = V;
  uint32_t x = b.read(0, g);                                  // stm[3][4] vec[6] i8
  uint32_t sv = b.op(Prim::StmToVec, {x});                    // stm[3] vec[4][6]
  uint32_t vs = b.op(Prim::VecToStm, {sv});                   // stm[3][4] vec[6]
  uint32_t sp = b.op(Prim::SplitVec, {vs}, {0, 3});           // stm[3][4] vec[2][3]
  uint32_t rv = b.op(Prim::ReduceVec, {sp}, {0});             // stm[3][4] vec[2] i32 sums
  uint32_t mx = b.op(Prim::ReduceStm, {rv}, {1});             // stm[3] vec[2] max over 4
  uint32_t rs = b.op(Prim::ReduceStm, {x}, {0});              // stm[3] vec[6] i32 sums over 4
  uint32_t js = b.op(Prim::JoinStm, {b.op(Prim::SplitStm, {rs}, {0, 3})}, {0});
  writeAll(p, u, mx, "max_of_sums");
  writeAll(p, u, js, "sums");
  p.units.push_back(u);
  expectHardwareAgrees(p, "t_convert");
}

TEST(Templates, ElementwiseOperatorsWithForksThatJoinAgain) {
  Program p;
  p.buffers.push_back({"a", 8, {7, 5}, Memory::OffChip, Role::Input});
  p.buffers.push_back({"b", 16, {7, 5}, Memory::OffChip, Role::Weight});
  Unit u;
  u.name = "elementwise";
  UnitBuilder bld(p, u);
  AddrGen ga = AddrGen::identity({7, 5}), gb = AddrGen::identity({7, 5});
  ga.counters[1].kind = V;
  gb.counters[1].kind = V;
  uint32_t a = bld.read(0, ga), b = bld.read(1, gb);
  uint32_t prod = bld.op(Prim::Mul, {a, b}, {1});                 // i32, DSP
  uint32_t sq = bld.op(Prim::Mul, {a, a}, {0});                   // logic multiplier, a forked
  uint32_t s = bld.op(Prim::Sub, {prod, sq});
  uint32_t rs = bld.op(Prim::RoundShift, {s}, {3});
  uint32_t sat = bld.op(Prim::Saturate, {rs}, {8});
  uint32_t mn = bld.op(Prim::Min, {sat, bld.op(Prim::ShiftRight, {a}, {1})});
  uint32_t mx = bld.op(Prim::Max, {mn, bld.constant(-20, 8, {{7, S}, {5, V}})});
  uint32_t w = bld.op(Prim::Wrap, {bld.op(Prim::Add, {prod, b})}, {16});
  // Half to even: products of i8 and i16 minus a square land on every residue mod 2^2.
  uint32_t even = bld.op(Prim::Saturate, {bld.op(Prim::RoundShiftEven, {s}, {2})}, {16});
  writeAll(p, u, mx, "clamped");
  writeAll(p, u, w, "wrapped");
  writeAll(p, u, even, "rounded_even");
  p.units.push_back(u);
  expectHardwareAgrees(p, "t_elementwise");
}

TEST(Templates, UnitsRunInScheduleOrderThroughAnIntermediate) {
  Program p;
  p.buffers.push_back({"x", 8, {6, 4}, Memory::OffChip, Role::Input});
  p.buffers.push_back({"t", 32, {4, 6}, Memory::OffChip, Role::Intermediate});
  Unit u1;
  u1.name = "transpose_square";
  {
    UnitBuilder b(p, u1);
    AddrGen g = AddrGen::identity({6, 4});
    g.transpose(0, 1);
    uint32_t x = b.read(0, g);
    b.write(1, AddrGen::identity({4, 6}), b.op(Prim::Mul, {x, x}, {1}));
  }
  p.units.push_back(u1);
  Unit u2;
  u2.name = "row_sums";
  {
    UnitBuilder b(p, u2);
    AddrGen g = AddrGen::identity({4, 6});
    uint32_t t = b.read(1, g);
    writeAll(p, u2, b.op(Prim::ReduceStm, {t}, {0}), "y");
  }
  p.units.push_back(u2);
  expectHardwareAgrees(p, "t_schedule");
}

}  // namespace
}  // namespace skeleshare::vhdl::test
