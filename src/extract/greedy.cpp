#include "skeleshare/extract/greedy.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace skeleshare::extract {

using namespace cost;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Classes reachable from `k` through any kept node.
std::vector<uint8_t> reachableFrom(const Problem& p, uint32_t k) {
  std::vector<uint8_t> mark(p.classes().size(), 0);
  std::vector<uint32_t> stack{k};
  mark[k] = 1;
  while (!stack.empty()) {
    uint32_t c = stack.back();
    stack.pop_back();
    for (uint32_t n : p.cls(c).nodes)
      for (uint32_t kid : p.node(n).kids)
        if (!mark[kid]) {
          mark[kid] = 1;
          stack.push_back(kid);
        }
  }
  return mark;
}

/// One greedy pass; `allowedConv` empty = every convolution unit allowed.
Selection pass(const Problem& p, double lambda, const std::vector<uint8_t>& allowedConv) {
  const size_t nc = p.classes().size();
  std::vector<double> score(nc, kInf);
  std::vector<int64_t> t(nc, 0), d(nc, 0);
  Selection sel;
  sel.chosen.assign(nc, -1);
  sel.shared.assign(nc, 0);
  for (int sweep = 0; sweep < 10000; ++sweep) {
    bool changed = false;
    for (uint32_t c = 0; c < nc; ++c) {
      for (uint32_t n : p.cls(c).nodes) {
        const PNode& pn = p.node(n);
        if (!allowedConv.empty() && isConvUnit(pn.op) && !allowedConv[c]) continue;
        std::vector<int64_t> kt, kd;
        bool ok = true;
        for (uint32_t k : pn.kids) {
          if (score[k] == kInf) {
            ok = false;
            break;
          }
          bool sh = p.cls(k).shareable;
          kt.push_back(sh ? satAdd(t[k], kCommunicationCost) : t[k]);
          kd.push_back(sh ? 0 : d[k]);
        }
        if (!ok) continue;
        int64_t nt = pn.cost.dim[kTime].evaluate(kt), nd = pn.cost.dim[kDsp].evaluate(kd);
        double s = static_cast<double>(nt) + lambda * static_cast<double>(nd);
        if (s < score[c]) {
          score[c] = s;
          t[c] = nt;
          d[c] = nd;
          sel.chosen[c] = static_cast<int32_t>(n);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  for (uint32_t c = 0; c < nc; ++c) sel.shared[c] = p.cls(c).shareable ? 1 : 0;
  return sel;
}

}  // namespace

GreedyResult greedyExtract(const Problem& p, int64_t dspBudget, int64_t maxConvUnits, double maxSeconds) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  GreedyResult best;
  // Candidate convolution units: none (everything allowed), then every shareable class
  // from which a convolution unit is reachable.
  std::vector<std::vector<uint8_t>> units{{}};
  for (uint32_t c = 0; c < p.classes().size(); ++c) {
    if (!p.cls(c).shareable || !p.cls(c).mayUseConvUnit) continue;
    units.push_back(reachableFrom(p, c));
  }
  std::vector<double> lambdas{0.0};
  for (int k = -3; k <= 8; ++k) lambdas.push_back(std::pow(4.0, k));
  for (const auto& allowed : units) {
    for (double lambda : lambdas) {
      if (best.candidates > 0 && elapsed() > maxSeconds) break;
      ++best.candidates;
      Selection sel = pass(p, lambda, allowed);
      if (sel.chosen[p.root()] < 0) continue;
      Evaluation e = evaluate(p, sel);
      if (!checkLimits(e, dspBudget, maxConvUnits).empty()) continue;
      bool better = !best.found || e.time() < best.evaluation.time() ||
                    (e.time() == best.evaluation.time() && e.dsps() < best.evaluation.dsps());
      if (better) {
        best.found = true;
        best.selection = std::move(sel);
        best.evaluation = std::move(e);
      }
    }
  }
  best.seconds = elapsed();
  return best;
}

}  // namespace skeleshare::extract
