#pragma once
// The typing rule of every operator, as a pure function of the operator, its static
// parameters, its annotation and the types of its children. Terms (ir::Context::make)
// and e-nodes (the e-graph's type analysis) are typed by the same function.

#include <span>
#include <string>
#include <variant>

#include "skeleshare/ir/op.h"
#include "skeleshare/ir/type.h"

namespace skeleshare::ir {

class Context;

/// Either the result type or a message saying which rule failed and why.
struct TypeResult {
  const Type* type = nullptr;
  std::string error;
  bool ok() const { return type != nullptr; }
  static TypeResult success(const Type* t) { return {t, {}}; }
  static TypeResult failure(std::string msg) { return {nullptr, std::move(msg)}; }
};

TypeResult inferType(Context& ctx, Op op, std::span<const int64_t> params, const Type* annot,
                     std::span<const Type* const> children);

/// Largest array length and largest element count a type may have. Larger shapes are
/// rejected by the type rules, so that no later stage overflows computing with them.
inline constexpr int64_t kMaxDim = int64_t{1} << 24;
inline constexpr int64_t kMaxElements = int64_t{1} << 36;

}  // namespace skeleshare::ir
