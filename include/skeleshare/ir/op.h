#pragma once
// Operator codes of the skeleton IR and their static description.

#include <cstdint>
#include <optional>
#include <string_view>

namespace skeleshare::ir {

enum class Op : uint8_t {
#define SKS_OP(Enum, Name, NP, Arity, Cat, PNames) Enum,
#include "skeleshare/ir/ops.def"
};

enum class OpCategory : uint8_t {
  Binder,         // Var, Lam, App
  Leaf,           // Input, Const
  Structural,     // Tuple, Map, ZipWith, Reduce
  Core,           // ParallelDot, Mv, Mm, Conv, Conv1D_*
  DataTransform,  // Tiled*, Padded*, TransposedConv1D_W
  Partial,        // MergePartialSum, ParallelPartialDot, ParallelConv
  Elementwise,    // Relu, Requant, Add, ... (no DSPs)
  Reshape,        // Pad, Flatten, Transpose
};

struct OpInfo {
  std::string_view name;        // text form, e.g. "Conv1D_W"
  int numParams;                // static integer parameters, e.g. P of ParallelDot
  int arity;                    // children; -1 = variadic
  OpCategory category;
  std::string_view paramNames;  // for documentation and error messages
};

const OpInfo& opInfo(Op op);
inline std::string_view opName(Op op) { return opInfo(op).name; }
/// Looks an operator up by its text name.
std::optional<Op> opByName(std::string_view name);
/// Number of operators.
int opCount();

/// True for the skeletons of the paper (core, data-transformed, partial).
inline bool isSkeleton(Op op) {
  auto c = opInfo(op).category;
  return c == OpCategory::Core || c == OpCategory::DataTransform || c == OpCategory::Partial;
}

}  // namespace skeleshare::ir
