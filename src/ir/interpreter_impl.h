#pragma once
// Private to the interpreter (src/ir/interpreter*.cpp): the evaluator state and the
// per-concern evaluation functions.
//   interpreter_value.cpp        Value, Env, type checks
//   interpreter.cpp              dispatch, binders, leaves, apply, Map/ZipWith/Reduce
//   interpreter_core.cpp         core and partial skeletons (generic path)
//   interpreter_transform.cpp    tiled, padded and transposed skeletons
//   interpreter_elementwise.cpp  operators without DSPs
//   interpreter_fast.cpp         recognition of canonical functions, direct kernels

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "skeleshare/ir/interpreter.h"

namespace skeleshare::ir {

[[noreturn]] void evalError(const Term* t, const std::string& msg);

/// A zero tensor of the integer tensor type `type`; throws if `type` is not one (e.g. an
/// array of functions, which has no runtime representation).
Tensor zeroTensor(const Term* where, const Type* type);
/// The shape of an integer tensor type without allocating a Tensor.
std::vector<int64_t> shapeOf(const Type* type);
/// Throws (an interpreter bug, not a user error) unless `v` has type `type`.
void checkValue(const Term* where, const Value& v, const Type* type);

/// sum over n in [lo, hi) of a[n] * b[n], modulo 2^32. Unsigned arithmetic is exactly
/// docs/ir.md's i32 wrap-around (each product exact, then everything reduced mod 2^32),
/// and it is free of signed-overflow undefined behaviour.
inline uint32_t dotRange(const int32_t* a, const int32_t* b, size_t lo, size_t hi) {
  uint32_t s = 0;
  for (size_t n = lo; n < hi; ++n) s += static_cast<uint32_t>(a[n]) * static_cast<uint32_t>(b[n]);
  return s;
}

/// W2: wgt[O][KS][KS][C] read as the matrix O x (KS*KS*C).
Tensor weightMatrix(const Tensor& wgt);
/// window(y, x)[(ky*KS + kx)*C + c] = in[y+ky][x+kx][c]; writes KS*KS*C values to `dst`.
void convWindow(const Tensor& in, int64_t ks, int64_t y, int64_t x, int32_t* dst);

/// acc += x, elementwise, modulo 2^32 (acc and x are i32 tensors of the same shape).
void addWrapped32(Tensor& acc, const Tensor& x);

/// The dot product computed by a canonical dot lambda: ParallelDot (chunks = 1, result
/// M) or ParallelPartialDot[P, C] (chunks = C, result M x C).
struct DotKind {
  bool partial = false;
  int64_t chunks = 1;
};

/// Deepest nesting of evaluations (term depth plus applications in progress). The public
/// entry points run on a thread with kEvalStackBytes of stack, enough for this depth even
/// in sanitizer builds; deeper terms get an error instead of a stack overflow.
inline constexpr int kMaxEvalDepth = 20000;
inline constexpr size_t kEvalStackBytes = size_t{256} << 20;

struct Interpreter::Impl {
  Impl(const Context& c, const std::map<std::string, Tensor>& in, EvalOptions o)
      : ctx(c), inputs(in), options(o) {}

  const Context& ctx;
  const std::map<std::string, Tensor>& inputs;
  EvalOptions options;
  EvalStats stats;
  std::unordered_map<const Term*, Value> closedCache;
  int depth = 0;

  Value eval(const Term* t, const Env& env);
  Value apply(const Value& f, const Value& arg);
  Value apply2(const Value& f, const Value& a, const Value& b) { return apply(apply(f, a), b); }

  // Each takes the term and its evaluated children.
  Value evalCore(const Term* t, const std::vector<Value>& k);
  Value evalTransform(const Term* t, const std::vector<Value>& k);
  Value evalElementwise(const Term* t, const std::vector<Value>& k);
  Value evalStructural(const Term* t, const std::vector<Value>& k);

  /// The direct kernel for `t`, when fast paths are on and its function argument is
  /// canonical; nullopt means "use the generic path".
  std::optional<Value> tryFast(const Term* t, const std::vector<Value>& k);

 private:
  Value evalUncached(const Term* t, const Env& env);
  Value evalInput(const Term* t);
};

/// Canonical-function recognition (interpreter_fast.cpp).
std::optional<DotKind> dotKindOf(const Value& f);  // \a.\b. ParallelDot / ParallelPartialDot
std::optional<DotKind> mvKindOf(const Value& f);   // \m.\v. Mv(%1, %0, dot lambda)

}  // namespace skeleshare::ir
