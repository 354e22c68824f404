// E-graph stress benchmark: runs equality saturation to a node limit (default 10^6
// e-nodes) and reports throughput (new e-nodes per second) and memory (bytes per e-node).
//
// Workloads:
//   addac  commutativity + associativity of Add over `chains` sums of `length` inputs
//          each: the e-graph grows exponentially, matching and rebuild dominate.
//   halve  R-HALVE-PARALLELISM over many canonical cMvF functions of distinct shapes:
//          adding terms, one-node matches, unions.
// Usage: egraph_stress [addac|halve|all] [maxNodes] [maxSeconds]

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "skeleshare/egraph/runner.h"
#include "skeleshare/ir/builders.h"

using namespace skeleshare;
using namespace skeleshare::egraph;
using ir::Op;
using P = Pattern;

namespace {

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

long rssKiB() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return 0;
}

struct Result {
  const char* name;
  RunReport report;
  size_t startNodes;
  double seconds;
  double cpu;
  long rssDelta;
  size_t engineBytes;
};

void print(const Result& r) {
  size_t added = r.report.nodes - r.startNodes;
  std::printf("== %s ==\n%s", r.name, r.report.summary().c_str());
  for (size_t i = 0; i < r.report.iterations.size(); ++i) {
    const IterationStats& it = r.report.iterations[i];
    std::printf("  iter %2zu: nodes %9zu classes %9zu matches %9zu applied %9zu  search %.3f apply %.3f rebuild %.3f s\n",
                i, it.nodes, it.classes, it.matches, it.applied, it.searchSeconds, it.applySeconds,
                it.rebuildSeconds);
  }
  std::printf("RESULT %s: %zu e-nodes added in %.3f s (%.3f s CPU) = %.0f new e-nodes/s (%.0f per CPU second); %.0f bytes/e-node (VmRSS), %.0f bytes/e-node (engine containers)\n\n",
              r.name, added, r.seconds, r.cpu, added / r.seconds, added / r.cpu,
              r.rssDelta * 1024.0 / static_cast<double>(r.report.nodes),
              static_cast<double>(r.engineBytes) / static_cast<double>(r.report.nodes));
}

Result runAddAC(size_t maxNodes, double maxSeconds) {
  ir::Context ctx;
  long rss0 = rssKiB();
  EGraph g(ctx);
  const ir::Type* t = ctx.arrayType(4, ctx.intType(8));
  // 64 independent sums of 10 inputs each.
  for (int c = 0; c < 64; ++c) {
    const ir::Term* sum = ctx.input("x" + std::to_string(c) + "_0", t);
    for (int i = 1; i < 10; ++i)
      sum = ctx.op(Op::Add, {sum, ctx.input("x" + std::to_string(c) + "_" + std::to_string(i), t)});
    g.addTerm(sum);
  }
  PatternRewrite comm("add-comm", P::node(Op::Add, {P::cls("?a"), P::cls("?b")}),
                      P::node(Op::Add, {P::cls("?b"), P::cls("?a")}));
  PatternRewrite assoc("add-assoc",
                       P::node(Op::Add, {P::node(Op::Add, {P::cls("?a"), P::cls("?b")}), P::cls("?c")}),
                       P::node(Op::Add, {P::cls("?a"), P::node(Op::Add, {P::cls("?b"), P::cls("?c")})}));
  size_t start = g.nodeCount();
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpuSeconds();
  RunReport rep = Runner({.maxIterations = 100, .maxNodes = maxNodes, .maxSeconds = maxSeconds})
                      .run(g, {&comm, &assoc});
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {"addac", std::move(rep), start, secs, cpuSeconds() - c0, rssKiB() - rss0, g.memoryBytes()};
}

Result runHalve(size_t maxNodes, double maxSeconds) {
  ir::Context ctx;
  long rss0 = rssKiB();
  EGraph g(ctx);
  const ir::Type* i8 = ctx.intType(8);
  // cMvF[1024, n] for many n: 10 halvings each (1024 -> 1).
  int shapes = 0;
  for (int64_t n = 1; g.nodeCount() < maxNodes / 2; ++n, ++shapes) g.addTerm(ir::cMvF(ctx, 1024, n, i8, i8));
  PatternRewrite halve("R-HALVE-PARALLELISM", P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q")}),
                       P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q") / 2}));
  uint32_t q = halve.vars().intSlot("?Q");
  halve.when([q](const EGraph&, const Subst& s) { return s.integer(q) % 2 == 0; });
  size_t start = g.nodeCount();
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpuSeconds();
  RunReport rep = Runner({.maxIterations = 100, .maxNodes = maxNodes, .maxSeconds = maxSeconds}).run(g, {&halve});
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("(halve: %d shapes, %zu e-nodes before saturation)\n", shapes, start);
  return {"halve", std::move(rep), start, secs, cpuSeconds() - c0, rssKiB() - rss0, g.memoryBytes()};
}

}  // namespace

int main(int argc, char** argv) {
  std::string which = argc > 1 ? argv[1] : "all";
  size_t maxNodes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  double maxSeconds = argc > 3 ? std::strtod(argv[3], nullptr) : 60.0;
  if (which == "addac" || which == "all") print(runAddAC(maxNodes, maxSeconds));
  if (which == "halve" || which == "all") print(runHalve(maxNodes, maxSeconds));
  return 0;
}
