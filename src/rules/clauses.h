#pragma once
// The `where` and `for` clauses of a rule compiled against its rewrite's variables: a
// filter (rules without `for`) or an expander that enumerates the parameter domains in
// clause order, checking each `where` as soon as its variables are bound. Internal to
// skeleshare_rules.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ast.h"
#include "lower.h"
#include "skeleshare/egraph/egraph.h"
#include "skeleshare/egraph/subst.h"
#include "skeleshare/ir/op.h"

namespace skeleshare::rules::detail {

/// Values of axis(op, arg, axis) and dims over one e-graph state, computed once per
/// state (the state is identified by the e-graph, its id count and its union count).
class DomainCache {
 public:
  const std::vector<int64_t>& axis(const egraph::EGraph& g, ir::Op op, int64_t arg, int64_t axis);

 private:
  void sync(const egraph::EGraph& g);
  const egraph::EGraph* g_ = nullptr;
  size_t ids_ = 0, unions_ = 0;
  std::vector<std::pair<std::string, std::vector<int64_t>>> cache_;
};

class ClauseProgram {
 public:
  /// Compiles `clauses`. `lhsVars` are the variables of the left-hand side (kinds);
  /// `vars` the rewrite's slots. Throws LowerError for an unbound or mistyped variable,
  /// an unknown operator in a domain, or a `for` variable that the left-hand side binds.
  ClauseProgram(const std::vector<Clause>& clauses, const std::map<std::string, VarInfo>& lhsVars,
                const egraph::VarTable& vars, Lowerer& lower, std::shared_ptr<DomainCache> cache);

  bool hasFor() const { return numLocals_ > 0; }
  const std::vector<std::string>& forVars() const { return forNames_; }
  /// All conditions hold (a rule without `for`).
  bool check(const egraph::EGraph& g, const egraph::Subst& s) const;
  /// One substitution per combination of `for` values that satisfies every condition.
  void expand(const egraph::EGraph& g, const egraph::Subst& s, std::vector<egraph::Subst>& out) const;

 private:
  struct Node {
    Expr::Kind kind;
    int64_t value = 0;
    int32_t slot = -1;   // a Subst slot
    int32_t local = -1;  // a `for` variable
    uint32_t lhs = 0, rhs = 0;
  };
  struct CCond {
    uint32_t lhs, rhs;
    Cond::Rel rel;
    std::vector<CCond> alternatives;  // any may hold instead
  };
  CCond compileCond(const Cond& k, const std::map<std::string, VarInfo>& lhsVars, const egraph::VarTable& vars,
                    const std::map<std::string, int32_t>& locals, Lowerer& lower);
  struct CPart {
    DomainPart::Kind kind;
    ir::Op op{};
    int64_t arg = 0, axis = 0;
    uint32_t lo = 0, hi = 0;
  };
  struct Step {
    bool isFor = false;
    std::vector<CCond> conds;
    int32_t local = -1, slot = -1;  // For: where the value goes
    std::vector<CPart> parts;
  };
  uint32_t compile(const Expr& e, const std::map<std::string, VarInfo>& lhsVars,
                   const egraph::VarTable& vars, const std::map<std::string, int32_t>& locals, Lowerer& lower);
  bool eval(uint32_t i, const egraph::Subst& s, const std::vector<int64_t>& locals, int64_t& out) const;
  bool holds(const CCond& c, const egraph::Subst& s, const std::vector<int64_t>& locals) const;
  void run(size_t step, const egraph::EGraph& g, egraph::Subst& s, std::vector<int64_t>& locals,
           std::vector<egraph::Subst>& out) const;

  std::vector<Node> nodes_;
  std::vector<Step> steps_;
  std::vector<std::string> forNames_;
  size_t numLocals_ = 0;
  std::shared_ptr<DomainCache> cache_;
};

}  // namespace skeleshare::rules::detail
