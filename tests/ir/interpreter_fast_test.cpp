// Fast-path recognition: canonical functions are computed by direct kernels without a
// single closure application; anything else, however similar, takes the generic path.
// (That both paths agree is checked by every other interpreter test via evalBoth.)

#include "interpreter_test_util.h"

using namespace skeleshare;
using namespace skeleshare::ir;
using namespace skeleshare::ir::testing;

namespace {

struct FastPath : ::testing::Test {
  Context ctx;
  Inputs in;
  const Type* i8 = ctx.intType(8);
  const Type* i16 = ctx.intType(16);

  /// Evaluates `t` with fast paths on; returns (fast-path hits, applications).
  std::pair<uint64_t, uint64_t> counts(const Term* t) {
    Interpreter interp(ctx, in);
    Tensor v = interp.evaluate(t).tensor();
    EXPECT_EQ(v, evalTensor(ctx, t, in, false));
    return {interp.stats().fastPaths, interp.stats().applications};
  }
};

TEST_F(FastPath, CanonicalFunctionsUseDirectKernels) {
  const Term* x = addInput(ctx, in, "x", fullRange(1, "x", 8, {6, 5, 4}));
  const Term* w = addInput(ctx, in, "w", fullRange(1, "w", 16, {3, 2, 2, 4}));
  const Term* m = addInput(ctx, in, "m", fullRange(1, "m", 16, {3, 8}));
  const Term* v = addInput(ctx, in, "v", fullRange(1, "v", 8, {8}));
  const Term* img = addInput(ctx, in, "img", fullRange(1, "img", 8, {5, 7}));
  const Term* k = addInput(ctx, in, "k", fullRange(1, "k", 8, {3}));
  const std::pair<uint64_t, uint64_t> direct{1, 0};
  EXPECT_EQ(counts(ctx.op(Op::Mv, {m, v, dotF(ctx, 3, 8, i16, i8, 2)})), direct);
  EXPECT_EQ(counts(ctx.op(Op::Conv, {x, w, cMvF(ctx, 3, 16, i16, i8)})), direct);
  EXPECT_EQ(counts(ctx.op(Op::Conv, {x, w, pMvF(ctx, 3, 16, 4, i16, i8)})), direct);
  EXPECT_EQ(counts(ctx.op(Op::ParallelConv, {x, w, pMvF(ctx, 3, 48, 3, i16, i8)})), direct);
  EXPECT_EQ(counts(ctx.op(Op::Mm, {m, m, cMvF(ctx, 3, 8, i16, i16)})), direct);
  EXPECT_EQ(counts(ctx.op(Op::Conv1DW, {img, k, cMvF(ctx, 5, 3, i8, i8)})), direct);
  EXPECT_EQ(counts(ctx.op(Op::Conv1DH, {img, k, cMvF(ctx, 3, 3, i8, i8)})), direct);
  // A tiled conv applies cConvF per tile (2 applications each); the Convs inside are direct.
  EXPECT_EQ(counts(ctx.op(Op::TiledConvICH, {x, w, cConvF(ctx, 6, 5, 2, 3, 2, i8, i16)})),
            (std::pair<uint64_t, uint64_t>{2, 4}));
}

TEST_F(FastPath, LookalikesTakeTheGenericPath) {
  const Term* m = addInput(ctx, in, "m", fullRange(2, "m", 8, {3, 4}));
  const Term* v = addInput(ctx, in, "v", fullRange(2, "v", 8, {4}));
  const Type* t = tensorTy(ctx, {3, 4}, 8);
  // Arguments swapped: the same numbers (the dot product is symmetric), not canonical.
  const Term* swapped = ctx.lam2(t, t, ctx.op(Op::ParallelDot, {ctx.var(0, t), ctx.var(1, t)}, {1}));
  EXPECT_EQ(counts(ctx.op(Op::Mv, {m, v, swapped})), (std::pair<uint64_t, uint64_t>{0, 2}));
  // A dot followed by Relu computes something else and must not be mistaken for a dot.
  const Term* reluDot = ctx.lam2(t, t, ctx.op(Op::Relu, {ctx.op(Op::ParallelDot, {ctx.var(1, t), ctx.var(0, t)}, {3})}));
  const Term* mv = ctx.op(Op::Mv, {m, v, reluDot});
  EXPECT_EQ(counts(mv), (std::pair<uint64_t, uint64_t>{0, 2}));
  Tensor plain = evalTensor(ctx, ctx.op(Op::Mv, {m, v, dotF(ctx, 3, 4, i8, i8, 3)}), in);
  Tensor relu = evalTensor(ctx, mv, in);
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(relu[i], std::max(plain[i], 0));
  // An Mv lambda around a non-canonical dot: Mm takes the generic path all the way.
  const Type* tv = tensorTy(ctx, {4}, 8);
  const Term* a = addInput(ctx, in, "a", fullRange(2, "a", 8, {2, 4}));
  const Term* mvSwapped = ctx.lam2(t, tv, ctx.op(Op::Mv, {ctx.var(1, t), ctx.var(0, tv), swapped}));
  EXPECT_EQ(counts(ctx.op(Op::Mm, {a, m, mvSwapped})).first, 0u);
}

}  // namespace
