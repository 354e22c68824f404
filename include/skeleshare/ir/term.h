#pragma once
// Terms of the skeleton IR: e ::= %i | \T. e | Sk[params](e1..en) | e1 e2.
//
// Terms are immutable and hash-consed by ir::Context: structurally equal terms are the
// same object, so equality is a pointer compare and hashing is O(1). Variables are De
// Bruijn indices (%0 is the innermost binder), so alpha-equivalent lambdas are equal.
// Every term is well typed by construction: Context::make checks the type rule.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "skeleshare/ir/op.h"
#include "skeleshare/ir/type.h"

namespace skeleshare::ir {

class Term {
 public:
  Op op() const { return op_; }
  const Type* type() const { return type_; }
  /// Var, Input, Const: the node's own type; Lam: the parameter type; else null.
  const Type* annot() const { return annot_; }
  std::span<const int64_t> params() const { return params_; }
  int64_t param(size_t i) const { return params_[i]; }
  std::span<const Term* const> children() const { return children_; }
  const Term* child(size_t i) const { return children_[i]; }
  size_t numChildren() const { return children_.size(); }

  /// Var: the De Bruijn index.
  int64_t varIndex() const { return params_[0]; }
  /// Lam: the body.
  const Term* body() const { return children_[0]; }

  /// One more than the largest free De Bruijn index; 0 for a closed term.
  uint32_t freeBound() const { return freeBound_; }
  bool closed() const { return freeBound_ == 0; }
  /// Number of nodes in the term tree (shared sub-terms counted each time), saturating.
  uint64_t treeSize() const { return treeSize_; }

  size_t hash() const { return hash_; }
  uint32_t id() const { return id_; }

 private:
  friend class Context;
  Op op_{};
  const Type* type_ = nullptr;
  const Type* annot_ = nullptr;
  std::vector<int64_t> params_;
  std::vector<const Term*> children_;
  uint32_t freeBound_ = 0;
  uint64_t treeSize_ = 1;
  size_t hash_ = 0;
  uint32_t id_ = 0;
};

}  // namespace skeleshare::ir
