// Fast paths: direct kernels for skeletons whose function argument is recognised as a
// dot product, a matrix-vector product or a convolution (FnKind).
//
// Recognition is compositional over the body of a curried lambda \a.\b. body:
//  - ParallelDot[P](%1, %0) is Dot; ParallelPartialDot[P, C](%1, %0) is Dot with C
//    chunks (partial). P only sets the hardware parallelism.
//  - MergePartialSum(body') with body' a partial kind is that kind, not partial: summing
//    the C chunk sums of each dot (mod 2^32) gives the whole dot.
//  - s(%1, %0, g) for a skeleton s is wrapKind(s, kind of g), where g is a lambda (closed
//    or not) or a variable bound outside the lambda to a recognised closure.
// wrapKind accepts a skeleton only when its docs/ir.md equation, for the shapes in its
// static types, provably computes the kind it returns:
//  - Mv(mat, vec, Dot) applies the dot to (mat, repeat_M(vec)): out[m] = mat[m] . vec.
//  - Conv(in, wgt, Mv) applies mat*vec to (W2, window(y, x)): the convolution; chunks cut
//    the window vector, as the Mv's chunks cut its vector.
//  - ParallelConv(in, wgt, Mv partial with G chunks): chunk j of the repeated weight row
//    o is W2[o] and chunk j of the vector is window(p_j), so r[o][j] = W2[o] . window(p_j).
//  - PaddedMv / PaddedConvICH append zero columns / channels to both operands: every added
//    product is 0, so the whole sums are unchanged (not for partial kinds: the chunks
//    would be cut at other places).
//  - PaddedMvRows / PaddedConvOCH add zero rows / filters and then drop their results;
//    PaddedConvHW appends rows and columns at the bottom/right and crops the result to
//    the windows that lie inside the original image: rows, filters and output positions
//    are independent, so any kind (partial too) is kept.
//  - TiledMv / TiledConvICH sum the products over tiles of the summed dimension: the
//    whole sum when the tiles cover it exactly (N % TN == 0; not for partial kinds).
//  - TiledMvRows / TiledConvOCH / TiledConvHW compute disjoint blocks of rows, filters or
//    output positions with the same function: the whole result when the tiles cover it
//    exactly (M % TM == 0, O % TO == 0, (H-KS+1) % (TH-KS+1) == 0, same for W).
//    TiledConvHW's input tiles hold every window of their output tile.
// Anything else (other shapes, tile sizes that leave a remainder, padding that is not
// larger) takes the generic path, which also produces its errors.
//
// The kernels compute those sums directly, without building windows, repeated vectors,
// padded or sliced copies. All sums are modulo 2^32, which does not depend on the order
// of accumulation, so they are the generic path's numbers.

#include "interpreter_impl.h"

namespace skeleshare::ir {

namespace {

using Shape = FnKind::Shape;

bool isVar(const Term* t, int64_t index) { return t->op() == Op::Var && t->varIndex() == index; }

std::vector<int64_t> shapeOfTerm(const Term* t) { return shapeOf(t->type()); }

/// True for the skeletons that take (x, y, f) and that wrapKind knows.
bool isWrappingSkeleton(Op op) {
  switch (op) {
    case Op::Mv:
    case Op::Conv:
    case Op::ParallelConv:
    case Op::PaddedMv:
    case Op::PaddedMvRows:
    case Op::TiledMv:
    case Op::TiledMvRows:
    case Op::TiledConvHW:
    case Op::TiledConvICH:
    case Op::TiledConvOCH:
    case Op::PaddedConvHW:
    case Op::PaddedConvICH:
    case Op::PaddedConvOCH: return true;
    default: return false;
  }
}

/// Recognises function values and lambda bodies. `hidden` counts the binders between a
/// term and `env` whose values are unknown (the parameters of the lambdas being
/// recognised): %k with k < hidden is one of them, %k otherwise is env's %(k - hidden).
struct Recogniser {
  std::unordered_map<const Term*, std::optional<FnKind>>& cache;

  std::optional<FnKind> ofValue(const Value& f) {
    if (!f.isClosure()) return std::nullopt;
    const Closure& c = f.closure();
    return ofLam(c.lam, c.env, 0);
  }

  std::optional<FnKind> ofLam(const Term* lam, const Env& env, int64_t hidden) {
    if (lam->op() != Op::Lam || lam->body()->op() != Op::Lam) return std::nullopt;
    if (lam->closed()) {
      auto it = cache.find(lam);
      if (it != cache.end()) return it->second;
      auto k = ofBody(lam->body()->body(), nullptr, 2);
      cache.emplace(lam, k);
      return k;
    }
    return ofBody(lam->body()->body(), env, hidden + 2);
  }

  /// A function argument inside a body.
  std::optional<FnKind> ofArg(const Term* g, const Env& env, int64_t hidden) {
    if (g->op() == Op::Lam) return ofLam(g, env, hidden);
    if (g->op() == Op::Var) {
      if (g->varIndex() < hidden) return std::nullopt;
      return ofValue(lookup(env, g->varIndex() - hidden));
    }
    return std::nullopt;
  }

