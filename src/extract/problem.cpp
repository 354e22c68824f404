#include "skeleshare/extract/problem.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace skeleshare::extract {

using egraph::ClassId;
using egraph::NodeId;
using namespace cost;

std::string ProblemStats::str() const {
  return fmt::format(
      "e-graph {} nodes / {} classes; reachable {} / {}; dropped {} unextractable, {} unlowerable, {} self-dependent, "
      "{} dominated, {} over-limit and {} excluded conv nodes; "
      "kept {} nodes / {} classes ({} free, {} absorbed, {} shareable, {} on cycles)",
      egraphNodes, egraphClasses, reachableNodes, reachableClasses, unextractableNodes, unlowerableNodes,
      selfDependentNodes, dominatedNodes, overLimitNodes, excludedConvNodes, nodes,
      classes, freeClasses, absorbedClasses, shareableClasses, cyclicClasses);
}

Problem::Problem(const egraph::EGraph& g, const CostModel& model, ClassId root, const ProblemOptions& opts)
    : g_(&g), model_(&model), opts_(opts) {
  if (!g.clean()) throw std::runtime_error("extraction needs a rebuilt e-graph");
  build(g.find(root));
}

uint32_t Problem::indexOf(ClassId c) const {
  c = g_->find(c);
  return c < index_.size() ? index_[c] : UINT32_MAX;
}

namespace {

constexpr uint32_t kNone = UINT32_MAX;

/// a dominates b: same operator family (so single-abstraction rules treat them alike), the
/// same children, and in every dimension an expression that is never larger: constant and
/// every coefficient no larger, the same max set.
bool dominates(const PNode& a, const PNode& b) {
  if (a.kids != b.kids) return false;
  if (familyOf(a.op) != familyOf(b.op)) return false;
  if (a.cost.compute != b.cost.compute || a.cost.overlap != b.cost.overlap || a.cost.startsUnit != b.cost.startsUnit)
    return false;
  for (int d = 0; d < kDims; ++d) {
    const CostExpr& x = a.cost.dim[d];
    const CostExpr& y = b.cost.dim[d];
    if (x.constant > y.constant || x.maxOf != y.maxOf || x.linear.size() != y.linear.size() || x.floors != y.floors ||
        x.sumOf != y.sumOf)
      return false;
    for (size_t i = 0; i < x.linear.size(); ++i)
      if (x.linear[i].child != y.linear[i].child || x.linear[i].compute != y.linear[i].compute ||
          x.linear[i].coef > y.linear[i].coef)
        return false;
  }
  return true;
}

}  // namespace

