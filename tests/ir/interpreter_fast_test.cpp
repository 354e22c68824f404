// Fast-path recognition: canonical functions are computed by direct kernels without a
// single closure application; anything else, however similar, takes the generic path.
// (That both paths agree is checked by every other interpreter test via evalBoth.)

#include <cstdio>

#include "interpreter_test_util.h"
#include "skeleshare/ir/printer.h"

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
  // A tiled conv around cConvF is itself a convolution: one direct kernel, no application.
  EXPECT_EQ(counts(ctx.op(Op::TiledConvICH, {x, w, cConvF(ctx, 6, 5, 2, 3, 2, i8, i16)})), direct);
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

// ---- wrappers: tiled, padded and merged forms of canonical functions -------------------

/// Random function arguments built from the canonical ones by the wrappers the fast
/// paths recognise (and, with `lookalikes`, sometimes a non-canonical dot that forces the
/// generic path somewhere inside). Mv functions take i16 matrices and i8 vectors, conv
/// functions i8 inputs and i16 weights (so the Mv inside a Conv takes i16 x i8).
struct WrapperGen {
  Context& ctx;
  Picker pick;
  bool lookalikes;
  bool usedLookalike = false;
  const Type* i8 = ctx.intType(8);
  const Type* i16 = ctx.intType(16);

  const Type* mat(int64_t m, int64_t n) { return ctx.tensorType(Shape{m, n}, i16); }
  const Type* vec(int64_t n) { return ctx.tensorType(Shape{n}, i8); }
  const Type* in(int64_t h, int64_t w, int64_t c) { return ctx.tensorType(Shape{h, w, c}, i8); }
  const Type* wgt(int64_t o, int64_t ks, int64_t c) { return ctx.tensorType(Shape{o, ks, ks, c}, i16); }

  /// \a.\b. body(%1, %0) over (ta, tb).
  const Term* lam(const Type* ta, const Type* tb, Op op, const Term* f, std::vector<int64_t> params = {}) {
    const Term* kids[] = {ctx.var(1, ta), ctx.var(0, tb), f};
    return ctx.lam2(ta, tb, ctx.op(op, std::span<const Term* const>(kids, f ? 3 : 2), params));
  }
  const Term* merged(const Term* lam2) {
    return ctx.lam2(lam2->type()->param(), lam2->type()->result()->param(),
                    ctx.op(Op::MergePartialSum, {lam2->body()->body()}));
  }

  /// mat: m x n -> vec: n -> m (x C when partial).
  const Term* mvF(int64_t m, int64_t n, int depth, bool allowPartial) {
    const int64_t choice = pick.pick(0, depth > 0 ? 8 : 3);
    switch (choice) {
      case 1:
        if (allowPartial) return pMvF(ctx, m, n, pick.divisor(n), i16, i8);
        break;
      case 2: {  // Mv around \a.\b. MergePartialSum(ParallelPartialDot)
        const Term* dot = lam(mat(m, n), ctx.tensorType(Shape{m, n}, i8), Op::ParallelPartialDot, nullptr,
                              {pick.pick(1, m), pick.divisor(n)});
        return lam(mat(m, n), vec(n), Op::Mv, merged(dot));
      }
      case 3: {  // MergePartialSum around a partial Mv
        if (lookalikes && pick.pick(0, 3) == 0) {
          usedLookalike = true;  // the dot product with its arguments swapped
          const Type* tb = ctx.tensorType(Shape{m, n}, i8);
          const Term* swapped = ctx.lam2(mat(m, n), tb, ctx.op(Op::ParallelDot, {ctx.var(0, tb), ctx.var(1, mat(m, n))}, {1}));
          return lam(mat(m, n), vec(n), Op::Mv, swapped);
        }
        return merged(pMvF(ctx, m, n, pick.divisor(n), i16, i8));
      }
      case 4: return lam(mat(m, n), vec(n), Op::TiledMv, mvF(m, pick.divisor(n), depth - 1, false));
      case 5: return lam(mat(m, n), vec(n), Op::TiledMvRows, mvF(pick.divisor(m), n, depth - 1, allowPartial));
      case 6: return lam(mat(m, n), vec(n), Op::PaddedMv, mvF(m, n + pick.pick(0, 3), depth - 1, false));
      case 7: return lam(mat(m, n), vec(n), Op::PaddedMvRows, mvF(m + pick.pick(0, 2), n, depth - 1, allowPartial));
      case 8: {  // partial kinds through the wrappers that keep them, then merged
        const Term* inner = lam(mat(m, n), vec(n), Op::TiledMvRows, mvF(pick.divisor(m), n, depth - 1, true));
        return inner->type()->result()->result()->rank() == 2 ? merged(inner) : inner;
      }
      default: break;
    }
    return cMvF(ctx, m, n, i16, i8);
  }

