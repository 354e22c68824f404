// Sema: every DSL rule that the skeleton IR's type rules would otherwise reject is
// checked here first, with a message in the user's terms (names, shapes, locations).
// This file: statements, names, lambdas and limits; operators are in sema_ops.cpp.

#include "skeleshare/frontend/sema.h"

#include <fmt/format.h>

#include <algorithm>

#include "sema_impl.h"
#include "skeleshare/ir/type_rules.h"

namespace skeleshare::frontend {

namespace detail {

std::string Sema::label(const Expr& call) {
  if (!call.infix) return call.name;
  if (call.name == "add") return "'+'";
  if (call.name == "sub") return "'-'";
  if (call.name == "mul") return "'*'";
  return "'>>'";
}

bool Sema::run() {
  refs_.assign(prog_.stmts.size(), {});
  for (size_t i = 0; i < prog_.stmts.size(); ++i) {
    current_ = i;
    Stmt& s = prog_.stmts[i];
    if (!s.broken) {
      if (s.kind == StmtKind::Input || s.kind == StmtKind::Weight) {
        checkDeclType(s);
      } else if (OptType t = check(*s.value)) {
        s.type = *t;
        s.depth = termDepth(*s.value);
        if (s.depth > kMaxTermDepth) {
          error(s.nameLoc, fmt::format("'{}' nests operators {} deep through the lets it uses (limit {})", s.name,
                                       s.depth, kMaxTermDepth));
          s.broken = true;
        }
      } else {
        s.broken = true;  // reported; uses of the name stay silent
      }
    }
    declare(i);
  }

  if (prog_.outputs().empty())
    error(file_.locate(file_.text().size()), "program has no output (add a statement 'output name = expr;')");

  // Liveness: outputs, and whatever they use. Names are defined before use, so one
  // backward sweep suffices.
  for (size_t i = prog_.stmts.size(); i-- > 0;) {
    Stmt& s = prog_.stmts[i];
    if (s.kind == StmtKind::Output) s.live = true;
    if (s.live)
      for (size_t r : refs_[i]) prog_.stmts[r].live = true;
  }
  if (errors_ == 0)
    for (const Stmt& s : prog_.stmts)
      if (s.kind == StmtKind::Let && !s.used)
        diags_.warning(file_, s.nameLoc, fmt::format("'{}' is defined but never used", s.name));
  return errors_ == 0;
}

void Sema::declare(size_t index) {
  Stmt& s = prog_.stmts[index];
  if (builtinByName(s.name)) {
    error(s.nameLoc, fmt::format("'{}' is the name of a built-in operator", s.name));
    s.broken = true;
  }
  auto [it, fresh] = globals_.emplace(s.name, index);
  if (!fresh) {
    const Stmt& prev = prog_.stmts[it->second];
    error(s.nameLoc, fmt::format("redefinition of '{}'", s.name));
    diags_.note(file_, prev.nameLoc, fmt::format("'{}' was first defined here", s.name));
  }
}

bool Sema::checkShapeLimits(const ValueType& t, SourceLoc loc, std::string_view what) {
  if (static_cast<int>(t.rank()) > kMaxRank) {
    error(loc, fmt::format("{}: rank {} exceeds the limit of {} dimensions", what, t.rank(), kMaxRank));
    return false;
  }
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 1 || d > ir::kMaxDim) {
      error(loc, fmt::format("{}: dimension {} of {} is out of range [1, {}]", what, d, t.str(), ir::kMaxDim));
      return false;
    }
    if (n > ir::kMaxElements / d) {
      error(loc, fmt::format("{}: {} has too many elements (limit {})", what, t.str(), ir::kMaxElements));
      return false;
    }
    n *= d;
  }
  return true;
}

void Sema::checkDeclType(Stmt& s) {
  bool ok = true;
  for (size_t i = 0; i < s.declType.shape.size(); ++i) {
    int64_t d = s.declType.shape[i];
    if (d < 1 || d > ir::kMaxDim) {
      error(s.dimLocs[i], fmt::format("dimension {} is out of range [1, {}]", d, ir::kMaxDim));
      ok = false;
    }
  }
  if (ok) ok = checkShapeLimits(s.declType, s.nameLoc, fmt::format("{} '{}'", stmtKindName(s.kind), s.name));
  if (ok) s.type = s.declType;
  else s.broken = true;
}