void Problem::build(ClassId root) {
  const egraph::EGraph& g = *g_;
  stats_.egraphNodes = g.nodeCount();
  stats_.egraphClasses = g.classCount();

  // 1. Classes reachable from the root through any node.
  std::vector<ClassId> reach;
  std::vector<uint8_t> seen(g.idCount(), 0);
  {
    std::vector<ClassId> stack{root};
    seen[root] = 1;
    while (!stack.empty()) {
      ClassId c = stack.back();
      stack.pop_back();
      reach.push_back(c);
      for (NodeId n : g.eclass(c).nodes)
        for (ClassId k : g.node(n).children()) {
          ClassId kc = g.find(k);
          if (!seen[kc]) {
            seen[kc] = 1;
            stack.push_back(kc);
          }
        }
    }
    std::sort(reach.begin(), reach.end());
  }
  stats_.reachableClasses = reach.size();
  for (ClassId c : reach) stats_.reachableNodes += g.eclass(c).nodes.size();

  const ClassId onlyConv = opts_.onlyConvClass == egraph::kNoClass ? egraph::kNoClass : g.find(opts_.onlyConvClass);
  auto excluded = [&](NodeId n) {
    return onlyConv != egraph::kNoClass && cost::isConvUnit(g.node(n).op()) && g.find(n) != onlyConv;
  };
  // The program's outputs: the root class, and the classes its element-wise and reshaping
  // nodes (a Tuple's elements) are computed from, whose units write them to memory; every
  // other unit's result is an intermediate.
  std::set<ClassId> outputs;
  {
    std::vector<ClassId> pending{root};
    while (!pending.empty()) {
      const ClassId c = g.find(pending.back());
      pending.pop_back();
      if (!outputs.insert(c).second) continue;
      for (NodeId m : g.eclass(c).nodes) {
        const egraph::ENode& en = g.node(m);
        bool fun = false;
        for (ClassId k : en.children()) fun = fun || (g.typeOf(k) && g.typeOf(k)->isFun());
        if (cost::passesItsOutputOn(en.op(), fun))
          for (ClassId k : en.children()) pending.push_back(k);
      }
    }
  }
  // A class whose data is a program input, weight or constant (possibly through a folded
  // view, as cost::CostModel::nodeCost looks at a term): the lowering reads it from memory.
  // Every other data class is computed by some unit.
  auto fromInput = [&](ClassId k) {
    for (NodeId m : g.eclass(k).nodes) {
      const egraph::ENode& km = g.node(m);
      if (cost::isProgramData(km.op())) return true;
      if (cost::isFoldedView(km.op()) && km.children().size() == 1)
        for (NodeId v : g.eclass(km.children()[0]).nodes)
          if (cost::isProgramData(g.node(v).op())) return true;
    }
    return false;
  };
  std::map<NodeId, NodeCost> costs;
  auto costOf = [&](NodeId n) -> const NodeCost& {
    auto it = costs.find(n);
    if (it != costs.end()) return it->second;
    const egraph::ENode& en = g.node(n);
    std::vector<const ir::Type*> kt;
    std::vector<cost::ChildShape> shapes;
    auto isVar = std::make_unique<bool[]>(en.children().size() + 1);  // a bound variable's class
    for (size_t i = 0; i < en.children().size(); ++i) {
      ClassId k = en.children()[i];
      kt.push_back(g.typeOf(k));
      isVar[i] = false;
      cost::ChildShape s{g.typeOf(k), ir::Op::Var, {}, nullptr};
      for (NodeId m : g.eclass(k).nodes) {
        const egraph::ENode& km = g.node(m);
        isVar[i] = isVar[i] || km.op() == ir::Op::Var;
        // a view the lowering folds into the reads (the first in the class)
        if (s.view == ir::Op::Var && cost::isFoldedView(km.op()) && km.children().size() == 1)
          s = {g.typeOf(k), km.op(), {km.params().begin(), km.params().end()}, g.typeOf(km.children()[0])};
      }
      s.computed = !isVar[i] && !fromInput(k);
      shapes.push_back(std::move(s));
    }
    return costs
        .emplace(n, model_->nodeCost(en.op(), en.params(), kt, g.typeOf(n),
                                     std::span<const bool>(isVar.get(), en.children().size()), shapes,
                                     !outputs.count(g.find(n))))
        .first->second;
  };
  // A node the lowering refuses (the load oracle says so) is in no design.
  auto unlowerable = [&](NodeId n) { return !costOf(n).lowerable; };
  // 2. Extractable classes: some node whose children are all extractable (worklist over
  //    the number of not-yet-extractable children of each node).
  std::vector<uint8_t> ext(g.idCount(), 0);
  bool refusedSome = false;
  {
    std::map<NodeId, uint32_t> missing;
    std::vector<std::vector<NodeId>> users(g.idCount());
    std::deque<ClassId> work;
    for (ClassId c : reach) {
      for (NodeId n : g.eclass(c).nodes) {
        if (excluded(n)) continue;
        if (unlowerable(n)) {
          refusedSome = true;
          ++stats_.unlowerableNodes;
          continue;
        }
        auto kids = g.node(n).children();
        missing[n] = static_cast<uint32_t>(kids.size());
        for (ClassId k : kids) users[g.find(k)].push_back(n);
        if (kids.empty() && !ext[c]) {
          ext[c] = 1;
          work.push_back(c);
        }
      }
    }
    while (!work.empty()) {
      ClassId c = work.front();
      work.pop_front();
      for (NodeId n : users[c]) {
        if (--missing[n] == 0) {
          ClassId pc = g.find(n);
          if (!ext[pc]) {
            ext[pc] = 1;
            work.push_back(pc);
          }
        }
      }
    }
  }
  if (!ext[root]) {
    if (onlyConv == egraph::kNoClass && !refusedSome) throw std::runtime_error("the root class has no finite term");
    loweringExcludedAll_ = onlyConv == egraph::kNoClass;
    feasible_ = false;
    return;
  }

  // 3. Keep extractable nodes; compute their costs; drop dominated ones.
  auto nodeExtractable = [&](NodeId n) {
    for (ClassId k : g.node(n).children())
      if (!ext[g.find(k)]) return false;
    return true;
  };
  // Keep only nodes still reachable from the root through kept nodes (iterate: dropping
  // dominated nodes may make more classes unreachable).
  std::vector<std::vector<NodeId>> keptNodes(g.idCount());
  for (ClassId c : reach) {
    for (NodeId n : g.eclass(c).nodes) {
      if (excluded(n)) {
        ++stats_.excludedConvNodes;
        continue;
      }
      if (unlowerable(n)) continue;  // counted above
      if (!nodeExtractable(n)) {
        ++stats_.unextractableNodes;
        continue;
      }
      keptNodes[c].push_back(n);
    }
  }
  if (opts_.shrink) {
    for (ClassId c : reach) {
      auto& v = keptNodes[c];
      if (v.size() < 2) continue;
      std::vector<PNode> tmp;
      for (NodeId n : v) {
        PNode p;
        p.id = n;
        p.op = g.node(n).op();
        for (ClassId k : g.node(n).children()) p.kids.push_back(g.find(k));
        p.cost = costOf(n);
        tmp.push_back(std::move(p));
      }
      std::vector<uint8_t> drop(v.size(), 0);
      for (size_t i = 0; i < v.size(); ++i) {
        for (size_t j = 0; j < v.size() && !drop[i]; ++j) {
          if (i == j || drop[j]) continue;
          // j dominates i; on a tie the earlier node survives.
          if (dominates(tmp[j], tmp[i]) && (!dominates(tmp[i], tmp[j]) || j < i)) drop[i] = 1;
        }
      }
      std::vector<NodeId> keep;
      for (size_t i = 0; i < v.size(); ++i) {
        if (drop[i]) ++stats_.dominatedNodes;
        else keep.push_back(v[i]);
      }
      v = std::move(keep);
    }
  }

  // 3a. Limit pruning (docs/extraction.md, "Limit pruning"): every used class's own DSPs
  //     and convolution units are counted at least once in a design (shared or not), so
  //     the sum of the constants along any path of a node's subterm bounds them from below.
  //     A node whose least such bound exceeds a limit is in no design within the limits.
  if (opts_.dspLimit >= 0 || opts_.convUnitLimit >= 0) {
    std::array<std::vector<int64_t>, kDims> lb;
    auto nodeBound = [&](NodeId n, int d) -> int64_t {
      const CostExpr& e = costOf(n).dim[d];
      std::vector<ClassId> kids;
      for (ClassId k : g.node(n).children()) {
        kids.push_back(g.find(k));
        if (lb[d][kids.back()] >= kCostCap) return kCostCap;
      }
      // Without sharing every use is a copy, so the children's bounds add up (a tree);
      // with sharing a class may be paid once for several uses: only one path counts.
      int64_t below = 0;
      for (const CostExpr::Term& t : e.linear) {
        if (t.coef <= 0) continue;
        int64_t k = lb[d][kids[t.child]];
        below = opts_.sharing ? std::max(below, k) : satAdd(below, satMul(t.coef, k));
      }
      for (uint32_t i : e.maxOf) below = std::max(below, lb[d][kids[i]]);
      for (uint32_t i : e.sumOf) below = opts_.sharing ? std::max(below, lb[d][kids[i]]) : satAdd(below, lb[d][kids[i]]);
      return satAdd(std::max<int64_t>(e.constant, 0), below);
    };
    const std::array<int64_t, kDims> limit{kCostCap, opts_.dspLimit < 0 ? kCostCap : opts_.dspLimit,
                                           opts_.convUnitLimit < 0 ? kCostCap : opts_.convUnitLimit};
    for (bool first = true;; first = false) {
      for (int d = kDsp; d < kDims; ++d) {
        lb[d].assign(g.idCount(), kCostCap);
        for (bool changed = true; changed;) {
          changed = false;
          for (ClassId c : reach)
            for (NodeId n : keptNodes[c]) {
              int64_t b = nodeBound(n, d);
              if (b < lb[d][c]) {
                lb[d][c] = b;
                changed = true;
              }
            }
        }
      }
      if (first) rootMinConvUnits_ = lb[kConvUnits][root];
      // In a part with its convolution unit in class B (a design of the part uses B), a
      // node outside B's subterm has DSPs of its own on top of B's: at least lbD(B) more.
      std::vector<uint8_t> underUnit;
      int64_t unitDsps = 0;
      if (onlyConv != egraph::kNoClass && opts_.convUnitLimit == 1 && !keptNodes[onlyConv].empty()) {
        unitDsps = lb[kDsp][onlyConv];
        underUnit.assign(g.idCount(), 0);
        std::vector<ClassId> stack{onlyConv};
        underUnit[onlyConv] = 1;
        while (!stack.empty()) {
          ClassId c = stack.back();
          stack.pop_back();
          for (NodeId n : keptNodes[c])
            for (ClassId k : g.node(n).children()) {
              ClassId kc = g.find(k);
              if (!underUnit[kc]) {
                underUnit[kc] = 1;
                stack.push_back(kc);
              }
            }
        }
      }
      size_t dropped = 0;
      for (ClassId c : reach) {
        auto& v = keptNodes[c];
        auto over = [&](NodeId n) {
          for (int d = kDsp; d < kDims; ++d)
            if (nodeBound(n, d) > limit[d]) return true;
          if (!underUnit.empty() && !underUnit[c] &&
              satAdd(std::max<int64_t>(costOf(n).dim[kDsp].constant, 0), unitDsps) > limit[kDsp])
            return true;
          return false;
        };
        size_t before = v.size();
        v.erase(std::remove_if(v.begin(), v.end(), over), v.end());
        dropped += before - v.size();
      }
      stats_.overLimitNodes += dropped;
      if (dropped == 0) break;
    }
    if (keptNodes[root].empty()) {
      feasible_ = false;
      return;
    }
  }

  // 3b. Drop nodes that cannot avoid their own class: a child with no finite term that
  //     avoids the node's class (e.g. PaddedConvHW(%1, %0, \\. \\. <the same class>), the
  //     padding of a convolution to its own size). No design can contain such a node, and
  //     these zero-cost cycles would otherwise dominate the solver's work.
  {
    std::vector<uint32_t> stamp(g.idCount(), 0), extStamp(g.idCount(), 0);
    std::vector<uint32_t> missing;  // per visited node, not-yet-extractable children
    uint32_t round = 0;
    for (ClassId c : reach) {
      if (keptNodes[c].empty()) continue;
      ++round;
      // Descendants of c through kept nodes.
      std::vector<ClassId> desc;
      for (NodeId n : keptNodes[c])
        for (ClassId k : g.node(n).children()) {
          ClassId kc = g.find(k);
          if (stamp[kc] != round) {
            stamp[kc] = round;
            desc.push_back(kc);
          }
        }
      for (size_t i = 0; i < desc.size(); ++i)
        for (NodeId n : keptNodes[desc[i]])
          for (ClassId k : g.node(n).children()) {
            ClassId kc = g.find(k);
            if (stamp[kc] != round) {
              stamp[kc] = round;
              desc.push_back(kc);
            }
          }
      if (stamp[c] != round) continue;  // c is on no cycle
      // Extractable without c, over the descendants (fixpoint by sweeps in reverse
      // discovery order, which is mostly children first).
      auto extOk = [&](ClassId k) { return extStamp[k] == round; };
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = desc.size(); i-- > 0;) {
          ClassId d = desc[i];
          if (d == c || extOk(d)) continue;
          for (NodeId n : keptNodes[d]) {
            bool ok = true;
            for (ClassId k : g.node(n).children()) {
              ClassId kc = g.find(k);
              if (kc == c || !extOk(kc)) {
                ok = false;
                break;
              }
            }
            if (ok) {
              extStamp[d] = round;
              changed = true;
              break;
            }
          }
        }
      }
      std::vector<NodeId> keep;
      for (NodeId n : keptNodes[c]) {
        bool ok = true;
        for (ClassId k : g.node(n).children()) {
          ClassId kc = g.find(k);
          if (kc == c || !extOk(kc)) ok = false;
        }
        if (ok) keep.push_back(n);
        else ++stats_.selfDependentNodes;
      }
      keptNodes[c] = std::move(keep);
    }
  }

  // 4. Dense classes: reachable from the root through kept nodes, ascending ids.
  std::vector<ClassId> live;
  {
    std::vector<uint8_t> mark(g.idCount(), 0);
    std::vector<ClassId> stack{root};
    mark[root] = 1;
    while (!stack.empty()) {
      ClassId c = stack.back();
      stack.pop_back();
      live.push_back(c);
      for (NodeId n : keptNodes[c])
        for (ClassId k : g.node(n).children()) {
          ClassId kc = g.find(k);
          if (!mark[kc]) {
            mark[kc] = 1;
            stack.push_back(kc);
          }
        }
    }
    std::sort(live.begin(), live.end());
  }
  index_.assign(g.idCount(), kNone);
  for (ClassId c : live) {
    index_[c] = static_cast<uint32_t>(classes_.size());
    PClass pc;
    pc.id = c;
    pc.type = g.typeOf(c);
    classes_.push_back(std::move(pc));
  }
  for (ClassId c : live) {
    uint32_t ci = index_[c];
    for (NodeId n : keptNodes[c]) {
      PNode p;
      p.id = n;
      p.cls = ci;
      p.op = g.node(n).op();
      for (ClassId k : g.node(n).children()) p.kids.push_back(index_[g.find(k)]);
      p.cost = costOf(n);
      uint32_t ni = static_cast<uint32_t>(nodes_.size());
      classes_[ci].nodes.push_back(ni);
      for (uint32_t k : p.kids) classes_[k].parents.push_back(ni);
      nodes_.push_back(std::move(p));
    }
  }
  root_ = index_[root];
  stats_.nodes = nodes_.size();
  stats_.classes = classes_.size();

  // 5. Strongly connected components (iterative Tarjan); only non-trivial ones matter.
  {
    const size_t nc = classes_.size();
    std::vector<int32_t> idx(nc, -1), low(nc, 0);
    std::vector<uint8_t> onStack(nc, 0);
    std::vector<uint32_t> stack;
    int32_t counter = 0, sccCount = 0;
    struct Frame {
      uint32_t c;
      size_t node, kid;
    };
    for (uint32_t s = 0; s < nc; ++s) {
      if (idx[s] >= 0) continue;
      std::vector<Frame> call{{s, 0, 0}};
      idx[s] = low[s] = counter++;
      stack.push_back(s);
      onStack[s] = 1;
      while (!call.empty()) {
        Frame& f = call.back();
        const PClass& pc = classes_[f.c];
        if (f.node < pc.nodes.size()) {
          const PNode& pn = nodes_[pc.nodes[f.node]];
          if (f.kid < pn.kids.size()) {
            uint32_t k = pn.kids[f.kid++];
            if (idx[k] < 0) {
              idx[k] = low[k] = counter++;
              stack.push_back(k);
              onStack[k] = 1;
              call.push_back({k, 0, 0});
            } else if (onStack[k]) {
              low[f.c] = std::min(low[f.c], idx[k]);
            }
          } else {
            ++f.node;
            f.kid = 0;
          }
          continue;
        }
        uint32_t c = f.c;
        if (low[c] == idx[c]) {
          std::vector<uint32_t> comp;
          uint32_t w;
          do {
            w = stack.back();
            stack.pop_back();
            onStack[w] = 0;
            comp.push_back(w);
          } while (w != c);
          bool selfLoop = false;
          if (comp.size() == 1)
            for (uint32_t n : classes_[c].nodes)
              for (uint32_t k : nodes_[n].kids) selfLoop |= k == c;
          if (comp.size() > 1 || selfLoop) {
            for (uint32_t x : comp) classes_[x].scc = sccCount;
            ++sccCount;
            stats_.cyclicClasses += comp.size();
          }
        }
        call.pop_back();
        if (!call.empty()) low[call.back().c] = std::min(low[call.back().c], low[c]);
      }
    }
  }

  // 6. Which classes may use DSPs / a convolution unit (fixpoint over cycles too).
  for (bool changed = true; changed;) {
    changed = false;
    for (PClass& pc : classes_) {
      for (uint32_t n : pc.nodes) {
        const PNode& pn = nodes_[n];
        bool d = pn.cost.dim[kDsp].constant > 0, u = pn.cost.dim[kConvUnits].constant > 0;
        for (uint32_t k : pn.kids) {
          d |= classes_[k].mayUseDsp;
          u |= classes_[k].mayUseConvUnit;
        }
        if (d && !pc.mayUseDsp) pc.mayUseDsp = changed = true;
        if (u && !pc.mayUseConvUnit) pc.mayUseConvUnit = changed = true;
      }
    }
  }

  // 7. Roles.
  for (uint32_t ci = 0; ci < classes_.size(); ++ci) {
    PClass& pc = classes_[ci];
    bool leaves = true;
    for (uint32_t n : pc.nodes) {
      const PNode& pn = nodes_[n];
      if (!pn.kids.empty()) leaves = false;
      for (int d = 0; d < kDims; ++d)
        if (pn.cost.dim[d].constant != 0) leaves = false;
    }
    pc.free = leaves && ci != root_;
    pc.shareable = opts_.sharing && ci != root_ && pc.type->isFun() && g.freeVars(pc.id).closed() &&
                   (pc.mayUseDsp || pc.mayUseConvUnit) && pc.parents.size() >= 2;
    if (pc.shareable) {
      // The families of the skeletons under the class's lambdas.
      std::vector<uint32_t> frontier{ci};
      std::set<uint32_t> visited{ci};
      for (int depth = 0; depth < 8 && !frontier.empty(); ++depth) {
        std::vector<uint32_t> next;
        for (uint32_t c : frontier)
          for (uint32_t n : classes_[c].nodes) {
            const PNode& pn = nodes_[n];
            if (pn.op == ir::Op::Lam) {
              if (visited.insert(pn.kids[0]).second) next.push_back(pn.kids[0]);
            } else if (familyOf(pn.op) != Family::None) {
              pc.ownFamilies.insert(familyOf(pn.op));
            }
          }
        frontier = std::move(next);
      }
    }
    if (pc.free) ++stats_.freeClasses;
    if (pc.shareable) ++stats_.shareableClasses;
  }
  if (opts_.shrink) {
    for (uint32_t ci = 0; ci < classes_.size(); ++ci) {
      PClass& pc = classes_[ci];
      pc.absorbed = ci != root_ && !pc.free && !pc.shareable && pc.scc < 0 && pc.nodes.size() == 1 &&
                    pc.parents.size() == 1;
      if (pc.absorbed) ++stats_.absorbedClasses;
    }
  }

  // 8. Which classes have a compute time of their own (cost::NodeCost::compute): a node
  //    whose compute expression differs from its time's, or refers to such a class.
  for (bool changed = true; changed;) {
    changed = false;
    for (PClass& pc : classes_) {
      if (pc.hasCompute) continue;
      for (uint32_t n : pc.nodes) {
        const std::optional<CostExpr>& e = nodes_[n].cost.compute;
        if (!e) continue;
        // The expression with every child's compute time read as its time.
        CostExpr asTime = *e;
        bool viaChild = false;
        auto readTimes = [&](std::vector<CostExpr::Term>& terms) {
          for (CostExpr::Term& x : terms) {
            viaChild = viaChild || (x.compute && classes_[nodes_[n].kids[x.child]].hasCompute);
            x.compute = false;
          }
        };
        readTimes(asTime.linear);
        for (CostExpr::Floor& f : asTime.floors) readTimes(f.linear);
        if (viaChild || asTime != nodes_[n].cost.dim[kTime]) {
          pc.hasCompute = changed = true;
          break;
        }
      }
    }
  }

  // 9. The handover credits' callees, which lower the least times.
  if (model_->overlap()) findHandovers();

  // 10. Lower bound on time: Bellman-Ford style fixpoint of the cheapest tree time.
  minTime_ = leastTreeTime([](uint32_t, uint32_t) { return int64_t{-1}; }, {}, &minCompute_);
  if (onlyConv != egraph::kNoClass && opts_.convUnitLimit == 1 && index_[onlyConv] != kNone)
    raiseFloorsForOneUnit(index_[onlyConv]);
}