  /// The body of \a.\b. body (a is %1, b is %0).
  std::optional<FnKind> ofBody(const Term* b, const Env& env, int64_t hidden) {
    switch (b->op()) {
      case Op::ParallelDot:
      case Op::ParallelPartialDot:
        if (!isVar(b->child(0), 1) || !isVar(b->child(1), 0)) return std::nullopt;
        if (b->op() == Op::ParallelDot) return FnKind{Shape::Dot, false, 1};
        return FnKind{Shape::Dot, true, b->param(1)};
      case Op::MergePartialSum: {
        auto k = ofBody(b->child(0), env, hidden);
        if (!k || !k->partial) return std::nullopt;
        return FnKind{k->shape, false, 1};
      }
      default: break;
    }
    if (!isWrappingSkeleton(b->op()) || !isVar(b->child(0), 1) || !isVar(b->child(1), 0)) return std::nullopt;
    auto g = ofArg(b->child(2), env, hidden);
    if (!g) return std::nullopt;
    return wrapKind(b, *g);
  }
};

/// out[i][c] = sum over chunk c of row(i)[n] * vec[n] for i < rows, n < len, where
/// row(i) = base + i * stride. Writes rows * chunks values.
void matVec(const int32_t* base, size_t stride, size_t rows, const int32_t* vec, size_t len, size_t chunks,
            int32_t* out) {
  const size_t cl = len / chunks;
  for (size_t i = 0; i < rows; ++i)
    for (size_t c = 0; c < chunks; ++c)
      out[i * chunks + c] = static_cast<int32_t>(dotRange(base + i * stride, vec, c * cl, (c + 1) * cl));
}

/// Throws (an interpreter bug) unless `out` has exactly `n` elements.
void expectSize(const Term* t, const Tensor& out, size_t n) {
  if (out.size() != n)
    throw std::logic_error("interpreter bug: fast path of " + std::string(opName(t->op())) + " computes " +
                           std::to_string(n) + " values for " + out.describe());
}

Tensor mvDirect(const Term* t, const Tensor& mat, const Tensor& vec, size_t chunks) {
  Tensor out = zeroTensor(t, t->type());
  const size_t m = static_cast<size_t>(mat.dim(0)), n = static_cast<size_t>(mat.dim(1));
  expectSize(t, out, m * chunks);
  matVec(mat.data(), n, m, vec.data(), n, chunks, out.data());
  return out;
}

Tensor convDirect(const Term* t, const Tensor& in, const Tensor& wgt, size_t chunks) {
  const int64_t ks = wgt.dim(1), oh = in.dim(0) - ks + 1, ow = in.dim(1) - ks + 1;
  const size_t o = static_cast<size_t>(wgt.dim(0)), n = static_cast<size_t>(ks * ks * in.dim(2));
  Tensor out = zeroTensor(t, t->type());
  expectSize(t, out, static_cast<size_t>(oh * ow) * o * chunks);
  std::vector<int32_t> win(n);
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      convWindow(in, ks, y, x, win.data());
      matVec(wgt.data(), n, o, win.data(), n, chunks, out.data() + static_cast<size_t>(y * ow + x) * o * chunks);
    }
  return out;
}

/// Conv1D along W (alongW) or H: out[p][q][c] = sum over chunk c of img[.][.] * wgt[k],
/// with the image walked at step `step` from the window start.
Tensor conv1dDirect(const Term* t, const Tensor& img, const Tensor& wgt, bool alongW, size_t chunks) {
  const int64_t h = img.dim(0), w = img.dim(1), kk = wgt.dim(0);
  const int64_t oh = alongW ? h : h - kk + 1, ow = alongW ? w - kk + 1 : w;
  Tensor out = zeroTensor(t, t->type());
  expectSize(t, out, static_cast<size_t>(oh * ow) * chunks);
  std::vector<int32_t> win(static_cast<size_t>(kk));
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      for (int64_t j = 0; j < kk; ++j) win[static_cast<size_t>(j)] = alongW ? img[static_cast<size_t>(y * w + x + j)] : img[static_cast<size_t>((y + j) * w + x)];
      matVec(win.data(), 0, 1, wgt.data(), static_cast<size_t>(kk), chunks, out.data() + static_cast<size_t>(y * ow + x) * chunks);
    }
  return out;
}

}  // namespace

