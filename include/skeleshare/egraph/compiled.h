#pragma once
// Integer expressions and type patterns compiled to flat arrays with resolved variable
// slots: shared by the matcher (which binds and checks them) and templates (which evaluate
// and build them). An implementation detail of matcher.h and template.h.

#include <cstdint>
#include <vector>

#include "skeleshare/egraph/pattern.h"
#include "skeleshare/egraph/subst.h"
#include "skeleshare/ir/context.h"

namespace skeleshare::egraph {

enum class EvalStatus : uint8_t { Ok, Unbound, Undefined };

class ExprPool {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Int {
    IntExpr::Kind kind;
    uint32_t slot = kNone;  // Var
    int64_t value = 0;      // Lit
    uint32_t lhs = kNone, rhs = kNone;
  };
  struct Ty {
    TypePattern::Kind kind;
    uint32_t slot = kNone;  // Any, Scalar: the variable, if named
    int bits = 0;           // Int
    uint32_t length = kNone;  // Array: an Int
    uint32_t first = 0, count = 0;  // sub-patterns: subs_[first, first + count)
  };

  /// Compiles `e`, declaring its variables in `vars`.
  uint32_t addInt(const IntExpr& e, VarTable& vars);
  uint32_t addType(const TypePattern& t, VarTable& vars);

  const Int& intAt(uint32_t i) const { return ints_[i]; }
  const Ty& typeAt(uint32_t i) const { return types_[i]; }
  uint32_t sub(const Ty& t, uint32_t k) const { return subs_[t.first + k]; }

  /// Evaluates an integer expression. Unbound: a variable has no value; Undefined: division
  /// by zero, inexact division, modulo by zero or overflow.
  EvalStatus eval(uint32_t i, const Subst& s, int64_t& out) const;
  /// Builds the type a type pattern denotes under `s`. Unbound also covers an anonymous
  /// `any`/`scalar`, which cannot be instantiated; Undefined an expression that is, or a
  /// length out of the range ir::Context accepts.
  EvalStatus build(uint32_t i, const Subst& s, ir::Context& ctx, const ir::Type*& out) const;
  /// Appends the slots of every variable in an integer expression.
  void varsOfInt(uint32_t i, std::vector<uint32_t>& out) const;
  void varsOfType(uint32_t i, std::vector<uint32_t>& out) const;

 private:
  std::vector<Int> ints_;
  std::vector<Ty> types_;
  std::vector<uint32_t> subs_;
};

}  // namespace skeleshare::egraph