int64_t Problem::leastNodeTime(uint32_t n, std::span<const int64_t> use, std::span<const int64_t> compute) const {
  const PNode& pn = nodes_[n];
  const int64_t t = pn.cost.dim[kTime].evaluate(use, compute);
  if (handoverCallee(n) < 0) return t;
  return std::min(t, pn.cost.overlap->exposed.evaluate(use, compute));
}

void Problem::findHandovers() {
  callee_.assign(nodes_.size(), -1);
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    const PNode& pn = nodes_[n];
    if (!pn.cost.overlap) continue;
    const uint32_t f = pn.kids.at(cost::NodeCost::kFunctionChild);
    if (classes_[f].shareable) callee_[n] = f;
  }
  // Whether the root has a design of the nodes `allowed` takes: a fixpoint from the leaves.
  auto rootDerivable = [&](const std::function<bool(uint32_t)>& allowed) {
    std::vector<uint8_t> ok(classes_.size(), 0);
    for (bool changed = true; changed && !ok[root_];) {
      changed = false;
      for (uint32_t n = 0; n < nodes_.size(); ++n) {
        const PNode& pn = nodes_[n];
        if (ok[pn.cls] || !allowed(n)) continue;
        if (std::all_of(pn.kids.begin(), pn.kids.end(), [&](uint32_t k) { return ok[k] != 0; }))
          ok[pn.cls] = changed = true;
      }
    }
    return ok[root_] != 0;
  };
  // Every design has a unit that calls no shared function (a max-pool, say): no credits.
  if (!rootDerivable([&](uint32_t n) { return !nodes_[n].cost.startsUnit || callee_[n] >= 0; })) {
    callee_.assign(nodes_.size(), -1);
    return;
  }
  std::set<int64_t> callees(callee_.begin(), callee_.end());
  for (int64_t f : callees) {
    if (f < 0 || rootDerivable([&](uint32_t n) { return !nodes_[n].cost.startsUnit || callee_[n] == f; })) continue;
    for (int64_t& c : callee_)
      if (c == f) c = -1;
  }
}

