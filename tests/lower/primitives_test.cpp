// The primitives of the mid-level IR one by one: type rules, values, resources, the
// verifier and the text form.

#include <gtest/gtest.h>

#include "skeleshare/lower/interpreter.h"
#include "skeleshare/lower/printer.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/verifier.h"

namespace skeleshare::lower {
namespace {

constexpr DimKind S = DimKind::Stream;
constexpr DimKind V = DimKind::Vector;

/// A program with one i8 input buffer of `shape` and a unit under construction.
struct Fixture {
  Program prog;
  Unit unit{"u", {}, std::nullopt};
  explicit Fixture(std::vector<int64_t> shape) { prog.buffers.push_back({"x", 8, shape, Memory::OffChip, Role::Input}); }
  UnitBuilder b() { return UnitBuilder(prog, unit); }
  uint32_t readAll(std::vector<DimKind> kinds) {
    AddrGen g = AddrGen::identity(prog.buffers[0].shape);
    for (size_t i = 0; i < kinds.size(); ++i) g.counters[i].kind = kinds[i];
    return b().read(0, g);
  }
};

Tensor t32(std::vector<int64_t> shape, std::vector<int32_t> v) {
  Tensor t(32, shape);
  t.values() = v;
  return t;
}

Tensor evalOn(Fixture& f, uint32_t n, const std::vector<const Tensor*>& ops) { return evalNode(f.unit.nodes[n], ops); }

TEST(MType, TextAndChecks) {
  EXPECT_EQ(makeType(8, {{4, S}, {3, S}, {64, V}}).str(), "stm[4][3] vec[64] i8");
  EXPECT_EQ(makeType(32, {}).str(), "i32");
  EXPECT_NE(makeType(8, {{2, V}, {3, S}}).check(), "");
  EXPECT_NE(makeType(12, {}).check(), "");
  EXPECT_EQ(makeType(8, {{4, S}, {3, S}, {64, V}}).streamSteps(), 12);
  EXPECT_EQ(makeType(8, {{4, S}, {2, V}, {64, V}}).vectorLanes(), 128);
}

TEST(Primitives, ElementwiseTypeRules) {
  Fixture f({2, 3});
  uint32_t a = f.readAll({S, V});
  uint32_t c = f.b().constant(-2, 16, {{2, S}, {3, V}});
  EXPECT_EQ(f.b().type(f.b().op(Prim::Add, {a, c})).str(), "stm[2] vec[3] i16");
  EXPECT_EQ(f.b().type(f.b().op(Prim::Mul, {a, a}, {1})).str(), "stm[2] vec[3] i32");
  EXPECT_EQ(f.b().type(f.b().op(Prim::Saturate, {c}, {8})).bits, 8);
  uint32_t other = f.b().constant(0, 8, {{3, S}, {2, V}});
  EXPECT_THROW(f.b().op(Prim::Add, {a, other}), MirError);
  EXPECT_THROW(f.b().op(Prim::Mul, {a, a}), MirError);  // needs its dsp parameter
  EXPECT_THROW(f.b().constant(300, 8, {}), MirError);
  EXPECT_THROW(f.b().op(Prim::RoundShift, {a}, {0}), MirError);
  EXPECT_THROW(f.b().op(Prim::Add, {a, 99}), MirError);
}

TEST(Primitives, ArithmeticValues) {
  Fixture f({4});
  uint32_t a = f.readAll({V});
  Tensor x = t32({4}, {-9, -1, 7, 300});
  Tensor y = t32({4}, {2, 2, 2, 2});
  auto node = [&](Prim p, std::vector<int64_t> params, bool binary) {
    return f.b().op(p, binary ? std::vector<uint32_t>{a, a} : std::vector<uint32_t>{a}, params);
  };
  EXPECT_EQ(evalOn(f, node(Prim::ShiftRight, {1}, false), {&x}).values(), (std::vector<int32_t>{-5, -1, 3, 150}));
  EXPECT_EQ(evalOn(f, node(Prim::RoundShift, {1}, false), {&x}).values(), (std::vector<int32_t>{-4, 0, 4, 150}));
  // Ties: -9/2 = -4.5 -> -4, -1/2 -> 0 (-0.5, to the even 0), 7/2 = 3.5 -> 4.
  EXPECT_EQ(evalOn(f, node(Prim::RoundShiftEven, {1}, false), {&x}).values(), (std::vector<int32_t>{-4, 0, 4, 150}));
  Tensor ties = t32({4}, {-10, -6, 10, 6});  // /4: -2.5 -> -2, -1.5 -> -2, 2.5 -> 2, 1.5 -> 2
  EXPECT_EQ(evalOn(f, node(Prim::RoundShiftEven, {2}, false), {&ties}).values(), (std::vector<int32_t>{-2, -2, 2, 2}));
  EXPECT_EQ(evalOn(f, node(Prim::RoundShift, {2}, false), {&ties}).values(), (std::vector<int32_t>{-2, -1, 3, 2}));
  EXPECT_EQ(evalOn(f, node(Prim::Saturate, {8}, false), {&x}).values(), (std::vector<int32_t>{-9, -1, 7, 127}));
  EXPECT_EQ(evalOn(f, node(Prim::Wrap, {8}, false), {&x}).values(), (std::vector<int32_t>{-9, -1, 7, 44}));
  Tensor z = t32({4}, {-9, -1, 7, 100});  // i8 values: these nodes are i8
  EXPECT_EQ(evalOn(f, node(Prim::Max, {}, true), {&z, &y}).values(), (std::vector<int32_t>{2, 2, 7, 100}));
  EXPECT_EQ(evalOn(f, node(Prim::Min, {}, true), {&z, &y}).values(), (std::vector<int32_t>{-9, -1, 2, 2}));
  EXPECT_EQ(evalOn(f, node(Prim::Sub, {}, true), {&z, &y}).values(), (std::vector<int32_t>{-11, -3, 5, 98}));
  Tensor lo = t32({4}, {-128, -128, 0, 0});
  EXPECT_EQ(evalOn(f, node(Prim::Sub, {}, true), {&lo, &y}).values()[0], 126);  // wraps to 8 bits
  // Add of two i8 values wraps to 8 bits.
  Tensor p = x;
  EXPECT_EQ(evalOn(f, node(Prim::Add, {}, true), {&p, &p}).values()[3], wrapTo(600, 8));
  EXPECT_EQ(evalOn(f, node(Prim::Mul, {1}, true), {&x, &y}).values(), (std::vector<int32_t>{-18, -2, 14, 600}));
}

TEST(Primitives, ReductionsTakeTheInnermostDimensionOfTheirKind) {
  Fixture f({2, 3, 2});
  uint32_t a = f.readAll({S, S, V});
  uint32_t rv = f.b().op(Prim::ReduceVec, {a}, {0});
  uint32_t rs = f.b().op(Prim::ReduceStm, {a}, {1});
  EXPECT_EQ(f.b().type(rv).str(), "stm[2][3] i32");
  EXPECT_EQ(f.b().type(rs).str(), "stm[2] vec[2] i8");
  Tensor x = t32({2, 3, 2}, {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6});
  EXPECT_EQ(evalOn(f, rv, {&x}).values(), (std::vector<int32_t>{3, 7, 11, -3, -7, -11}));
  EXPECT_EQ(evalOn(f, rs, {&x}).values(), (std::vector<int32_t>{5, 6, -1, -2}));
  Fixture g({3});
  uint32_t s = g.readAll({S});
  EXPECT_THROW(g.b().op(Prim::ReduceVec, {s}, {0}), MirError);
  EXPECT_THROW(g.b().op(Prim::ReduceStm, {s}, {2}), MirError);
}

TEST(Primitives, SplitJoinAndConversionsChangeOnlyTheType) {
  Fixture f({6, 4});
  uint32_t a = f.readAll({S, V});
  uint32_t sp = f.b().op(Prim::SplitStm, {a}, {0, 3});
  EXPECT_EQ(f.b().type(sp).str(), "stm[2][3] vec[4] i8");
  const MType ta = f.b().type(a);  // a copy: adding nodes moves the stored types
  uint32_t jn = f.b().op(Prim::JoinStm, {sp}, {0});
  EXPECT_EQ(f.b().type(jn), ta);
  uint32_t sv = f.b().op(Prim::SplitVec, {a}, {0, 2});
  EXPECT_EQ(f.b().type(sv).str(), "stm[6] vec[2][2] i8");
  uint32_t jv = f.b().op(Prim::JoinVec, {sv}, {0});
  EXPECT_EQ(f.b().type(jv), ta);
  uint32_t sv2 = f.b().op(Prim::StmToVec, {a});
  EXPECT_EQ(f.b().type(sv2).str(), "vec[6][4] i8");
  EXPECT_EQ(f.b().type(f.b().op(Prim::VecToStm, {sv2})).str(), "stm[6] vec[4] i8");
  EXPECT_THROW(f.b().op(Prim::SplitStm, {a}, {0, 4}), MirError);
  EXPECT_THROW(f.b().op(Prim::SplitVec, {a}, {1, 2}), MirError);
  EXPECT_THROW(f.b().op(Prim::JoinStm, {a}, {0}), MirError);
  Tensor x(8, {6, 4});
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i);
  Tensor r = evalOn(f, sp, {&x});
  EXPECT_EQ(r.shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(r.values(), x.values());
}

TEST(Primitives, PermuteVecReordersTheVectorDimensions) {
  // Result dimension i is the operand's dimension p_i: (2, 3, 4) by [2, 0, 1] is (4, 2, 3),
  // and lane (a, b, c) of the result is the operand's lane (b, c, a).
  Fixture f({2, 3, 4});
  uint32_t a = f.readAll({V, V, V});
  uint32_t p = f.b().op(Prim::PermuteVec, {a}, {2, 0, 1});
  EXPECT_EQ(f.b().type(p).str(), "vec[4][2][3] i8");
  Tensor x(8, {2, 3, 4});
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i);
  Tensor r = evalOn(f, p, {&x});
  ASSERT_EQ(r.shape(), (std::vector<int64_t>{4, 2, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(r[static_cast<size_t>((i * 2 + j) * 3 + k)], x[static_cast<size_t>((j * 3 + k) * 4 + i)]);
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[p]).logic, 0);  // wires
  EXPECT_THROW(f.b().op(Prim::PermuteVec, {a}, {0, 1}), MirError);     // one entry per dimension
  EXPECT_THROW(f.b().op(Prim::PermuteVec, {a}, {0, 0, 1}), MirError);  // not a permutation
  EXPECT_THROW(f.b().op(Prim::PermuteVec, {a}, {0, 1, 3}), MirError);
}

TEST(Primitives, SlideSpreadsARowIntoItsWindows) {
  // (2, 5) by Slide[3] is (2, 3, 3): lane (o, c, j) is the operand's lane (o, c + j).
  Fixture f({2, 5});
  uint32_t a = f.readAll({V, V});
  uint32_t s = f.b().op(Prim::Slide, {a}, {3});
  EXPECT_EQ(f.b().type(s).str(), "vec[2][3][3] i8");
  Tensor x(8, {2, 5});
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(10 * i + 1);
  Tensor r = evalOn(f, s, {&x});
  ASSERT_EQ(r.shape(), (std::vector<int64_t>{2, 3, 3}));
  for (int64_t o = 0; o < 2; ++o)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t j = 0; j < 3; ++j)
        EXPECT_EQ(r[static_cast<size_t>((o * 3 + c) * 3 + j)], x[static_cast<size_t>(o * 5 + c + j)]);
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[s]).logic, 0);  // wires
  EXPECT_THROW(f.b().op(Prim::Slide, {a}, {6}), MirError);     // wider than the dimension
  EXPECT_THROW(f.b().op(Prim::Slide, {a}, {0}), MirError);
  EXPECT_THROW(f.b().op(Prim::Slide, {a}, {}), MirError);
}

