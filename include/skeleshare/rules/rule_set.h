#pragma once
// The rewrite rules of skeleshare, loaded from rule files (docs/rules.md).
//
//   DiagnosticEngine diags;
//   std::optional<rules::RuleSet> rs = rules::loadRuleDir("rules", diags);
//   if (!rs) { diags.print(std::cerr); return 1; }   // file:line:col: error: ...
//   egraph::Runner().run(g, rs->rewrites());
//
// Every rule compiles to an egraph::PatternRewrite (left-hand side, right-hand side,
// `where` conditions and `for` parameter domains). Templates (cMvF, cConvF, ...) are
// defined in the rule files and expanded where they are used, so that a template
// instance is the very term ir/builders.h builds (same hash-consed e-nodes).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "skeleshare/egraph/pattern.h"
#include "skeleshare/egraph/rewrite.h"
#include "skeleshare/ir/op.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::rules {

namespace detail {
struct LoadedFiles;
class Loader;
}

/// One loaded rule.
struct Rule {
  std::string name;
  std::vector<std::string> groups;
  std::string file;
  SourceLoc loc;
  /// Operator at the root of each side (the rule matches nodes with lhsOp and adds a
  /// node with rhsOp to the matched class).
  ir::Op lhsOp{};
  /// Unset when the right-hand side is a ?variable.
  std::optional<ir::Op> rhsOp;
  /// The variables the `for` clauses draw (in order).
  std::vector<std::string> forVars;
  std::unique_ptr<egraph::PatternRewrite> rewrite;
};

/// An argument of a template instantiation: an integer or a scalar type.
using TemplateArg = std::variant<int64_t, const ir::Type*>;

class RuleSet {
 public:
  RuleSet();
  ~RuleSet();
  RuleSet(RuleSet&&) noexcept;
  RuleSet& operator=(RuleSet&&) noexcept;

  /// The rules, in load order (files sorted by name, then source order).
  const std::vector<Rule>& rules() const { return rules_; }
  const Rule* find(std::string_view name) const;
  /// The rewrites, in load order, for egraph::Runner.
  std::vector<const egraph::Rewrite*> rewrites() const;
  /// The group names used by any rule, sorted.
  std::vector<std::string> groups() const;

  /// Named integer constants (e.g. CACHELN).
  const std::map<std::string, int64_t>& constants() const { return constants_; }
  /// Names of the templates, sorted.
  std::vector<std::string> templateNames() const;
  /// The closed template `name[args...]` as a (concrete) egraph::Pattern, to instantiate
  /// with egraph::CompiledTemplate. nullopt with `error` set for an unknown template or
  /// wrong arguments.
  std::optional<egraph::Pattern> instantiateTemplate(std::string_view name,
                                                     std::span<const TemplateArg> args,
                                                     std::string& error) const;

 private:
  friend class detail::Loader;
  std::vector<Rule> rules_;
  std::map<std::string, int64_t> constants_;
  std::unique_ptr<detail::LoadedFiles> files_;
};

/// Loads every `*.rules` file of `dir` (sorted by name). Reports `file:line:col: error:`
/// diagnostics and returns nullopt when any file is malformed (or the directory has none).
std::optional<RuleSet> loadRuleDir(const std::string& dir, DiagnosticEngine& diags);
/// Loads the given files, in order.
std::optional<RuleSet> loadRuleFiles(std::span<const std::string> paths, DiagnosticEngine& diags);
/// Loads rule texts held in memory (for tests), in order.
std::optional<RuleSet> loadRuleTexts(std::span<const SourceFile> files, DiagnosticEngine& diags);

}  // namespace skeleshare::rules