std::vector<int64_t> Problem::leastTreeTime(const std::function<int64_t(uint32_t, uint32_t)>& childTime,
                                            const std::function<int64_t(uint32_t, int64_t)>& classTime,
                                            std::vector<int64_t>* leastCompute) const {
  std::vector<int64_t> best(classes_.size(), kCostCap);
  // The compute times: computed alongside, or the least ones over all designs (a lower
  // bound for every restricted one).
  std::vector<int64_t> computeOwn;
  if (leastCompute) computeOwn.assign(classes_.size(), kCostCap);
  const std::vector<int64_t>& bestCompute = leastCompute ? computeOwn : minCompute_;
  std::vector<int64_t> use, compute;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t ci = 0; ci < classes_.size(); ++ci) {
      int64_t b = best[ci], bc = leastCompute ? computeOwn[ci] : 0;
      for (uint32_t n : classes_[ci].nodes) {
        const PNode& pn = nodes_[n];
        use.clear();
        compute.clear();
        for (uint32_t i = 0; i < pn.kids.size(); ++i) {
          int64_t t = childTime(n, i);
          use.push_back(t >= 0 ? t : best[pn.kids[i]]);
          compute.push_back(bestCompute[pn.kids[i]]);
        }
        const int64_t nt = leastNodeTime(n, use, compute);
        b = std::min(b, nt);
        if (leastCompute) bc = std::min(bc, pn.cost.computeTime(use, compute, nt));
      }
      if (classTime) b = std::min(b, classTime(ci, b));
      if (b < best[ci]) {
        best[ci] = b;
        changed = true;
      }
      if (leastCompute && bc < computeOwn[ci]) {
        computeOwn[ci] = bc;
        changed = true;
      }
    }
  }
  if (leastCompute) *leastCompute = std::move(computeOwn);
  return best;
}

