// skeleshare saturate FILE [--rules DIR] [--disable GROUP]... [--widen] [--iter-limit N]
//   [--node-limit N] [--time-limit S] [--dot PATH] [--json]
// Equality saturation of a program with the rule files: sizes, time, peak memory, stop
// reason and per-rule counts; optionally the e-graph as Graphviz DOT.

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "program_loader.h"
#include "skeleshare/egraph/dot.h"
#include "skeleshare/rules/rule_set.h"
#include "skeleshare/rules/saturate.h"

namespace skeleshare::tools {

namespace {

struct SaturateCliOptions {
  std::string file;
  std::string rulesDir = std::string(SKELESHARE_DATA_DIR) + "/rules";
  std::vector<std::string> disabled;
  bool widen = false;
  size_t iterLimit = 100;
  size_t nodeLimit = 500000;
  double timeLimit = 60.0;
  std::string dot;
  bool json = false;
};

std::string joinGroups(const std::vector<std::string>& g) {
  std::string s;
  for (size_t i = 0; i < g.size(); ++i) s += (i ? "," : "") + g[i];
  return s;
}

int runSaturate(const SaturateCliOptions& opts) {
  DiagnosticEngine diags;
  std::optional<rules::RuleSet> rs = rules::loadRuleDir(opts.rulesDir, diags);
  if (!rs) {
    diags.print(std::cerr);
    return kExitInputError;
  }
  std::vector<std::string> known = rs->groups();
  for (const std::string& g : opts.disabled) {
    if (std::find(known.begin(), known.end(), g) == known.end()) {
      std::cerr << fmt::format("error: --disable {}: no rule is in group '{}' (groups: {})\n", g, g, joinGroups(known));
      return kExitUsage;
    }
  }
  auto loaded = loadProgram(opts.file, std::cerr);
  if (!loaded) return kExitInputError;

  rules::SaturateOptions so;
  so.limits = {.maxIterations = opts.iterLimit, .maxNodes = opts.nodeLimit, .maxSeconds = opts.timeLimit};
  so.disabledGroups = opts.disabled;
  // As compile's first stage: the widening rules only on request.
  if (!opts.widen) so.disabledGroups.push_back(rules::kWideningGroup);
  rules::Saturation sat;
  try {
    sat = rules::saturateModule(*loaded->ctx, loaded->module, *rs, so);
  } catch (const egraph::EGraphError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitInputError;
  }
  size_t peak = rules::peakMemoryBytes();
  const egraph::RunReport& rep = sat.report;

  if (!opts.dot.empty()) {
    std::ofstream f(opts.dot, std::ios::binary);
    f << egraph::toDot(*sat.graph, {.roots = {sat.root}});
    if (!f) {
      std::cerr << "error: cannot write '" << opts.dot << "'\n";
      return kExitInputError;
    }
  }

  if (opts.json) {
    nlohmann::ordered_json j;
    j["file"] = opts.file;
    j["enodes"] = rep.nodes;
    j["eclasses"] = rep.classes;
    j["iterations"] = rep.iterations.size();
    j["stop_reason"] = std::string(egraph::toString(rep.stop));
    j["seconds"] = rep.seconds;
    j["peak_memory_bytes"] = peak;
    j["egraph_bytes"] = sat.graph->memoryBytes();
    auto& jr = j["rules"] = nlohmann::ordered_json::object();
    for (const egraph::RuleStats& r : rep.rules) {
      const rules::Rule* rule = rs->find(r.name);
      nlohmann::ordered_json e;
      e["group"] = rule ? joinGroups(rule->groups) : "";
      e["matches"] = r.matches;
      e["applied"] = r.applied;
      e["new_nodes"] = r.newNodes;
      e["search_seconds"] = r.searchSeconds;
      e["apply_seconds"] = r.applySeconds;
      jr[r.name] = std::move(e);
    }
    auto& ji = j["per_iteration"] = nlohmann::ordered_json::array();
    for (const auto& it : rep.iterations) ji.push_back({{"enodes", it.nodes}, {"eclasses", it.classes}, {"applied", it.applied}});
    std::cout << j.dump(2) << '\n';
    return kExitOk;
  }

  std::cout << fmt::format("{}: {} rule(s) from {}\n", opts.file, rep.rules.size(), opts.rulesDir);
  std::cout << fmt::format("stop reason: {}\niterations: {}\ne-nodes: {}\ne-classes: {}\ntime: {:.3f} s\n"
                           "peak memory: {:.1f} MB\n",
                           egraph::toString(rep.stop), rep.iterations.size(), rep.nodes, rep.classes, rep.seconds,
                           static_cast<double>(peak) / (1024.0 * 1024.0));
  std::cout << fmt::format("  {:<24} {:<18} {:>9} {:>9} {:>9}\n", "rule", "group", "matches", "applied", "new nodes");
  for (const egraph::RuleStats& r : rep.rules) {
    const rules::Rule* rule = rs->find(r.name);
    std::cout << fmt::format("  {:<24} {:<18} {:>9} {:>9} {:>9}\n", r.name, rule ? joinGroups(rule->groups) : "",
                             r.matches, r.applied, r.newNodes);
  }
  return kExitOk;
}

Command addSaturateCommand(CLI::App& root) {
  auto opts = std::make_shared<SaturateCliOptions>();
  CLI::App* app = root.add_subcommand("saturate", "Equality saturation of a program with the rewrite rules");
  app->add_option("file", opts->file, "the .dsl or .ir program")->required();
  app->add_option("--rules", opts->rulesDir, "directory of *.rules files (default: the installed rules)");
  app->add_option("--disable", opts->disabled, "do not run the rules of this group (repeatable)");
  app->add_flag("--widen", opts->widen,
                "also run the widening rules, as compile does when the other rules give no design");
  app->add_option("--iter-limit", opts->iterLimit, "maximum number of iterations (default 100)");
  app->add_option("--node-limit", opts->nodeLimit, "stop at this many e-nodes (default 500000)");
  app->add_option("--time-limit", opts->timeLimit, "stop after this many seconds (default 60)");
  app->add_option("--dot", opts->dot, "write the saturated e-graph as Graphviz DOT to this file");
  app->add_flag("--json", opts->json, "print one JSON object (enodes, eclasses, iterations, stop_reason, seconds, "
                                      "peak_memory_bytes, rules)");
  return {app, [opts] { return runSaturate(*opts); }};
}

}  // namespace

static const CommandRegistration kRegistration{40, addSaturateCommand};

}  // namespace skeleshare::tools
