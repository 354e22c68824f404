// Printing then parsing gives back the identical hash-consed term: on a hand-written
// module that uses every operator, on the sample files, and on many random well-typed
// terms (nested lambdas, skeletons from builders.h, element-wise chains, odd types).

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/parser.h"
#include "skeleshare/ir/printer.h"
#include "skeleshare/ir/verifier.h"

using namespace skeleshare;
using namespace skeleshare::ir;

namespace {

using Shape = std::vector<int64_t>;

std::string diagText(const DiagnosticEngine& d) {
  std::ostringstream os;
  d.print(os);
  return os.str();
}

const Term* reparseTerm(Context& ctx, const Term* t, const TermEnv& env, const PrintOptions& po) {
  std::string text = printTerm(ctx, t, po);
  SourceFile f("<roundtrip>", text);
  DiagnosticEngine d;
  const Term* r = parseTerm(ctx, f, d, env);
  EXPECT_NE(r, nullptr) << text << "\n" << diagText(d);
  return r;
}

void expectModuleRoundTrip(Context& ctx, const Module& m, int width = 100) {
  PrintOptions po;
  po.width = width;
  std::string text = printModule(ctx, m, po);
  SourceFile f("<roundtrip>", text);
  DiagnosticEngine d;
  std::optional<Module> r = parseModule(ctx, f, d);
  ASSERT_TRUE(r) << text << "\n" << diagText(d);
  ASSERT_EQ(r->decls.size(), m.decls.size());
  for (size_t i = 0; i < m.decls.size(); ++i) {
    EXPECT_EQ(r->decls[i].name, m.decls[i].name);
    EXPECT_EQ(r->decls[i].kind, m.decls[i].kind);
    EXPECT_EQ(r->decls[i].type, m.decls[i].type);
  }
  ASSERT_EQ(r->outputs.size(), m.outputs.size());
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    EXPECT_EQ(r->outputs[i].name, m.outputs[i].name);
    EXPECT_EQ(r->outputs[i].term, m.outputs[i].term) << text;
  }
  EXPECT_EQ(printModule(ctx, *r, po), text);
}

// ---- a module that uses every operator ---------------------------------------------

struct Builder {
  Context& ctx;
  Module m;
  const Type* i8 = ctx.intType(8);
  const Type* i16 = ctx.intType(16);
  const Type* i32 = ctx.intType(32);

  const Type* ty(Shape s, const Type* scalar) { return ctx.tensorType(s, scalar); }
  const Term* decl(const std::string& name, const Type* t, Decl::Kind k = Decl::Kind::Input) {
    if (!m.findDecl(name)) m.decls.push_back(Decl{name, k, t});
    return ctx.input(name, t);
  }
  const Term* w(const std::string& name, Shape s, const Type* scalar) {
    return decl(name, ty(s, scalar), Decl::Kind::Weight);
  }
  const Term* in(const std::string& name, Shape s, const Type* scalar) { return decl(name, ty(s, scalar)); }
  void out(const std::string& name, const Term* t) { m.outputs.push_back(Output{name, t}); }
};

