// Operators that use no DSPs: element-wise arithmetic and data movement. Arithmetic is
// exact in 64 bits and then wrapped (or saturated) to the result width, as docs/ir.md
// specifies; stored elements are always within their width.

#include <fmt/format.h>

#include <algorithm>

#include "interpreter_impl.h"

namespace skeleshare::ir {

namespace {

/// out[i] = fn(x[i]), wrapped to the result width.
template <class F>
Tensor unary(const Term* t, const Tensor& x, F fn) {
  Tensor out = zeroTensor(t, t->type());
  const int bits = out.bits();
  for (size_t i = 0; i < x.size(); ++i) out[i] = wrapTo(fn(int64_t{x[i]}), bits);
  return out;
}

/// out[i] = fn(x[i], y[i]), wrapped to the result width.
template <class F>
Tensor binary(const Term* t, const Tensor& x, const Tensor& y, F fn) {
  Tensor out = zeroTensor(t, t->type());
  const int bits = out.bits();
  for (size_t i = 0; i < x.size(); ++i) out[i] = wrapTo(fn(int64_t{x[i]}, int64_t{y[i]}), bits);
  return out;
}


}  // namespace

Value Interpreter::Impl::evalElementwise(const Term* t, const std::vector<Value>& k) {
  const Tensor& x = k[0].tensor();
  switch (t->op()) {
    case Op::Relu: return unary(t, x, [](int64_t v) { return std::max<int64_t>(v, 0); });
    case Op::LeakyRelu: {
      const int64_t s = t->param(0);
      return unary(t, x, [s](int64_t v) { return v >= 0 ? v : v >> s; });  // arithmetic shift
    }
    case Op::ShiftRight: {
      const int64_t s = t->param(0);
      return unary(t, x, [s](int64_t v) { return v >> s; });
    }
    case Op::Requant: {
      const int64_t s = t->param(0);
      return unary(t, x, [s](int64_t v) { return saturateTo(roundShiftHalfUp(v, s), 8); });  // exact, no wrap
    }
    case Op::RequantEven: {
      const int64_t s = t->param(0);
      return unary(t, x, [s](int64_t v) { return saturateTo(roundShiftHalfEven(v, s), 8); });
    }
    case Op::Cast: return unary(t, x, [](int64_t v) { return v; });  // wrap to the new width
    case Op::Add: return binary(t, x, k[1].tensor(), [](int64_t a, int64_t b) { return a + b; });
    case Op::Sub: return binary(t, x, k[1].tensor(), [](int64_t a, int64_t b) { return a - b; });
    case Op::Mul: return binary(t, x, k[1].tensor(), [](int64_t a, int64_t b) { return a * b; });
    case Op::Max: return binary(t, x, k[1].tensor(), [](int64_t a, int64_t b) { return std::max(a, b); });
    case Op::Min: return binary(t, x, k[1].tensor(), [](int64_t a, int64_t b) { return std::min(a, b); });
    case Op::Bias: {
      // x[..., c] + b[c], wrapped to the wider width
      const Tensor& b = k[1].tensor();
      Tensor out = zeroTensor(t, t->type());
      const size_t c = b.size();
      for (size_t i = 0; i < x.size(); ++i) out[i] = wrapTo(int64_t{x[i]} + b[i % c], out.bits());
      return out;
    }
    case Op::Pad: {
      // Pad[top, bottom, left, right, fill]: rows and columns of `fill` around H x W x ...
      Tensor out = zeroTensor(t, t->type());
      std::fill(out.values().begin(), out.values().end(), static_cast<int32_t>(t->param(4)));
      std::vector<int64_t> at(x.rank(), 0);
      at[0] = t->param(0);
      at[1] = t->param(2);
      insertBlock(out, at, x);
      return out;
    }
    case Op::MaxPool: {
      // out[i][j] = max over the size x size window at (i*stride, j*stride)
      const int64_t size = t->param(0), stride = t->param(1), w = x.dim(1);
      Tensor out = zeroTensor(t, t->type());
      const int64_t oh = out.dim(0), ow = out.dim(1);
      const size_t inner = x.size() / static_cast<size_t>(x.dim(0) * w);
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int32_t* o = out.data() + static_cast<size_t>(i * ow + j) * inner;
          for (size_t e = 0; e < inner; ++e) {
            int32_t m = x[static_cast<size_t>(i * stride * w + j * stride) * inner + e];
            for (int64_t dy = 0; dy < size; ++dy)
              for (int64_t dx = 0; dx < size; ++dx)
                m = std::max(m, x[static_cast<size_t>((i * stride + dy) * w + j * stride + dx) * inner + e]);
            o[e] = m;
          }
        }
      return out;
    }
    case Op::Flatten: return reshaped(x, {static_cast<int64_t>(x.size())});  // row-major
    case Op::Transpose: return transposeOuter(x);  // swaps the two outermost dimensions
    default: evalError(t, "not an element-wise operator");
  }
}

}  // namespace skeleshare::ir
