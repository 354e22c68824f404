// Core and partial skeletons, generic path: each case is the docs/ir.md equation read
// literally, with every function argument applied through the generic apply path.

#include <fmt/format.h>

#include "interpreter_impl.h"

namespace skeleshare::ir {

namespace {

/// out[m][c] = sum over chunk c of a[m][n] * b[m][n]; chunks = 1 gives ParallelDot.
Tensor rowDots(const Tensor& a, const Tensor& b, int64_t chunks, bool partialShape) {
  const int64_t m = a.dim(0), n = a.dim(1), len = n / chunks;
  Tensor out(32, partialShape ? std::vector<int64_t>{m, chunks} : std::vector<int64_t>{m});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < chunks; ++c)
      out[static_cast<size_t>(i * chunks + c)] = static_cast<int32_t>(
          dotRange(a.data() + i * n, b.data() + i * n, static_cast<size_t>(c * len), static_cast<size_t>((c + 1) * len)));
  return out;
}

/// repeat_M(vec): an M x N matrix whose every row is vec.
Tensor repeatRows(const Tensor& vec, int64_t m) {
  const size_t n = vec.size();
  Tensor out(vec.bits(), {m, static_cast<int64_t>(n)});
  for (int64_t i = 0; i < m; ++i) std::copy(vec.data(), vec.data() + n, out.data() + static_cast<size_t>(i) * n);
  return out;
}

void place(const Term* t, Tensor& out, size_t i, const Tensor& r) {
  if ((i + 1) * r.size() > out.size()) evalError(t, "result " + r.describe() + " does not fit " + out.describe());
  std::copy(r.data(), r.data() + r.size(), out.data() + i * r.size());
}

}  // namespace

/// W2: wgt[O][KS][KS][C] read as the matrix O x (KS*KS*C) (the same row-major data).
Tensor weightMatrix(const Tensor& wgt) {
  return reshaped(wgt, {wgt.dim(0), wgt.dim(1) * wgt.dim(2) * wgt.dim(3)});
}

/// window(y, x)[(ky*KS + kx)*C + c] = in[y+ky][x+kx][c]; writes KS*KS*C values to `dst`.
void convWindow(const Tensor& in, int64_t ks, int64_t y, int64_t x, int32_t* dst) {
  const int64_t w = in.dim(1), c = in.dim(2);
  for (int64_t ky = 0; ky < ks; ++ky) {
    // The KS pixels of one kernel row are contiguous in the input: copy them at once.
    const int32_t* row = in.data() + ((y + ky) * w + x) * c;
    std::copy(row, row + ks * c, dst + ky * ks * c);
  }
}