Module everyOperator(Context& ctx) {
  Builder b{ctx, {}};
  const Type *i8 = b.i8, *i16 = b.i16, *i32 = b.i32;
  const Term* img = b.in("image", {6, 6, 4}, i8);
  const Term* wgt = b.w("wgt", {4, 3, 3, 4}, i8);
  const Term* mat = b.w("mat", {4, 6}, i8);
  const Term* vec = b.in("vec", {6}, i16);
  const Term* mb = b.w("mb", {5, 6}, i8);
  const Term* img2 = b.in("img2", {5, 7}, i8);
  const Term* k3 = b.w("k3", {3}, i8);
  const Term* bias = b.w("bias", {4}, i32);

  b.out("conv", ctx.op(Op::Conv, {img, wgt, cMvF(ctx, 4, 36, i8, i8)}));
  b.out("mv", ctx.op(Op::Mv, {mat, vec, dotF(ctx, 4, 6, i8, i16, 3)}));
  b.out("mm", ctx.op(Op::Mm, {mat, mb, cMvF(ctx, 5, 6, i8, i8)}));
  b.out("conv1d_w", ctx.op(Op::Conv1DW, {img2, k3, cMvF(ctx, 5, 3, i8, i8)}));
  b.out("conv1d_h", ctx.op(Op::Conv1DH, {img2, k3, cMvF(ctx, 3, 3, i8, i8)}));
  b.out("tiled_mv", ctx.op(Op::TiledMv, {mat, vec, cMvF(ctx, 4, 3, i8, i16)}));
  b.out("padded_mv", ctx.op(Op::PaddedMv, {mat, vec, cMvF(ctx, 4, 8, i8, i16)}));
  b.out("tiled_mv_rows", ctx.op(Op::TiledMvRows, {mat, vec, cMvF(ctx, 2, 6, i8, i16)}));
  b.out("padded_mv_rows", ctx.op(Op::PaddedMvRows, {mat, vec, cMvF(ctx, 8, 6, i8, i16)}));
  b.out("tiled_mm_w", ctx.op(Op::TiledMmW, {mat, mb, cMmF(ctx, 1, 4, 6, i8, i8)}));
  b.out("tiled_mm_h", ctx.op(Op::TiledMmH, {mat, mb, cMmF(ctx, 5, 2, 6, i8, i8)}));
  b.out("tiled_mm_k", ctx.op(Op::TiledMmK, {mat, mb, cMmF(ctx, 5, 4, 3, i8, i8)}));
  b.out("tiled_conv_hw", ctx.op(Op::TiledConvHW, {img, wgt, cConvF(ctx, 4, 4, 4, 4, 3, i8, i8)}));
  b.out("padded_conv_hw", ctx.op(Op::PaddedConvHW, {img, wgt, cConvF(ctx, 8, 7, 4, 4, 3, i8, i8)}));
  b.out("tiled_conv_ich", ctx.op(Op::TiledConvICH, {img, wgt, cConvF(ctx, 6, 6, 2, 4, 3, i8, i8)}));
  b.out("padded_conv_ich", ctx.op(Op::PaddedConvICH, {img, wgt, cConvF(ctx, 6, 6, 8, 4, 3, i8, i8)}));
  b.out("tiled_conv_och", ctx.op(Op::TiledConvOCH, {img, wgt, cConvF(ctx, 6, 6, 4, 2, 3, i8, i8)}));
  b.out("padded_conv_och", ctx.op(Op::PaddedConvOCH, {img, wgt, cConvF(ctx, 6, 6, 4, 5, 3, i8, i8)}));
  // kernel 3 padded to 5: the 6x6 image by two rows and columns (or more)
  b.out("padded_conv_ks", ctx.op(Op::PaddedConvKS, {img, wgt, cConvF(ctx, 8, 9, 4, 4, 5, i8, i8)}));
  // columns paired: the 6x6x4 image as 6x4x8 (one zero pair), filters doubled, 4x4 tiles
  b.out("paired_conv_w", ctx.op(Op::PairedConvW, {img, wgt, cConvF(ctx, 4, 4, 8, 8, 3, i8, i8)}));
  b.out("transposed_conv1d", ctx.op(Op::TransposedConv1DW, {img2, k3, cConv1DWF(ctx, 7, 5, 3, i8, i8)}));
  const Term* partial = ctx.op(Op::Mv, {mat, vec, ctx.lam2(b.ty({4, 6}, i8), b.ty({4, 6}, i16),
      ctx.op(Op::ParallelPartialDot, {ctx.var(1, b.ty({4, 6}, i8)), ctx.var(0, b.ty({4, 6}, i16))}, {4, 2}))});
  b.out("merge", ctx.op(Op::MergePartialSum, {partial}));
  b.out("parallel_conv", ctx.op(Op::ParallelConv, {img, wgt, pMvF(ctx, 4, 72, 2, i8, i8)}));

  const Term* act = ctx.op(Op::Conv, {img, wgt, cMvF(ctx, 4, 36, i8, i8)});
  const Term* chain = ctx.op(Op::Requant, {ctx.op(Op::LeakyRelu, {ctx.op(Op::Bias, {act, bias})}, {3})}, {6});
  chain = ctx.op(Op::Pad, {ctx.op(Op::MaxPool, {ctx.op(Op::Relu, {chain})}, {2, 2})}, {1, 0, 0, 1, -128});
  b.out("chain", ctx.op(Op::Flatten, {ctx.op(Op::Transpose, {chain})}));
  const Term* x = ctx.op(Op::Cast, {vec}, {32});
  b.out("arith", ctx.op(Op::Tuple, {ctx.op(Op::Add, {x, vec}), ctx.op(Op::Sub, {vec, x}),
                                     ctx.op(Op::Mul, {vec, vec}), ctx.op(Op::Max, {x, x}),
                                     ctx.op(Op::Min, {vec, x}), ctx.op(Op::ShiftRight, {vec}, {2}),
                                     ctx.op(Op::RequantEven, {x}, {3})}));
  const Type* row = b.ty({6}, i8);
  b.out("map", ctx.op(Op::Map, {mat, ctx.lam(row, ctx.op(Op::Relu, {ctx.var(0, row)}))}));
  b.out("zip", ctx.op(Op::ZipWith, {mat, mat, ctx.lam2(row, row, ctx.op(Op::Add, {ctx.var(1, row), ctx.var(0, row)}))}));
  b.out("reduce", ctx.op(Op::Reduce, {ctx.constant(-7, i32), vec,
      ctx.lam2(i32, i16, ctx.op(Op::Max, {ctx.var(1, i32), ctx.var(0, i16)}))}));
  const Type* fn = ctx.funType(b.ty({6}, i16), b.ty({6}, i16));
  b.out("app", ctx.app(ctx.lam(fn, ctx.app(ctx.var(0, fn), vec)), ctx.lam(b.ty({6}, i16), ctx.op(Op::Relu, {ctx.var(0, b.ty({6}, i16))}))));
  return b.m;
}