  /// in: h x w x c -> wgt: o x ks x ks x c -> (h-ks+1) x (w-ks+1) x o (x C when partial).
  const Term* convF(int64_t h, int64_t w, int64_t c, int64_t o, int64_t ks, int depth, bool allowPartial) {
    const Type *ti = in(h, w, c), *tw = wgt(o, ks, c);
    const int64_t n = ks * ks * c, oh = h - ks + 1, ow = w - ks + 1;
    switch (pick.pick(0, depth > 0 ? 9 : 2)) {
      case 1: {
        const int64_t g = pick.pick(1, 3);
        return lam(ti, tw, Op::ParallelConv, pMvF(ctx, o, g * n, g, i16, i8));
      }
      case 2: {
        const Term* inner = lam(ti, tw, Op::Conv, mvF(o, n, depth, true));
        return inner->type()->result()->result()->rank() == 4 && (!allowPartial || pick.pick(0, 1)) ? merged(inner)
                                                                                                      : inner;
      }
      case 3: {
        const int64_t oth = pick.divisor(oh), otw = pick.divisor(ow);
        return lam(ti, tw, Op::TiledConvHW, convF(oth + ks - 1, otw + ks - 1, c, o, ks, depth - 1, allowPartial));
      }
      case 4: return lam(ti, tw, Op::TiledConvICH, convF(h, w, pick.divisor(c), o, ks, depth - 1, false));
      case 5: return lam(ti, tw, Op::TiledConvOCH, convF(h, w, c, pick.divisor(o), ks, depth - 1, allowPartial));
      case 6:
        return lam(ti, tw, Op::PaddedConvHW,
                   convF(h + pick.pick(0, 2), w + pick.pick(0, 2), c, o, ks, depth - 1, allowPartial));
      case 7: return lam(ti, tw, Op::PaddedConvICH, convF(h, w, c + pick.pick(0, 2), o, ks, depth - 1, false));
      case 8: return lam(ti, tw, Op::PaddedConvOCH, convF(h, w, c, o + pick.pick(0, 2), ks, depth - 1, allowPartial));
      case 9: {  // partial kinds through the wrappers that keep them, then merged
        const Term* inner = lam(ti, tw, Op::TiledConvOCH, convF(h, w, c, pick.divisor(o), ks, depth - 1, true));
        return inner->type()->result()->result()->rank() == 4 ? merged(inner) : inner;
      }
      default: break;
    }
    return lam(ti, tw, Op::Conv, mvF(o, n, depth - 1, allowPartial));
  }
};

struct Wrappers : FastPath {
  /// Evaluates `t` on both paths (equal values) and returns the fast path's counts.
  std::pair<uint64_t, uint64_t> both(const Term* t) { return counts(t); }
};

TEST_F(Wrappers, TiledAndPaddedMvFunctionsAreMatrixVectorProducts) {
  const Term* m = addInput(ctx, in, "m", fullRange(3, "m", 16, {6, 8}));
  const Term* v = addInput(ctx, in, "v", fullRange(3, "v", 8, {8}));
  WrapperGen g{ctx, Picker(1), false};
  const Type *tm = g.mat(6, 8), *tv = g.vec(8);
  const std::pair<uint64_t, uint64_t> direct{1, 0};
  // Each skeleton applied to a canonical Mv function is computed by one direct kernel.
  EXPECT_EQ(both(ctx.op(Op::TiledMv, {m, v, cMvF(ctx, 6, 4, i16, i8)})), direct);
  EXPECT_EQ(both(ctx.op(Op::TiledMvRows, {m, v, cMvF(ctx, 2, 8, i16, i8)})), direct);
  EXPECT_EQ(both(ctx.op(Op::TiledMvRows, {m, v, pMvF(ctx, 3, 8, 4, i16, i8)})), direct);
  EXPECT_EQ(both(ctx.op(Op::PaddedMv, {m, v, cMvF(ctx, 6, 11, i16, i8)})), direct);
  EXPECT_EQ(both(ctx.op(Op::PaddedMvRows, {m, v, cMvF(ctx, 8, 8, i16, i8)})), direct);
  EXPECT_EQ(both(ctx.op(Op::PaddedMvRows, {m, v, pMvF(ctx, 7, 8, 2, i16, i8)})), direct);
  const Term* mergedDot = g.merged(g.lam(tm, ctx.tensorType(Shape{6, 8}, i8), Op::ParallelPartialDot, nullptr, {2, 4}));
  EXPECT_EQ(both(ctx.op(Op::Mv, {m, v, mergedDot})), direct);
  // Nested: TiledMv of PaddedMvRows of TiledMvRows of MergePartialSum(Mv(partial)).
  const Term* inner = g.merged(pMvF(ctx, 2, 4, 2, i16, i8));
  const Term* rows = g.lam(g.mat(8, 4), g.vec(4), Op::TiledMvRows, inner);
  const Term* padded = g.lam(g.mat(6, 4), g.vec(4), Op::PaddedMvRows, rows);
  EXPECT_EQ(both(ctx.op(Op::TiledMv, {m, v, padded})), direct);
  // The same function applied through App: one application per argument, then direct.
  const Term* f = g.lam(tm, tv, Op::TiledMv, padded);
  EXPECT_EQ(both(ctx.app(ctx.app(f, m), v)), (std::pair<uint64_t, uint64_t>{1, 2}));
  // Partial results are not merged by tiling the columns or padding them: generic path
  // (the chunks would be cut elsewhere), with the same numbers: only the 2 x 2 Mvs inside
  // are direct.
  EXPECT_EQ(both(ctx.op(Op::TiledMvRows, {m, v, g.lam(g.mat(3, 8), tv, Op::TiledMv, pMvF(ctx, 3, 4, 2, i16, i8))})).first, 4u);
  EXPECT_EQ(both(ctx.op(Op::PaddedMv, {m, v, pMvF(ctx, 6, 10, 2, i16, i8)})).first, 1u);
}

