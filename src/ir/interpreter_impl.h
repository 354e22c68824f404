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

/// What a curried function value computes, when the fast paths can tell (interpreter_fast.cpp):
///   Dot:  f(a: M x N)(b: M x N)        = row dots, out[m] = a[m] . b[m]
///   Mv:   f(mat: M x N)(vec: N)        = mat * vec, out[m] = mat[m] . vec
///   Conv: f(in: H x W x C)(wgt: O x KS x KS x C) = the valid convolution,
///         out[y][x][o] = W2[o] . window(y, x)
/// With partial = true the sums are cut into `chunks` chunks of N / chunks consecutive
/// terms (N = the length of the summed vector; KS*KS*C for Conv) and the result has an
/// extra innermost dimension of size `chunks` (ParallelPartialDot). All sums modulo 2^32.
struct FnKind {
  enum class Shape : uint8_t { Dot, Mv, Conv };
  Shape shape = Shape::Dot;
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
  /// FnKind of closed lambda terms (recognition is a term walk; do it once per term).
  std::unordered_map<const Term*, std::optional<FnKind>> kindCache;
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
  /// The FnKind of a function value, or nullopt when it is not recognised.
  std::optional<FnKind> kindOf(const Value& f);

 private:
  Value evalUncached(const Term* t, const Env& env);
  Value evalInput(const Term* t);
};

/// The FnKind of `\a.\b. s(%1, %0, f)` for a skeleton term `s` whose function argument
/// has kind `f`, judged from the static types of s's children; nullopt unless the
/// skeleton provably computes that kind for those shapes (interpreter_fast.cpp).
std::optional<FnKind> wrapKind(const Term* s, const FnKind& f);

}  // namespace skeleshare::ir