void collectOps(const Term* t, std::set<Op>& ops) {
  ops.insert(t->op());
  for (const Term* c : t->children()) collectOps(c, ops);
}

TEST(RoundTrip, EveryOperatorModule) {
  Context ctx;
  Module m = everyOperator(ctx);
  std::set<Op> ops;
  for (const Output& o : m.outputs) collectOps(o.term, ops);
  EXPECT_EQ(ops.size(), static_cast<size_t>(opCount())) << "the hand-written module misses an operator";
  VerifyOptions vo;
  vo.allowApp = true;
  EXPECT_EQ(formatProblems(verifyModule(ctx, m, vo)), "");
  for (int width : {100, 40, 1, 100000}) expectModuleRoundTrip(ctx, m, width);
}

TEST(RoundTrip, EveryOperatorLoneTerms) {
  Context ctx;
  Module m = everyOperator(ctx);
  TermEnv env{m.decls, {}};
  PrintOptions annotated;
  annotated.annotateInputs = true;
  for (const Output& o : m.outputs) {
    EXPECT_EQ(reparseTerm(ctx, o.term, env, {}), o.term) << o.name;
    // Self-describing inputs need no declarations.
    EXPECT_EQ(reparseTerm(ctx, o.term, {}, annotated), o.term) << o.name;
  }
}

TEST(RoundTrip, SampleFiles) {
  for (const char* name : {"conv_mv.ir", "shared.ir"}) {
    std::string path = std::string(SKELESHARE_SOURCE_DIR) + "/tests/ir/inputs/" + name;
    std::string err;
    auto file = SourceFile::read(path, err);
    ASSERT_TRUE(file) << err;
    Context ctx;
    DiagnosticEngine d;
    auto m = parseModule(ctx, *file, d);
    ASSERT_TRUE(m) << diagText(d);
    VerifyOptions vo;
    vo.allowApp = true;
    EXPECT_EQ(formatProblems(verifyModule(ctx, *m, vo)), "") << name;
    expectModuleRoundTrip(ctx, *m);
  }
}

// ---- random well-typed terms -------------------------------------------------------

/// Builds random well-typed terms of a requested integer tensor type. Every choice is
/// checked by Context::make, so a generator bug shows up as a TypeError, not silently.
class RandomTerms {
 public:
  RandomTerms(Context& ctx, uint64_t seed) : ctx_(ctx), rng_(seed) {}

