// Fast paths: direct kernels for skeletons whose function argument is a canonical
// dot-product lambda or a matrix-vector lambda around one.
//
// Why they are equal to the generic path:
//  - \a.\b. ParallelDot[P](%1, %0) applied to (mat, repeat_M(vec)) gives
//    out[m] = sum_n mat[m][n] * vec[n]; ParallelPartialDot[P, C] gives the same sums cut
//    into C chunks of N/C consecutive n. Mv's fast path computes exactly that.
//  - \m.\v. Mv(%1, %0, dot) is therefore the function (m, v) -> m * v (chunked), and
//    Conv / Mm / Conv1D_* apply it to (W2, window(y, x)), (b, a[h]) and (win, wgt):
//    their fast paths compute those products without building the windows, the
//    repeated vectors or per-window copies of the weights.
//  - ParallelConv with \m.\v. Mv(%1, %0, ParallelPartialDot[P, G]): chunk j of the
//    repeated weight row o is W2[o] and chunk j of the vector is window(p_j), so
//    r[o][j] = W2[o] . window(p_j): the plain convolution.
// All sums are modulo 2^32, which does not depend on the order of accumulation.

#include "interpreter_impl.h"

namespace skeleshare::ir {

namespace {

bool isVar(const Term* t, int64_t index) { return t->op() == Op::Var && t->varIndex() == index; }

/// \a.\b. ParallelDot[P](%1, %0) or \a.\b. ParallelPartialDot[P, C](%1, %0).
std::optional<DotKind> dotKindOfTerm(const Term* lam) {
  if (lam->op() != Op::Lam || lam->body()->op() != Op::Lam) return std::nullopt;
  const Term* b = lam->body()->body();
  if (b->op() != Op::ParallelDot && b->op() != Op::ParallelPartialDot) return std::nullopt;
  if (!isVar(b->child(0), 1) || !isVar(b->child(1), 0)) return std::nullopt;
  if (b->op() == Op::ParallelDot) return DotKind{false, 1};
  return DotKind{true, b->param(1)};
}

}  // namespace

std::optional<DotKind> dotKindOf(const Value& f) {
  if (!f.isClosure()) return std::nullopt;
  return dotKindOfTerm(f.closure().lam);
}

std::optional<DotKind> mvKindOf(const Value& f) {
  if (!f.isClosure()) return std::nullopt;
  const Closure& c = f.closure();
  const Term* lam = c.lam;
  if (lam->op() != Op::Lam || lam->body()->op() != Op::Lam) return std::nullopt;
  const Term* mv = lam->body()->body();
  if (mv->op() != Op::Mv || !isVar(mv->child(0), 1) || !isVar(mv->child(1), 0)) return std::nullopt;
  const Term* g = mv->child(2);
  if (g->closed()) return dotKindOfTerm(g);
  // A dot function bound outside this lambda (e.g. let-bound and shared): %k inside the
  // two binders is %(k-2) of the closure's environment.
  if (g->op() == Op::Var && g->varIndex() >= 2) return dotKindOf(lookup(c.env, g->varIndex() - 2));
  return std::nullopt;
}

namespace {

/// out[i][c] = sum over chunk c of row(i)[n] * vec[n] for i < rows, n < len, where
/// row(i) = base + i * stride. Writes rows * chunks values.
void matVec(const int32_t* base, size_t stride, size_t rows, const int32_t* vec, size_t len, size_t chunks,
            int32_t* out) {
  const size_t cl = len / chunks;
  for (size_t i = 0; i < rows; ++i)
    for (size_t c = 0; c < chunks; ++c)
      out[i * chunks + c] = static_cast<int32_t>(dotRange(base + i * stride, vec, c * cl, (c + 1) * cl));
}

Tensor convDirect(const Term* t, const Tensor& in, const Tensor& wgt, size_t chunks) {
  const int64_t ks = wgt.dim(1), oh = in.dim(0) - ks + 1, ow = in.dim(1) - ks + 1;
  const size_t o = static_cast<size_t>(wgt.dim(0)), n = static_cast<size_t>(ks * ks * in.dim(2));
  Tensor out = zeroTensor(t, t->type());
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
  std::vector<int32_t> win(static_cast<size_t>(kk));
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      for (int64_t j = 0; j < kk; ++j) win[static_cast<size_t>(j)] = alongW ? img[static_cast<size_t>(y * w + x + j)] : img[static_cast<size_t>((y + j) * w + x)];
      matVec(win.data(), 0, 1, wgt.data(), static_cast<size_t>(kk), chunks, out.data() + static_cast<size_t>(y * ow + x) * chunks);
    }
  return out;
}

}  // namespace

std::optional<Value> Interpreter::Impl::tryFast(const Term* t, const std::vector<Value>& k) {
  switch (t->op()) {
    case Op::Mv: {
      auto d = dotKindOf(k[2]);
      if (!d) return std::nullopt;
      const Tensor &mat = k[0].tensor(), &vec = k[1].tensor();
      Tensor out = zeroTensor(t, t->type());
      const size_t n = static_cast<size_t>(mat.dim(1));
      matVec(mat.data(), n, static_cast<size_t>(mat.dim(0)), vec.data(), n, static_cast<size_t>(d->chunks), out.data());
      return Value(std::move(out));
    }
    case Op::Mm: {
      // out[h] = mv(b, a[h])
      auto d = mvKindOf(k[2]);
      if (!d) return std::nullopt;
      const Tensor &a = k[0].tensor(), &b = k[1].tensor();
      Tensor out = zeroTensor(t, t->type());
      const size_t kk = static_cast<size_t>(a.dim(1)), w = static_cast<size_t>(b.dim(0)), ch = static_cast<size_t>(d->chunks);
      for (int64_t h = 0; h < a.dim(0); ++h)
        matVec(b.data(), kk, w, a.data() + static_cast<size_t>(h) * kk, kk, ch, out.data() + static_cast<size_t>(h) * w * ch);
      return Value(std::move(out));
    }
    case Op::Conv: {
      auto d = mvKindOf(k[2]);
      if (!d) return std::nullopt;
      return Value(convDirect(t, k[0].tensor(), k[1].tensor(), static_cast<size_t>(d->chunks)));
    }
    case Op::ParallelConv: {
      auto d = mvKindOf(k[2]);
      const Tensor &in = k[0].tensor(), &wgt = k[1].tensor();
      const int64_t n = wgt.dim(1) * wgt.dim(2) * in.dim(2);
      const int64_t g = t->child(2)->type()->param()->elem()->length() / n;
      // The type rule forces chunks == G; checked anyway, the generic path covers the rest.
      if (!d || !d->partial || d->chunks != g) return std::nullopt;
      return Value(convDirect(t, in, wgt, 1));
    }
    case Op::Conv1DW:
    case Op::Conv1DH: {
      auto d = mvKindOf(k[2]);
      if (!d) return std::nullopt;
      return Value(conv1dDirect(t, k[0].tensor(), k[1].tensor(), t->op() == Op::Conv1DW, static_cast<size_t>(d->chunks)));
    }
    default: return std::nullopt;
  }
}

}  // namespace skeleshare::ir