TEST(Primitives, SelectLanesTakesEachLaneFromAnywhereOrTheFill) {
  // stm[2] vec[5] by SelectLanes[2, 2, 3, -7, ...] is stm[2] vec[2][3]: result lane j of
  // each step is the operand's lane s_j of that step, or -7 where s_j = -1.
  Fixture f({2, 5});
  uint32_t a = f.readAll({S, V});
  const std::vector<int64_t> sel{4, 0, -1, 2, 2, 1};
  std::vector<int64_t> params{2, 2, 3, -7};
  params.insert(params.end(), sel.begin(), sel.end());
  uint32_t s = f.b().op(Prim::SelectLanes, {a}, params);
  EXPECT_EQ(f.b().type(s).str(), "stm[2] vec[2][3] i8");
  Tensor x(8, {2, 5});
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(10 * i + 1);
  Tensor r = evalOn(f, s, {&x});
  ASSERT_EQ(r.shape(), (std::vector<int64_t>{2, 2, 3}));
  for (size_t step = 0; step < 2; ++step)
    for (size_t j = 0; j < sel.size(); ++j)
      EXPECT_EQ(r[step * 6 + j], sel[j] < 0 ? -7 : x[step * 5 + static_cast<size_t>(sel[j])]) << step << " " << j;
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[s]).logic, 0);  // wires
  EXPECT_THROW(f.b().op(Prim::SelectLanes, {a}, {1, 2, 0, 0}), MirError);       // one lane short
  EXPECT_THROW(f.b().op(Prim::SelectLanes, {a}, {1, 2, 0, 0, 5}), MirError);    // no lane 5
  EXPECT_THROW(f.b().op(Prim::SelectLanes, {a}, {1, 2, 0, -2, 0}), MirError);   // not a lane
  EXPECT_THROW(f.b().op(Prim::SelectLanes, {a}, {1, 2, 200, 0, 0}), MirError);  // fill outside i8
  EXPECT_THROW(f.b().op(Prim::SelectLanes, {a}, {}), MirError);
}

