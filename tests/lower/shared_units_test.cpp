// Shared-function units in the mid-level IR: calls of one instance, the datapath check of
// the verifier, DSPs counted once, and the text form.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "skeleshare/lower/interpreter.h"
#include "skeleshare/lower/printer.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/verifier.h"

namespace skeleshare::lower {
namespace {

/// Buffers a: [rows][8], w: [4][8]; out: [rows][4]. A call computes out = a * w^T with a
/// dot datapath of 4 x 8 DSP lanes: Mul[1], ReduceVec, ReduceStm (over one step).
struct TwoCalls {
  Program prog;
  TwoCalls() {
    prog.buffers.push_back({"a", 8, {3, 8}, Memory::OffChip, Role::Input});
    prog.buffers.push_back({"b", 8, {5, 8}, Memory::OffChip, Role::Input});
    prog.buffers.push_back({"w", 8, {4, 8}, Memory::OffChip, Role::Weight});
    prog.buffers.push_back({"oa", 32, {3, 4}, Memory::OffChip, Role::Output});
    prog.buffers.push_back({"ob", 32, {5, 4}, Memory::OffChip, Role::Output});
    prog.instances.push_back({"let1", "dot 4 x 8"});
    addCall(0, 3, 4);
    addCall(1, 5, 4);
  }
  /// rows x [4 lanes][8 elements], accumulated over a stream dimension of extent 1.
  void addCall(int in, int64_t rows, int64_t lanes) {
    Unit u{fmt::format("c{}", prog.units.size()), {}, Call{0, {}}};
    UnitBuilder b(prog, u);
    std::vector<Counter> ctr{{rows, DimKind::Stream}, {1, DimKind::Stream}, {lanes, DimKind::Vector}, {8, DimKind::Vector}};
    AddrGen ga = AddrGen::identity({rows, 8});
    ga.regroup(ctr, {Affine{0, {1, 0, 0, 0}}, Affine{0, {0, 0, 0, 1}}});
    AddrGen gw = AddrGen::identity({4, 8});
    gw.regroup(ctr, {Affine{0, {0, 0, 1, 0}}, Affine{0, {0, 0, 0, 1}}});
    if (lanes > 4) gw.guardGroup(0, 0);
    uint32_t ra = b.read(in, ga);
    uint32_t rw = b.read(2, gw);
    uint32_t m = b.op(Prim::Mul, {ra, rw}, {1});
    uint32_t t = b.op(Prim::ReduceVec, {m}, {0});
    uint32_t acc = b.op(Prim::ReduceStm, {t}, {0});
    u.call->datapath = {m, t, acc};
    AddrGen go = AddrGen::identity({rows, 4});
    go.counters[1] = {lanes, DimKind::Vector};
    go.groups[1].radices = {lanes};
    if (lanes > 4) go.masks.push_back(Mask{Affine{0, {0, 1}}, 0, 4, 0});  // lanes past the 4 rows of w
    b.write(in == 0 ? 3 : 4, go, acc);
    prog.units.push_back(std::move(u));
  }
};

TEST(SharedUnits, TwoCallsVerifyAndCountDspsOnce) {
  TwoCalls f;
  auto problems = verify(f.prog);
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(checkInstanceCalls(f.prog, 0), "");
  Resources r = programResources(f.prog);
  EXPECT_EQ(r.dsps, 32);  // one instance of 4 x 8 multipliers, not two
  EXPECT_EQ(unitResources(f.prog.units[0]).dsps, 32);
  EXPECT_EQ(callSiteResources(f.prog.units[1]).dsps, 0);
  EXPECT_EQ(datapathResources(f.prog.units[1]).dsps, 32);
}

TEST(SharedUnits, CallsComputeLikeUnits) {
  TwoCalls f;
  Tensor a(8, {3, 8}), b(8, {5, 8}), w(8, {4, 8});
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int32_t>(i % 7) - 3;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int32_t>(i % 5) - 2;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int32_t>(i % 3) - 1;
  auto out = run(f.prog, {{"a", a}, {"b", b}, {"w", w}});
  for (int64_t r = 0; r < 5; ++r)
    for (int64_t o = 0; o < 4; ++o) {
      int32_t want = 0;
      for (int64_t k = 0; k < 8; ++k) want += b[static_cast<size_t>(r * 8 + k)] * w[static_cast<size_t>(o * 8 + k)];
      EXPECT_EQ(out.at("ob")[static_cast<size_t>(r * 4 + o)], want);
    }
}

TEST(SharedUnits, CallsWithDifferentLanesAreRejected) {
  TwoCalls f;
  f.prog.units.pop_back();
  f.addCall(1, 5, 5);  // a fifth multiplier lane: not the same hardware
  EXPECT_NE(checkInstanceCalls(f.prog, 0).find("differ at datapath node 0"), std::string::npos)
      << checkInstanceCalls(f.prog, 0);
  EXPECT_FALSE(verify(f.prog).empty());
}

TEST(SharedUnits, MalformedCallsAreRejected) {
  {
    TwoCalls f;  // a DSP multiplier of a call outside the datapath would be built per call
    f.prog.units[1].call->datapath = {3, 4};
    EXPECT_NE(checkInstanceCalls(f.prog, 0).find("outside the instance's datapath"), std::string::npos);
  }
  {
    TwoCalls f;  // memory accesses belong to the call
    f.prog.units[0].call->datapath = {0, 2, 3, 4};
    EXPECT_NE(checkInstanceCalls(f.prog, 0).find("is a Read"), std::string::npos);
  }
  {
    TwoCalls f;  // different wiring: the accumulator fed by the multiplier, not the tree
    f.prog.units[1].call->datapath = {2, 3};
    EXPECT_NE(checkInstanceCalls(f.prog, 0), "");
  }
  {
    TwoCalls f;
    f.prog.instances.push_back({"let2", "unused"});
    EXPECT_NE(checkInstanceCalls(f.prog, 1).find("has no call"), std::string::npos);
    f.prog.units[0].call->instance = 7;
    auto problems = verify(f.prog);
    ASSERT_FALSE(problems.empty());
  }
}

TEST(SharedUnits, TextFormMarksCallsAndDatapath) {
  TwoCalls f;
  std::string s = printProgram(f.prog);
  EXPECT_NE(s.find("instance let1 : dot 4 x 8;\n"), std::string::npos) << s;
  EXPECT_NE(s.find("call c0 of let1 {\n"), std::string::npos) << s;
  EXPECT_NE(s.find("* %2 : stm[3][1] vec[4][8] i32 = Mul[1](%0, %1)"), std::string::npos) << s;
  EXPECT_NE(s.find("  %0 : stm[3][1] vec[4][8] i8 = Read() from @a"), std::string::npos) << s;
}

}  // namespace
}  // namespace skeleshare::lower
