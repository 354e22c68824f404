#include "skeleshare/egraph/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

namespace skeleshare::egraph {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

std::string_view toString(StopReason r) {
  switch (r) {
    case StopReason::Saturated: return "saturated";
    case StopReason::IterationLimit: return "iteration limit";
    case StopReason::NodeLimit: return "node limit";
    case StopReason::TimeLimit: return "time limit";
  }
  return "?";
}

Runner& Runner::disableGroup(std::string group) {
  disabledGroups_.push_back(std::move(group));
  return *this;
}

bool Runner::enabled(const Rewrite& r) const {
  for (const std::string& g : disabledGroups_)
    if (r.inGroup(g)) return false;
  return true;
}

RunReport Runner::run(EGraph& g, std::span<const Rewrite* const> all) const {
  auto start = Clock::now();
  std::vector<const Rewrite*> rules;
  for (const Rewrite* r : all)
    if (enabled(*r)) rules.push_back(r);
  RunReport report;
  for (const Rewrite* r : rules) report.rules.push_back(RuleStats{r->name()});

  g.rebuild();
  std::vector<std::vector<Match>> matches(rules.size());
  std::optional<StopReason> stop;
  while (!stop) {
    if (report.iterations.size() >= limits_.maxIterations) {
      stop = StopReason::IterationLimit;
      break;
    }
    if (g.nodeCount() >= limits_.maxNodes) {
      stop = StopReason::NodeLimit;
      break;
    }
    if (since(start) >= limits_.maxSeconds) {
      stop = StopReason::TimeLimit;
      break;
    }
    IterationStats it;
    it.rules.resize(rules.size());

    // Search: every rule on the same snapshot.
    for (size_t i = 0; i < rules.size() && !stop; ++i) {
      auto t0 = Clock::now();
      matches[i].clear();
      rules[i]->search(g, matches[i]);
      RuleStats& rs = it.rules[i];
      rs.name = rules[i]->name();
      rs.matches = matches[i].size();
      rs.searchSeconds = since(t0);
      it.matches += rs.matches;
      it.searchSeconds += rs.searchSeconds;
      if (since(start) >= limits_.maxSeconds) stop = StopReason::TimeLimit;
    }

    // Apply: rule order, match order; limits checked as we go.
    bool changed = false;
    size_t sinceClock = 0;
    for (size_t i = 0; i < rules.size() && !stop; ++i) {
      auto t0 = Clock::now();
      RuleStats& rs = it.rules[i];
      for (const Match& m : matches[i]) {
        size_t ids = g.idCount();
        bool ch;
        try {
          ch = rules[i]->apply(g, m);
        } catch (const RewriteError&) {
          throw;
        } catch (const EGraphError& e) {
          throw RewriteError(rules[i]->name(), e.what());
        }
        rs.newNodes += g.idCount() - ids;
        if (ch) {
          ++rs.applied;
          changed = true;
        }
        if (g.nodeCount() >= limits_.maxNodes) {
          stop = StopReason::NodeLimit;
          break;
        }
        if (++sinceClock == 64) {
          sinceClock = 0;
          if (since(start) >= limits_.maxSeconds) {
            stop = StopReason::TimeLimit;
            break;
          }
        }
      }
      rs.applySeconds = since(t0);
      it.applied += rs.applied;
      it.newNodes += rs.newNodes;
      it.applySeconds += rs.applySeconds;
      matches[i].clear();
    }

    auto t0 = Clock::now();
    it.rebuildUnions = g.rebuild();
    it.rebuildSeconds = since(t0);
    it.nodes = g.nodeCount();
    it.classes = g.classCount();
    for (size_t i = 0; i < rules.size(); ++i) {
      RuleStats& tot = report.rules[i];
      const RuleStats& rs = it.rules[i];
      tot.matches += rs.matches;
      tot.applied += rs.applied;
      tot.newNodes += rs.newNodes;
      tot.searchSeconds += rs.searchSeconds;
      tot.applySeconds += rs.applySeconds;
    }
    report.iterations.push_back(std::move(it));
    if (!stop && !changed && report.iterations.back().rebuildUnions == 0)
      stop = StopReason::Saturated;
  }
  report.stop = *stop;
  report.nodes = g.nodeCount();
  report.classes = g.classCount();
  report.seconds = since(start);
  return report;
}

std::string RunReport::summary() const {
  std::string s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "stop: %s after %zu iteration(s), %.3f s; %zu e-nodes, %zu e-classes\n",
                std::string(toString(stop)).c_str(), iterations.size(), seconds, nodes, classes);
  s += buf;
  for (const RuleStats& r : rules) {
    std::snprintf(buf, sizeof buf, "  %-28s matches %8zu  applied %8zu  new nodes %8zu  search %.3f s  apply %.3f s\n",
                  r.name.c_str(), r.matches, r.applied, r.newNodes, r.searchSeconds, r.applySeconds);
    s += buf;
  }
  return s;
}

}  // namespace skeleshare::egraph