TEST_F(Wrappers, TiledAndPaddedConvFunctionsAreConvolutions) {
  const Term* x = addInput(ctx, in, "x", fullRange(4, "x", 8, {7, 6, 4}));
  const Term* w = addInput(ctx, in, "w", fullRange(4, "w", 16, {6, 2, 2, 4}));
  WrapperGen g{ctx, Picker(2), false};
  const std::pair<uint64_t, uint64_t> direct{1, 0};
  // Output 6 x 5 x 6.
  EXPECT_EQ(both(ctx.op(Op::TiledConvHW, {x, w, cConvF(ctx, 4, 6, 4, 6, 2, i8, i16)})), direct);
  EXPECT_EQ(both(ctx.op(Op::TiledConvICH, {x, w, cConvF(ctx, 7, 6, 1, 6, 2, i8, i16)})), direct);
  EXPECT_EQ(both(ctx.op(Op::TiledConvOCH, {x, w, cConvF(ctx, 7, 6, 4, 3, 2, i8, i16)})), direct);
  EXPECT_EQ(both(ctx.op(Op::PaddedConvHW, {x, w, cConvF(ctx, 9, 8, 4, 6, 2, i8, i16)})), direct);
  EXPECT_EQ(both(ctx.op(Op::PaddedConvICH, {x, w, cConvF(ctx, 7, 6, 7, 6, 2, i8, i16)})), direct);
  EXPECT_EQ(both(ctx.op(Op::PaddedConvOCH, {x, w, cConvF(ctx, 7, 6, 4, 8, 2, i8, i16)})), direct);
  // A ParallelConv function is a convolution too.
  const Term* pconv = g.lam(g.in(7, 6, 2), g.wgt(6, 2, 2), Op::ParallelConv, pMvF(ctx, 6, 3 * 8, 3, i16, i8));
  EXPECT_EQ(both(ctx.op(Op::TiledConvICH, {x, w, pconv})), direct);
  // Partial convolutions keep their chunks through HW / OCH tiling and padding ...
  const Term* partial = g.lam(g.in(4, 6, 4), g.wgt(3, 2, 4), Op::Conv, pMvF(ctx, 3, 16, 4, i16, i8));
  const Term* och = g.lam(g.in(4, 6, 4), g.wgt(6, 2, 4), Op::TiledConvOCH, partial);
  EXPECT_EQ(both(ctx.op(Op::TiledConvHW, {x, w, och})), direct);
  EXPECT_EQ(both(ctx.op(Op::TiledConvHW, {x, w, g.merged(och)})), direct);
  // ... but tiling or padding the input channels of a partial one takes the generic path.
  const Term* partialC2 = g.lam(g.in(7, 6, 2), g.wgt(6, 2, 2), Op::Conv, pMvF(ctx, 6, 8, 2, i16, i8));
  EXPECT_EQ(both(ctx.op(Op::TiledConvICH, {x, w, partialC2})).first, 2u);
  const Term* partialC6 = g.lam(g.in(7, 6, 6), g.wgt(6, 2, 6), Op::Conv, pMvF(ctx, 6, 24, 2, i16, i8));
  EXPECT_EQ(both(ctx.op(Op::PaddedConvICH, {x, w, partialC6})).first, 1u);
}

