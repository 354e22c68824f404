#include "lower.h"

#include <fmt/format.h>

#include <algorithm>

#include "skeleshare/ir/op.h"

namespace skeleshare::rules::detail {

using egraph::IntExpr;
using egraph::Pattern;
using egraph::TypePattern;
using egraph::VarKind;

namespace {
const char* kindName(VarKind k) {
  switch (k) {
    case VarKind::Class: return "a term (class) variable";
    case VarKind::Int: return "an integer variable";
    case VarKind::Type: return "a type variable";
  }
  return "?";
}
}  // namespace

void Lowerer::noteVar(const std::string& name, VarKind kind, SourceLoc loc) {
  if (!allowVars_) fail(loc, fmt::format("'{}': a template uses its parameters, not ?variables", name));
  auto [it, fresh] = vars_.emplace(name, VarInfo{kind, loc});
  if (!fresh && it->second.kind != kind)
    fail(loc, fmt::format("'{}' is used as {} here but as {} at line {}", name, kindName(kind),
                          kindName(it->second.kind), it->second.loc.line));
}

IntExpr Lowerer::expr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Lit: return IntExpr(e.value);
    case Expr::Kind::Var:
      noteVar(e.name, VarKind::Int, e.loc);
      return egraph::iv(e.name);
    case Expr::Kind::Name: {
      if (auto it = ints_.find(e.name); it != ints_.end()) return it->second;
      if (auto it = reg_.consts.find(e.name); it != reg_.consts.end()) return IntExpr(it->second->value);
      if (scalars_.count(e.name)) fail(e.loc, fmt::format("'{}' is a type parameter, not an integer", e.name));
      fail(e.loc, fmt::format("unknown name '{}' in an integer expression (not a constant or an integer "
                              "template parameter)", e.name));
    }
    case Expr::Kind::Add: return expr(*e.lhs) + expr(*e.rhs);
    case Expr::Kind::Sub: return expr(*e.lhs) - expr(*e.rhs);
    case Expr::Kind::Mul: return expr(*e.lhs) * expr(*e.rhs);
    case Expr::Kind::Div: return expr(*e.lhs) / expr(*e.rhs);
    case Expr::Kind::Mod: return expr(*e.lhs) % expr(*e.rhs);
  }
  fail(e.loc, "bad expression");
}

TypePattern Lowerer::type(const TypeAst& t) {
  if (t.kind == TypeAst::Kind::Fun) return TypePattern::fun(type(*t.param), type(*t.result));
  std::vector<IntExpr> dims;
  for (const ExprP& d : t.dims) dims.push_back(expr(*d));
  TypePattern base = TypePattern::any();
  if (t.bits) {
    base = TypePattern::intType(t.bits);
  } else if (!t.var.empty()) {
    noteVar(t.var, VarKind::Type, t.loc);
    if (dims.empty()) return TypePattern::any(t.var);
    base = TypePattern::scalar(t.var);
  } else {
    auto it = scalars_.find(t.name);
    if (it == scalars_.end()) {
      if (ints_.count(t.name)) fail(t.loc, fmt::format("'{}' is an integer parameter, not a type", t.name));
      fail(t.loc, fmt::format("unknown type '{}' (expected i8, i16, i32, a ?variable or a type parameter)", t.name));
    }
    base = it->second;
  }
  return dims.empty() ? base : TypePattern::tensor(base, std::move(dims));
}

TypePattern Lowerer::scalarArg(const Expr& e) {
  if (e.kind == Expr::Kind::Var) {
    noteVar(e.name, VarKind::Type, e.loc);
    return TypePattern::scalar(e.name);
  }
  if (e.kind == Expr::Kind::Name) {
    if (e.name == "i8") return TypePattern::intType(8);
    if (e.name == "i16") return TypePattern::intType(16);
    if (e.name == "i32") return TypePattern::intType(32);
    if (auto it = scalars_.find(e.name); it != scalars_.end()) return it->second;
  }
  fail(e.loc, "expected a scalar type argument (i8, i16, i32, a ?variable or a type parameter)");
}

