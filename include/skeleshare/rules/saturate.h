#pragma once
// Saturating a program with a rule set: the driver behind `skeleshare saturate`, reused by
// the extractor.
//
//   rules::SaturateOptions opts;                       // limits, disabled groups
//   rules::Saturation sat = rules::saturateModule(ctx, module, ruleSet, opts);
//   sat.graph->...; sat.root (the class of Module::root); sat.report (egraph::RunReport)

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "skeleshare/egraph/egraph.h"
#include "skeleshare/egraph/runner.h"
#include "skeleshare/ir/context.h"
#include "skeleshare/rules/rule_set.h"

namespace skeleshare::rules {

/// The group of the widening rules (rules/widening.rules): the compile driver runs them only
/// when the other rules give no design, and `skeleshare saturate` only with --widen.
inline constexpr const char* kWideningGroup = "widening";

struct SaturateOptions {
  /// Defaults large enough for the full benchmarks to reach their fixpoint.
  egraph::RunnerLimits limits{.maxIterations = 100, .maxNodes = 500000, .maxSeconds = 60.0};
  /// Rules in any of these groups are not run; by default the widening rules, which the
  /// compile driver runs only as its second stage.
  std::vector<std::string> disabledGroups{kWideningGroup};
};

struct Saturation {
  std::unique_ptr<egraph::EGraph> graph;
  /// The class of Module::root (all outputs; a Tuple when there are several).
  egraph::ClassId root = egraph::kNoClass;
  /// The class of each output, in Module::outputs order.
  std::vector<egraph::ClassId> outputs;
  egraph::RunReport report;
};

/// Runs `rules` on the e-graph `g` (rebuilt first) with the options' limits and groups.
egraph::RunReport saturate(egraph::EGraph& g, const RuleSet& rules, const SaturateOptions& opts = {});

/// Builds the e-graph of `module` and saturates it. Throws egraph::RewriteError when a
/// rule fails hard (a bug in a rule file that the loader could not detect).
Saturation saturateModule(ir::Context& ctx, const ir::Module& module, const RuleSet& rules,
                          const SaturateOptions& opts = {});

/// The process's peak resident set size (VmHWM of /proc/self/status) in bytes; 0 when
/// unavailable.
size_t peakMemoryBytes();

}  // namespace skeleshare::rules
