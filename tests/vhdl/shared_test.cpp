// A shared instance in hardware: one datapath (4 x 8 DSP multipliers, adder trees, an
// accumulator), two calls with different row counts and accumulation lengths, one with a
// fused stage after the result. Built once, multiplexed by the sequencer; bit-exact
// against the mid-level interpreter under random memory wait states.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/verifier.h"
#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

using namespace lower;

/// The named i8 buffers filled with a pattern: element i of `name` is
/// (i * mul + len(name) * add) mod 255 - 127.
std::map<std::string, Tensor> patternInputs(const Program& prog, std::initializer_list<const char*> names, int64_t mul,
                                            int64_t add) {
  std::map<std::string, Tensor> inputs;
  for (const char* name : names) {
    const auto& buf = prog.buffers[static_cast<size_t>(prog.findBuffer(name))];
    Tensor t(8, buf.shape);
    for (size_t i = 0; i < t.size(); ++i)
      t.setWrapped(i, (static_cast<int64_t>(i) * mul + static_cast<int64_t>(buf.name.size()) * add) % 255 - 127);
    inputs[name] = t;
  }
  return inputs;
}

/// out = a * w^T over `chunks` chunks of 8 elements: rows x [4 lanes][8 elements].
void addCall(Program& prog, int in, int w, int out, int64_t rows, int64_t chunks, bool requant) {
  Unit u;
  u.name = fmt::format("call{}", prog.units.size());
  u.call = Call{0, {}};
  UnitBuilder b(prog, u);
  std::vector<Counter> ctr{{rows, DimKind::Stream}, {chunks, DimKind::Stream}, {4, DimKind::Vector}, {8, DimKind::Vector}};
  AddrGen ga = AddrGen::identity({rows, chunks * 8});
  ga.regroup(ctr, {Affine{0, {1, 0, 0, 0}}, Affine{0, {0, 8, 0, 1}}});
  AddrGen gw = AddrGen::identity({4, chunks * 8});
  gw.regroup(ctr, {Affine{0, {0, 0, 1, 0}}, Affine{0, {0, 8, 0, 1}}});
  uint32_t ra = b.read(in, ga);
  uint32_t rw = b.read(w, gw);
  uint32_t m = b.op(Prim::Mul, {ra, rw}, {1});
  uint32_t t = b.op(Prim::ReduceVec, {m}, {0});
  uint32_t acc = b.op(Prim::ReduceStm, {t}, {0});
  u.call->datapath = {m, t, acc};
  uint32_t result = requant ? b.op(Prim::Saturate, {b.op(Prim::RoundShift, {acc}, {4})}, {8}) : acc;
  AddrGen go = AddrGen::identity({rows, 4});
  go.counters[1].kind = DimKind::Vector;
  b.write(out, go, result);
  prog.units.push_back(std::move(u));
}

TEST(SharedInstance, TwoCallsShareOneDatapath) {
  Program prog;
  prog.buffers.push_back({"a", 8, {3, 16}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"b", 8, {5, 8}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"w16", 8, {4, 16}, Memory::OffChip, Role::Weight});
  prog.buffers.push_back({"w8", 8, {4, 8}, Memory::OffChip, Role::Weight});
  prog.buffers.push_back({"oa", 8, {3, 4}, Memory::OffChip, Role::Output});
  prog.buffers.push_back({"ob", 32, {5, 4}, Memory::OffChip, Role::Output});
  prog.instances.push_back({"let1", "dot 4 x 8"});
  addCall(prog, 0, 2, 4, 3, 2, true);
  addCall(prog, 1, 3, 5, 5, 1, false);
  auto problems = verify(prog);
  ASSERT_TRUE(problems.empty()) << problems.front();

  auto inputs = patternInputs(prog, {"a", "b", "w16", "w8"}, 37, 11);
  auto want = run(prog, inputs);
  for (uint64_t seed : {1, 2}) {
    Simulated s = emitAndSimulate(prog, inputs, "t_shared", seed, 200000);
    ASSERT_TRUE(s.sim.ok) << s.sim.error << "\n" << s.sim.log;
    auto bad = firstMismatch(want, s.sim.outputs);
    EXPECT_FALSE(bad.has_value()) << "seed " << seed << ": " << bad->describe();
    // the datapath's 32 DSP multipliers are built once, as the lowering counts them
    EXPECT_EQ(s.design.dspLanes, 32);
    EXPECT_EQ(programResources(prog).dsps, 32);
    int instances = 0;
    for (const auto& f : s.design.files) instances += f.name == "t_shared_i0.vhd";
    EXPECT_EQ(instances, 1);
  }
}

