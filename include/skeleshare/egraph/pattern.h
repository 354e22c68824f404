#pragma once
// The pattern language: one syntax tree for left-hand sides (patterns, matched against the
// e-graph) and right-hand sides (templates, instantiated into it).
//
//   IntExpr     ::= literal | ?n | IntExpr (+ - * / %) IntExpr
//   TypePattern ::= any(?T) | scalar(?A) | i8 | i16 | i32 | array(IntExpr, TypePattern)
//                 | tensor(scalar, [IntExpr...])  (sugar: scalar[d0][d1]...)
//                 | fun(TypePattern, TypePattern) | tuple(TypePattern...)
//   Pattern     ::= cls(?x) | cls(?x, TypePattern)
//                 | node(op, [children], [IntExpr params], annot TypePattern?)
//                 | var(IntExpr index, TypePattern) | lam(TypePattern, body)
//                 | input(IntExpr symbol, TypePattern) | constant(IntExpr, TypePattern)
//                 | pattern.typed(TypePattern)       (a constraint on the class's type)
//
// Variables are named (by convention "?name"); class, integer and type variables share one
// name space. As a pattern, a repeated variable must match the same class / integer / type
// (non-linear patterns). A compound integer expression in a pattern is a check: it is
// evaluated once its variables are bound (each must also occur plainly somewhere in the
// pattern) and must equal the matched value. As a template, every variable must be bound
// (by the match or by the rule's condition) and every expression is evaluated; `/` must
// divide exactly, otherwise the application fails softly (nothing is added).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "skeleshare/ir/op.h"
#include "skeleshare/ir/type.h"

namespace skeleshare::egraph {

class IntExpr {
 public:
  enum class Kind : uint8_t { Lit, Var, Add, Sub, Mul, Div, Mod };

  IntExpr(int64_t value) : kind_(Kind::Lit), value_(value) {}  // NOLINT: implicit literal
  IntExpr(int value) : kind_(Kind::Lit), value_(value) {}      // NOLINT: implicit literal
  static IntExpr var(std::string name);

  Kind kind() const { return kind_; }
  bool isLit() const { return kind_ == Kind::Lit; }
  bool isVar() const { return kind_ == Kind::Var; }
  int64_t value() const { return value_; }
  const std::string& name() const { return name_; }
  const IntExpr& lhs() const { return args_->first; }
  const IntExpr& rhs() const { return args_->second; }
  std::string str() const;

  friend IntExpr operator+(IntExpr a, IntExpr b) { return bin(Kind::Add, std::move(a), std::move(b)); }
  friend IntExpr operator-(IntExpr a, IntExpr b) { return bin(Kind::Sub, std::move(a), std::move(b)); }
  friend IntExpr operator*(IntExpr a, IntExpr b) { return bin(Kind::Mul, std::move(a), std::move(b)); }
  friend IntExpr operator/(IntExpr a, IntExpr b) { return bin(Kind::Div, std::move(a), std::move(b)); }
  friend IntExpr operator%(IntExpr a, IntExpr b) { return bin(Kind::Mod, std::move(a), std::move(b)); }

 private:
  IntExpr() = default;
  static IntExpr bin(Kind k, IntExpr a, IntExpr b);
  Kind kind_ = Kind::Lit;
  int64_t value_ = 0;
  std::string name_;
  std::shared_ptr<const std::pair<IntExpr, IntExpr>> args_;
};

/// Shorthand for IntExpr::var.
inline IntExpr iv(std::string name) { return IntExpr::var(std::move(name)); }

class TypePattern {
 public:
  enum class Kind : uint8_t { Any, Scalar, Int, Array, Fun, Tuple };

  /// Any type; binds (or, when repeated, compares) the type variable `var` if named.
  static TypePattern any(std::string var = {});
  /// Any integer scalar type (i8, i16, i32); binds `var` if named.
  static TypePattern scalar(std::string var = {});
  /// A specific integer type.
  static TypePattern intType(int bits);
  static TypePattern array(IntExpr length, TypePattern elem);
  /// scalar[dims[0]][dims[1]]...: the outermost dimension first, like ir::Type::str().
  static TypePattern tensor(TypePattern scalar, std::vector<IntExpr> dims);
  static TypePattern fun(TypePattern param, TypePattern result);
  /// a -> b -> r (curried).
  static TypePattern fun2(TypePattern a, TypePattern b, TypePattern result);
  static TypePattern tuple(std::vector<TypePattern> elems);
  /// The pattern matching exactly `t`.
  static TypePattern of(const ir::Type* t);

  Kind kind() const { return kind_; }
  const std::string& var() const { return var_; }
  int bits() const { return bits_; }
  /// Array: the length.
  const IntExpr& length() const { return *length_; }
  /// Array: {elem}; Fun: {param, result}; Tuple: the elements.
  const std::vector<TypePattern>& subs() const { return subs_; }
  std::string str() const;

 private:
  TypePattern() = default;
  Kind kind_ = Kind::Any;
  std::string var_;
  int bits_ = 0;
  std::optional<IntExpr> length_;
  std::vector<TypePattern> subs_;
};

class Pattern {
 public:
  enum class Kind : uint8_t { ClassVar, Node };

  /// A class variable `?x`, optionally constrained by the type of the class.
  static Pattern cls(std::string var);
  static Pattern cls(std::string var, TypePattern type);
  /// An operator node. `annot` is the annotation (Var, Lam, Input, Const); in a pattern,
  /// leaving it out matches any annotation.
  static Pattern node(ir::Op op, std::vector<Pattern> children = {},
                      std::vector<IntExpr> params = {},
                      std::optional<TypePattern> annot = std::nullopt);
  /// Var[index] : type (a De Bruijn index).
  static Pattern var(IntExpr index, TypePattern type);
  /// \paramType. body
  static Pattern lam(TypePattern paramType, Pattern body);
  /// \a. \b. body
  static Pattern lam2(TypePattern a, TypePattern b, Pattern body);
  static Pattern input(IntExpr symbol, TypePattern type);
  static Pattern constant(IntExpr value, TypePattern type);

  /// This pattern with a constraint on the type of the class it matches (or, as a template,
  /// a check of the instantiated class's type).
  Pattern typed(TypePattern type) const;

  Kind kind() const { return kind_; }
  bool isVar() const { return kind_ == Kind::ClassVar; }
  /// ClassVar: its name.
  const std::string& name() const { return var_; }
  ir::Op op() const { return op_; }
  const std::vector<IntExpr>& params() const { return params_; }
  const std::optional<TypePattern>& annot() const { return annot_; }
  const std::vector<Pattern>& children() const { return children_; }
  const std::optional<TypePattern>& type() const { return type_; }
  /// `Mv(?m, ?v, \i8[?M][?N]. \i8[?N]. ParallelDot[?M](%1 : ..., %0 : ...))`-like text.
  std::string str() const;

 private:
  Pattern() = default;
  Kind kind_ = Kind::ClassVar;
  std::string var_;
  ir::Op op_{};
  std::vector<IntExpr> params_;
  std::optional<TypePattern> annot_;
  std::vector<Pattern> children_;
  std::optional<TypePattern> type_;
};

}  // namespace skeleshare::egraph
