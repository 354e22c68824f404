#pragma once
// The equality-saturation loop. One iteration: every enabled rule searches the same clean
// snapshot; then all matches are applied in rule order, match order; then one rebuild.
// Limits on iterations, e-nodes and time; the node and time limits are also checked during
// the apply phase, so one huge iteration cannot run far past them.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "skeleshare/egraph/egraph.h"
#include "skeleshare/egraph/rewrite.h"

namespace skeleshare::egraph {

struct RunnerLimits {
  size_t maxIterations = 30;
  /// Stop once the e-graph holds this many distinct e-nodes.
  size_t maxNodes = 100000;
  double maxSeconds = 10.0;
};

enum class StopReason { Saturated, IterationLimit, NodeLimit, TimeLimit };
std::string_view toString(StopReason r);

struct RuleStats {
  std::string name;
  size_t matches = 0;
  /// Applications that changed the e-graph.
  size_t applied = 0;
  /// Node ids created by the rule's applications (before rebuild removes duplicates).
  size_t newNodes = 0;
  double searchSeconds = 0;
  double applySeconds = 0;
};

struct IterationStats {
  size_t nodes = 0;    // after the iteration's rebuild
  size_t classes = 0;
  size_t matches = 0;
  size_t applied = 0;
  size_t newNodes = 0;
  size_t rebuildUnions = 0;
  double searchSeconds = 0;
  double applySeconds = 0;
  double rebuildSeconds = 0;
  std::vector<RuleStats> rules;  // enabled rules, in the order given
};

struct RunReport {
  StopReason stop = StopReason::Saturated;
  std::vector<IterationStats> iterations;
  std::vector<RuleStats> rules;  // totals per enabled rule
  size_t nodes = 0;
  size_t classes = 0;
  double seconds = 0;
  /// A few lines: stop reason, sizes, time, and one line per rule.
  std::string summary() const;
};

class Runner {
 public:
  explicit Runner(RunnerLimits limits = {}) : limits_(limits) {}

  /// Rules in any of the disabled groups are skipped.
  Runner& disableGroup(std::string group);
  const RunnerLimits& limits() const { return limits_; }

  /// Runs to saturation or a limit. A rule's EGraphError is rethrown as a RewriteError
  /// naming the rule (the e-graph is then left unrebuilt).
  RunReport run(EGraph& g, std::span<const Rewrite* const> rules) const;
  RunReport run(EGraph& g, std::initializer_list<const Rewrite*> rules) const {
    return run(g, std::span<const Rewrite* const>(rules.begin(), rules.size()));
  }

 private:
  bool enabled(const Rewrite& r) const;
  RunnerLimits limits_;
  std::vector<std::string> disabledGroups_;
};

}  // namespace skeleshare::egraph