Pattern Lowerer::expand(const TermAst& call, const TemplateAst& tpl) {
  if (call.hasParens)
    fail(call.loc, fmt::format("template '{}' takes its arguments in brackets only: {}[...]", tpl.name, tpl.name));
  if (call.params.size() != tpl.params.size())
    fail(call.loc, fmt::format("template '{}' expects {} argument(s), got {}", tpl.name, tpl.params.size(),
                               call.params.size()));
  if (std::find(expanding_.begin(), expanding_.end(), tpl.name) != expanding_.end())
    fail(call.loc, fmt::format("template '{}' refers to itself", tpl.name));
  std::map<std::string, IntExpr> ints;
  std::map<std::string, TypePattern> scalars;
  for (size_t i = 0; i < tpl.params.size(); ++i) {
    const TemplateParam& p = tpl.params[i];
    if (p.isType) scalars.insert_or_assign(p.name, scalarArg(*call.params[i]));
    else ints.insert_or_assign(p.name, expr(*call.params[i]));
  }
  std::swap(ints, ints_);
  std::swap(scalars, scalars_);
  auto binders = std::move(binders_);
  binders_.clear();
  size_t file = file_;
  bool allow = allowVars_;
  file_ = tpl.file;
  allowVars_ = false;
  expanding_.push_back(tpl.name);
  auto restore = [&] {
    std::swap(ints, ints_);
    std::swap(scalars, scalars_);
    binders_ = std::move(binders);
    file_ = file;
    allowVars_ = allow;
    expanding_.pop_back();
  };
  try {
    Pattern p = term(tpl.body);
    restore();
    return p;
  } catch (...) {
    restore();
    throw;
  }
}

Pattern Lowerer::term(const TermAst& t) {
  switch (t.kind) {
    case TermAst::Kind::ClassVar:
      noteVar(t.name, VarKind::Class, t.loc);
      return t.type ? Pattern::cls(t.name, type(*t.type)) : Pattern::cls(t.name);
    case TermAst::Kind::Name:
      for (size_t i = binders_.size(); i-- > 0;)
        if (binders_[i].first == t.name)
          return Pattern::var(static_cast<int64_t>(binders_.size() - 1 - i), binders_[i].second);
      if (reg_.templates.count(t.name))
        fail(t.loc, fmt::format("template '{}' needs its arguments: {}[...]", t.name, t.name));
      fail(t.loc, fmt::format("unbound name '{}' (not a lambda binder in scope; ?variables start with '?')", t.name));
    case TermAst::Kind::Lam: {
      TypePattern tp = type(*t.type);
      binders_.emplace_back(t.name, tp);
      Pattern body = term(t.kids[0]);
      binders_.pop_back();
      return Pattern::lam(tp, body);
    }
    case TermAst::Kind::Op: {
      if (auto it = reg_.templates.find(t.name); it != reg_.templates.end()) {
        Pattern p = expand(t, *it->second);
        return t.type ? p.typed(type(*t.type)) : p;
      }
      auto op = ir::opByName(t.name);
      if (!op) fail(t.loc, fmt::format("unknown operator or template '{}'", t.name));
      if (*op == ir::Op::Var || *op == ir::Op::Lam || *op == ir::Op::Input || *op == ir::Op::Const ||
          *op == ir::Op::App)
        fail(t.loc, fmt::format("'{}' cannot be written as an operator in a rule (use a lambda \\x : T. body "
                                "and its binder's name)", t.name));
      const ir::OpInfo& info = ir::opInfo(*op);
      if (static_cast<int>(t.params.size()) != info.numParams)
        fail(t.loc, fmt::format("{} expects {} parameter(s), got {}", t.name, info.numParams, t.params.size()));
      if (!t.hasParens || (info.arity >= 0 && static_cast<int>(t.kids.size()) != info.arity))
        fail(t.loc, fmt::format("{} expects {} argument(s), got {}", t.name, info.arity, t.kids.size()));
      std::vector<IntExpr> params;
      for (const ExprP& e : t.params) params.push_back(expr(*e));
      std::vector<Pattern> kids;
      for (const TermAst& k : t.kids) kids.push_back(term(k));
      Pattern p = Pattern::node(*op, std::move(kids), std::move(params));
      return t.type ? p.typed(type(*t.type)) : p;
    }
  }
  fail(t.loc, "bad term");
}

}  // namespace skeleshare::rules::detail