  int64_t pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool coin(int percent) { return pick(1, 100) <= percent; }
  const Type* intTy() { return ctx_.intType(8 << pick(0, 2)); }
  Shape shape(int maxRank) {
    Shape s(static_cast<size_t>(pick(0, maxRank)));
    for (auto& d : s) d = pick(1, 5);
    return s;
  }

  /// Any type, including functions, tuples and arrays of them: lambda parameters.
  const Type* anyType(int depth) {
    int k = static_cast<int>(pick(0, depth > 0 ? 3 : 0));
    const Type* t = intTy();
    if (k == 1) t = ctx_.funType(anyType(depth - 1), anyType(depth - 1));
    if (k == 2) {
      std::vector<const Type*> es(static_cast<size_t>(pick(0, 3)));
      for (auto& e : es) e = anyType(depth - 1);
      t = ctx_.tupleType(es);
    }
    if (k == 3 || coin(30)) t = ctx_.tensorType(shape(2), t);
    return t;
  }

  /// A term of type scalar[shape...] built from `depth` levels of operators.
  const Term* tensor(const Shape& s, const Type* scalar, int depth) {
    const Type* want = ctx_.tensorType(s, scalar);
    if (depth <= 0 || coin(10)) return leaf(s, scalar, want);
    const int bits = scalar->bits();
    Shape tail(s.begin() + (s.empty() ? 0 : 1), s.end());
    switch (pick(0, 13)) {
      case 0: return ctx_.op(Op::Relu, {tensor(s, scalar, depth - 1)});
      case 1: return ctx_.op(Op::LeakyRelu, {tensor(s, scalar, depth - 1)}, {pick(0, 31)});
      case 2: return ctx_.op(Op::ShiftRight, {tensor(s, scalar, depth - 1)}, {pick(0, 31)});
      case 3:
        if (bits == 8) return ctx_.op(Op::Requant, {tensor(s, intTy(), depth - 1)}, {pick(0, 31)});
        return ctx_.op(Op::Cast, {tensor(s, intTy(), depth - 1)}, {bits});
      case 4: {  // Add, Sub, Max, Min: the wider operand decides the width
        static constexpr Op kOps[] = {Op::Add, Op::Sub, Op::Max, Op::Min};
        const Term* a = tensor(s, scalar, depth - 1);
        const Term* b = tensor(s, ctx_.intType(8 << pick(0, bits == 8 ? 0 : bits == 16 ? 1 : 2)), depth - 1);
        if (coin(50)) std::swap(a, b);
        return ctx_.op(kOps[pick(0, 3)], {a, b});
      }
      case 5:
        if (bits != 32) break;
        return ctx_.op(Op::Mul, {tensor(s, intTy(), depth - 1), tensor(s, intTy(), depth - 1)});
      case 6: {  // Map over the outer dimension with a lambda
        if (s.empty()) break;
        Shape inner = shape(2);
        const Type* e = ctx_.tensorType(inner, intTy());
        Shape xs{s[0]};
        xs.insert(xs.end(), inner.begin(), inner.end());
        const Term* x = tensor(xs, e->scalar(), depth - 1);
        return ctx_.op(Op::Map, {x, lam(e, [&] { return tensor(tail, scalar, depth - 1); })});
      }
      case 7: {  // ZipWith
        if (s.empty()) break;
        const Type* e1 = intTy();
        const Type* e2 = intTy();
        const Term* x = tensor({s[0]}, e1, depth - 1);
        const Term* y = tensor({s[0]}, e2, depth - 1);
        return ctx_.op(Op::ZipWith, {x, y, lam(e1, [&] { return lam(e2, [&] { return tensor(tail, scalar, depth - 1); }); })});
      }
      case 8: {  // Reduce over a random array into `want`
        const Type* e = intTy();
        Shape xs{pick(1, 4)};
        const Term* x = tensor(xs, e, depth - 1);
        const Term* init = tensor(s, scalar, depth - 1);
        return ctx_.op(Op::Reduce, {init, x, lam(want, [&] { return lam(e, [&] { return tensor(s, scalar, depth - 1); }); })});
      }
      case 9: {  // Mv with a canonical dot function or a partial one and a merge
        if (s.size() != 1 || bits != 32) break;
        int64_t m = s[0], n = pick(1, 6);
        const Type *a = intTy(), *bb = intTy();
        const Term* mat = tensor({m, n}, a, depth - 1);
        const Term* vec = tensor({n}, bb, depth - 1);
        if (coin(50)) return ctx_.op(Op::Mv, {mat, vec, dotF(ctx_, m, n, a, bb, pick(1, m))});
        const Term* f = ctx_.lam2(ctx_.tensorType(Shape{m, n}, a), ctx_.tensorType(Shape{m, n}, bb),
                                  ctx_.op(Op::ParallelPartialDot, {ctx_.var(1, ctx_.tensorType(Shape{m, n}, a)),
                                                                   ctx_.var(0, ctx_.tensorType(Shape{m, n}, bb))},
                                          {pick(1, m), 1}));
        return ctx_.op(Op::MergePartialSum, {ctx_.op(Op::Mv, {mat, vec, f})});
      }
      case 10: {  // Conv built with builders.h
        if (s.size() != 3 || bits != 32) break;
        int64_t ks = pick(1, 3), c = pick(1, 3);
        const Type *a = intTy(), *bb = intTy();
        const Term* in = tensor({s[0] + ks - 1, s[1] + ks - 1, c}, a, depth - 1);
        const Term* wg = tensor({s[2], ks, ks, c}, bb, depth - 1);
        return ctx_.op(Op::Conv, {in, wg, cMvF(ctx_, s[2], ks * ks * c, bb, a)});
      }
      case 11: {  // Transpose, Flatten
        if (s.size() >= 2) {
          Shape t = s;
          std::swap(t[0], t[1]);
          return ctx_.op(Op::Transpose, {tensor(t, scalar, depth - 1)});
        }
        if (s.size() == 1 && s[0] % 2 == 0) return ctx_.op(Op::Flatten, {tensor({2, s[0] / 2}, scalar, depth - 1)});
        break;
      }
      case 12: {  // App of a lambda (as after extraction), or a Tuple projection-free wrap
        const Type* p = intTy();
        const Term* f = lam(p, [&] { return tensor(s, scalar, depth - 1); });
        return ctx_.app(f, tensor({}, p, depth - 1));
      }
      case 13: {  // Pad or Bias
        if (s.size() >= 2 && s[0] > 1 && s[1] > 1) {
          Shape inner = s;
          inner[0] -= 1;
          inner[1] -= 1;
          int64_t lim = int64_t{1} << (bits - 1);
          return ctx_.op(Op::Pad, {tensor(inner, scalar, depth - 1)}, {1, 0, 0, 1, pick(-lim, lim - 1)});
        }
        if (!s.empty()) return ctx_.op(Op::Bias, {tensor(s, scalar, depth - 1), tensor({s.back()}, intTy8Below(bits), depth - 1)});
        break;
      }
    }
    return leaf(s, scalar, want);
  }