// With one convolution unit whose nodes all lie in class B, a design's tree holds B once,
// or several times and then every path from the root to an occurrence of B passes through
// a shared class. Let X be the lowest shared class above (or at) B: B has one instance, so
// every occurrence of B lies under a use of X, and X's body holds B once. A shared class's
// use costs COMMUNICATION_COST more. So every class's time is at least the least of
//   once(c): the least tree time with at most one occurrence of B, and, over X,
//   through(X, c): the least tree time in which B occurs only under X, each use of X
//   costing once(X) + COMMUNICATION_COST,
// which is what the per-class floors become (docs/extraction.md, "Lower bounds").
void Problem::raiseFloorsForOneUnit(uint32_t unit) {
  const size_t nc = classes_.size();
  // Classes from which B is reachable.
  std::vector<uint8_t> reachesUnit(nc, 0);
  reachesUnit[unit] = 1;
  for (bool changed = true; changed;) {
    changed = false;
    for (const PNode& pn : nodes_) {
      if (reachesUnit[pn.cls]) continue;
      for (uint32_t k : pn.kids)
        if (reachesUnit[k]) {
          reachesUnit[pn.cls] = changed = true;
          break;
        }
    }
  }
  // none(c): without B at all.
  std::vector<int64_t> none = leastTreeTime(
      [&](uint32_t n, uint32_t i) { return nodes_[n].kids[i] == unit ? kCostCap : int64_t{-1}; }, {});
  none[unit] = kCostCap;
  // once(c): one child slot may hold B once, the others none.
  std::vector<int64_t> once(nc, kCostCap);
  {
    std::vector<int64_t> use, compute;  // compute times: the least ones, a lower bound
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t ci = 0; ci < nc; ++ci) {
        int64_t b = std::min(once[ci], none[ci]);
        for (uint32_t n : classes_[ci].nodes) {
          const PNode& pn = nodes_[n];
          if (ci == unit) {
            use.clear();
            compute.clear();
            for (uint32_t k : pn.kids) {
              use.push_back(none[k]);
              compute.push_back(minCompute_[k]);
            }
            b = std::min(b, leastNodeTime(n, use, compute));
            continue;
          }
          for (uint32_t j = 0; j < pn.kids.size(); ++j) {
            if (!reachesUnit[pn.kids[j]]) continue;
            use.clear();
            compute.clear();
            for (uint32_t i = 0; i < pn.kids.size(); ++i) {
              use.push_back(i == j ? once[pn.kids[i]] : none[pn.kids[i]]);
              compute.push_back(minCompute_[pn.kids[i]]);
            }
            b = std::min(b, leastNodeTime(n, use, compute));
          }
        }
        if (b < once[ci]) {
          once[ci] = b;
          changed = true;
        }
      }
    }
  }
  // through(X, c): B occurs under X only, X's body holds it once, every use of X pays.
  std::vector<int64_t> floor = once;
  for (uint32_t x = 0; x < nc; ++x) {
    if (!classes_[x].shareable || !reachesUnit[x]) continue;
    const int64_t useX = satAdd(once[x], model_->communicationCost());
    std::vector<int64_t> through = leastTreeTime(
        [&](uint32_t n, uint32_t i) {
          uint32_t k = nodes_[n].kids[i];
          if (k == x) return useX;
          return k == unit ? kCostCap : int64_t{-1};
        },
        [&](uint32_t c, int64_t t) { return c == x ? useX : std::min(t, none[c]); });
    for (uint32_t c = 0; c < nc; ++c) floor[c] = std::min(floor[c], through[c]);
  }
  for (uint32_t c = 0; c < nc; ++c) {
    if (!reachesUnit[c]) continue;
    minTime_[c] = std::max(minTime_[c], floor[c]);
  }
}

}  // namespace skeleshare::extract
