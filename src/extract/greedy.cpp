#include "skeleshare/extract/greedy.h"

#include <algorithm>
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

/// One greedy pass. `allowedConv` empty = every convolution unit allowed, else only in the
/// marked classes. A child marked in `amortise` is costed as shared (T + 5, no DSPs).
/// With `leastTime` every node takes its least time (Problem::leastNodeTime) and the
/// root's is stored there: the least tree time, as every value the pass sets is a tree's.
Selection pass(const Problem& p, double lambda, const std::vector<uint8_t>& allowedConv,
               const std::vector<uint8_t>& amortise, uint64_t* steps = nullptr, int64_t* leastTime = nullptr) {
  const size_t nc = p.classes().size();
  std::vector<double> score(nc, kInf);
  std::vector<int64_t> t(nc, 0), d(nc, 0), ct(nc, 0);  // time, DSPs, compute time
  Selection sel;
  sel.chosen.assign(nc, -1);
  sel.shared.assign(nc, 0);
  std::vector<int64_t> kt, kd, kc;
  for (int sweep = 0; sweep < 10000; ++sweep) {
    bool changed = false;
    for (uint32_t c = 0; c < nc; ++c) {
      for (uint32_t n : p.cls(c).nodes) {
        const PNode& pn = p.node(n);
        if (steps) ++*steps;
        if (!allowedConv.empty() && isConvUnit(pn.op) && !allowedConv[c]) continue;
        kt.clear();
        kd.clear();
        kc.clear();
        bool ok = true;
        for (uint32_t k : pn.kids) {
          if (score[k] == kInf) {
            ok = false;
            break;
          }
          bool sh = amortise[k];
          kt.push_back(sh ? satAdd(t[k], p.model().communicationCost()) : t[k]);
          kc.push_back(sh ? satAdd(ct[k], p.model().communicationCost()) : ct[k]);
          kd.push_back(sh ? 0 : d[k]);
        }
        if (!ok) continue;
        int64_t nt = leastTime ? p.leastNodeTime(n, kt, kc) : pn.cost.dim[kTime].evaluate(kt, kc);
        int64_t nd = lambda == 0 ? 0 : pn.cost.dim[kDsp].evaluate(kd);
        double s = static_cast<double>(nt) + lambda * static_cast<double>(nd);
        if (s < score[c]) {
          score[c] = s;
          t[c] = nt;
          ct[c] = pn.cost.computeTime(kt, kc, nt);
          d[c] = nd;
          sel.chosen[c] = static_cast<int32_t>(n);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  for (uint32_t c = 0; c < nc; ++c) sel.shared[c] = amortise[c];
  if (leastTime) *leastTime = score[p.root()] == kInf ? kCostCap : t[p.root()];
  return sel;
}

/// Least tree time of the root when convolution units are allowed only in `allowed`
/// (sharing ignored: it only adds time, but for a caller's handover credit, which the
/// least node times take).
int64_t treeMinTime(const Problem& p, const std::vector<uint8_t>& allowed) {
  std::vector<uint8_t> none(p.classes().size(), 0);
  if (p.model().overlap()) {
    int64_t least = kCostCap;
    pass(p, 0.0, allowed, none, nullptr, &least);
    return least;
  }
  Selection s = pass(p, 0.0, allowed, none);
  if (s.chosen[p.root()] < 0) return kCostCap;
  Evaluation e = evaluate(p, s);
  return e.valid ? e.time() : 0;  // a cyclic choice: no bound from this candidate
}

}  // namespace

GreedyResult greedyExtract(const Problem& p, int64_t dspBudget, int64_t maxConvUnits, const GreedyLimits& limits) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  GreedyResult best;
  const size_t nc = p.classes().size();
  // Candidates: (allowed convolution classes, classes costed as shared). First everything
  // allowed with every shareable class amortised, then with none, then each candidate unit K with (a) only
  // K shared and (b) every shareable class amortised.
  std::vector<uint8_t> allShareable(nc, 0);
  for (uint32_t c = 0; c < nc; ++c) allShareable[c] = p.cls(c).shareable ? 1 : 0;
  struct Candidate {
    std::vector<uint8_t> allowed, amortise;
  };
  // Nothing amortised comes second: with a large lambda it is the smallest unshared design,
  // the one that fits when the per-unit candidates below run out of effort first.
  std::vector<Candidate> cands{{{}, allShareable}, {{}, std::vector<uint8_t>(nc, 0)}};
  // The units that more call sites can use first (stable: class order among equals): the
  // effort share may end the list early, and the unit a whole network shares is one that
  // many layers' tilings and paddings call (TinyYolo v2 with R-PAD-CONV-OCH-DOUBLE at a
  // quarter of the DSPs: in class order the share ran out after 461 of 5,200 passes,
  // before any design within the budget).
  std::vector<uint32_t> units;
  for (uint32_t c = 0; c < nc; ++c)
    if (p.cls(c).shareable && p.cls(c).mayUseConvUnit) units.push_back(c);
  std::stable_sort(units.begin(), units.end(),
                   [&](uint32_t a, uint32_t b) { return p.cls(a).parents.size() > p.cls(b).parents.size(); });
  for (uint32_t c : units) {
    std::vector<uint8_t> only(nc, 0);
    only[c] = 1;
    std::vector<uint8_t> reach = reachableFrom(p, c);
    cands.push_back({reach, only});
    cands.push_back({reach, allShareable});
  }
  std::vector<double> lambdas{0.0};
  for (int k = -3; k <= 8; ++k) lambdas.push_back(std::pow(4.0, k));
  best.totalCandidates = cands.size() * lambdas.size();
  for (const auto& cand : cands) {
    for (double lambda : lambdas) {
      if (best.candidates > 0) {
        best.stepsExhausted = limits.maxSteps > 0 && best.steps >= limits.maxSteps;
        best.timedOut = !best.stepsExhausted && limits.maxSeconds > 0 && elapsed() > limits.maxSeconds;
        if (best.stepsExhausted || best.timedOut) break;
      }
      ++best.candidates;
      Selection sel = pass(p, lambda, cand.allowed, cand.amortise, &best.steps);
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
    if (best.stepsExhausted || best.timedOut) break;
  }
  best.seconds = elapsed();
  return best;
}

int64_t timeLowerBound(const Problem& p, int64_t maxConvUnits) {
  const size_t nc = p.classes().size();
  int64_t plain = p.minTime()[p.root()];
  if (maxConvUnits >= 2) return plain;
  // With at most one convolution unit, a design has no convolution node, or exactly one
  // instance of one: in place, or in the one shared unit that contains it. Either way every
  // convolution it computes goes through the convolution nodes of a single class B. The
  // least tree time with convolution nodes allowed only in B, minimised over B, bounds every
  // such design from below (sharing only adds time, or less than treeMinTime credits).
  int64_t lb = treeMinTime(p, std::vector<uint8_t>(nc, 0));
  if (maxConvUnits == 1) {
    for (uint32_t c = 0; c < nc; ++c) {
      bool hasConv = false;
      for (uint32_t n : p.cls(c).nodes) hasConv |= isConvUnit(p.node(n).op);
      if (!hasConv) continue;
      std::vector<uint8_t> only(nc, 0);
      only[c] = 1;
      lb = std::min(lb, treeMinTime(p, only));
      if (lb <= plain) return plain;
    }
  }
  return std::max(lb, plain);
}

}  // namespace skeleshare::extract
