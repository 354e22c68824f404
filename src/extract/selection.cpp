#include "skeleshare/extract/selection.h"

#include <fmt/format.h>

#include <algorithm>

namespace skeleshare::extract {

using namespace cost;

namespace {

/// Classes reachable from the root through chosen nodes, children first; empty + error on
/// a cycle or a missing choice.
bool topoOrder(const Problem& p, const Selection& sel, std::vector<uint32_t>& order, std::string& error) {
  const size_t nc = p.classes().size();
  std::vector<uint8_t> state(nc, 0);  // 0 new, 1 on stack, 2 done
  struct Frame {
    uint32_t c;
    size_t kid;
  };
  std::vector<Frame> stack{{p.root(), 0}};
  state[p.root()] = 1;
  while (!stack.empty()) {
    Frame& f = stack.back();
    int32_t n = sel.chosen[f.c];
    if (n < 0) {
      error = fmt::format("class e{} is used but has no chosen node", p.cls(f.c).id);
      return false;
    }
    const PNode& pn = p.node(static_cast<uint32_t>(n));
    if (pn.cls != f.c) {
      error = fmt::format("class e{}: chosen node belongs to another class", p.cls(f.c).id);
      return false;
    }
    if (f.kid < pn.kids.size()) {
      uint32_t k = pn.kids[f.kid++];
      if (state[k] == 1) {
        error = fmt::format("the selection has a cycle through class e{}", p.cls(k).id);
        return false;
      }
      if (state[k] == 0) {
        state[k] = 1;
        stack.push_back({k, 0});
      }
      continue;
    }
    state[f.c] = 2;
    order.push_back(f.c);
    stack.pop_back();
  }
  return true;
}

/// With --overlap: the class whose shared instance every unit of the design calls, so that
/// each unit hands it over to the next (NodeCost::overlap); -1 if there is none.
int64_t handedOverCallee(const Problem& p, const Selection& sel, const std::vector<uint32_t>& order) {
  int64_t f = -1;
  for (uint32_t c : order) {
    const uint32_t n = static_cast<uint32_t>(sel.chosen[c]);
    if (!p.node(n).cost.startsUnit) continue;
    const int64_t k = p.handoverCallee(n);
    if (k < 0 || !sel.shared[static_cast<uint32_t>(k)] || (f >= 0 && f != k)) return -1;
    f = k;
  }
  return f;
}

/// The use, in-place and compute costs of the classes of `e.order`, children first, and
/// the totals. A node that calls `credited` (a class; -1: none) takes its time with the
/// handover credit (NodeCost::overlap), and `lead` and `drain` become the largest of theirs.
void costClasses(const Problem& p, const Selection& sel, int64_t credited, Evaluation& e, int64_t& lead,
                 int64_t& drain) {
  const size_t nc = p.classes().size();
  e.use.assign(nc, {});
  e.inplace.assign(nc, {});
  e.compute.assign(nc, 0);
  std::array<int64_t, kDims> fixed{};
  std::vector<int64_t> kidCompute;
  for (uint32_t c : e.order) {
    const uint32_t n = static_cast<uint32_t>(sel.chosen[c]);
    const PNode& pn = p.node(n);
    kidCompute.clear();
    for (uint32_t k : pn.kids) kidCompute.push_back(e.compute[k]);
    std::vector<int64_t> kidTime;
    for (int d = 0; d < kDims; ++d) {
      std::vector<int64_t> kids;
      for (uint32_t k : pn.kids) kids.push_back(e.use[k][d]);
      e.inplace[c][d] = pn.cost.dim[d].evaluate(kids, kidCompute);
      if (d == kTime) kidTime = std::move(kids);
    }
    if (credited >= 0 && p.handoverCallee(n) == credited) {
      e.inplace[c][kTime] = pn.cost.overlap->exposed.evaluate(kidTime, kidCompute);
      lead = std::max(lead, pn.cost.overlap->lead);
      drain = std::max(drain, pn.cost.overlap->drain);
    }
    const int64_t inplaceCompute = pn.cost.computeTime(kidTime, kidCompute, e.inplace[c][kTime]);
    e.compute[c] = sel.shared[c] ? satAdd(inplaceCompute, p.model().communicationCost()) : inplaceCompute;
    if (sel.shared[c]) {
      e.use[c][kTime] = satAdd(e.inplace[c][kTime], p.model().communicationCost());
      e.use[c][kDsp] = 0;
      e.use[c][kConvUnits] = 0;
      fixed[kDsp] = satAdd(fixed[kDsp], e.inplace[c][kDsp]);
      fixed[kConvUnits] = satAdd(fixed[kConvUnits], e.inplace[c][kConvUnits]);
    } else {
      e.use[c] = e.inplace[c];
    }
  }
  e.total[kTime] = e.use[p.root()][kTime];
  e.total[kDsp] = satAdd(e.use[p.root()][kDsp], fixed[kDsp]);
  e.total[kConvUnits] = satAdd(e.use[p.root()][kConvUnits], fixed[kConvUnits]);
}

}  // namespace

Evaluation evaluate(const Problem& p, Selection& sel) {
  Evaluation e;
  const size_t nc = p.classes().size();
  sel.chosen.resize(nc, -1);
  sel.shared.resize(nc, 0);
  if (!topoOrder(p, sel, e.order, e.error)) return e;
  std::vector<uint8_t> used(nc, 0);
  for (uint32_t c : e.order) used[c] = 1;
  for (uint32_t c = 0; c < nc; ++c) {
    if (!used[c]) {
      sel.chosen[c] = -1;
      sel.shared[c] = 0;
    } else if (!p.cls(c).shareable) {
      sel.shared[c] = 0;
    }
  }
  // Single abstraction: a unit used by a skeleton of another family is not shared.
  if (p.options().singleAbstraction) {
    for (uint32_t c : e.order) {
      if (!sel.shared[c]) continue;
      const PClass& pc = p.cls(c);
      for (uint32_t user : pc.parents) {
        uint32_t uc = p.node(user).cls;
        if (!used[uc] || sel.chosen[uc] != static_cast<int32_t>(user)) continue;
        Family f = familyOf(p.node(user).op);
        if (f != Family::None && !pc.ownFamilies.count(f)) sel.shared[c] = 0;
      }
    }
  }
  // Instances and uses, parents first.
  e.instances.assign(nc, 0);
  e.uses.assign(nc, 0);
  e.instances[p.root()] = 1;
  for (auto it = e.order.rbegin(); it != e.order.rend(); ++it) {
    uint32_t c = *it;
    if (sel.shared[c] && e.uses[c] <= 1) sel.shared[c] = 0;  // a unit used once: in place
    if (c != p.root()) e.instances[c] = sel.shared[c] ? 1 : e.uses[c];
    for (uint32_t k : p.node(static_cast<uint32_t>(sel.chosen[c])).kids) e.uses[k] += e.instances[c];
  }
  // Costs, children first: the units one after another, and with --overlap, where every
  // unit calls one shared instance, the less of that and the time with the callers'
  // handover credits, their largest lead and drain charged once.
  int64_t lead = 0, drain = 0;
  costClasses(p, sel, -1, e, lead, drain);
  e.oneAfterAnother = e.total[kTime];
  if (p.model().overlap())
    if (const int64_t f = handedOverCallee(p, sel, e.order); f >= 0) {
      Evaluation credited = e;
      costClasses(p, sel, f, credited, lead, drain);
      e.total[kTime] = std::min(e.total[kTime], satAdd(credited.total[kTime], handoverCredit(lead, drain)));
    }
  e.valid = true;
  return e;
}

std::string checkLimits(const Evaluation& e, int64_t dspBudget, int64_t maxConvUnits) {
  if (!e.valid) return e.error;
  if (e.dsps() > dspBudget) return fmt::format("uses {} DSPs, more than the budget of {}", e.dsps(), dspBudget);
  if (e.convUnits() > maxConvUnits)
    return fmt::format("has {} convolution units, more than {}", e.convUnits(), maxConvUnits);
  return {};
}

}  // namespace skeleshare::extract
