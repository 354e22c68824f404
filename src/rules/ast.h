#pragma once
// Syntax tree of a rule file (docs/rules.md). Internal to skeleshare_rules: the parser
// builds it, lower.cpp turns it into egraph::Patterns, rule_set.cpp into rewrites.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "skeleshare/support/source.h"

namespace skeleshare::rules::detail {

struct Expr {
  enum class Kind : uint8_t { Lit, Var, Name, Add, Sub, Mul, Div, Mod };
  Kind kind = Kind::Lit;
  int64_t value = 0;
  std::string name;  // Var: "?x"; Name: a constant, a template parameter or a scalar type
  SourceLoc loc;
  std::shared_ptr<const Expr> lhs, rhs;
};
using ExprP = std::shared_ptr<const Expr>;

struct TypeAst {
  enum class Kind : uint8_t { Tensor, Fun };
  Kind kind = Kind::Tensor;
  // Tensor: base then dimensions (outermost first). The base is an integer type
  // (bits != 0), a type variable (var = "?A") or a template's type parameter (name).
  int bits = 0;
  std::string var, name;
  std::vector<ExprP> dims;
  // Fun: param -> result.
  std::shared_ptr<const TypeAst> param, result;
  SourceLoc loc;
};
using TypeP = std::shared_ptr<const TypeAst>;

struct TermAst {
  enum class Kind : uint8_t {
    ClassVar,  // ?x [: type]
    Name,      // a lambda's binder
    Lam,       // \name : type . body
    Op,        // Op[params](children) [: type]  or  Template[args]
  };
  Kind kind = Kind::ClassVar;
  std::string name;       // ClassVar, Name, Lam (binder), Op (operator or template)
  TypeP type;             // ClassVar / Op: type constraint; Lam: binder type
  bool hasBrackets = false, hasParens = false;
  std::vector<ExprP> params;  // the bracketed list: parameters or template arguments
  std::vector<TermAst> kids;  // children; Lam: {body}
  SourceLoc loc;
};

struct Cond {
  enum class Rel : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
  ExprP lhs, rhs;
  Rel rel = Rel::Eq;
  SourceLoc loc;
  /// `a < b or c == d`: further comparisons, any of which may hold instead.
  std::vector<Cond> alternatives;
};

/// One source of candidate values of a `for` variable.
struct DomainPart {
  enum class Kind : uint8_t { Dims, Axis, Range };
  Kind kind = Kind::Dims;
  // Axis: axis `axis` of the type of child `arg` (-1: the node's own type) of every node
  // with operator `op`.
  std::string op;
  int64_t arg = 0, axis = 0;
  // Range: lo .. hi, both included.
  ExprP lo, hi;
  SourceLoc loc;
};

struct Clause {
  enum class Kind : uint8_t { Where, For };
  Kind kind = Kind::Where;
  std::vector<Cond> conds;         // Where
  std::string var;                 // For
  std::vector<DomainPart> domain;  // For: the union of the parts
  SourceLoc loc;
};

struct RuleAst {
  std::string name;
  std::vector<std::string> groups;
  TermAst lhs, rhs;
  std::vector<Clause> clauses;
  SourceLoc loc;
  size_t file = 0;  // index of its source file
};

struct TemplateParam {
  std::string name;
  bool isType = false;
  SourceLoc loc;
};

struct TemplateAst {
  std::string name;
  std::vector<TemplateParam> params;
  TermAst body;
  SourceLoc loc;
  size_t file = 0;
};

struct ConstAst {
  std::string name;
  int64_t value = 0;
  SourceLoc loc;
  size_t file = 0;
};

struct FileAst {
  std::vector<ConstAst> consts;
  std::vector<TemplateAst> templates;
  std::vector<RuleAst> rules;
};

}  // namespace skeleshare::rules::detail
