#pragma once
// The deterministic input generator.
//
// A tensor is generated from (seed, name, width, shape, role) alone, so that inputs do not
// depend on the order of declarations and are identical on every machine:
//
//   key     = fnv1a64(name)                       FNV-1a, 64-bit, over the name's bytes
//   state_0 = mix64(seed) XOR key                 mix64 = SplitMix64's output function
//   element i (row-major) = lo + (next() mod (hi - lo + 1)), with SplitMix64's
//   next(): state += 0x9E3779B97F4A7C15; return mix64(state)
//   mix64(z): z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//             z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31)
//
// (all arithmetic on unsigned 64-bit integers, modulo 2^64). The modulo bias is below
// 2^-40 for every range used here.
//
// Default ranges (inclusive), chosen so that requantised networks stay interesting:
// full-range 8-bit activations and small weights keep a 3x3x64 convolution's sums
// within a few thousand, so typical Requant shifts of 4-8 neither saturate everything
// nor round everything to zero.
//
//   width | Role::Input (activations, images) | Role::Weight (weights, biases)
//   i8    | [-128, 127]                        | [-7, 7]        (rms 4.3)
//   i16   | [-4096, 4095]                      | [-127, 127]    (rms 73.6)
//   i32   | [-65536, 65535]                    | [-1023, 1023]  (rms 591)
//
// Weight ranges are symmetric, so weights have mean exactly 0. (A two's-complement range
// such as [-8, 7] has mean -0.5: every output channel's weight sum is then strongly
// negative, and a layer fed by non-negative, post-ReLU activations produces mostly
// negative sums, i.e. mostly zeros after the next ReLU.) Activation ranges keep the full
// two's-complement span; their -0.5 mean is negligible against their spread and is
// multiplied by zero-mean weights.

#include <cstdint>
#include <string_view>
#include <vector>

#include "skeleshare/support/tensor.h"

namespace skeleshare::rng {

enum class Role { Input, Weight };

struct Range {
  int32_t lo = 0;
  int32_t hi = 0;  // inclusive
};

/// The documented default range for an element width (8, 16, 32) and role.
Range defaultRange(int bits, Role role);

/// FNV-1a, 64-bit (offset basis 0xCBF29CE484222325, prime 0x100000001B3).
uint64_t fnv1a64(std::string_view bytes);
/// SplitMix64's output function (a bijection on 64-bit integers).
uint64_t mix64(uint64_t z);

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ULL;
    return mix64(state_);
  }

 private:
  uint64_t state_;
};

/// The initial state of the stream of tensor `name` under `seed`.
uint64_t streamState(uint64_t seed, std::string_view name);

/// A tensor of width `bits` and `shape` filled from the stream of (seed, name), values
/// uniform in `range` (which must lie within the width). Throws std::invalid_argument on
/// a bad width or range.
Tensor randomTensor(uint64_t seed, std::string_view name, int bits, const std::vector<int64_t>& shape,
                    Range range);
/// The same with the default range of (bits, role).
Tensor randomTensor(uint64_t seed, std::string_view name, int bits, const std::vector<int64_t>& shape,
                    Role role);

}  // namespace skeleshare::rng