/// out = a * w^T as addCall, but w is read once ([chunks][4][8]) and replayed for every row
/// by a Repeat of the call site: a replay buffer in the top's pool.
void addReplayingCall(Program& prog, int in, int w, int out, int64_t rows, int64_t chunks) {
  Unit u;
  u.name = fmt::format("call{}", prog.units.size());
  u.call = Call{0, {}};
  UnitBuilder b(prog, u);
  std::vector<Counter> ctr{{rows, DimKind::Stream}, {chunks, DimKind::Stream}, {4, DimKind::Vector}, {8, DimKind::Vector}};
  AddrGen ga = AddrGen::identity({rows, chunks * 8});
  ga.regroup(ctr, {Affine{0, {1, 0, 0, 0}}, Affine{0, {0, 8, 0, 1}}});
  std::vector<Counter> wctr{{chunks, DimKind::Stream}, {4, DimKind::Vector}, {8, DimKind::Vector}};
  AddrGen gw = AddrGen::identity({4, chunks * 8});
  gw.regroup(wctr, {Affine{0, {0, 1, 0}}, Affine{0, {8, 0, 1}}});
  uint32_t ra = b.read(in, ga);
  uint32_t rw = b.op(Prim::Repeat, {b.read(w, gw)}, {rows, 0});
  uint32_t m = b.op(Prim::Mul, {ra, rw}, {1});
  uint32_t t = b.op(Prim::ReduceVec, {m}, {0});
  uint32_t acc = b.op(Prim::ReduceStm, {t}, {0});
  u.call->datapath = {m, t, acc};
  AddrGen go = AddrGen::identity({rows, 4});
  go.counters[1].kind = DimKind::Vector;
  b.write(out, go, acc);
  prog.units.push_back(std::move(u));
}

/// out[r] = sum over chunks and lanes of w, the same for each of `rows` rows: w replayed
/// `rows` times by a plain unit that consumes the replay itself.
void addReplayingSum(Program& prog, int w, int out, int64_t rows, int64_t chunks) {
  Unit u;
  u.name = fmt::format("sum{}", prog.units.size());
  UnitBuilder b(prog, u);
  std::vector<Counter> wctr{{chunks, DimKind::Stream}, {4, DimKind::Vector}, {8, DimKind::Vector}};
  AddrGen gw = AddrGen::identity({4, chunks * 8});
  gw.regroup(wctr, {Affine{0, {0, 1, 0}}, Affine{0, {8, 0, 1}}});
  uint32_t rw = b.op(Prim::Repeat, {b.read(w, gw)}, {rows, 0});
  uint32_t acc = b.op(Prim::ReduceStm, {b.op(Prim::ReduceVec, {rw}, {0})}, {0});
  AddrGen go = AddrGen::identity({rows, 4});
  go.counters[1].kind = DimKind::Vector;
  b.write(out, go, acc);
  prog.units.push_back(std::move(u));
}

const std::string& fileText(const EmittedDesign& d, const std::string& name) {
  for (const auto& f : d.files)
    if (f.name == name) return f.text;
  ADD_FAILURE() << "no file " << name;
  static const std::string none;
  return none;
}

// The replayed weights of both calls share a pool RAM. Its read data changes on every
// replayed word, and each of its units used to copy it twice (out of ss_repeat, out to the
// instance's port), running or not: half of full VGG-CIFAR's GHDL time. Now the instance
// reads the RAM itself, and the products travel at their exact 16 bits, not as i32.
// Still bit-exact.
TEST(SharedInstance, PooledOperandsAreReadFromThePoolNotCopiedByEveryCall) {
  Program prog;
  prog.buffers.push_back({"a", 8, {3, 16}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"b", 8, {5, 16}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"wa", 8, {4, 16}, Memory::OffChip, Role::Weight});
  prog.buffers.push_back({"wb", 8, {4, 16}, Memory::OffChip, Role::Weight});
  prog.buffers.push_back({"oa", 32, {3, 4}, Memory::OffChip, Role::Output});
  prog.buffers.push_back({"ob", 32, {5, 4}, Memory::OffChip, Role::Output});
  prog.buffers.push_back({"oc", 32, {3, 4}, Memory::OffChip, Role::Output});
  prog.instances.push_back({"let1", "dot 4 x 8"});
  addReplayingCall(prog, 0, 2, 4, 3, 2);
  addReplayingCall(prog, 1, 3, 5, 5, 2);
  addReplayingSum(prog, 3, 6, 3, 2);  // a third user of the weights' pool RAM
  auto problems = verify(prog);
  ASSERT_TRUE(problems.empty()) << problems.front();

  auto inputs = patternInputs(prog, {"a", "b", "wa", "wb"}, 53, 7);
  auto want = run(prog, inputs);
  for (uint64_t seed : {1, 2}) {
    Simulated s = emitAndSimulate(prog, inputs, "t_pooled", seed, 200000);
    ASSERT_TRUE(s.sim.ok) << s.sim.error << "\n" << s.sim.log;
    auto bad = firstMismatch(want, s.sim.outputs);
    EXPECT_FALSE(bad.has_value()) << "seed " << seed << ": " << bad->describe();
    const std::string& top = fileText(s.design, "t_pooled_top.vhd");
    for (int u : {0, 1}) {
      // the call's port to the instance carries the handshake of the weights only
      const std::string& unit = fileText(s.design, fmt::format("t_pooled_u{}.vhd", u));
      EXPECT_NE(unit.find("ip1_valid"), std::string::npos);
      EXPECT_EQ(unit.find("ip1_data"), std::string::npos) << unit;
      EXPECT_NE(unit.find("ip0_data"), std::string::npos);  // the rows: not replayed
      // the units only pass the weights on: nothing in them reads the pool's data, so the
      // top gives them the RAM's read data as it is (a unit that reads it itself gets it
      // in simulation only while it runs: `u<k>_r<s>_rdata_sim`)
      EXPECT_EQ(top.find(fmt::format("u{}_r0_rdata_sim", u)), std::string::npos) << top;
    }
    // the plain unit reads its replay: a simulator gives it the RAM's data while it runs
    EXPECT_NE(top.find("u2_r0_rdata_sim : if SIMULATING generate"), std::string::npos) << top;
    EXPECT_NE(top.find("p1_data => r0_rdata"), std::string::npos) << top;
    const std::string& inst = fileText(s.design, "t_pooled_i0.vhd");
    EXPECT_NE(inst.find("P_BITS => 16"), std::string::npos) << inst;  // i8 x i8 products, summed by an ss_dot
    EXPECT_EQ(s.design.dspLanes, 32);
  }
}

