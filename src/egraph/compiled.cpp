#include "skeleshare/egraph/compiled.h"

#include "skeleshare/egraph/errors.h"
#include "skeleshare/ir/type_rules.h"

namespace skeleshare::egraph {

uint32_t ExprPool::addInt(const IntExpr& e, VarTable& vars) {
  Int n{e.kind()};
  switch (e.kind()) {
    case IntExpr::Kind::Lit: n.value = e.value(); break;
    case IntExpr::Kind::Var: n.slot = vars.declare(e.name(), VarKind::Int); break;
    default:
      n.lhs = addInt(e.lhs(), vars);
      n.rhs = addInt(e.rhs(), vars);
      break;
  }
  ints_.push_back(n);
  return static_cast<uint32_t>(ints_.size() - 1);
}

uint32_t ExprPool::addType(const TypePattern& t, VarTable& vars) {
  Ty n{t.kind()};
  switch (t.kind()) {
    case TypePattern::Kind::Any:
    case TypePattern::Kind::Scalar:
      if (!t.var().empty()) n.slot = vars.declare(t.var(), VarKind::Type);
      break;
    case TypePattern::Kind::Int: n.bits = t.bits(); break;
    case TypePattern::Kind::Array: n.length = addInt(t.length(), vars); break;
    default: break;
  }
  std::vector<uint32_t> kids;
  for (const TypePattern& s : t.subs()) kids.push_back(addType(s, vars));
  n.first = static_cast<uint32_t>(subs_.size());
  n.count = static_cast<uint32_t>(kids.size());
  subs_.insert(subs_.end(), kids.begin(), kids.end());
  types_.push_back(n);
  return static_cast<uint32_t>(types_.size() - 1);
}

EvalStatus ExprPool::eval(uint32_t i, const Subst& s, int64_t& out) const {
  const Int& n = ints_[i];
  switch (n.kind) {
    case IntExpr::Kind::Lit: out = n.value; return EvalStatus::Ok;
    case IntExpr::Kind::Var:
      if (!s.bound(n.slot)) return EvalStatus::Unbound;
      out = s.integer(n.slot);
      return EvalStatus::Ok;
    default: break;
  }
  int64_t a = 0, b = 0;
  EvalStatus sa = eval(n.lhs, s, a);
  if (sa != EvalStatus::Ok) return sa;
  EvalStatus sb = eval(n.rhs, s, b);
  if (sb != EvalStatus::Ok) return sb;
  switch (n.kind) {
    case IntExpr::Kind::Add:
      return __builtin_add_overflow(a, b, &out) ? EvalStatus::Undefined : EvalStatus::Ok;
    case IntExpr::Kind::Sub:
      return __builtin_sub_overflow(a, b, &out) ? EvalStatus::Undefined : EvalStatus::Ok;
    case IntExpr::Kind::Mul:
      return __builtin_mul_overflow(a, b, &out) ? EvalStatus::Undefined : EvalStatus::Ok;
    case IntExpr::Kind::Div:
      if (b == 0 || (a == INT64_MIN && b == -1) || a % b != 0) return EvalStatus::Undefined;
      out = a / b;
      return EvalStatus::Ok;
    case IntExpr::Kind::Mod:
      if (b == 0 || (a == INT64_MIN && b == -1)) return EvalStatus::Undefined;
      out = a % b;
      return EvalStatus::Ok;
    default: return EvalStatus::Undefined;
  }
}

EvalStatus ExprPool::build(uint32_t i, const Subst& s, ir::Context& ctx,
                           const ir::Type*& out) const {
  const Ty& n = types_[i];
  switch (n.kind) {
    case TypePattern::Kind::Any:
    case TypePattern::Kind::Scalar:
      if (n.slot == kNone || !s.bound(n.slot)) return EvalStatus::Unbound;
      out = s.type(n.slot);
      return EvalStatus::Ok;
    case TypePattern::Kind::Int: out = ctx.intType(n.bits); return EvalStatus::Ok;
    case TypePattern::Kind::Array: {
      int64_t len = 0;
      EvalStatus st = eval(n.length, s, len);
      if (st != EvalStatus::Ok) return st;
      if (len < 1 || len > ir::kMaxDim) return EvalStatus::Undefined;
      const ir::Type* elem = nullptr;
      st = build(sub(n, 0), s, ctx, elem);
      if (st != EvalStatus::Ok) return st;
      out = ctx.arrayType(len, elem);
      return EvalStatus::Ok;
    }
    case TypePattern::Kind::Fun: {
      const ir::Type *a = nullptr, *b = nullptr;
      EvalStatus st = build(sub(n, 0), s, ctx, a);
      if (st != EvalStatus::Ok) return st;
      st = build(sub(n, 1), s, ctx, b);
      if (st != EvalStatus::Ok) return st;
      out = ctx.funType(a, b);
      return EvalStatus::Ok;
    }
    case TypePattern::Kind::Tuple: {
      std::vector<const ir::Type*> es(n.count);
      for (uint32_t k = 0; k < n.count; ++k) {
        EvalStatus st = build(sub(n, k), s, ctx, es[k]);
        if (st != EvalStatus::Ok) return st;
      }
      out = ctx.tupleType(es);
      return EvalStatus::Ok;
    }
  }
  return EvalStatus::Undefined;
}

void ExprPool::varsOfInt(uint32_t i, std::vector<uint32_t>& out) const {
  const Int& n = ints_[i];
  if (n.kind == IntExpr::Kind::Var) out.push_back(n.slot);
  if (n.lhs != kNone) varsOfInt(n.lhs, out);
  if (n.rhs != kNone) varsOfInt(n.rhs, out);
}

void ExprPool::varsOfType(uint32_t i, std::vector<uint32_t>& out) const {
  const Ty& n = types_[i];
  if (n.slot != kNone) out.push_back(n.slot);
  if (n.length != kNone) varsOfInt(n.length, out);
  for (uint32_t k = 0; k < n.count; ++k) varsOfType(sub(n, k), out);
}

}  // namespace skeleshare::egraph