  /// A term of a random type: a tensor, a tuple of terms, or a lambda (possibly nested,
  /// with exotic parameter types that the body may ignore).
  const Term* any(int depth) {
    int k = static_cast<int>(pick(0, 5));
    if (k == 0) {
      std::vector<const Term*> es(static_cast<size_t>(pick(1, 3)));
      for (auto& e : es) e = any(depth - 1);
      return ctx_.op(Op::Tuple, es);
    }
    if (k == 1 && depth > 0) return lam(anyType(2), [&] { return any(depth - 1); });
    return tensor(shape(3), intTy(), depth);
  }

  /// Free variables the generated terms may use (as if bound outside), innermost first.
  std::vector<const Type*> freeVars;

 private:
  const Type* intTy8Below(int bits) { return ctx_.intType(8 << pick(0, bits == 8 ? 0 : bits == 16 ? 1 : 2)); }

  template <class F>
  const Term* lam(const Type* param, F body) {
    binders_.push_back(param);
    const Term* b = body();
    binders_.pop_back();
    return ctx_.lam(param, b);
  }

  const Term* leaf(const Shape& s, const Type* scalar, const Type* want) {
    // A variable of the wanted type, bound by a lambda or free, when there is one.
    std::vector<int64_t> candidates;
    for (size_t i = 0; i < binders_.size() + freeVars.size(); ++i) {
      const Type* t = i < binders_.size() ? binders_[binders_.size() - 1 - i] : freeVars[i - binders_.size()];
      if (t == want) candidates.push_back(static_cast<int64_t>(i));
    }
    if (!candidates.empty() && coin(60)) return ctx_.var(candidates[static_cast<size_t>(pick(0, static_cast<int64_t>(candidates.size()) - 1))], want);
    if (s.empty() && coin(50)) {
      int64_t lim = int64_t{1} << (scalar->bits() - 1);
      return ctx_.constant(pick(-lim, lim - 1), scalar);
    }
    // Inputs are named after their type, so that one name always has one type; some
    // names need quotes.
    std::string name = (coin(20) ? "in." : "x") + want->str();
    return ctx_.input(name, want);
  }