// Expressions are at most kMaxNesting deep, so this recursion is bounded; a name adds
// the depth of the statement it refers to (lets are inlined by the translation).
int Sema::termDepth(const Expr& e) const {
  int d = 0;
  if (e.kind == ExprKind::Name && e.stmt >= 0) return prog_.stmts[static_cast<size_t>(e.stmt)].depth;
  for (const ExprPtr& a : e.args) d = std::max(d, termDepth(*a));
  for (const NamedArg& a : e.namedArgs) d = std::max(d, termDepth(*a.value));
  if (e.body) d = std::max(d, termDepth(*e.body));
  return d + 1;
}

OptType Sema::result(Expr& e, ValueType t) {
  if (!checkShapeLimits(t, e.loc, fmt::format("{}: result", label(e)))) return std::nullopt;
  e.type = t;
  return t;
}

OptType Sema::needRank(const Expr& e, const ValueType& t, size_t rank, bool atLeast, const char* what,
                       const char* layout) {
  if (atLeast ? t.rank() >= rank : t.rank() == rank) return t;
  std::string want = atLeast ? fmt::format("an array of rank >= {}", rank) : fmt::format("a rank-{} array", rank);
  return error(e.loc, fmt::format("{}: {} must be {}{}, got {}", label(e), what, want, layout, t.str()));
}

OptType Sema::check(Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit:
      // A literal on its own is an i32; element-wise operators retype literal operands
      // to the other operand's type (checkElementwise).
      e.type = ValueType{32, {}};
      return e.type;
    case ExprKind::TypeName:
      return error(e.loc, fmt::format("'{}' is a type, not a value (types appear in declarations and as cast's second argument)", e.name));
    case ExprKind::Lambda:
      return error(e.loc, "a lambda may only appear as the last argument of map, zip or reduce");
    case ExprKind::Name: return checkName(e);
    case ExprKind::Call: return checkCall(e);
  }
  return std::nullopt;
}

OptType Sema::checkName(Expr& e) {
  for (size_t i = scope_.size(); i-- > 0;) {
    if (scope_[i].first == e.name) {
      e.varIndex = static_cast<int>(scope_.size() - 1 - i);
      e.type = scope_[i].second;
      return e.type;
    }
  }
  auto it = globals_.find(e.name);
  if (it == globals_.end()) {
    if (builtinByName(e.name))
      return error(e.loc, fmt::format("'{}' is an operator; call it as {}(...)", e.name, e.name));
    return error(e.loc, fmt::format("undefined name '{}'", e.name));
  }
  Stmt& s = prog_.stmts[it->second];
  s.used = true;
  refs_[current_].push_back(it->second);
  if (s.broken) return std::nullopt;  // already reported
  e.stmt = static_cast<int>(it->second);
  e.type = s.type;
  return e.type;
}

std::optional<int64_t> Sema::staticInt(Expr& arg, const std::string& op, const char* what, int64_t lo,
                                       int64_t hi) {
  if (arg.kind != ExprKind::IntLit) {
    error(arg.loc, fmt::format("{}: {} must be an integer literal", op, what));
    return std::nullopt;
  }
  if (arg.intValue < lo || arg.intValue > hi) {
    error(arg.loc, fmt::format("{}: {} {} is out of range [{}, {}]", op, what, arg.intValue, lo, hi));
    return std::nullopt;
  }
  arg.type = ValueType{32, {}};
  return arg.intValue;
}

OptType Sema::checkLambda(Expr& lam, const std::string& op, const std::vector<ValueType>& paramTypes) {
  if (lam.params.size() != paramTypes.size())
    return error(lam.loc, fmt::format("{}: the lambda must take {} parameter{}, got {}", op, paramTypes.size(),
                                      paramTypes.size() == 1 ? "" : "s", lam.params.size()));
  for (size_t i = 0; i < lam.params.size(); ++i) {
    if (builtinByName(lam.params[i]))
      return error(lam.paramLocs[i], fmt::format("'{}' is the name of a built-in operator", lam.params[i]));
    for (size_t j = 0; j < i; ++j)
      if (lam.params[j] == lam.params[i])
        return error(lam.paramLocs[i], fmt::format("duplicate parameter '{}'", lam.params[i]));
  }
  lam.paramTypes = paramTypes;
  for (size_t i = 0; i < paramTypes.size(); ++i) scope_.emplace_back(lam.params[i], paramTypes[i]);
  OptType body = check(*lam.body);
  scope_.resize(scope_.size() - paramTypes.size());
  return body;
}

}  // namespace detail

bool check(Program& prog, const SourceFile& file, DiagnosticEngine& diags) {
  return detail::Sema(prog, file, diags).run();
}

}  // namespace skeleshare::frontend