TEST(Primitives, SlideStmMakesWindowsOfConsecutiveSteps) {
  // stm[2][5][1] vec[2] by SlideStm[1, 3] is stm[2][3][1] vec[3][2]: step (o, r) holds the
  // operand's steps (o, r), (o, r + 1), (o, r + 2), oldest in the first lanes.
  Fixture f({2, 5, 1, 2});
  uint32_t a = f.readAll({S, S, S, V});
  uint32_t s = f.b().op(Prim::SlideStm, {a}, {1, 3});
  EXPECT_EQ(f.b().type(s).str(), "stm[2][3][1] vec[3][2] i8");
  Tensor x(8, {2, 5, 1, 2});
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(3 * i + 1);
  Tensor r = evalOn(f, s, {&x});
  ASSERT_EQ(r.shape(), (std::vector<int64_t>{2, 3, 1, 3, 2}));
  for (int64_t o = 0; o < 2; ++o)
    for (int64_t w = 0; w < 3; ++w)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t l = 0; l < 2; ++l)
          EXPECT_EQ(r[static_cast<size_t>(((o * 3 + w) * 3 + j) * 2 + l)], x[static_cast<size_t>((o * 5 + w + j) * 2 + l)]);
  EXPECT_THROW(f.b().op(Prim::SlideStm, {a}, {0, 2}), MirError);  // a stream of 5 inside the slid one
  EXPECT_THROW(f.b().op(Prim::SlideStm, {a}, {1, 6}), MirError);  // wider than the dimension
  EXPECT_THROW(f.b().op(Prim::SlideStm, {a}, {3, 2}), MirError);  // not a stream dimension
}