  Context& ctx_;
  std::mt19937_64 rng_;
  std::vector<const Type*> binders_;
};

void collectInputs(const Context& ctx, const Term* t, std::vector<Decl>& decls, std::set<const Term*>& seen) {
  if (!seen.insert(t).second) return;
  if (t->op() == Op::Input) decls.push_back(Decl{ctx.symbolName(t->param(0)), Decl::Kind::Input, t->annot()});
  for (const Term* c : t->children()) collectInputs(ctx, c, decls, seen);
}

TEST(RoundTrip, RandomClosedTerms) {
  Context ctx;
  std::set<Op> opsSeen;
  uint64_t largest = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    RandomTerms gen(ctx, seed);
    const Term* t = gen.any(static_cast<int>(seed % 10));
    collectOps(t, opsSeen);
    largest = std::max(largest, t->treeSize());
    std::vector<Decl> decls;
    std::set<const Term*> seen;
    collectInputs(ctx, t, decls, seen);
    VerifyOptions vo;
    vo.allowApp = true;
    ASSERT_EQ(formatProblems(verify(ctx, t, vo)), "") << seed;
    PrintOptions po;
    po.width = static_cast<int>(seed % 120);
    ASSERT_EQ(reparseTerm(ctx, t, TermEnv{decls, {}}, po), t) << "seed " << seed;
    po.annotateInputs = true;
    ASSERT_EQ(reparseTerm(ctx, t, {}, po), t) << "seed " << seed;
    if (seed % 10 == 0) {
      Module m;
      m.decls = decls;
      m.outputs.push_back(Output{"out", t});
      m.outputs.push_back(Output{"again", gen.any(3)});
      seen.clear();
      m.decls.clear();
      for (const Output& o : m.outputs) collectInputs(ctx, o.term, m.decls, seen);
      expectModuleRoundTrip(ctx, m, static_cast<int>(seed % 90));
    }
  }
  // The generator must stay interesting: nested binders, skeletons and big terms.
  for (Op op : {Op::Var, Op::Lam, Op::App, Op::Tuple, Op::Map, Op::ZipWith, Op::Reduce, Op::Mv,
                Op::ParallelDot, Op::ParallelPartialDot, Op::MergePartialSum, Op::Conv, Op::Pad,
                Op::Bias, Op::Requant, Op::Mul, Op::Transpose, Op::Flatten, Op::Const, Op::Input})
    EXPECT_TRUE(opsSeen.count(op)) << opName(op);
  EXPECT_GT(largest, 200u);
}

TEST(RoundTrip, RandomOpenTerms) {
  // Free variables print with their type; parsing takes it from the annotation, or
  // from TermEnv::freeVarTypes (then the annotation must agree).
  Context ctx;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    RandomTerms gen(ctx, seed);
    for (int i = 0; i < 3; ++i) gen.freeVars.push_back(ctx.tensorType(gen.shape(2), gen.intTy()));
    const Term* t = gen.any(4);
    std::vector<Decl> decls;
    std::set<const Term*> seen;
    collectInputs(ctx, t, decls, seen);
    VerifyOptions vo;
    vo.allowApp = true;
    vo.freeVarTypes = gen.freeVars;
    ASSERT_EQ(formatProblems(verify(ctx, t, vo)), "") << seed;
    ASSERT_EQ(reparseTerm(ctx, t, TermEnv{decls, {}}, {}), t) << "seed " << seed;
    ASSERT_EQ(reparseTerm(ctx, t, TermEnv{decls, gen.freeVars}, {}), t) << "seed " << seed;
  }
}

}  // namespace
