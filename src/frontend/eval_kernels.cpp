// Naive kernels of the reference evaluator. Dot products accumulate in uint32_t: that
// is exactly i32 arithmetic modulo 2^32 (docs/ir.md) without signed-overflow UB, and
// the product of two values of at most 32 bits, reduced modulo 2^32, is the same
// whether computed exactly or in uint32_t.

#include "eval_kernels.h"

#include <algorithm>
#include <cstring>

namespace skeleshare::frontend::kernels {

namespace {
inline uint32_t u(int32_t v) { return static_cast<uint32_t>(v); }
inline int32_t s(uint32_t v) { return static_cast<int32_t>(v); }  // modular since C++20
inline size_t z(int64_t v) { return static_cast<size_t>(v); }

/// Elements per index of the outermost dimension.
size_t innerSize(const Tensor& x) {
  size_t n = 1;
  for (size_t i = 1; i < x.rank(); ++i) n *= z(x.dim(i));
  return n;
}
}  // namespace

Tensor conv(const Tensor& in, const Tensor& wgt) {
  const int64_t H = in.dim(0), W = in.dim(1), C = in.dim(2);
  const int64_t O = wgt.dim(0), KS = wgt.dim(1);
  const int64_t OH = H - KS + 1, OW = W - KS + 1;
  Tensor out(32, {OH, OW, O});
  const int32_t* ip = in.data();
  const int32_t* wp = wgt.data();
  int32_t* op = out.data();
  for (int64_t y = 0; y < OH; ++y)
    for (int64_t x = 0; x < OW; ++x)
      for (int64_t o = 0; o < O; ++o) {
        uint32_t acc = 0;
        for (int64_t ky = 0; ky < KS; ++ky)
          for (int64_t kx = 0; kx < KS; ++kx) {
            const int32_t* a = ip + z(((y + ky) * W + (x + kx)) * C);
            const int32_t* b = wp + z(((o * KS + ky) * KS + kx) * C);
            for (int64_t c = 0; c < C; ++c) acc += u(a[c]) * u(b[c]);
          }
        op[z((y * OW + x) * O + o)] = s(acc);
      }
  return out;
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  const int64_t M = mat.dim(0), N = mat.dim(1);
  Tensor out(32, {M});
  for (int64_t m = 0; m < M; ++m) {
    const int32_t* row = mat.data() + z(m * N);
    uint32_t acc = 0;
    for (int64_t n = 0; n < N; ++n) acc += u(row[n]) * u(vec[z(n)]);
    out[z(m)] = s(acc);
  }
  return out;
}

Tensor mm(const Tensor& a, const Tensor& b) {
  const int64_t H = a.dim(0), K = a.dim(1), W = b.dim(0);
  Tensor out(32, {H, W});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t w = 0; w < W; ++w) {
      const int32_t* ar = a.data() + z(h * K);
      const int32_t* br = b.data() + z(w * K);
      uint32_t acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += u(ar[k]) * u(br[k]);
      out[z(h * W + w)] = s(acc);
    }
  return out;
}

Tensor conv1dW(const Tensor& img, const Tensor& wgt) {
  const int64_t H = img.dim(0), W = img.dim(1), K = wgt.dim(0), OW = W - K + 1;
  Tensor out(32, {H, OW});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t x = 0; x < OW; ++x) {
      uint32_t acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += u(img[z(h * W + x + k)]) * u(wgt[z(k)]);
      out[z(h * OW + x)] = s(acc);
    }
  return out;
}

Tensor conv1dH(const Tensor& img, const Tensor& wgt) {
  const int64_t H = img.dim(0), W = img.dim(1), K = wgt.dim(0), OH = H - K + 1;
  Tensor out(32, {OH, W});
  for (int64_t y = 0; y < OH; ++y)
    for (int64_t x = 0; x < W; ++x) {
      uint32_t acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += u(img[z((y + k) * W + x)]) * u(wgt[z(k)]);
      out[z(y * W + x)] = s(acc);
    }
  return out;
}

