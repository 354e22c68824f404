#pragma once
// Templates: right-hand sides, instantiated into the e-graph under a substitution.

#include <cstdint>
#include <string>
#include <vector>

#include "skeleshare/egraph/compiled.h"
#include "skeleshare/egraph/egraph.h"
#include "skeleshare/egraph/pattern.h"
#include "skeleshare/egraph/subst.h"

namespace skeleshare::egraph {

class CompiledTemplate {
 public:
  /// Compiles `t`, declaring in `vars` the variables it uses that are not there yet (a
  /// rule's condition must bind those). Throws PatternError for a malformed template.
  CompiledTemplate(const Pattern& t, VarTable& vars);

  const Pattern& pattern() const { return pattern_; }

  /// Adds the template's nodes bottom-up and returns the class of its root. Returns
  /// kNoClass, adding nothing further, when an integer expression is undefined (an inexact
  /// division, a division by zero, an overflow or a non-positive array length): the rule
  /// does not apply. Throws TemplateError, naming the template, for an unbound variable, a
  /// node the type rules reject, or a class whose type contradicts a `typed` constraint.
  ClassId instantiate(EGraph& g, const Subst& s) const;

 private:
  struct TNode {
    bool isVar = false;
    uint32_t slot = 0;  // class variable
    ir::Op op{};
    uint32_t paramsBegin = 0, numParams = 0;
    uint32_t annot = ExprPool::kNone;
    uint32_t kidsBegin = 0, numKids = 0;  // into kids_ (indices of TNodes)
    uint32_t type = ExprPool::kNone;      // `typed` constraint
    std::string text;                     // the sub-template, for messages
  };
  uint32_t compile(const Pattern& p, VarTable& vars);
  [[noreturn]] void fail(const TNode& n, const std::string& why) const;
  std::string unboundIn(const TNode& n, const Subst& s) const;

  Pattern pattern_;
  ExprPool pool_;
  std::vector<TNode> nodes_;  // post-order: children before parents; the root is last
  std::vector<uint32_t> params_;
  std::vector<uint32_t> kids_;
  std::vector<std::string> slotNames_;
};

}  // namespace skeleshare::egraph
