#include "skeleshare/extract/selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

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

/// With --overlap, where every unit of the design calls one shared instance (so each one
/// hands it over to the next: NodeCost::overlap), the design's time with its callers
/// credited, plus the lead and the drain charged once (the largest of each); else nothing.
std::optional<int64_t> handedOverTime(const Problem& p, const Selection& sel, const Evaluation& e) {
  auto chosen = [&](uint32_t c) { return static_cast<uint32_t>(sel.chosen[c]); };
  std::optional<int64_t> f;
  for (uint32_t c : e.order) {
    if (!p.node(chosen(c)).cost.startsUnit) continue;
    const int64_t k = p.handoverCallee(chosen(c));
    if (k < 0 || !sel.shared[static_cast<uint32_t>(k)] || (f && *f != k)) return std::nullopt;
    f = k;
  }
  if (!f) return std::nullopt;
  const size_t nc = p.classes().size();
  std::vector<int64_t> time(nc, 0), compute(nc, 0), kidTime, kidCompute;
  int64_t lead = 0, drain = 0;
  for (uint32_t c : e.order) {
    const PNode& pn = p.node(chosen(c));
    kidTime.clear();
    kidCompute.clear();
    for (uint32_t k : pn.kids) {
      kidTime.push_back(time[k]);
      kidCompute.push_back(compute[k]);
    }
    int64_t t = pn.cost.dim[kTime].evaluate(kidTime, kidCompute);
    if (p.handoverCallee(chosen(c)) == *f) {
      t = pn.cost.overlap->exposed.evaluate(kidTime, kidCompute);
      lead = std::max(lead, pn.cost.overlap->lead);
      drain = std::max(drain, pn.cost.overlap->drain);
    }
    const int64_t k = sel.shared[c] ? p.model().communicationCost() : 0;
    compute[c] = satAdd(pn.cost.computeTime(kidTime, kidCompute, t), k);
    time[c] = satAdd(t, k);
  }
  return satAdd(time[p.root()], handoverCredit(lead, drain));
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
  // Costs, children first.
  e.use.assign(nc, {});
  e.inplace.assign(nc, {});
  e.compute.assign(nc, 0);
  std::array<int64_t, kDims> fixed{};
  std::vector<int64_t> kidCompute;
  for (uint32_t c : e.order) {
    const PNode& pn = p.node(static_cast<uint32_t>(sel.chosen[c]));
    kidCompute.clear();
    for (uint32_t k : pn.kids) kidCompute.push_back(e.compute[k]);
    std::vector<int64_t> kidTime;
    for (int d = 0; d < kDims; ++d) {
      std::vector<int64_t> kids;
      for (uint32_t k : pn.kids) kids.push_back(e.use[k][d]);
      e.inplace[c][d] = pn.cost.dim[d].evaluate(kids, kidCompute);
      if (d == kTime) kidTime = std::move(kids);
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
  e.oneAfterAnother = e.total[kTime];
  if (p.model().overlap())
    if (std::optional<int64_t> t = handedOverTime(p, sel, e); t && *t < e.total[kTime]) e.total[kTime] = *t;
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