TEST(Primitives, RepeatReplaysItsOperand) {
  Fixture f({3});
  uint32_t a = f.readAll({V});
  uint32_t r = f.b().op(Prim::Repeat, {a}, {2, 0});
  EXPECT_EQ(f.b().type(r).str(), "stm[2] vec[3] i8");
  Tensor x(8, {3});
  x.values() = {4, 5, 6};
  EXPECT_EQ(evalOn(f, r, {&x}).values(), (std::vector<int32_t>{4, 5, 6, 4, 5, 6}));
  // The buffer holds two banks of the repeated block (ss_repeat plays one while the next
  // arrives): of one word here, of two below.
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[r]).onChipBits, 2 * 3 * 8);
  uint32_t r2 = f.b().op(Prim::Repeat, {r}, {4, 0});
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[r2]).onChipBits, 2 * 2 * 3 * 8);
  EXPECT_THROW(f.b().op(Prim::Repeat, {r}, {4}), MirError);     // where is a parameter
  EXPECT_THROW(f.b().op(Prim::Repeat, {r}, {4, 2}), MirError);  // r has one stream dimension
}

// Repeat[n, d] inside the stream: for each outer index, the inner block n times; its
// buffer holds one block.
TEST(Primitives, RepeatInsideAStreamReplaysEachBlock) {
  Fixture f({2, 3});
  uint32_t a = f.readAll({S, S});
  uint32_t r = f.b().op(Prim::Repeat, {a}, {2, 1});
  EXPECT_EQ(f.b().type(r).str(), "stm[2][2][3] i8");
  Tensor x(8, {2, 3});
  x.values() = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(evalOn(f, r, {&x}).values(), (std::vector<int32_t>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[r]).onChipBits, 2 * 3 * 8);
  uint32_t last = f.b().op(Prim::Repeat, {a}, {2, 2});  // each element twice: one-word banks
  EXPECT_EQ(evalOn(f, last, {&x}).values(), (std::vector<int32_t>{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[last]).onChipBits, 2 * 8);
}

// Broadcast[n, d]: a new vector dimension before vector dimension d, every copy the
// lanes inside it; wires.
TEST(Primitives, BroadcastCopiesTheLanes) {
  Fixture f({2, 3});
  uint32_t a = f.readAll({S, V});
  uint32_t r = f.b().op(Prim::Broadcast, {a}, {2, 0});
  EXPECT_EQ(f.b().type(r).str(), "stm[2] vec[2][3] i8");
  Tensor x(8, {2, 3});
  x.values() = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(evalOn(f, r, {&x}).values(), (std::vector<int32_t>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[r]).onChipBits, 0);
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[r]).logic, 0);
  // inside the vector: each lane twice
  uint32_t in = f.b().op(Prim::Broadcast, {a}, {2, 1});
  EXPECT_EQ(f.b().type(in).str(), "stm[2] vec[3][2] i8");
  EXPECT_EQ(evalOn(f, in, {&x}).values(), (std::vector<int32_t>{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
  EXPECT_THROW(f.b().op(Prim::Broadcast, {a}, {2, 2}), MirError);
  EXPECT_THROW(f.b().op(Prim::Broadcast, {a}, {2}), MirError);
}

TEST(Primitives, WriteMustMatchItsCounters) {
  Fixture f({2, 3});
  f.prog.buffers.push_back({"y", 8, {2, 3}, Memory::OffChip, Role::Output});
  uint32_t a = f.readAll({S, V});
  AddrGen g = AddrGen::identity({2, 3});  // all stream: does not match stm[2] vec[3]
  EXPECT_THROW(f.b().write(1, g, a), MirError);
  g.counters[1].kind = V;
  f.b().write(1, g, a);
  uint32_t wide = f.b().op(Prim::Mul, {a, a}, {1});
  EXPECT_THROW(f.b().write(1, g, wide), MirError);  // i32 into an i8 buffer
}

TEST(Primitives, DspsAreTheDspMultiplierLanes) {
  Fixture f({5, 2, 64});
  uint32_t a = f.readAll({S, V, V});
  uint32_t dsp = f.b().op(Prim::Mul, {a, a}, {1});
  uint32_t lut = f.b().op(Prim::Mul, {a, a}, {0});
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[dsp]).dsps, 128);
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[dsp]).dspLanes, 128);
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[lut]).dsps, 0);
  // two products per DSP block (Arria 10's 18 x 19 pairs): half the blocks, the same lanes
  uint32_t paired = f.b().op(Prim::Mul, {a, a}, {1, 2});
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[paired]).dsps, 64);
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[paired]).dspLanes, 128);
  EXPECT_THROW(f.b().op(Prim::Mul, {a, a}, {0, 2}), MirError);  // a logic multiplier has no blocks
  EXPECT_THROW(f.b().op(Prim::Mul, {a, a}, {1, 0}), MirError);
  EXPECT_GT(nodeResources(f.unit, f.unit.nodes[lut]).logic, 0);
  uint32_t tree = f.b().op(Prim::ReduceVec, {dsp}, {0});
  EXPECT_EQ(nodeResources(f.unit, f.unit.nodes[tree]).logic, 2 * 63 * 32);
}