std::optional<FnKind> wrapKind(const Term* s, const FnKind& f) {
  const std::vector<int64_t> xs = shapeOfTerm(s->child(0)), ys = shapeOfTerm(s->child(1));
  const Type* fty = s->child(2)->type();
  if (!fty->isFun() || !fty->result()->isFun()) return std::nullopt;
  const std::vector<int64_t> p1 = shapeOf(fty->param()), p2 = shapeOf(fty->result()->param());
  const bool mv = f.shape == Shape::Mv && xs.size() == 2 && p1.size() == 2;
  const bool conv = f.shape == Shape::Conv && xs.size() == 3 && ys.size() == 4 && p1.size() == 3 && p2.size() == 4;
  switch (s->op()) {
    case Op::Mv:
      if (f.shape != Shape::Dot) return std::nullopt;
      return FnKind{Shape::Mv, f.partial, f.chunks};
    case Op::Conv:
      if (f.shape != Shape::Mv) return std::nullopt;
      return FnKind{Shape::Conv, f.partial, f.chunks};
    case Op::ParallelConv: {
      if (f.shape != Shape::Mv || !f.partial || xs.size() != 3 || ys.size() != 4 || p1.size() != 2) return std::nullopt;
      const int64_t n = ys[1] * ys[2] * xs[2];
      if (n <= 0) return std::nullopt;
      const int64_t g = p1[1] / n;
      // The type rule forces chunks == G; checked anyway, the generic path covers the rest.
      if (g < 1 || g * n != p1[1] || f.chunks != g) return std::nullopt;
      return FnKind{Shape::Conv, false, 1};
    }
    case Op::PaddedMv:
      if (!mv || f.partial || p1[1] < xs[1]) return std::nullopt;
      return f;
    case Op::PaddedMvRows:
      if (!mv || p1[0] < xs[0]) return std::nullopt;
      return f;
    case Op::TiledMv:
      if (!mv || f.partial || p1[1] <= 0 || xs[1] % p1[1] != 0) return std::nullopt;
      return f;
    case Op::TiledMvRows:
      if (!mv || p1[0] <= 0 || xs[0] % p1[0] != 0) return std::nullopt;
      return f;
    case Op::TiledConvHW: {
      if (!conv) return std::nullopt;
      const int64_t ks = ys[1], oth = p1[0] - ks + 1, otw = p1[1] - ks + 1;
      const int64_t oh = xs[0] - ks + 1, ow = xs[1] - ks + 1;
      if (oth <= 0 || otw <= 0 || oh % oth != 0 || ow % otw != 0 || p1[2] != xs[2]) return std::nullopt;
      return f;
    }
    case Op::TiledConvICH:
      if (!conv || f.partial || p1[2] <= 0 || xs[2] % p1[2] != 0) return std::nullopt;
      return f;
    case Op::TiledConvOCH:
      if (!conv || p2[0] <= 0 || ys[0] % p2[0] != 0) return std::nullopt;
      return f;
    case Op::PaddedConvHW:
      if (!conv || p1[0] < xs[0] || p1[1] < xs[1] || p1[2] != xs[2]) return std::nullopt;
      return f;
    case Op::PaddedConvICH:
      if (!conv || f.partial || p1[2] < xs[2]) return std::nullopt;
      return f;
    case Op::PaddedConvOCH:
      if (!conv || p2[0] < ys[0]) return std::nullopt;
      return f;
    default: return std::nullopt;
  }
}

std::optional<FnKind> Interpreter::Impl::kindOf(const Value& f) { return Recogniser{kindCache}.ofValue(f); }

std::optional<Value> Interpreter::Impl::tryFast(const Term* t, const std::vector<Value>& k) {
  switch (t->op()) {
    case Op::Mm: {
      // out[h] = mv(b, a[h])
      auto d = kindOf(k[2]);
      if (!d || d->shape != Shape::Mv) return std::nullopt;
      const Tensor &a = k[0].tensor(), &b = k[1].tensor();
      Tensor out = zeroTensor(t, t->type());
      const size_t kk = static_cast<size_t>(a.dim(1)), w = static_cast<size_t>(b.dim(0)), ch = static_cast<size_t>(d->chunks);
      expectSize(t, out, static_cast<size_t>(a.dim(0)) * w * ch);
      for (int64_t h = 0; h < a.dim(0); ++h)
        matVec(b.data(), kk, w, a.data() + static_cast<size_t>(h) * kk, kk, ch, out.data() + static_cast<size_t>(h) * w * ch);
      return Value(std::move(out));
    }
    case Op::Conv1DW:
    case Op::Conv1DH: {
      auto d = kindOf(k[2]);
      if (!d || d->shape != Shape::Mv) return std::nullopt;
      return Value(conv1dDirect(t, k[0].tensor(), k[1].tensor(), t->op() == Op::Conv1DW, static_cast<size_t>(d->chunks)));
    }
    default: break;
  }
  if (!isWrappingSkeleton(t->op())) return std::nullopt;
  // t(x, y, f) computes what \a.\b. t(%1, %0, f) computes, applied to (x, y).
  auto f = kindOf(k[2]);
  if (!f) return std::nullopt;
  auto r = wrapKind(t, *f);
  if (!r) return std::nullopt;
  const size_t chunks = static_cast<size_t>(r->chunks);
  switch (r->shape) {
    case Shape::Mv: return Value(mvDirect(t, k[0].tensor(), k[1].tensor(), chunks));
    case Shape::Conv: return Value(convDirect(t, k[0].tensor(), k[1].tensor(), chunks));
    case Shape::Dot: return std::nullopt;  // no skeleton is a dot
  }
  return std::nullopt;
}

}  // namespace skeleshare::ir
