#pragma once
// The DSL's built-in operators: one table shared by sema, translation, summary and the
// evaluator, so that an operator's name, arity and static parameters live in one place.

#include <cstdint>
#include <optional>
#include <string_view>

namespace skeleshare::frontend {

enum class Builtin : uint8_t {
  // DSP operators (dot products); they are the "layers" of a summary.
  Conv, Mv, Mm, Conv1DW, Conv1DH,
  // Data movement and element-wise arithmetic.
  Pad, MaxPool, Relu, LeakyRelu, Requant, RequantEven, Bias, Add, Sub, Mul, Max, Min, Shr, Cast,
  Flatten, Transpose,
  // Higher-order operators taking a lambda as their last argument.
  Map, Zip, Reduce,
};

/// Static parameters that sema stores in Expr::statics, by operator:
///   Pad: top, bottom, left, right, fill    MaxPool: size, stride
///   LeakyRelu, Requant, RequantEven, Shr: shift         Cast: bits
///   everything else: none
struct BuiltinInfo {
  std::string_view name;       // as written in the DSL
  int minArgs, maxArgs;        // positional arguments
  int valueArgs;               // the leading arguments that are values (the rest are
                               // static literals, a type, or the lambda)
  bool dsp;                    // a dot-product operator (counts MACs)
  bool elementwiseBinary;      // add, sub, mul, max, min: literal operands broadcast
  std::string_view signature;  // for arity messages
};

const BuiltinInfo& builtinInfo(Builtin b);
std::optional<Builtin> builtinByName(std::string_view name);

}  // namespace skeleshare::frontend
