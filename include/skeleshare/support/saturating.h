#pragma once
// Saturating arithmetic on non-negative counts (MACs, elements, bytes): an absurd program
// reports the type's maximum instead of a small wrapped-around number. (The cost model's
// satAdd/satMul differ: they cap at kCostCap, the solver's "infinite" cost.)

#include <concepts>
#include <limits>

namespace skeleshare {

template <std::integral T>
constexpr T saturatingAdd(T a, T b) {
  T r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<T>::max() : r;
}

template <std::integral T>
constexpr T saturatingMul(T a, T b) {
  T r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<T>::max() : r;
}

}  // namespace skeleshare
