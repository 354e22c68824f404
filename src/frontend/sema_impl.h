#pragma once
// The checker's state, shared by sema.cpp (statements, names, lambdas, limits) and
// sema_ops.cpp (the shape rule of every operator). Private to the frontend.

#include <fmt/format.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "skeleshare/frontend/ast.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::frontend::detail {

/// The type of a checked expression; nullopt when an error was reported for it (or for
/// a sub-expression), so that callers stay silent instead of cascading.
using OptType = std::optional<ValueType>;

class Sema {
 public:
  Sema(Program& p, const SourceFile& f, DiagnosticEngine& d) : prog_(p), file_(f), diags_(d) {}

  bool run();

 private:
  // ---- diagnostics -----------------------------------------------------------------
  OptType error(SourceLoc loc, std::string msg) {
    diags_.error(file_, loc, std::move(msg));
    ++errors_;
    return std::nullopt;
  }

  // ---- statements --------------------------------------------------------------------
  void declare(size_t index);
  void checkDeclType(Stmt& s);
  bool checkShapeLimits(const ValueType& t, SourceLoc loc, std::string_view what);

  // ---- expressions -------------------------------------------------------------------
  OptType check(Expr& e);
  OptType checkName(Expr& e);
  OptType checkCall(Expr& e);
  OptType checkDsp(Expr& e, Builtin b, const std::vector<ValueType>& v);
  OptType checkElementwise(Expr& e, Builtin b);
  OptType checkHigherOrder(Expr& e, Builtin b);
  OptType checkLambda(Expr& lam, const std::string& op, const std::vector<ValueType>& paramTypes);
  std::optional<int64_t> staticInt(Expr& arg, const std::string& op, const char* what, int64_t lo, int64_t hi);
  OptType result(Expr& e, ValueType t);
  OptType needRank(const Expr& e, const ValueType& t, size_t rank, bool atLeast, const char* what,
                   const char* layout);

  static std::string label(const Expr& call);
  int termDepth(const Expr& e) const;

  Program& prog_;
  const SourceFile& file_;
  DiagnosticEngine& diags_;
  size_t errors_ = 0;
  std::unordered_map<std::string, size_t> globals_;
  std::vector<std::pair<std::string, ValueType>> scope_;  // lambda parameters, innermost last
  std::vector<std::vector<size_t>> refs_;                 // statements each statement uses
  size_t current_ = 0;
};

}  // namespace skeleshare::frontend::detail
