#pragma once
// Lowering of the rule language's syntax tree to egraph patterns: resolves names
// (binders to De Bruijn indices, template parameters, constants), expands templates and
// records the kind of every ?variable. Internal to skeleshare_rules.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ast.h"
#include "skeleshare/egraph/pattern.h"
#include "skeleshare/egraph/subst.h"

namespace skeleshare::rules::detail {

/// Everything a file may refer to: constants and templates of all loaded files.
struct Registry {
  std::map<std::string, const ConstAst*> consts;
  std::map<std::string, const TemplateAst*> templates;
};

/// A lowering error at a position of a file.
struct LowerError {
  size_t file = 0;
  SourceLoc loc;
  std::string message;
};

struct VarInfo {
  egraph::VarKind kind;
  SourceLoc loc;
};

class Lowerer {
 public:
  Lowerer(const Registry& reg, size_t file) : reg_(reg), file_(file) {}

  egraph::Pattern term(const TermAst& t);
  egraph::TypePattern type(const TypeAst& t);
  egraph::IntExpr expr(const Expr& e);

  /// Binds template parameters for lowering a template body directly (tests, checks).
  void bindInt(const std::string& name, egraph::IntExpr v) { ints_.insert_or_assign(name, std::move(v)); }
  void bindScalar(const std::string& name, egraph::TypePattern t) { scalars_.insert_or_assign(name, std::move(t)); }
  void allowVars(bool allow) { allowVars_ = allow; }

  /// The ?variables met so far, with their kind and first position.
  const std::map<std::string, VarInfo>& vars() const { return vars_; }

  [[noreturn]] void fail(SourceLoc loc, std::string msg) const { throw LowerError{file_, loc, std::move(msg)}; }

 private:
  void noteVar(const std::string& name, egraph::VarKind kind, SourceLoc loc);
  egraph::Pattern expand(const TermAst& call, const TemplateAst& tpl);
  egraph::TypePattern scalarArg(const Expr& e);

  const Registry& reg_;
  size_t file_;
  bool allowVars_ = true;
  std::map<std::string, egraph::IntExpr> ints_;
  std::map<std::string, egraph::TypePattern> scalars_;
  std::vector<std::pair<std::string, egraph::TypePattern>> binders_;
  std::map<std::string, VarInfo> vars_;
  std::vector<std::string> expanding_;
};

}  // namespace skeleshare::rules::detail