TEST(Verifier, FindsReadBeforeWriteAndBadTypes) {
  Program p;
  p.buffers.push_back({"x", 8, {4}, Memory::OffChip, Role::Input});
  p.buffers.push_back({"t", 8, {4}, Memory::OnChip, Role::Intermediate});
  p.buffers.push_back({"y", 8, {4}, Memory::OffChip, Role::Output});
  Unit u1{"a", {}, std::nullopt}, u2{"b", {}, std::nullopt};
  {
    UnitBuilder b(p, u2);
    b.write(2, AddrGen::identity({4}), b.read(1, AddrGen::identity({4})));
  }
  {
    UnitBuilder b(p, u1);
    b.write(1, AddrGen::identity({4}), b.read(0, AddrGen::identity({4})));
  }
  p.units = {u2, u1};  // reads t before it is written
  auto problems = verify(p);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("before any unit writes it"), std::string::npos);
  p.units = {u1, u2};
  EXPECT_TRUE(verify(p).empty());
  p.units[0].nodes[0].type.bits = 16;  // a stored type the rule does not give
  EXPECT_FALSE(verify(p).empty());
  p.units[0].nodes[0].type.bits = 8;
  p.units[1].nodes.pop_back();  // a unit that writes nothing; y never written
  EXPECT_EQ(verify(p).size(), 2u);
}

