#include "skeleshare/support/tensor.h"

#include <algorithm>
#include <stdexcept>

namespace skeleshare {

size_t shapeElements(const std::vector<int64_t>& shape) {
  constexpr int64_t kMax = int64_t{1} << 40;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::length_error("negative dimension");
    if (d != 0 && n > kMax / d) throw std::length_error("tensor too large");
    n *= d;
  }
  return static_cast<size_t>(n);
}

Tensor::Tensor(int bits, std::vector<int64_t> shape)
    : bits_(bits), shape_(std::move(shape)), data_(shapeElements(shape_), 0) {
  if (bits != 8 && bits != 16 && bits != 32) throw std::invalid_argument("bad element width");
}

size_t Tensor::offset(std::initializer_list<int64_t> idx) const {
  size_t off = 0, k = 0;
  for (int64_t i : idx) off = off * static_cast<size_t>(shape_[k++]) + static_cast<size_t>(i);
  return off;
}

std::string Tensor::describe() const {
  std::string s = "i" + std::to_string(bits_);
  for (int64_t d : shape_) s += "[" + std::to_string(d) + "]";
  return s;
}

}  // namespace skeleshare

// ---- shape manipulation --------------------------------------------------------------

namespace skeleshare {

namespace {

std::string shapeStr(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += "[" + std::to_string(d) + "]";
  return s.empty() ? "[]" : s;
}

std::vector<size_t> stridesOf(const std::vector<int64_t>& shape) {
  std::vector<size_t> st(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) st[i - 1] = st[i] * static_cast<size_t>(shape[i]);
  return st;
}

/// Checks that the block [begin, begin+extent) lies inside `outer`.
void checkBlock(const char* what, const std::vector<int64_t>& outer,
                const std::vector<int64_t>& begin, const std::vector<int64_t>& extent) {
  if (begin.size() != outer.size() || extent.size() != outer.size())
    throw std::out_of_range(std::string(what) + ": rank mismatch between tensor " + shapeStr(outer) +
                            ", offset and block " + shapeStr(extent));
  for (size_t i = 0; i < outer.size(); ++i)
    if (begin[i] < 0 || extent[i] < 0 || begin[i] > outer[i] || extent[i] > outer[i] - begin[i])
      throw std::out_of_range(std::string(what) + ": block " + shapeStr(extent) + " at offset " +
                              shapeStr(begin) + " exceeds tensor " + shapeStr(outer));
}

/// Copies the block of `extent` from src (at srcBegin) to dst (at dstBegin), one
/// innermost run at a time. Both blocks have been bounds-checked.
void copyBlock(const int32_t* src, const std::vector<int64_t>& srcShape,
               const std::vector<int64_t>& srcBegin, int32_t* dst,
               const std::vector<int64_t>& dstShape, const std::vector<int64_t>& dstBegin,
               const std::vector<int64_t>& extent) {
  const size_t r = extent.size();
  if (r == 0) {
    *dst = *src;
    return;
  }
  for (int64_t e : extent)
    if (e == 0) return;
  const auto ss = stridesOf(srcShape), ds = stridesOf(dstShape);
  const size_t run = static_cast<size_t>(extent[r - 1]);
  std::vector<int64_t> idx(r, 0);  // index inside the block; idx[r-1] stays 0
  for (;;) {
    size_t so = 0, doff = 0;
    for (size_t i = 0; i < r; ++i) {
      so += static_cast<size_t>(srcBegin[i] + idx[i]) * ss[i];
      doff += static_cast<size_t>(dstBegin[i] + idx[i]) * ds[i];
    }
    std::copy(src + so, src + so + run, dst + doff);
    size_t k = r - 1;
    for (;;) {
      if (k == 0) return;
      --k;
      if (++idx[k] < extent[k]) break;
      idx[k] = 0;
    }
  }
}

}  // namespace

Tensor subTensor(const Tensor& t, int64_t i) {
  if (t.rank() == 0) throw std::out_of_range("subTensor: a scalar has no elements to index");
  if (i < 0 || i >= t.dim(0))
    throw std::out_of_range("subTensor: index " + std::to_string(i) + " out of range for " + t.describe());
  std::vector<int64_t> shape(t.shape().begin() + 1, t.shape().end());
  Tensor out(t.bits(), shape);
  const size_t n = out.size();
  std::copy(t.data() + static_cast<size_t>(i) * n, t.data() + static_cast<size_t>(i + 1) * n, out.data());
  return out;
}

Tensor reshaped(const Tensor& t, std::vector<int64_t> shape) {
  if (shapeElements(shape) != t.size())
    throw std::out_of_range("reshaped: cannot view " + t.describe() + " as " + shapeStr(shape));
  Tensor out(t.bits(), std::move(shape));
  std::copy(t.data(), t.data() + t.size(), out.data());
  return out;
}

Tensor extractBlock(const Tensor& t, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& shape) {
  checkBlock("extractBlock", t.shape(), begin, shape);
  Tensor out(t.bits(), shape);
  copyBlock(t.data(), t.shape(), begin, out.data(), out.shape(),
            std::vector<int64_t>(shape.size(), 0), shape);
  return out;
}

void insertBlock(Tensor& dst, const std::vector<int64_t>& begin, const Tensor& src) {
  checkBlock("insertBlock", dst.shape(), begin, src.shape());
  if (src.bits() > dst.bits())
    throw std::out_of_range("insertBlock: cannot store " + src.describe() + " into " + dst.describe());
  copyBlock(src.data(), src.shape(), std::vector<int64_t>(src.rank(), 0), dst.data(), dst.shape(),
            begin, src.shape());
}

Tensor padTo(const Tensor& t, const std::vector<int64_t>& shape, int32_t fill) {
  checkBlock("padTo", shape, std::vector<int64_t>(shape.size(), 0), t.shape());
  Tensor out(t.bits(), shape);
  if (fill != 0) std::fill(out.values().begin(), out.values().end(), fill);
  insertBlock(out, std::vector<int64_t>(shape.size(), 0), t);
  return out;
}

Tensor transposeOuter(const Tensor& t) {
  if (t.rank() < 2) throw std::out_of_range("transposeOuter: " + t.describe() + " has rank < 2");
  std::vector<int64_t> shape = t.shape();
  std::swap(shape[0], shape[1]);
  Tensor out(t.bits(), shape);
  const size_t a = static_cast<size_t>(t.dim(0)), b = static_cast<size_t>(t.dim(1));
  const size_t inner = b == 0 || a == 0 ? 0 : t.size() / (a * b);
  for (size_t i = 0; i < a; ++i)
    for (size_t j = 0; j < b; ++j)
      std::copy(t.data() + (i * b + j) * inner, t.data() + (i * b + j + 1) * inner,
                out.data() + (j * a + i) * inner);
  return out;
}

}  // namespace skeleshare
