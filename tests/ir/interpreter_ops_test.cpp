// Every operator on tiny hand-computed examples (docs/ir.md's semantics table), each
// evaluated with and without fast paths.

#include "interpreter_test_util.h"

using namespace skeleshare;
using namespace skeleshare::ir;
using namespace skeleshare::ir::testing;

namespace {

struct OpTest : ::testing::Test {
  Context ctx;
  Inputs in;
  const Type* i8 = ctx.intType(8);
  const Type* i16 = ctx.intType(16);
  const Type* i32 = ctx.intType(32);
  const Term* input(const std::string& name, int bits, const Shape& shape, const std::vector<int32_t>& v) {
    return addInput(ctx, in, name, tensorOf(bits, shape, v));
  }
  Tensor run(const Term* t) { return evalBoth(ctx, t, in); }
  Tensor expect(int bits, const Shape& shape, const std::vector<int32_t>& v) { return tensorOf(bits, shape, v); }
};

// ---- core ------------------------------------------------------------------------------

TEST_F(OpTest, ParallelDot) {
  auto a = input("a", 8, {2, 2}, {1, 2, 3, 4});
  auto b = input("b", 8, {2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(run(ctx.op(Op::ParallelDot, {a, b}, {1})), expect(32, {2}, {17, 53}));
}

TEST_F(OpTest, ParallelDotWrapsModulo2To32) {
  // 2^16 * 2^15 = 2^31 wraps to -2^31; two of them sum to 2^32, i.e. 0.
  auto a = input("a", 32, {2, 2}, {65536, 65536, 65536, 0});
  auto b = input("b", 32, {2, 2}, {32768, 32768, 32768, 5});
  EXPECT_EQ(run(ctx.op(Op::ParallelDot, {a, b}, {2})), expect(32, {2}, {0, INT32_MIN}));
}

TEST_F(OpTest, ParallelPartialDot) {
  auto a = input("a", 8, {1, 4}, {1, 2, 3, 4});
  auto b = input("b", 8, {1, 4}, {1, 1, 2, 2});
  EXPECT_EQ(run(ctx.op(Op::ParallelPartialDot, {a, b}, {1, 2})), expect(32, {1, 2}, {3, 14}));
}

TEST_F(OpTest, MergePartialSum) {
  auto x = input("x", 32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run(ctx.op(Op::MergePartialSum, {x})), expect(32, {2}, {6, 15}));
  auto y = input("y", 32, {1, 1, 2}, {INT32_MAX, 1});
  EXPECT_EQ(run(ctx.op(Op::MergePartialSum, {y})), expect(32, {1, 1}, {INT32_MIN}));
}

TEST_F(OpTest, Mv) {
  auto m = input("m", 8, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto v = input("v", 8, {3}, {1, 0, -1});
  EXPECT_EQ(run(ctx.op(Op::Mv, {m, v, dotF(ctx, 2, 3, i8, i8, 2)})), expect(32, {2}, {-2, -2}));
  // With a partial dot the result keeps the chunks: M x C.
  auto pd = ctx.lam2(tensorTy(ctx, {2, 3}, 8), tensorTy(ctx, {2, 3}, 8),
                     ctx.op(Op::ParallelPartialDot, {ctx.var(1, tensorTy(ctx, {2, 3}, 8)), ctx.var(0, tensorTy(ctx, {2, 3}, 8))}, {1, 3}));
  EXPECT_EQ(run(ctx.op(Op::Mv, {m, v, pd})), expect(32, {2, 3}, {1, 0, -3, 4, 0, -6}));
}

TEST_F(OpTest, Mm) {
  auto a = input("a", 8, {2, 2}, {1, 2, 3, 4});
  auto b = input("b", 16, {3, 2}, {1, 0, 0, 1, 1, 1});
  // out = a * b^T
  EXPECT_EQ(run(ctx.op(Op::Mm, {a, b, cMvF(ctx, 3, 2, i16, i8)})), expect(32, {2, 3}, {1, 2, 3, 3, 4, 7}));
}

TEST_F(OpTest, ConvTwoFilters) {
  auto x = input("x", 8, {3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w = input("w", 8, {2, 2, 2, 1}, {1, 2, 3, 4, 0, 0, 0, 1});
  // filter 0: 1*in[y][x] + 2*in[y][x+1] + 3*in[y+1][x] + 4*in[y+1][x+1]; filter 1: in[y+1][x+1]
  EXPECT_EQ(run(ctx.op(Op::Conv, {x, w, cMvF(ctx, 2, 4, i8, i8)})),
            expect(32, {2, 2, 2}, {37, 5, 47, 6, 67, 8, 77, 9}));
}

TEST_F(OpTest, ConvWindowOrderIsKyKxC) {
  auto x = input("x", 8, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto w = input("w", 8, {1, 2, 2, 2}, {1, 1, 0, 0, 0, 0, 2, -1});
  // window = [1..8]; W2 row = [1, 1, 0, 0, 0, 0, 2, -1]
  EXPECT_EQ(run(ctx.op(Op::Conv, {x, w, cMvF(ctx, 1, 8, i8, i8)})), expect(32, {1, 1, 1}, {9}));
}

TEST_F(OpTest, Conv1DW) {
  auto img = input("img", 8, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto w = input("w", 8, {2}, {1, 2});
  EXPECT_EQ(run(ctx.op(Op::Conv1DW, {img, w, cMvF(ctx, 3, 2, i8, i8)})), expect(32, {2, 3}, {5, 8, 11, 17, 20, 23}));
}

TEST_F(OpTest, Conv1DH) {
  auto img = input("img", 8, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto w = input("w", 8, {2}, {1, 2});
  EXPECT_EQ(run(ctx.op(Op::Conv1DH, {img, w, cMvF(ctx, 2, 2, i8, i8)})), expect(32, {2, 2}, {7, 10, 13, 16}));
}

TEST_F(OpTest, TransposedConv1DW) {
  auto img = input("img", 8, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto w = input("w", 8, {2}, {1, 2});
  // f works on the transposed 2 x 3 image.
  EXPECT_EQ(run(ctx.op(Op::TransposedConv1DW, {img, w, cConv1DWF(ctx, 2, 3, 2, i8, i8)})),
            expect(32, {2, 2}, {7, 10, 13, 16}));
}

TEST_F(OpTest, ParallelConvGroupsPositionsAndPadsTheLastGroup) {
  auto x = input("x", 8, {1, 3, 1}, {1, 2, 3});
  auto w = input("w", 8, {2, 1, 1, 1}, {2, 3});
  // G = 2: positions {0, 1} and {2, zero window}.
  EXPECT_EQ(run(ctx.op(Op::ParallelConv, {x, w, pMvF(ctx, 2, 2, 2, i8, i8)})),
            expect(32, {1, 3, 2}, {2, 3, 4, 6, 6, 9}));
}

// ---- data-transformed ------------------------------------------------------------------

struct MvTransformTest : OpTest {
  const Term* m = input("m", 8, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Term* v = input("v", 8, {4}, {1, 1, 1, -1});
  Tensor want = expect(32, {2}, {2, 10});
};

TEST_F(MvTransformTest, TiledMv) { EXPECT_EQ(run(ctx.op(Op::TiledMv, {m, v, cMvF(ctx, 2, 2, i8, i8)})), want); }
TEST_F(MvTransformTest, TiledMvRows) { EXPECT_EQ(run(ctx.op(Op::TiledMvRows, {m, v, cMvF(ctx, 1, 4, i8, i8)})), want); }
TEST_F(MvTransformTest, PaddedMv) { EXPECT_EQ(run(ctx.op(Op::PaddedMv, {m, v, cMvF(ctx, 2, 6, i8, i8)})), want); }
TEST_F(MvTransformTest, PaddedMvRows) { EXPECT_EQ(run(ctx.op(Op::PaddedMvRows, {m, v, cMvF(ctx, 3, 4, i8, i8)})), want); }

struct MmTransformTest : OpTest {
  const Term* a = input("a", 8, {2, 2}, {1, 2, 3, 4});
  const Term* b = input("b", 8, {3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor want = expect(32, {2, 3}, {1, 2, 3, 3, 4, 7});
};

TEST_F(MmTransformTest, TiledMmW) { EXPECT_EQ(run(ctx.op(Op::TiledMmW, {a, b, cMmF(ctx, 1, 2, 2, i8, i8)})), want); }
TEST_F(MmTransformTest, TiledMmH) { EXPECT_EQ(run(ctx.op(Op::TiledMmH, {a, b, cMmF(ctx, 3, 1, 2, i8, i8)})), want); }
TEST_F(MmTransformTest, TiledMmK) { EXPECT_EQ(run(ctx.op(Op::TiledMmK, {a, b, cMmF(ctx, 3, 2, 1, i8, i8)})), want); }

// A 5 x 5 image in[y][x] = 5y + x + 1 and the kernel [[1, 2], [3, 4]] give
// out[y][x] = 10 * in[y][x] + 41 = 50y + 10x + 51 (4 x 4).
struct ConvTransformTest : OpTest {
  const Term* x = [this] {
    std::vector<int32_t> v(25);
    for (int i = 0; i < 25; ++i) v[static_cast<size_t>(i)] = i + 1;
    return input("x", 8, {5, 5, 1}, v);
  }();
  const Term* w = input("w", 8, {1, 2, 2, 1}, {1, 2, 3, 4});
  Tensor want = [] {
    Tensor t(32, {4, 4, 1});
    for (int y = 0; y < 4; ++y)
      for (int c = 0; c < 4; ++c) t[static_cast<size_t>(y * 4 + c)] = 50 * y + 10 * c + 51;
    return t;
  }();
};

TEST_F(ConvTransformTest, Conv) { EXPECT_EQ(run(ctx.op(Op::Conv, {x, w, cMvF(ctx, 1, 4, i8, i8)})), want); }
TEST_F(ConvTransformTest, TiledConvHWOverlapsTilesByKsMinusOne) {
  // Input tiles 3 x 3 give 2 x 2 output tiles: 4 tiles.
  EXPECT_EQ(run(ctx.op(Op::TiledConvHW, {x, w, cConvF(ctx, 3, 3, 1, 1, 2, i8, i8)})), want);
  // Non-square tiles: 2 x 5 input tiles (1 x 4 output tiles).
  EXPECT_EQ(run(ctx.op(Op::TiledConvHW, {x, w, cConvF(ctx, 2, 5, 1, 1, 2, i8, i8)})), want);
}
TEST_F(ConvTransformTest, PaddedConvHWCrops) {
  EXPECT_EQ(run(ctx.op(Op::PaddedConvHW, {x, w, cConvF(ctx, 7, 6, 1, 1, 2, i8, i8)})), want);
}
TEST_F(ConvTransformTest, PaddedConvICH) {
  EXPECT_EQ(run(ctx.op(Op::PaddedConvICH, {x, w, cConvF(ctx, 5, 5, 3, 1, 2, i8, i8)})), want);
}
TEST_F(ConvTransformTest, PaddedConvOCH) {
  EXPECT_EQ(run(ctx.op(Op::PaddedConvOCH, {x, w, cConvF(ctx, 5, 5, 1, 4, 2, i8, i8)})), want);
}

TEST_F(OpTest, TiledConvICHSumsChannelTiles) {
  auto x = input("x", 8, {1, 1, 4}, {1, 2, 3, 4});
  auto w = input("w", 8, {1, 1, 1, 4}, {1, -1, 2, 10});
  EXPECT_EQ(run(ctx.op(Op::TiledConvICH, {x, w, cConvF(ctx, 1, 1, 2, 1, 1, i8, i8)})), expect(32, {1, 1, 1}, {45}));
}

TEST_F(OpTest, TiledConvOCHConcatenatesChannelTiles) {
  auto x = input("x", 8, {1, 1, 2}, {1, 2});
  auto w = input("w", 8, {4, 1, 1, 2}, {1, 0, 0, 1, 1, 1, 2, -3});
  EXPECT_EQ(run(ctx.op(Op::TiledConvOCH, {x, w, cConvF(ctx, 1, 1, 2, 2, 1, i8, i8)})),
            expect(32, {1, 1, 4}, {1, 2, 3, -4}));
}

// ---- element-wise and data movement --------------------------------------------------

TEST_F(OpTest, ReluLeakyReluShiftRight) {
  auto x = input("x", 8, {4}, {-3, -4, 0, 5});
  EXPECT_EQ(run(ctx.op(Op::Relu, {x})), expect(8, {4}, {0, 0, 0, 5}));
  EXPECT_EQ(run(ctx.op(Op::LeakyRelu, {x}, {1})), expect(8, {4}, {-2, -2, 0, 5}));  // -3 >> 1 = -2
  EXPECT_EQ(run(ctx.op(Op::ShiftRight, {x}, {2})), expect(8, {4}, {-1, -1, 0, 1}));
}

TEST_F(OpTest, RequantRoundsHalfUpAndSaturates) {
  auto x = input("x", 32, {7}, {6, -6, 1000, -7, 2, INT32_MAX, INT32_MIN});
  // (x + 2) >> 2, saturated; exact, so INT32_MAX + 2 does not wrap.
  EXPECT_EQ(run(ctx.op(Op::Requant, {x}, {2})), expect(8, {7}, {2, -1, 127, -2, 1, 127, -128}));
  EXPECT_EQ(run(ctx.op(Op::Requant, {x}, {0})), expect(8, {7}, {6, -6, 127, -7, 2, 127, -128}));
  // s = 31: (2^31 - 1 + 2^30) >> 31 = 1 and (-2^31 + 2^30) >> 31 = -1.
  EXPECT_EQ(run(ctx.op(Op::Requant, {x}, {31})), expect(8, {7}, {0, 0, 0, 0, 0, 1, -1}));
}

TEST_F(OpTest, CastWraps) {
  auto x = input("x", 32, {3}, {200, -129, 5});
  EXPECT_EQ(run(ctx.op(Op::Cast, {x}, {8})), expect(8, {3}, {-56, 127, 5}));
  EXPECT_EQ(run(ctx.op(Op::Cast, {x}, {16})), expect(16, {3}, {200, -129, 5}));
}

TEST_F(OpTest, AddSubWrapToTheWiderWidth) {
  auto a = input("a", 8, {2}, {100, -100});
  auto b = input("b", 8, {2}, {100, 100});
  auto c = input("c", 16, {2}, {1000, -1000});
  EXPECT_EQ(run(ctx.op(Op::Add, {a, b})), expect(8, {2}, {-56, 0}));
  EXPECT_EQ(run(ctx.op(Op::Sub, {a, b})), expect(8, {2}, {0, 56}));
  EXPECT_EQ(run(ctx.op(Op::Add, {a, c})), expect(16, {2}, {1100, -1100}));
}

TEST_F(OpTest, MulIsI32) {
  auto a = input("a", 8, {2}, {100, -128});
  EXPECT_EQ(run(ctx.op(Op::Mul, {a, a})), expect(32, {2}, {10000, 16384}));
  auto b = input("b", 32, {1}, {65536});
  EXPECT_EQ(run(ctx.op(Op::Mul, {b, b})), expect(32, {1}, {0}));
}

TEST_F(OpTest, MaxMin) {
  auto a = input("a", 8, {2}, {5, -3});
  auto b = input("b", 16, {2}, {2, -700});
  EXPECT_EQ(run(ctx.op(Op::Max, {a, b})), expect(16, {2}, {5, -3}));
  EXPECT_EQ(run(ctx.op(Op::Min, {a, b})), expect(16, {2}, {2, -700}));
}

TEST_F(OpTest, Bias) {
  auto x = input("x", 32, {2, 2}, {1, 2, 3, 4});
  auto b = input("b", 8, {2}, {10, -10});
  EXPECT_EQ(run(ctx.op(Op::Bias, {x, b})), expect(32, {2, 2}, {11, -8, 13, -6}));
  auto y = input("y", 8, {1, 2}, {120, 0});
  EXPECT_EQ(run(ctx.op(Op::Bias, {y, b})), expect(8, {1, 2}, {-126, -10}));
}

TEST_F(OpTest, Pad) {
  auto x = input("x", 8, {1, 1, 2}, {3, 4});
  // top 1, bottom 0, left 0, right 2, fill -1
  EXPECT_EQ(run(ctx.op(Op::Pad, {x}, {1, 0, 0, 2, -1})),
            expect(8, {2, 3, 2}, {-1, -1, -1, -1, -1, -1, 3, 4, -1, -1, -1, -1}));
}

TEST_F(OpTest, MaxPool) {
  std::vector<int32_t> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = i;
  auto x = input("x", 8, {4, 4}, v);
  EXPECT_EQ(run(ctx.op(Op::MaxPool, {x}, {2, 2})), expect(8, {2, 2}, {5, 7, 13, 15}));
  EXPECT_EQ(run(ctx.op(Op::MaxPool, {x}, {3, 2})), expect(8, {1, 1}, {10}));
  auto y = input("y", 8, {2, 2, 2}, {1, -8, 2, -7, 3, -6, 0, -5});
  EXPECT_EQ(run(ctx.op(Op::MaxPool, {y}, {2, 1})), expect(8, {1, 1, 2}, {3, -5}));
}

TEST_F(OpTest, FlattenTranspose) {
  auto x = input("x", 16, {2, 3, 1}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run(ctx.op(Op::Flatten, {x})), expect(16, {6}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(run(ctx.op(Op::Transpose, {x})), expect(16, {3, 2, 1}, {1, 4, 2, 5, 3, 6}));
}

// ---- binders, leaves and structural skeletons -----------------------------------------

TEST_F(OpTest, ConstIsAScalar) {
  EXPECT_EQ(run(ctx.constant(-5, i16)), expect(16, {}, {-5}));
}

TEST_F(OpTest, MapZipWithReduce) {
  auto x = input("x", 8, {2, 2}, {-1, 2, 3, -4});
  auto y = input("y", 8, {2, 2}, {10, 20, 30, 40});
  const Type* row = tensorTy(ctx, {2}, 8);
  EXPECT_EQ(run(ctx.op(Op::Map, {x, ctx.lam(row, ctx.op(Op::Relu, {ctx.var(0, row)}))})),
            expect(8, {2, 2}, {0, 2, 3, 0}));
  EXPECT_EQ(run(ctx.op(Op::ZipWith, {x, y, ctx.lam2(row, row, ctx.op(Op::Sub, {ctx.var(1, row), ctx.var(0, row)}))})),
            expect(8, {2, 2}, {-11, -18, -27, -44}));
  // Reduce over rows: init + x[0] + x[1], left to right, with Sub to fix the order.
  auto init = input("init", 8, {2}, {0, 0});
  EXPECT_EQ(run(ctx.op(Op::Reduce, {init, x, ctx.lam2(row, row, ctx.op(Op::Sub, {ctx.var(1, row), ctx.var(0, row)}))})),
            expect(8, {2}, {-2, 2}));
  // Reduce over scalars.
  auto s = input("s", 32, {3}, {1, 2, 3});
  EXPECT_EQ(run(ctx.op(Op::Reduce, {ctx.constant(100, i32), s, ctx.lam2(i32, i32, ctx.op(Op::Sub, {ctx.var(1, i32), ctx.var(0, i32)}))})),
            expect(32, {}, {94}));
}

TEST_F(OpTest, TupleAndApp) {
  auto x = input("x", 8, {2}, {-1, 2});
  const Type* t = tensorTy(ctx, {2}, 8);
  const Term* relu = ctx.lam(t, ctx.op(Op::Relu, {ctx.var(0, t)}));
  Value v = evaluate(ctx.op(Op::Tuple, {ctx.app(relu, x), x}), in, ctx);
  ASSERT_TRUE(v.isTuple());
  ASSERT_EQ(v.elems().size(), 2u);
  EXPECT_EQ(v.elems()[0].tensor(), expect(8, {2}, {0, 2}));
  EXPECT_EQ(v.elems()[1].tensor(), expect(8, {2}, {-1, 2}));
  // A closure captures its environment: (\a. \b. a - b) x x = 0.
  const Term* sub = ctx.lam2(t, t, ctx.op(Op::Sub, {ctx.var(1, t), ctx.var(0, t)}));
  EXPECT_EQ(run(ctx.app(ctx.app(sub, x), ctx.op(Op::Relu, {x}))), expect(8, {2}, {-1, 0}));
}

TEST_F(OpTest, LetBoundSharedFunctionsTakeTheFastPath) {
  // (\shared. Conv(x, w, shared)) cMvF, and a cMvF whose dot function is let-bound:
  // (\dot. Conv(x, w, \m.\v. Mv(%1, %0, dot))) dotF. Both equal the plain conv.
  auto x = input("x", 8, {3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w = input("w", 8, {2, 2, 2, 1}, {1, 2, 3, 4, 0, 0, 0, 1});
  const Term* mv = cMvF(ctx, 2, 4, i8, i8);
  const Term* shared = ctx.app(ctx.lam(mv->type(), ctx.op(Op::Conv, {x, w, ctx.var(0, mv->type())})), mv);
  const Term* dot = dotF(ctx, 2, 4, i8, i8, 1);
  const Type* tm = tensorTy(ctx, {2, 4}, 8);
  const Type* tv = tensorTy(ctx, {4}, 8);
  const Term* mvVar = ctx.lam2(tm, tv, ctx.op(Op::Mv, {ctx.var(1, tm), ctx.var(0, tv), ctx.var(2, dot->type())}));
  const Term* sharedDot = ctx.app(ctx.lam(dot->type(), ctx.op(Op::Conv, {x, w, mvVar})), dot);
  Tensor want = expect(32, {2, 2, 2}, {37, 5, 47, 6, 67, 8, 77, 9});
  for (const Term* t : {shared, sharedDot}) {
    EXPECT_EQ(run(t), want);
    Interpreter interp(ctx, in);
    EXPECT_EQ(interp.evaluate(t).tensor(), want);
    EXPECT_EQ(interp.stats().fastPaths, 1u);  // the Conv, without a single window apply
    EXPECT_EQ(interp.stats().applications, 1u);  // only the let's own application
  }
}

}  // namespace
