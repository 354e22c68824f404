#pragma once
// Rewrites: what the runner drives. A Rewrite searches a frozen e-graph for matches, then
// applies them one by one. PatternRewrite is the usual lhs => rhs rule with an optional
// condition and an optional expansion of one match into several substitutions.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "skeleshare/egraph/egraph.h"
#include "skeleshare/egraph/matcher.h"
#include "skeleshare/egraph/template.h"

namespace skeleshare::egraph {

class Rewrite {
 public:
  explicit Rewrite(std::string name, std::vector<std::string> groups = {})
      : name_(std::move(name)), groups_(std::move(groups)) {}
  virtual ~Rewrite() = default;

  const std::string& name() const { return name_; }
  const std::vector<std::string>& groups() const { return groups_; }
  bool inGroup(std::string_view group) const;

  /// Search phase: appends the matches in `g`, which is clean and not modified until every
  /// rule has searched. Must be deterministic.
  virtual void search(const EGraph& g, std::vector<Match>& out) const = 0;
  /// Apply phase: applies one match found by search (its classes may have been merged
  /// since; use find). Returns true when the e-graph changed (a node added or two classes
  /// merged). Errors are EGraphErrors; the runner prefixes the rule's name.
  virtual bool apply(EGraph& g, const Match& m) const = 0;

 private:
  std::string name_;
  std::vector<std::string> groups_;
};

class PatternRewrite : public Rewrite {
 public:
  /// A filter over a match's substitution, run in the search phase.
  using Condition = std::function<bool(const EGraph&, const Subst&)>;
  /// Replaces a match's substitution by those it appends to `out` (zero or more), e.g.
  /// one per candidate tile size drawn from g.dimensions(), binding variables that only
  /// the right-hand side uses. Run in the search phase, after the conditions.
  using Expander = std::function<void(const EGraph& g, const Subst& s, std::vector<Subst>& out)>;

  /// Compiles both sides: the left-hand side's variables come first in vars(), then those
  /// only the right-hand side uses (which a condition or expander must bind).
  PatternRewrite(std::string name, const Pattern& lhs, const Pattern& rhs,
                 std::vector<std::string> groups = {});

  /// Adds a condition (all must hold).
  PatternRewrite& when(Condition c);
  /// Adds an expander (each expands every substitution the previous one produced).
  PatternRewrite& expand(Expander e);

  const VarTable& vars() const { return vars_; }
  const CompiledPattern& lhs() const { return lhs_; }
  const CompiledTemplate& rhs() const { return rhs_; }

  void search(const EGraph& g, std::vector<Match>& out) const override;
  /// Instantiates the right-hand side and merges it with the matched class.
  bool apply(EGraph& g, const Match& m) const override;

 private:
  static VarTable extend(const CompiledPattern& lhs, const Pattern& rhs);
  CompiledPattern lhs_;
  VarTable vars_;
  CompiledTemplate rhs_;
  std::vector<Condition> conditions_;
  std::vector<Expander> expanders_;
};

}  // namespace skeleshare::egraph