TEST(Printer, ShowsBuffersNodesAndAddressPatterns) {
  Fixture f({3, 4});
  f.prog.buffers.push_back({"y", 8, {2, 4}, Memory::OnChip, Role::Intermediate});
  AddrGen g = AddrGen::identity({3, 4});
  g.slice(0, 1, 2);
  uint32_t a = f.b().read(0, g);
  f.b().write(1, AddrGen::identity({2, 4}), a);
  f.prog.units.push_back(f.unit);
  std::string s = printProgram(f.prog);
  EXPECT_NE(s.find("input x : i8[3][4] off-chip;"), std::string::npos) << s;
  EXPECT_NE(s.find("buffer y : i8[2][4] on-chip;"), std::string::npos) << s;
  EXPECT_NE(s.find("%0 : stm[2][4] i8 = Read() from @x ctr[s2 s4] addr=4 + 4*c0 + 1*c1"), std::string::npos) << s;
  EXPECT_NE(s.find("Write(%0) to @y"), std::string::npos) << s;
}

// The cycle model's load of a unit (timing.h): a copy of 10 vectors of 128 i8 lanes (two
// lines each) runs two runs per vector through the read and the write, and moves 20 lines
// each way.
TEST(Cycles, AUnitsLoadIsItsBusiestStageItsLinesAndItsDepth) {
  AccessCounter counts;
  Fixture f({10, 128});
  f.prog.buffers.push_back({"y", 8, {10, 128}, Memory::OffChip, Role::Intermediate});
  AddrGen g = AddrGen::identity({10, 128});
  g.counters[1].kind = V;
  uint32_t a = f.b().read(0, g);
  f.b().write(1, g, a);
  cost::UnitLoad load = unitLoad(f.prog, f.unit, counts, {});
  EXPECT_EQ(load.busiest, 20);
  EXPECT_EQ(load.lines, 40);
  EXPECT_EQ(load.depth, 5 + 3);  // a read's and a write's registers
  // the port moves 0.5 lines a cycle: 80 cycles, plus depth and latency
  EXPECT_EQ(cost::unitCycles(load, {500, 4}), 80 + 8 + 4);
  EXPECT_EQ(cost::unitCycles(load, {1000, 4}), 40 + 8 + 4);
  // A repeated read: the block of one vector is read once and played 10 times.
  Fixture r({128});
  r.prog.buffers.push_back({"y", 8, {10, 128}, Memory::OffChip, Role::Intermediate});
  AddrGen once = AddrGen::identity({128});
  once.counters[0].kind = V;
  uint32_t x = r.b().op(Prim::Repeat, {r.b().read(0, once)}, {10, 0});
  r.b().write(1, g, x);
  cost::UnitLoad rl = unitLoad(r.prog, r.unit, counts, {});
  EXPECT_EQ(rl.lines, 2 + 20);
  EXPECT_EQ(rl.busiest, 20);  // the write: two runs per vector
  EXPECT_EQ(rl.depth, 5 + 2 + 3);
}