Tensor pad(const Tensor& x, int64_t top, int64_t bottom, int64_t left, int64_t right, int32_t fill) {
  std::vector<int64_t> shape = x.shape();
  const int64_t H = shape[0], W = shape[1];
  shape[0] += top + bottom;
  shape[1] += left + right;
  const size_t R = innerSize(x) / z(W);  // elements per pixel
  Tensor out(x.bits(), shape);
  std::fill(out.values().begin(), out.values().end(), fill);
  const int64_t OW = shape[1];
  for (int64_t y = 0; y < H; ++y)
    std::memcpy(out.data() + z((y + top) * OW + left) * R, x.data() + z(y * W) * R, z(W) * R * sizeof(int32_t));
  return out;
}

Tensor maxpool(const Tensor& x, int64_t size, int64_t stride) {
  std::vector<int64_t> shape = x.shape();
  const int64_t W = shape[1];
  const int64_t OH = (shape[0] - size) / stride + 1, OW = (W - size) / stride + 1;
  shape[0] = OH;
  shape[1] = OW;
  const size_t R = innerSize(x) / z(W);
  Tensor out(x.bits(), shape);
  for (int64_t i = 0; i < OH; ++i)
    for (int64_t j = 0; j < OW; ++j)
      for (size_t r = 0; r < R; ++r) {
        int32_t m = x[z(i * stride * W + j * stride) * R + r];
        for (int64_t dy = 0; dy < size; ++dy)
          for (int64_t dx = 0; dx < size; ++dx)
            m = std::max(m, x[z((i * stride + dy) * W + j * stride + dx) * R + r]);
        out[z(i * OW + j) * R + r] = m;
      }
  return out;
}

Tensor unary(const Tensor& x, int outBits, const std::function<int64_t(int64_t)>& f) {
  Tensor out(outBits, x.shape());
  for (size_t i = 0; i < x.size(); ++i) out.setWrapped(i, f(x[i]));
  return out;
}

Tensor binary(const Tensor& x, const Tensor& y, int outBits, int64_t (*f)(int64_t, int64_t)) {
  const Tensor& shapeOf = x.rank() == 0 ? y : x;
  Tensor out(outBits, shapeOf.shape());
  const bool bx = x.rank() == 0 && y.rank() != 0, by = y.rank() == 0 && x.rank() != 0;
  for (size_t i = 0; i < out.size(); ++i) out.setWrapped(i, f(x[bx ? 0 : i], y[by ? 0 : i]));
  return out;
}

Tensor bias(const Tensor& x, const Tensor& b, int outBits) {
  Tensor out(outBits, x.shape());
  const size_t C = b.size();
  for (size_t i = 0; i < x.size(); ++i) out.setWrapped(i, int64_t{x[i]} + b[i % C]);
  return out;
}

Tensor flatten(const Tensor& x) {
  Tensor out(x.bits(), {static_cast<int64_t>(x.size())});
  out.values() = x.values();
  return out;
}

Tensor transpose(const Tensor& x) {
  std::vector<int64_t> shape = x.shape();
  const int64_t A = shape[0], B = shape[1];
  std::swap(shape[0], shape[1]);
  const size_t R = innerSize(x) / z(B);
  Tensor out(x.bits(), shape);
  for (int64_t i = 0; i < A; ++i)
    for (int64_t j = 0; j < B; ++j)
      std::memcpy(out.data() + z(j * A + i) * R, x.data() + z(i * B + j) * R, R * sizeof(int32_t));
  return out;
}

Tensor slice(const Tensor& x, int64_t i) {
  std::vector<int64_t> shape(x.shape().begin() + 1, x.shape().end());
  Tensor out(x.bits(), shape);
  const size_t n = out.size();
  std::memcpy(out.data(), x.data() + z(i) * n, n * sizeof(int32_t));
  return out;
}

void setSlice(Tensor& out, int64_t i, const Tensor& part) {
  std::memcpy(out.data() + z(i) * part.size(), part.data(), part.size() * sizeof(int32_t));
}

}  // namespace skeleshare::frontend::kernels