// Two calls that run at once (the second starts with the first, lower/overlap.h) on an
// instance that keeps nothing between steps (one result per step): they interleave step
// by step, each step going to whichever call has one ready, and the tag queue sends each
// result back to its call. Bit-exact only if every result reaches the call that gave its
// step.
TEST(SharedInstance, CallsThatRunAtOnceInterleaveTheirStepsAndGetTheirOwnResults) {
  auto build = [](bool overlap) {
    Program prog;
    prog.buffers.push_back({"a", 8, {48, 8}, Memory::OffChip, Role::Input});
    prog.buffers.push_back({"b", 8, {40, 8}, Memory::OffChip, Role::Input});
    prog.buffers.push_back({"wa", 8, {4, 8}, Memory::OffChip, Role::Weight});
    prog.buffers.push_back({"wb", 8, {4, 8}, Memory::OffChip, Role::Weight});
    prog.buffers.push_back({"oa", 8, {48, 4}, Memory::OffChip, Role::Output});
    prog.buffers.push_back({"ob", 32, {40, 4}, Memory::OffChip, Role::Output});
    prog.instances.push_back({"let1", "dot 4 x 8"});
    addCall(prog, 0, 2, 4, 48, 1, true);
    addCall(prog, 1, 3, 5, 40, 1, false);
    if (overlap) applyOverlap(prog, int64_t{1} << 40);
    auto problems = verify(prog);
    EXPECT_TRUE(problems.empty()) << problems.front();
    return prog;
  };
  const Program alone = build(false), beside = build(true);
  ASSERT_TRUE(interleavesSteps(beside, 1));
  auto inputs = patternInputs(beside, {"a", "b", "wa", "wb"}, 29, 7);
  auto want = run(beside, inputs);
  for (uint64_t seed : {1, 2}) {
    Simulated one = emitAndSimulate(alone, inputs, "t_alone", seed, 200000);
    Simulated both = emitAndSimulate(beside, inputs, "t_beside", seed, 200000);
    ASSERT_TRUE(both.sim.ok) << both.sim.error << "\n" << both.sim.log;
    ASSERT_TRUE(one.sim.ok) << one.sim.error << "\n" << one.sim.log;
    auto bad = firstMismatch(want, both.sim.outputs);
    EXPECT_FALSE(bad.has_value()) << "seed " << seed << ": " << bad->describe();
    EXPECT_FALSE(firstMismatch(want, one.sim.outputs).has_value());
    std::string top;
    for (const auto& f : both.design.files)
      if (f.name == "t_beside_top.vhd") top = f.text;
    EXPECT_NE(top.find("i0_tags : entity work.ss_tag_queue"), std::string::npos);
    // the second call runs before the first ends, and the two finish sooner
    ASSERT_EQ(both.sim.units.size(), 2u);
    EXPECT_LT(both.sim.units[1].first, both.sim.units[0].end);
    std::cerr << "seed " << seed << ": one after another " << one.sim.cycles << " cycles, interleaved " << both.sim.cycles
              << "\n";
    EXPECT_LT(both.sim.cycles, one.sim.cycles);
  }
}

}  // namespace
}  // namespace skeleshare::vhdl::test