// A replay buffer that plays each block twice or more takes the next block's lines while
// it plays the current one, so the stages after it wait for no line: the interference
// term counts the read that fills it, not them, and the port paces only its first block.
// (VGG-CIFAR at a quarter of the DSPs: its 512-channel layers stream 36,864 weight lines
// into such a buffer and take 61,548 cycles simulated, 70,455 when every stage interfered,
// 59,639 when the first block was paced by its runs alone.)
TEST(Cycles, StagesBehindAReplayBufferPlayedTwiceDoNotInterfereAndThePortPacesItsFirstBlock) {
  AccessCounter counts;
  // 8 blocks of 4 vectors of 64 bytes (a line each), every block played `passes` times,
  // then written on chip
  auto unitWith = [&](int64_t passes, cost::MemorySystem memory) {
    Fixture r({8, 4, 64});
    r.prog.buffers.push_back({"y", 8, {8, passes, 4, 64}, Memory::OnChip, Role::Intermediate});
    AddrGen in = AddrGen::identity({8, 4, 64});
    in.counters[2].kind = V;
    const uint32_t x = r.b().op(Prim::Repeat, {r.b().read(0, in)}, {passes, 1});
    AddrGen out = AddrGen::identity({8, passes, 4, 64});
    out.counters[3].kind = V;
    r.b().write(1, out, x);
    EXPECT_EQ(stallingStages(r.prog, r.unit), (std::vector<bool>{true, passes < 2, passes < 2}));
    return unitLoad(r.prog, r.unit, counts, memory);
  };
  const cost::MemorySystem slow{250, 0};  // a line every 4 cycles
  const cost::UnitLoad once = unitWith(1, slow), twice = unitWith(4, slow);
  EXPECT_EQ(once.stalled, once.busiest);  // played once, every stage waits for the lines
  EXPECT_EQ(twice.stalled, 32);           // the read's 32 runs
  EXPECT_EQ(twice.lines, 32);
  // the first block's 4 lines take 16 cycles of the port (its 4 runs, 4), of which its
  // first pass covers 4 words; then the buffer plays 4 x 4 words a block
  EXPECT_EQ(twice.replayFill, 16 - 4);
  EXPECT_EQ(twice.busiest, 16 + 8 * 16 - 4);
  // The port's 128 cycles and the buffer's 140: 5/8 of their sum (168) if the buffer's
  // stages could stall; as they cannot, the buffer sets the time, the read's runs and the
  // port interfering below it (5/8 of 32 + 128 = 100).
  EXPECT_EQ(cost::unitCycles(twice, slow), 140 + twice.depth);
  cost::UnitLoad interfering = twice;
  interfering.stalled = interfering.busiest;
  EXPECT_EQ(cost::unitCycles(interfering, slow), 168 + twice.depth);
}

// A read of an on-chip buffer is no faster than the buffer's one read port: a line a
// cycle. Self-attention's last product reads transpose(V) in two 64 x 32 blocks, a run
// taking the halves of two rows (two lines), so its 64 runs need 128 lines; off chip the
// memory port's term counts them, on chip the read waits for them (270 cycles simulated,
// 210 estimated when only its runs counted).
TEST(Cycles, AnOnChipReadTakesALineACycle) {
  AccessCounter counts;
  for (Memory memory : {Memory::OffChip, Memory::OnChip}) {
    Program p;
    p.buffers.push_back({"v", 8, {64, 64}, memory, Role::Intermediate});
    p.buffers.push_back({"y", 8, {2, 64, 32}, Memory::OffChip, Role::Output});
    Unit u{"u", {}, std::nullopt};
    AddrGen g = AddrGen::identity({64, 64});
    g.transpose(0, 1);  // columns of v
    g.split(0, 32);     // (column block, column in block, row)
    g.permute({0, 2, 1});
    g.counters[1].kind = V;
    g.counters[2].kind = V;
    UnitBuilder b(p, u);
    const uint32_t blocks = b.read(0, g);
    AddrGen out = AddrGen::identity({2, 64, 32});
    out.counters[1].kind = V;
    out.counters[2].kind = V;
    b.write(1, out, blocks);
    const AccessCount a = counts.read(g, 1, 64 * 32);
    EXPECT_EQ(a.runs, 64);
    EXPECT_EQ(a.lines, 128);
    const cost::UnitLoad load = unitLoad(p, u, counts, {});
    EXPECT_EQ(load.busiest, memory == Memory::OnChip ? 128 : 64) << load.busiest;
    EXPECT_EQ(freshReadRuns(p, u, counts), memory == Memory::OnChip ? 128 : 64);
  }
}

}  // namespace
}  // namespace skeleshare::lower
