#include "clauses.h"

#include <fmt/format.h>

#include <algorithm>

namespace skeleshare::rules::detail {

using egraph::EGraph;
using egraph::Subst;
using egraph::VarKind;

// ---- DomainCache ----------------------------------------------------------------

void DomainCache::sync(const EGraph& g) {
  if (g_ == &g && ids_ == g.idCount() && unions_ == g.unionCount()) return;
  g_ = &g;
  ids_ = g.idCount();
  unions_ = g.unionCount();
  cache_.clear();
}

const std::vector<int64_t>& DomainCache::axis(const EGraph& g, ir::Op op, int64_t arg, int64_t ax) {
  sync(g);
  std::string key = fmt::format("{}/{}/{}", static_cast<int>(op), arg, ax);
  for (auto& [k, v] : cache_)
    if (k == key) return v;
  std::vector<int64_t> vals;
  for (egraph::ClassId c : g.classesWithOp(op)) {
    for (egraph::NodeId n : g.eclass(c).nodes) {
      const egraph::ENode& node = g.node(n);
      if (node.op() != op) continue;
      if (arg >= static_cast<int64_t>(node.numChildren())) continue;
      const ir::Type* t = arg < 0 ? g.typeOf(c) : g.typeOf(node.child(static_cast<size_t>(arg)));
      auto shape = t->shape();
      if (ax < static_cast<int64_t>(shape.size())) vals.push_back(shape[static_cast<size_t>(ax)]);
    }
  }
  std::sort(vals.begin(), vals.end());
  vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
  cache_.emplace_back(std::move(key), std::move(vals));
  return cache_.back().second;
}

// ---- ClauseProgram ----------------------------------------------------------------

uint32_t ClauseProgram::compile(const Expr& e, const std::map<std::string, VarInfo>& lhsVars,
                                const egraph::VarTable& vars, const std::map<std::string, int32_t>& locals,
                                Lowerer& lower) {
  Node n{e.kind};
  switch (e.kind) {
    case Expr::Kind::Lit: n.value = e.value; break;
    case Expr::Kind::Var: {
      if (auto it = locals.find(e.name); it != locals.end()) {
        n.local = it->second;
        break;
      }
      auto it = lhsVars.find(e.name);
      if (it == lhsVars.end())
        lower.fail(e.loc, fmt::format("unbound variable '{}' (bind it in the left-hand side or in an earlier "
                                      "'for' clause)", e.name));
      if (it->second.kind != VarKind::Int)
        lower.fail(e.loc, fmt::format("'{}' is not an integer variable", e.name));
      n.slot = static_cast<int32_t>(vars.intSlot(e.name));
      break;
    }
    case Expr::Kind::Name: {
      egraph::IntExpr v = lower.expr(e);  // a constant (reports unknown names)
      n.kind = Expr::Kind::Lit;
      n.value = v.value();
      break;
    }
    default:
      n.lhs = compile(*e.lhs, lhsVars, vars, locals, lower);
      n.rhs = compile(*e.rhs, lhsVars, vars, locals, lower);
      break;
  }
  nodes_.push_back(n);
  return static_cast<uint32_t>(nodes_.size() - 1);
}

ClauseProgram::CCond ClauseProgram::compileCond(const Cond& k, const std::map<std::string, VarInfo>& lhsVars,
                                                const egraph::VarTable& vars,
                                                const std::map<std::string, int32_t>& locals, Lowerer& lower) {
  CCond c{compile(*k.lhs, lhsVars, vars, locals, lower), compile(*k.rhs, lhsVars, vars, locals, lower), k.rel, {}};
  for (const Cond& alt : k.alternatives) c.alternatives.push_back(compileCond(alt, lhsVars, vars, locals, lower));
  return c;
}

ClauseProgram::ClauseProgram(const std::vector<Clause>& clauses, const std::map<std::string, VarInfo>& lhsVars,
                             const egraph::VarTable& vars, Lowerer& lower, std::shared_ptr<DomainCache> cache)
    : cache_(std::move(cache)) {
  std::map<std::string, int32_t> locals;
  Step cur;
  for (const Clause& c : clauses) {
    if (c.kind == Clause::Kind::Where) {
      for (const Cond& k : c.conds) cur.conds.push_back(compileCond(k, lhsVars, vars, locals, lower));
      continue;
    }
    if (lhsVars.count(c.var))
      lower.fail(c.loc, fmt::format("'{}' is bound by the left-hand side; a 'for' variable must be new", c.var));
    if (locals.count(c.var)) lower.fail(c.loc, fmt::format("'{}' is drawn by two 'for' clauses", c.var));
    steps_.push_back(std::move(cur));
    cur = Step{};
    Step& f = steps_.emplace_back();
    f.isFor = true;
    for (const DomainPart& d : c.domain) {
      CPart p{d.kind};
      if (d.kind == DomainPart::Kind::Axis) {
        auto op = ir::opByName(d.op);
        if (!op) lower.fail(d.loc, fmt::format("unknown operator '{}' in axis(...)", d.op));
        int arity = ir::opInfo(*op).arity;
        if (d.arg >= 0 && arity >= 0 && d.arg >= arity)
          lower.fail(d.loc, fmt::format("{} has {} argument(s); axis(...) names argument {}", d.op, arity, d.arg));
        p.op = *op;
        p.arg = d.arg;
        p.axis = d.axis;
      } else if (d.kind == DomainPart::Kind::Range) {
        p.lo = compile(*d.lo, lhsVars, vars, locals, lower);
        p.hi = compile(*d.hi, lhsVars, vars, locals, lower);
      }
      f.parts.push_back(p);
    }
    f.local = static_cast<int32_t>(numLocals_++);
    auto slot = vars.find(c.var);
    if (slot) {
      if (vars.kind(*slot) != VarKind::Int)
        lower.fail(c.loc, fmt::format("'{}' is used as a non-integer on the right-hand side", c.var));
      f.slot = static_cast<int32_t>(*slot);
    }
    locals.emplace(c.var, f.local);
    forNames_.push_back(c.var);
  }
  steps_.push_back(std::move(cur));
}

bool ClauseProgram::eval(uint32_t i, const Subst& s, const std::vector<int64_t>& locals, int64_t& out) const {
  const Node& n = nodes_[i];
  switch (n.kind) {
    case Expr::Kind::Lit: out = n.value; return true;
    case Expr::Kind::Var:
      if (n.local >= 0) out = locals[static_cast<size_t>(n.local)];
      else out = s.integer(static_cast<uint32_t>(n.slot));
      return true;
    default: break;
  }
  int64_t a, b;
  if (!eval(n.lhs, s, locals, a) || !eval(n.rhs, s, locals, b)) return false;
  switch (n.kind) {
    case Expr::Kind::Add: return !__builtin_add_overflow(a, b, &out);
    case Expr::Kind::Sub: return !__builtin_sub_overflow(a, b, &out);
    case Expr::Kind::Mul: return !__builtin_mul_overflow(a, b, &out);
    case Expr::Kind::Div:
      if (b == 0 || (a == INT64_MIN && b == -1)) return false;
      out = a / b;
      return true;
    case Expr::Kind::Mod:
      if (b == 0 || (a == INT64_MIN && b == -1)) return false;
      out = a % b;
      return true;
    default: return false;
  }
}

bool ClauseProgram::holds(const CCond& c, const Subst& s, const std::vector<int64_t>& locals) const {
  for (const CCond& alt : c.alternatives)
    if (holds(alt, s, locals)) return true;
  int64_t a, b;
  if (!eval(c.lhs, s, locals, a) || !eval(c.rhs, s, locals, b)) return false;  // undefined: false
  switch (c.rel) {
    case Cond::Rel::Eq: return a == b;
    case Cond::Rel::Ne: return a != b;
    case Cond::Rel::Lt: return a < b;
    case Cond::Rel::Le: return a <= b;
    case Cond::Rel::Gt: return a > b;
    case Cond::Rel::Ge: return a >= b;
  }
  return false;
}

bool ClauseProgram::check(const EGraph&, const Subst& s) const {
  std::vector<int64_t> locals;
  for (const Step& st : steps_)
    for (const CCond& c : st.conds)
      if (!holds(c, s, locals)) return false;
  return true;
}

void ClauseProgram::run(size_t step, const EGraph& g, Subst& s, std::vector<int64_t>& locals,
                        std::vector<Subst>& out) const {
  if (step == steps_.size()) {
    out.push_back(s);
    return;
  }
  const Step& st = steps_[step];
  if (!st.isFor) {
    for (const CCond& c : st.conds)
      if (!holds(c, s, locals)) return;
    run(step + 1, g, s, locals, out);
    return;
  }
  // The union of the parts, ascending, without repetitions.
  std::vector<int64_t> vals;
  for (const CPart& p : st.parts) {
    if (p.kind == DomainPart::Kind::Dims) {
      vals.insert(vals.end(), g.dimensions().begin(), g.dimensions().end());
    } else if (p.kind == DomainPart::Kind::Axis) {
      const auto& v = cache_->axis(g, p.op, p.arg, p.axis);
      vals.insert(vals.end(), v.begin(), v.end());
    } else {
      int64_t lo, hi;
      if (!eval(p.lo, s, locals, lo) || !eval(p.hi, s, locals, hi)) continue;
      if (hi - lo > 4096) hi = lo + 4096;  // a guard against runaway ranges
      for (int64_t v = lo; v <= hi; ++v) vals.push_back(v);
    }
  }
  std::sort(vals.begin(), vals.end());
  vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
  for (int64_t v : vals) {
    locals[static_cast<size_t>(st.local)] = v;
    if (st.slot >= 0) s.setInt(static_cast<uint32_t>(st.slot), v);
    run(step + 1, g, s, locals, out);
  }
  if (st.slot >= 0) s.unbind(static_cast<uint32_t>(st.slot));
}

void ClauseProgram::expand(const EGraph& g, const Subst& s, std::vector<Subst>& out) const {
  Subst cur = s;
  std::vector<int64_t> locals(numLocals_, 0);
  run(0, g, cur, locals, out);
}

}  // namespace skeleshare::rules::detail
