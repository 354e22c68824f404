#pragma once
// The evaluator's kernels: one plain loop nest per DSL operator over dense row-major
// tensors. Private to the frontend; see docs/ir.md for the semantics they implement.

#include <cstdint>
#include <functional>

#include "skeleshare/support/tensor.h"

namespace skeleshare::frontend::kernels {

/// in[H][W][C] (*) wgt[O][KS][KS][C] -> i32[H-KS+1][W-KS+1][O]
Tensor conv(const Tensor& in, const Tensor& wgt);
/// mat[M][N] * vec[N] -> i32[M]
Tensor mv(const Tensor& mat, const Tensor& vec);
/// a[H][K] * b[W][K]^T -> i32[H][W]
Tensor mm(const Tensor& a, const Tensor& b);
/// img[H][W] (*) wgt[K] along W -> i32[H][W-K+1]
Tensor conv1dW(const Tensor& img, const Tensor& wgt);
/// img[H][W] (*) wgt[K] along H -> i32[H-K+1][W]
Tensor conv1dH(const Tensor& img, const Tensor& wgt);

Tensor pad(const Tensor& x, int64_t top, int64_t bottom, int64_t left, int64_t right, int32_t fill);
Tensor maxpool(const Tensor& x, int64_t size, int64_t stride);
/// out[i] = f(x[i]) for every element, stored wrapped to `outBits`.
Tensor unary(const Tensor& x, int outBits, const std::function<int64_t(int64_t)>& f);
/// out = f(x, y) element-wise, wrapped to `outBits`; a rank-0 operand is broadcast.
Tensor binary(const Tensor& x, const Tensor& y, int outBits, int64_t (*f)(int64_t, int64_t));
/// x[..., c] + b[c], wrapped to `outBits`.
Tensor bias(const Tensor& x, const Tensor& b, int outBits);
Tensor flatten(const Tensor& x);
Tensor transpose(const Tensor& x);

/// x[i] along the outermost dimension.
Tensor slice(const Tensor& x, int64_t i);
/// out[i] = part (same element width, shapes already checked by sema).
void setSlice(Tensor& out, int64_t i, const Tensor& part);

}  // namespace skeleshare::frontend::kernels
