#include "skeleshare/ir/builders.h"

namespace skeleshare::ir {

namespace {
const Term* dotLike(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b,
                    Op op, std::initializer_list<int64_t> params) {
  const Type* ta = ctx.tensorType(std::initializer_list<int64_t>{m, n}, a);
  const Type* tb = ctx.tensorType(std::initializer_list<int64_t>{m, n}, b);
  const Term* body = ctx.op(op, {ctx.var(1, ta), ctx.var(0, tb)}, params);
  return ctx.lam2(ta, tb, body);
}

const Term* mvAround(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b,
                     const Term* dot) {
  const Type* tm = ctx.tensorType(std::initializer_list<int64_t>{m, n}, a);
  const Type* tv = ctx.arrayType(n, b);
  return ctx.lam2(tm, tv, ctx.op(Op::Mv, {ctx.var(1, tm), ctx.var(0, tv), dot}));
}
}  // namespace

const Term* dotF(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b, int64_t p) {
  return dotLike(ctx, m, n, a, b, Op::ParallelDot, {p});
}

const Term* cMvF(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b) { return mvF(ctx, m, n, a, b, m); }

const Term* mvF(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b, int64_t p) {
  return mvAround(ctx, m, n, a, b, dotF(ctx, m, n, a, b, p));
}

const Term* pMvF(Context& ctx, int64_t m, int64_t n, int64_t c, const Type* a, const Type* b) {
  return mvAround(ctx, m, n, a, b, dotLike(ctx, m, n, a, b, Op::ParallelPartialDot, {m, c}));
}

const Term* cMmF(Context& ctx, int64_t w, int64_t h, int64_t k, const Type* a, const Type* b) {
  const Type* ta = ctx.tensorType(std::initializer_list<int64_t>{h, k}, a);
  const Type* tb = ctx.tensorType(std::initializer_list<int64_t>{w, k}, b);
  // Mm(a, b, mvF) applies mvF(b, a[i]): the matrix parameter has b's element type.
  return ctx.lam2(ta, tb, ctx.op(Op::Mm, {ctx.var(1, ta), ctx.var(0, tb), cMvF(ctx, w, k, b, a)}));
}

const Term* cConvF(Context& ctx, int64_t h, int64_t w, int64_t ich, int64_t och, int64_t ks,
                   const Type* a, const Type* b) {
  const Type* tin = ctx.tensorType(std::initializer_list<int64_t>{h, w, ich}, a);
  const Type* twg = ctx.tensorType(std::initializer_list<int64_t>{och, ks, ks, ich}, b);
  const Term* mv = cMvF(ctx, och, ks * ks * ich, b, a);
  return ctx.lam2(tin, twg, ctx.op(Op::Conv, {ctx.var(1, tin), ctx.var(0, twg), mv}));
}

const Term* cConv1DWF(Context& ctx, int64_t h, int64_t w, int64_t k, const Type* a, const Type* b) {
  const Type* timg = ctx.tensorType(std::initializer_list<int64_t>{h, w}, a);
  const Type* twg = ctx.arrayType(k, b);
  const Term* mv = cMvF(ctx, w - k + 1, k, a, b);
  return ctx.lam2(timg, twg, ctx.op(Op::Conv1DW, {ctx.var(1, timg), ctx.var(0, twg), mv}));
}

}  // namespace skeleshare::ir
