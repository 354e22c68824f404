#pragma once
// Helpers shared by the interpreter tests.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/support/random.h"

namespace skeleshare::ir::testing {

using Shape = std::vector<int64_t>;
using Inputs = std::map<std::string, Tensor>;

inline const Type* tensorTy(Context& ctx, const Shape& shape, int bits) {
  return ctx.tensorType(shape, ctx.intType(bits));
}

/// A tensor with the given values (row-major).
inline Tensor tensorOf(int bits, const Shape& shape, const std::vector<int32_t>& values) {
  Tensor t(bits, shape);
  if (values.size() != t.size()) throw std::invalid_argument("tensorOf: wrong number of values");
  t.values() = values;
  return t;
}

/// A random tensor over the full range of its width (so that wrap-around is exercised).
inline Tensor fullRange(uint64_t seed, const std::string& name, int bits, const Shape& shape) {
  const int32_t hi = static_cast<int32_t>((int64_t{1} << (bits - 1)) - 1);
  return rng::randomTensor(seed, name, bits, shape, rng::Range{-hi - 1, hi});
}

/// Adds an input named `name` to both the term world and the input map.
inline const Term* addInput(Context& ctx, Inputs& inputs, const std::string& name, Tensor t) {
  const Term* term = ctx.input(name, tensorTy(ctx, t.shape(), t.bits()));
  inputs[name] = std::move(t);
  return term;
}

inline Tensor evalTensor(const Context& ctx, const Term* t, const Inputs& inputs, bool fast = true) {
  EvalOptions o;
  o.fastPaths = fast;
  return evaluate(t, inputs, ctx, o).tensor();
}

/// Evaluates with and without fast paths, expects the same tensor, and returns it.
inline Tensor evalBoth(const Context& ctx, const Term* t, const Inputs& inputs) {
  Tensor fast = evalTensor(ctx, t, inputs, true);
  Tensor slow = evalTensor(ctx, t, inputs, false);
  EXPECT_EQ(fast, slow) << "fast path differs from the generic path";
  return fast;
}

/// A deterministic stream of small integers for picking random shapes.
class Picker {
 public:
  explicit Picker(uint64_t seed) : gen_(rng::mix64(seed)) {}
  /// Uniform in [lo, hi].
  int64_t pick(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(gen_.next() % static_cast<uint64_t>(hi - lo + 1));
  }
  /// A divisor of n, uniformly among its divisors.
  int64_t divisor(int64_t n) {
    std::vector<int64_t> ds;
    for (int64_t d = 1; d <= n; ++d)
      if (n % d == 0) ds.push_back(d);
    return ds[static_cast<size_t>(pick(0, static_cast<int64_t>(ds.size()) - 1))];
  }
  int bits() { return std::vector<int>{8, 16, 32}[static_cast<size_t>(pick(0, 2))]; }

 private:
  rng::SplitMix64 gen_;
};

}  // namespace skeleshare::ir::testing