Value Interpreter::Impl::evalCore(const Term* t, const std::vector<Value>& k) {
  switch (t->op()) {
    case Op::ParallelDot:
      // out[m] = sum_n a[m][n]*b[m][n]   (P only sets the hardware parallelism)
      return rowDots(k[0].tensor(), k[1].tensor(), 1, false);
    case Op::ParallelPartialDot:
      // out[m][c] = sum over n in chunk c of a[m][n]*b[m][n]
      return rowDots(k[0].tensor(), k[1].tensor(), t->param(1), true);
    case Op::MergePartialSum: {
      // sum over the innermost dimension, i32 wrapping
      const Tensor& x = k[0].tensor();
      Tensor out = zeroTensor(t, t->type());
      const size_t c = static_cast<size_t>(x.shape().back());
      for (size_t i = 0; i < out.size(); ++i) {
        uint32_t sum = 0;
        for (size_t j = 0; j < c; ++j) sum += static_cast<uint32_t>(x[i * c + j]);
        out[i] = static_cast<int32_t>(sum);
      }
      return out;
    }
    case Op::Mv: {
      // f(mat)(repeat_M(vec))
      const Tensor& mat = k[0].tensor();
      return apply2(k[2], k[0], repeatRows(k[1].tensor(), mat.dim(0)));
    }
    case Op::Mm: {
      // out[h] = f(b)(a[h])
      const Tensor& a = k[0].tensor();
      Value fb = apply(k[2], k[1]);
      Tensor out = zeroTensor(t, t->type());
      for (int64_t h = 0; h < a.dim(0); ++h) place(t, out, static_cast<size_t>(h), apply(fb, subTensor(a, h)).tensor());
      return out;
    }
    case Op::Conv: {
      // out[y][x] = f(W2)(window(y, x))
      const Tensor &in = k[0].tensor(), &wgt = k[1].tensor();
      const int64_t ks = wgt.dim(1), oh = in.dim(0) - ks + 1, ow = in.dim(1) - ks + 1;
      Value fw = apply(k[2], weightMatrix(wgt));
      Tensor out = zeroTensor(t, t->type());
      Tensor win(in.bits(), {ks * ks * in.dim(2)});
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          convWindow(in, ks, y, x, win.data());
          place(t, out, static_cast<size_t>(y * ow + x), apply(fw, win).tensor());
        }
      return out;
    }
    case Op::Conv1DW: {
      // out[h] = f(win_h)(wgt), win_h[x][k] = img[h][x+k]
      const Tensor& img = k[0].tensor();
      const int64_t h = img.dim(0), w = img.dim(1), kk = k[1].tensor().dim(0), ow = w - kk + 1;
      Tensor out = zeroTensor(t, t->type());
      for (int64_t r = 0; r < h; ++r) {
        Tensor win(img.bits(), {ow, kk});
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t j = 0; j < kk; ++j) win[static_cast<size_t>(x * kk + j)] = img[static_cast<size_t>(r * w + x + j)];
        place(t, out, static_cast<size_t>(r), apply2(k[2], win, k[1]).tensor());
      }
      return out;
    }
    case Op::Conv1DH: {
      // out[y][w] = f(win_w)(wgt)[y], win_w[y][k] = img[y+k][w]
      const Tensor& img = k[0].tensor();
      const int64_t h = img.dim(0), w = img.dim(1), kk = k[1].tensor().dim(0), oh = h - kk + 1;
      Tensor out = zeroTensor(t, t->type());  // oh x w x R'
      for (int64_t c = 0; c < w; ++c) {
        Tensor win(img.bits(), {oh, kk});
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t j = 0; j < kk; ++j) win[static_cast<size_t>(y * kk + j)] = img[static_cast<size_t>((y + j) * w + c)];
        Tensor r = apply2(k[2], win, k[1]).tensor();  // oh x R'
        const size_t rs = r.size() / static_cast<size_t>(oh);
        for (int64_t y = 0; y < oh; ++y)
          std::copy(r.data() + y * rs, r.data() + (y + 1) * rs, out.data() + static_cast<size_t>(y * w + c) * rs);
      }
      return out;
    }
    case Op::ParallelConv: {
      // Groups of G consecutive output positions p = y*OW + x (the last group padded with
      // zero windows): r = f(mat)(window(p_0) ++ ... ++ window(p_{G-1})) with mat = W2
      // repeated G times along the columns; out[p_j][o] = r[o][j].
      const Tensor &in = k[0].tensor(), &wgt = k[1].tensor();
      const int64_t ks = wgt.dim(1), oh = in.dim(0) - ks + 1, ow = in.dim(1) - ks + 1;
      const int64_t o = wgt.dim(0), n = ks * ks * in.dim(2);
      const int64_t g = t->child(2)->type()->param()->elem()->length() / n;
      const Tensor w2 = weightMatrix(wgt);
      Tensor mat(wgt.bits(), {o, g * n});
      for (int64_t r = 0; r < o; ++r)
        for (int64_t j = 0; j < g; ++j) std::copy(w2.data() + r * n, w2.data() + (r + 1) * n, mat.data() + (r * g + j) * n);
      Value fm = apply(k[2], mat);
      Tensor out = zeroTensor(t, t->type());  // oh x ow x o x R'
      const int64_t positions = oh * ow;
      for (int64_t p0 = 0; p0 < positions; p0 += g) {
        Tensor vec(in.bits(), {g * n});  // zero windows past the last position
        for (int64_t j = 0; j < g && p0 + j < positions; ++j)
          convWindow(in, ks, (p0 + j) / ow, (p0 + j) % ow, vec.data() + j * n);
        Tensor r = apply(fm, vec).tensor();  // o x g x R'
        const size_t rs = r.size() / static_cast<size_t>(o * g);
        for (int64_t j = 0; j < g && p0 + j < positions; ++j)
          for (int64_t c = 0; c < o; ++c)
            std::copy(r.data() + (c * g + j) * rs, r.data() + (c * g + j + 1) * rs,
                      out.data() + static_cast<size_t>((p0 + j) * o + c) * rs);
      }
      return out;
    }
    default: evalError(t, "not a core skeleton");
  }
}

}  // namespace skeleshare::ir
