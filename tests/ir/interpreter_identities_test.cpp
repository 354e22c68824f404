// The algebraic identities the rewrite rules rely on (paper Figs. 10 and 11, Section
// V-B), checked on random data for random small shapes, each side evaluated with and
// without fast paths. Inputs span the full range of their width, so i32 wrap-around is
// exercised too.

#include "interpreter_test_util.h"

using namespace skeleshare;
using namespace skeleshare::ir;
using namespace skeleshare::ir::testing;

namespace {

constexpr int kTrials = 12;

struct ConvCase {
  int64_t h, w, c, o, ks;
  int inBits, wBits;
};

ConvCase randomConv(Picker& p) {
  ConvCase s{};
  s.ks = p.pick(1, 3);
  s.h = s.ks + p.pick(0, 5);
  s.w = s.ks + p.pick(0, 5);
  s.c = p.pick(1, 6);
  s.o = p.pick(1, 6);
  s.inBits = p.bits();
  s.wBits = p.bits();
  return s;
}

struct Identity : ::testing::Test {
  Context ctx;
  Inputs in;
  /// Expects every term to have the same value (both paths each).
  void expectAllEqual(const std::vector<const Term*>& terms, const std::string& what) {
    Tensor ref = evalBoth(ctx, terms[0], in);
    for (size_t i = 1; i < terms.size(); ++i) EXPECT_EQ(evalBoth(ctx, terms[i], in), ref) << what << ", variant " << i;
  }
};

TEST_F(Identity, ConvEqualsItsTiledAndPaddedForms) {
  Picker p(1);
  for (int trial = 0; trial < kTrials; ++trial) {
    const ConvCase s = randomConv(p);
    in.clear();
    const Type *a = ctx.intType(s.inBits), *b = ctx.intType(s.wBits);
    const Term* x = addInput(ctx, in, "x", fullRange(trial, "x", s.inBits, {s.h, s.w, s.c}));
    const Term* w = addInput(ctx, in, "w", fullRange(trial, "w", s.wBits, {s.o, s.ks, s.ks, s.c}));
    const int64_t oh = s.h - s.ks + 1, ow = s.w - s.ks + 1, n = s.ks * s.ks * s.c;
    auto conv = [&](int64_t h, int64_t w_, int64_t c, int64_t o) { return cConvF(ctx, h, w_, c, o, s.ks, a, b); };
    const int64_t oth = p.divisor(oh), otw = p.divisor(ow);
    const int64_t tc = p.divisor(s.c), to = p.divisor(s.o);
    const int64_t ph = s.h + p.pick(0, 3), pw = s.w + p.pick(0, 3);
    const int64_t pc = s.c + p.pick(0, 3), po = s.o + p.pick(0, 3);
    std::vector<const Term*> terms = {
        ctx.op(Op::Conv, {x, w, cMvF(ctx, s.o, n, b, a)}),
        ctx.op(Op::TiledConvHW, {x, w, conv(oth + s.ks - 1, otw + s.ks - 1, s.c, s.o)}),
        ctx.op(Op::TiledConvICH, {x, w, conv(s.h, s.w, tc, s.o)}),
        ctx.op(Op::TiledConvOCH, {x, w, conv(s.h, s.w, s.c, to)}),
        ctx.op(Op::PaddedConvHW, {x, w, conv(ph, pw, s.c, s.o)}),
        ctx.op(Op::PaddedConvICH, {x, w, conv(s.h, s.w, pc, s.o)}),
        ctx.op(Op::PaddedConvOCH, {x, w, conv(s.h, s.w, s.c, po)}),
    };
    // A nested composition: output-channel tiles, each tiled over input channels.
    const Term* inner = ctx.lam2(tensorTy(ctx, {s.h, s.w, s.c}, s.inBits), tensorTy(ctx, {to, s.ks, s.ks, s.c}, s.wBits),
                                 ctx.op(Op::TiledConvICH, {ctx.var(1, tensorTy(ctx, {s.h, s.w, s.c}, s.inBits)),
                                                           ctx.var(0, tensorTy(ctx, {to, s.ks, s.ks, s.c}, s.wBits)),
                                                           conv(s.h, s.w, tc, to)}));
    terms.push_back(ctx.op(Op::TiledConvOCH, {x, w, inner}));
    expectAllEqual(terms, fmt::format("conv {}x{}x{} -> {} ks {}", s.h, s.w, s.c, s.o, s.ks));
  }
}

// Fig. 11: Conv(in, w, cMvF) = PaddedConvICH(in, w, \pi.\pw. ParallelConv(pi, pw, pMvF[O, G*KS*KS*PC, G])).
TEST_F(Identity, ConvEqualsPaddedParallelConv) {
  Picker p(2);
  for (int trial = 0; trial < kTrials; ++trial) {
    const ConvCase s = randomConv(p);
    in.clear();
    const Type *a = ctx.intType(s.inBits), *b = ctx.intType(s.wBits);
    const Term* x = addInput(ctx, in, "x", fullRange(100 + trial, "x", s.inBits, {s.h, s.w, s.c}));
    const Term* w = addInput(ctx, in, "w", fullRange(100 + trial, "w", s.wBits, {s.o, s.ks, s.ks, s.c}));
    std::vector<const Term*> terms = {ctx.op(Op::Conv, {x, w, cMvF(ctx, s.o, s.ks * s.ks * s.c, b, a)})};
    for (int64_t g : {int64_t{1}, int64_t{2}, int64_t{3}, p.pick(4, 7)}) {
      const int64_t pc = s.c + p.pick(0, 2), n = g * s.ks * s.ks * pc;
      const Type* tpi = tensorTy(ctx, {s.h, s.w, pc}, s.inBits);
      const Type* tpw = tensorTy(ctx, {s.o, s.ks, s.ks, pc}, s.wBits);
      const Term* pconv = ctx.op(Op::ParallelConv, {ctx.var(1, tpi), ctx.var(0, tpw), pMvF(ctx, s.o, n, g, b, a)});
      terms.push_back(ctx.op(Op::PaddedConvICH, {x, w, ctx.lam2(tpi, tpw, pconv)}));
    }
    expectAllEqual(terms, fmt::format("parallel conv {}x{}x{} -> {} ks {}", s.h, s.w, s.c, s.o, s.ks));
  }
}

// Conv with a partial-dot Mv, merged afterwards, is the plain convolution.
TEST_F(Identity, MergedPartialConvEqualsConv) {
  Picker p(3);
  for (int trial = 0; trial < kTrials; ++trial) {
    const ConvCase s = randomConv(p);
    in.clear();
    const Type *a = ctx.intType(s.inBits), *b = ctx.intType(s.wBits);
    const Term* x = addInput(ctx, in, "x", fullRange(200 + trial, "x", s.inBits, {s.h, s.w, s.c}));
    const Term* w = addInput(ctx, in, "w", fullRange(200 + trial, "w", s.wBits, {s.o, s.ks, s.ks, s.c}));
    const int64_t n = s.ks * s.ks * s.c;
    expectAllEqual({ctx.op(Op::Conv, {x, w, cMvF(ctx, s.o, n, b, a)}),
                    ctx.op(Op::MergePartialSum, {ctx.op(Op::Conv, {x, w, pMvF(ctx, s.o, n, p.divisor(n), b, a)})})},
                   "merged partial conv");
  }
}

TEST_F(Identity, MvEqualsItsTiledAndPaddedForms) {
  Picker p(4);
  for (int trial = 0; trial < kTrials; ++trial) {
    const int64_t m = p.pick(1, 9), n = p.pick(1, 12);
    const int ma = p.bits(), vb = p.bits();
    in.clear();
    const Type *a = ctx.intType(ma), *b = ctx.intType(vb);
    const Term* mat = addInput(ctx, in, "m", fullRange(300 + trial, "m", ma, {m, n}));
    const Term* vec = addInput(ctx, in, "v", fullRange(300 + trial, "v", vb, {n}));
    const int64_t pc = p.divisor(n);
    expectAllEqual(
        {ctx.op(Op::Mv, {mat, vec, dotF(ctx, m, n, a, b, p.pick(1, m))}),
         ctx.op(Op::TiledMv, {mat, vec, cMvF(ctx, m, p.divisor(n), a, b)}),
         ctx.op(Op::TiledMvRows, {mat, vec, cMvF(ctx, p.divisor(m), n, a, b)}),
         ctx.op(Op::PaddedMv, {mat, vec, cMvF(ctx, m, n + p.pick(0, 5), a, b)}),
         ctx.op(Op::PaddedMvRows, {mat, vec, cMvF(ctx, m + p.pick(0, 5), n, a, b)}),
         ctx.op(Op::MergePartialSum, {ctx.op(Op::Mv, {mat, vec, ctx.lam2(tensorTy(ctx, {m, n}, ma), tensorTy(ctx, {m, n}, vb),
                                                                              ctx.op(Op::ParallelPartialDot,
                                                                                     {ctx.var(1, tensorTy(ctx, {m, n}, ma)),
                                                                                      ctx.var(0, tensorTy(ctx, {m, n}, vb))},
                                                                                     {p.pick(1, m), pc}))})})},
        fmt::format("mv {}x{}", m, n));
  }
}

TEST_F(Identity, MmEqualsItsTiledForms) {
  Picker p(5);
  for (int trial = 0; trial < kTrials; ++trial) {
    const int64_t h = p.pick(1, 7), w = p.pick(1, 7), k = p.pick(1, 10);
    const int ab = p.bits(), bb = p.bits();
    in.clear();
    const Type *a = ctx.intType(ab), *b = ctx.intType(bb);
    const Term* ma = addInput(ctx, in, "a", fullRange(400 + trial, "a", ab, {h, k}));
    const Term* mb = addInput(ctx, in, "b", fullRange(400 + trial, "b", bb, {w, k}));
    expectAllEqual({ctx.op(Op::Mm, {ma, mb, cMvF(ctx, w, k, b, a)}),
                    ctx.op(Op::TiledMmW, {ma, mb, cMmF(ctx, p.divisor(w), h, k, a, b)}),
                    ctx.op(Op::TiledMmH, {ma, mb, cMmF(ctx, w, p.divisor(h), k, a, b)}),
                    ctx.op(Op::TiledMmK, {ma, mb, cMmF(ctx, w, h, p.divisor(k), a, b)})},
                   fmt::format("mm {}x{}x{}", h, w, k));
  }
}

TEST_F(Identity, MergedPartialDotEqualsDot) {
  Picker p(6);
  for (int trial = 0; trial < kTrials; ++trial) {
    const int64_t m = p.pick(1, 8), n = p.pick(1, 16);
    const int ab = p.bits(), bb = p.bits();
    in.clear();
    const Term* a = addInput(ctx, in, "a", fullRange(500 + trial, "a", ab, {m, n}));
    const Term* b = addInput(ctx, in, "b", fullRange(500 + trial, "b", bb, {m, n}));
    const int64_t pp = p.pick(1, m);
    expectAllEqual({ctx.op(Op::ParallelDot, {a, b}, {pp}),
                    ctx.op(Op::MergePartialSum, {ctx.op(Op::ParallelPartialDot, {a, b}, {pp, p.divisor(n)})})},
                   "merged partial dot");
  }
}

// Section V-B: Conv1D_H(img, w, _) = TransposedConv1D_W(img, w, cConv1D_WF).
TEST_F(Identity, Conv1DHEqualsTransposedConv1DW) {
  Picker p(7);
  for (int trial = 0; trial < kTrials; ++trial) {
    const int64_t k = p.pick(1, 4), h = k + p.pick(0, 6), w = p.pick(1, 7);
    const int ib = p.bits(), wb = p.bits();
    in.clear();
    const Type *a = ctx.intType(ib), *b = ctx.intType(wb);
    const Term* img = addInput(ctx, in, "img", fullRange(600 + trial, "img", ib, {h, w}));
    const Term* wg = addInput(ctx, in, "w", fullRange(600 + trial, "w", wb, {k}));
    expectAllEqual({ctx.op(Op::Conv1DH, {img, wg, cMvF(ctx, h - k + 1, k, a, b)}),
                    ctx.op(Op::TransposedConv1DW, {img, wg, cConv1DWF(ctx, w, h, k, a, b)})},
                   fmt::format("conv1d {}x{} k {}", h, w, k));
  }
}

}  // namespace
