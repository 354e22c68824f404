#include "skeleshare/rules/saturate.h"

#include <fstream>
#include <sstream>
#include <string>

namespace skeleshare::rules {

egraph::RunReport saturate(egraph::EGraph& g, const RuleSet& rules, const SaturateOptions& opts) {
  egraph::Runner runner(opts.limits);
  for (const std::string& grp : opts.disabledGroups) runner.disableGroup(grp);
  std::vector<const egraph::Rewrite*> rw = rules.rewrites();
  return runner.run(g, rw);
}

Saturation saturateModule(ir::Context& ctx, const ir::Module& module, const RuleSet& rules,
                          const SaturateOptions& opts) {
  Saturation s;
  s.graph = std::make_unique<egraph::EGraph>(ctx);
  for (const ir::Output& o : module.outputs) s.outputs.push_back(s.graph->addTerm(o.term));
  s.root = s.graph->addTerm(module.root(ctx));
  s.report = saturate(*s.graph, rules, opts);
  s.root = s.graph->find(s.root);
  for (auto& c : s.outputs) c = s.graph->find(c);
  return s;
}

size_t peakMemoryBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream is(line.substr(6));
      size_t kb = 0;
      is >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

}  // namespace skeleshare::rules
