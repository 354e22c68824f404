#pragma once
// Types of the skeleton IR: signed integers, arrays with static lengths, curried
// functions and tuples. Types are hash-consed by ir::Context, so two types are equal
// exactly when their pointers are equal.

#include <cstdint>
#include <string>
#include <vector>

namespace skeleshare::ir {

enum class TypeKind : uint8_t { Int, Array, Fun, Tuple };

class Type {
 public:
  TypeKind kind() const { return kind_; }
  /// Dense, unique id (stable within one Context): a cheap hash key.
  uint32_t id() const { return id_; }

  bool isInt() const { return kind_ == TypeKind::Int; }
  bool isArray() const { return kind_ == TypeKind::Array; }
  bool isFun() const { return kind_ == TypeKind::Fun; }
  bool isTuple() const { return kind_ == TypeKind::Tuple; }

  /// Int: the width in bits (8, 16 or 32).
  int bits() const { return bits_; }
  /// Array: the outermost length and the element type.
  int64_t length() const { return length_; }
  const Type* elem() const { return a_; }
  /// Fun: parameter and result.
  const Type* param() const { return a_; }
  const Type* result() const { return b_; }
  /// Tuple: the element types.
  const std::vector<const Type*>& elems() const { return elems_; }

  /// The lengths of the nested arrays, outermost first (empty for a non-array).
  std::vector<int64_t> shape() const;
  /// Number of nested array levels.
  int rank() const;
  /// The innermost non-array type.
  const Type* scalar() const;
  /// True when this is an Int or an array whose innermost type is Int.
  bool isIntTensor() const;

  /// Text form: i8, i8[64][576], (i8[4] -> i32), (i8, i32).
  std::string str() const;

 private:
  friend class Context;
  TypeKind kind_ = TypeKind::Int;
  uint32_t id_ = 0;
  int bits_ = 0;
  int64_t length_ = 0;
  const Type* a_ = nullptr;
  const Type* b_ = nullptr;
  std::vector<const Type*> elems_;
};

}  // namespace skeleshare::ir