TEST_F(Wrappers, FunctionsBoundOutsideTheLambdaAreRecognised) {
  const Term* x = addInput(ctx, in, "x", fullRange(5, "x", 8, {5, 5, 2}));
  const Term* w = addInput(ctx, in, "w", fullRange(5, "w", 16, {4, 3, 3, 2}));
  WrapperGen g{ctx, Picker(3), false};
  const Type* mvTy = cMvF(ctx, 2, 18, i16, i8)->type();
  // (\mv. TiledConvOCH(x, w, \i.\k. Conv(%1, %0, %2))) cMvF: the Mv is the closure's %0.
  const Term* conv = ctx.lam2(g.in(5, 5, 2), g.wgt(2, 3, 2),
                              ctx.op(Op::Conv, {ctx.var(1, g.in(5, 5, 2)), ctx.var(0, g.wgt(2, 3, 2)), ctx.var(2, mvTy)}));
  const Term* outer = ctx.lam(mvTy, ctx.op(Op::TiledConvOCH, {x, w, conv}));
  EXPECT_EQ(both(ctx.app(outer, cMvF(ctx, 2, 18, i16, i8))), (std::pair<uint64_t, uint64_t>{1, 1}));
  // A lambda that is not closed: \i.\k. Conv(%1, %0, \m.\v. Mv(%1, %0, %4)), %4 a dot.
  const Type* dotTy = dotF(ctx, 2, 18, i16, i8, 2)->type();
  const Term* mv = ctx.lam2(g.mat(2, 18), g.vec(18),
                            ctx.op(Op::Mv, {ctx.var(1, g.mat(2, 18)), ctx.var(0, g.vec(18)), ctx.var(4, dotTy)}));
  const Term* conv2 = ctx.lam2(g.in(5, 5, 2), g.wgt(2, 3, 2), ctx.op(Op::Conv, {ctx.var(1, g.in(5, 5, 2)), ctx.var(0, g.wgt(2, 3, 2)), mv}));
  const Term* outer2 = ctx.lam(dotTy, ctx.op(Op::TiledConvOCH, {x, w, conv2}));
  EXPECT_EQ(both(ctx.app(outer2, dotF(ctx, 2, 18, i16, i8, 2))), (std::pair<uint64_t, uint64_t>{1, 1}));
}

TEST_F(Wrappers, RandomNestingsAgreeWithTheGenericPath) {
  int direct = 0, nested = 0;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    Context c;
    Inputs inputs;
    WrapperGen g{c, Picker(seed), seed % 3 == 2};
    Picker shapes(seed + 1000);
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Term* top = nullptr;
    const Term* fn = nullptr;
    if (seed % 2 == 0) {
      const int64_t m = shapes.pick(1, 6), n = shapes.pick(1, 8);
      const Term* mat = addInput(c, inputs, "m", fullRange(seed, "m", 16, {m, n}));
      const Term* vec = addInput(c, inputs, "v", fullRange(seed, "v", 8, {n}));
      fn = g.mvF(m, n, 3, true);
      top = c.op(Op::PaddedMvRows, {mat, vec, fn});
    } else {
      const int64_t ks = shapes.pick(1, 3), h = ks + shapes.pick(0, 4), w = ks + shapes.pick(0, 4);
      const int64_t ch = shapes.pick(1, 4), o = shapes.pick(1, 4);
      const Term* x = addInput(c, inputs, "x", fullRange(seed, "x", 8, {h, w, ch}));
      const Term* k = addInput(c, inputs, "k", fullRange(seed, "k", 16, {o, ks, ks, ch}));
      fn = g.convF(h, w, ch, o, ks, 3, true);
      top = c.op(Op::PaddedConvOCH, {x, k, fn});
    }
    Interpreter fast(c, inputs);
    Tensor v = fast.evaluate(top).tensor();
    EXPECT_EQ(v, evalTensor(c, top, inputs, false)) << printTerm(c, top);
    if (!g.usedLookalike) {
      EXPECT_EQ(fast.stats().applications, 0u) << printTerm(c, top);
      direct += fast.stats().applications == 0;
    }
    nested += printTerm(c, top).find("Tiled") != std::string::npos && printTerm(c, top).find("Padded") != std::string::npos;
    // Applied through App, the function's body is evaluated by the fast path too.
    const Term* app = c.app(c.app(fn, top->child(0)), top->child(1));
    EXPECT_EQ(evalTensor(c, app, inputs, true), evalTensor(c, app, inputs, false)) << printTerm(c, app);
  }
  // The generator does exercise the fast paths, and deep mixtures of wrappers.
  EXPECT_GE(direct, 80);
  EXPECT_GE(nested, 40);
  std::printf("random wrapper nestings: %d of 150 fully direct, %d mixing tiles and padding\n", direct, nested);
}

}  // namespace
