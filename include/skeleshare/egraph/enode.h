#pragma once
// An e-node: an IR operator applied to e-classes instead of terms.
//
// (op, params, annot, children) mirrors ir::Term: Var carries its De Bruijn index as its
// parameter and its type as annot, Lam carries its parameter type as annot, Input its
// symbol id and type, Const its value and type. The annotation is part of the identity of
// the node, so `%0 : i8[64][576]` and `%0 : i8[64][256]` are different nodes (types are
// hash-consed by ir::Context, so comparing annotations is a pointer compare).
//
// Parameters and children share one small buffer: 32 bytes inline (e.g. one parameter and
// three children), on the heap beyond that.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>

#include "skeleshare/egraph/ids.h"
#include "skeleshare/ir/op.h"
#include "skeleshare/ir/type.h"

namespace skeleshare::egraph {

class ENode {
 public:
  ENode() = default;
  ENode(ir::Op op, std::span<const int64_t> params, const ir::Type* annot,
        std::span<const ClassId> children);
  ENode(ir::Op op, std::initializer_list<ClassId> children,
        std::initializer_list<int64_t> params = {}, const ir::Type* annot = nullptr)
      : ENode(op, std::span<const int64_t>(params.begin(), params.size()), annot,
              std::span<const ClassId>(children.begin(), children.size())) {}
  ENode(const ENode& o) { copyFrom(o); }
  ENode(ENode&& o) noexcept { moveFrom(o); }
  ENode& operator=(const ENode& o) {
    if (this != &o) {
      release();
      copyFrom(o);
    }
    return *this;
  }
  ENode& operator=(ENode&& o) noexcept {
    if (this != &o) {
      release();
      moveFrom(o);
    }
    return *this;
  }
  ~ENode() { release(); }

  ir::Op op() const { return op_; }
  const ir::Type* annot() const { return annot_; }
  std::span<const int64_t> params() const {
    return {reinterpret_cast<const int64_t*>(data()), np_};
  }
  int64_t param(size_t i) const { return params()[i]; }
  std::span<const ClassId> children() const {
    return {reinterpret_cast<const ClassId*>(data() + np_), nc_};
  }
  std::span<ClassId> children() { return {reinterpret_cast<ClassId*>(data() + np_), nc_}; }
  ClassId child(size_t i) const { return children()[i]; }
  size_t numChildren() const { return nc_; }

  /// Hash over op, params, annotation (by its type id, so hashes do not depend on
  /// addresses) and children.
  uint64_t hash() const;
  bool operator==(const ENode& o) const;
  /// A total order independent of addresses: op, params, annotation type id, children.
  bool operator<(const ENode& o) const;

  /// Text form for messages and DOT labels: `ParallelDot[64](e3, e5)`, `Var[0] : i8[4]`.
  std::string str() const;

 private:
  static constexpr size_t kInlineWords = 4;
  size_t words() const { return np_ + (nc_ + 1) / 2; }
  bool isInline() const { return words() <= kInlineWords; }
  const uint64_t* data() const { return isInline() ? inline_ : heap_; }
  uint64_t* data() { return isInline() ? inline_ : heap_; }
  void init(size_t np, size_t nc);
  void copyFrom(const ENode& o);
  void moveFrom(ENode& o) noexcept;
  void release() {
    if (!isInline()) delete[] heap_;
    np_ = 0;
    nc_ = 0;
  }

  ir::Op op_{};
  uint8_t np_ = 0;
  uint32_t nc_ = 0;
  const ir::Type* annot_ = nullptr;
  union {
    uint64_t inline_[kInlineWords];
    uint64_t* heap_;
  };
};

}  // namespace skeleshare::egraph
