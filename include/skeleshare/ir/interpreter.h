#pragma once
// The reference interpreter of the skeleton IR: the oracle that every later stage
// (rewrite-rule soundness, extraction, lowering, hardware simulation) is checked against.
//
// It implements docs/ir.md literally. Every skeleton has one generic implementation that
// follows the documented equation (build the window, build repeat_M(vec), apply the
// function argument through the one generic apply path). On top of that, "fast paths"
// recognise function arguments that compute a dot product, a matrix-vector product or a
// convolution: the canonical dot lambdas (\a.\b. ParallelDot[P](%1, %0),
// \a.\b. ParallelPartialDot[P, C](%1, %0), MergePartialSum around the latter), and the
// lambdas that wrap a recognised function in a skeleton (\m.\v. Mv(%1, %0, dot), Conv,
// ParallelConv, and the tiled and padded variants when their tiles cover the operands
// exactly). They compute the same numbers with direct loops: each recognised form is
// equal to the generic path by construction (same sums modulo 2^32, which is order
// independent; see src/ir/interpreter_fast.cpp) and tests compare both
// (EvalOptions::fastPaths = false disables them).
//
// Values: an integer tensor (rank 0 for a scalar), a closure (a Lam term plus the values
// of its free variables) or a tuple. Arrays whose elements are not integers (e.g. a Map
// producing functions) are well typed but have no runtime representation here: the
// interpreter rejects them with a clear std::runtime_error.

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "skeleshare/ir/context.h"
#include "skeleshare/support/tensor.h"

namespace skeleshare::ir {

class Value;
struct EnvNode;
/// An environment: a persistent list of values, %0 first.
using Env = std::shared_ptr<const EnvNode>;

/// A function value: a Lam term and the values of the variables free in it.
struct Closure {
  const Term* lam = nullptr;
  Env env;
};

/// A runtime value. Copies are cheap (the payload is shared and immutable).
class Value {
 public:
  enum class Kind : uint8_t { Tensor, Closure, Tuple };

  Value(Tensor t);  // NOLINT(google-explicit-constructor): tensors are values
  static Value closure(const Term* lam, Env env);
  static Value tuple(std::vector<Value> elems);

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool isTensor() const { return kind() == Kind::Tensor; }
  bool isClosure() const { return kind() == Kind::Closure; }
  bool isTuple() const { return kind() == Kind::Tuple; }

  /// The payload; throws std::runtime_error naming the actual kind on a mismatch.
  const Tensor& tensor() const;
  const Closure& closure() const;
  const std::vector<Value>& elems() const;

  /// "i8[2][3]", "<closure i8[4] -> ...>", "(i32[2], i8)".
  std::string describe() const;

 private:
  Value() = default;
  std::variant<std::shared_ptr<const Tensor>, std::shared_ptr<const Closure>,
               std::shared_ptr<const std::vector<Value>>>
      v_;
};

struct EnvNode {
  Value value;
  Env next;
};

/// Pushes `v` as the new %0.
Env extend(const Env& env, Value v);
/// The value of %index; throws std::runtime_error if the environment is too short.
const Value& lookup(const Env& env, int64_t index);

struct EvalOptions {
  /// Use the direct kernels for canonical functions. Off: everything goes through the
  /// generic apply path (slow, but the literal reading of docs/ir.md).
  bool fastPaths = true;
};

/// Counters, so that tests can tell which path was taken.
struct EvalStats {
  uint64_t applications = 0;  // closure applications (generic path)
  uint64_t fastPaths = 0;     // skeleton evaluations done by a direct kernel
};

/// Evaluates terms against named input tensors. The values of closed terms are memoised
/// for the interpreter's lifetime (terms are hash-consed, so shared sub-terms are
/// evaluated once). `ctx` and `inputs` must outlive the interpreter.
class Interpreter {
 public:
  Interpreter(const Context& ctx, const std::map<std::string, Tensor>& inputs,
              EvalOptions options = {});
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  /// The value of a closed term; throws std::runtime_error (missing input, input of the
  /// wrong type, unsupported value) with a message.
  Value evaluate(const Term* term);
  /// The value of a term whose free variables are bound by `env`.
  Value evaluate(const Term* term, const Env& env);
  /// Applies a closure to one argument (the generic apply path), or to two (curried).
  Value apply(const Value& fn, const Value& arg);
  Value apply(const Value& fn, const Value& a, const Value& b);

  const EvalStats& stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// One-shot evaluation of a closed term.
Value evaluate(const Term* term, const std::map<std::string, Tensor>& inputs, const Context& ctx,
               EvalOptions options = {});

/// Evaluates every output of a module: one tensor per output name. Checks first that
/// every declaration has an input of its declared type and that no undeclared input is
/// given; throws std::runtime_error otherwise, or if an output is not a tensor.
std::map<std::string, Tensor> evaluateModule(const Module& module, Context& ctx,
                                             const std::map<std::string, Tensor>& inputs,
                                             EvalOptions options = {});

/// Throws std::runtime_error unless `t` has the element width and shape of the integer
/// tensor type `type` and every value fits that width. `what` names the tensor.
void checkTensorType(const Tensor& t, const Type* type, const std::string& what);

/// Deterministic inputs for every declaration of a module (support/random.h): each
/// declaration's tensor depends only on (seed, name, type, kind), not on the order.
std::map<std::string, Tensor> randomInputs(const Module& module, uint64_t seed);

}  // namespace skeleshare::ir
