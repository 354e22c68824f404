#pragma once
// The extraction problem: the part of an e-graph that can appear in a design rooted at a
// class, shrunk before it is encoded (docs/extraction.md, "Shrinking"), with every node's
// cost expressions and every class's role. Classes and nodes get dense indices here; the
// selection, the greedy extractor, the SMT encoding and the outliner all use them.

#include <array>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "skeleshare/cost/cost_model.h"
#include "skeleshare/egraph/egraph.h"

namespace skeleshare::extract {

struct ProblemOptions {
  /// Off: no class is shareable (--no-sharing): every use is a copy.
  bool sharing = true;
  /// --single-abstraction: a shared unit may only be used by skeletons of its own family.
  bool singleAbstraction = false;
  /// Drop dominated nodes and absorb single-parent classes (off only to test that
  /// shrinking does not change the optimum).
  bool shrink = true;
  /// When set, hardware convolution nodes (cost::isConvUnit) are kept only in this e-graph
  /// class: the sub-problem of the designs whose one convolution unit lies there.
  egraph::ClassId onlyConvClass = egraph::kNoClass;
  /// When >= 0: drop the nodes every design through which needs more DSPs (resp. hardware
  /// convolution units) than this. A design counts each used class's own DSPs at least once,
  /// so the constants along any path of a node's subterm bound its DSPs from below
  /// (docs/extraction.md, "Limit pruning").
  int64_t dspLimit = -1;
  int64_t convUnitLimit = -1;
};

struct PNode {
  egraph::NodeId id = 0;         // e-graph node
  uint32_t cls = 0;              // dense class index
  ir::Op op{};
  std::vector<uint32_t> kids;    // dense class indices, in child order
  cost::NodeCost cost;
};

struct PClass {
  egraph::ClassId id = 0;        // canonical e-graph class
  const ir::Type* type = nullptr;
  std::vector<uint32_t> nodes;   // dense node indices, in the e-graph's class order
  std::vector<uint32_t> parents; // dense node indices of the users, one entry per use
  /// May be shared: closed, of function type, may use DSPs or a convolution unit, used at
  /// least twice (docs/extraction.md, "Which classes may be shared").
  bool shareable = false;
  /// Every node is a leaf of cost zero (variables, inputs, constants): never encoded.
  bool free = false;
  /// One node and one use: selected exactly when its user is (the paper's agglomeration).
  bool absorbed = false;
  bool mayUseDsp = false;
  bool mayUseConvUnit = false;
  /// Some node's compute time differs from its time (cost::NodeCost::compute); otherwise
  /// the class's compute time is its time.
  bool hasCompute = false;
  /// Strongly connected component id when the class lies on a cycle, else -1.
  int32_t scc = -1;
  /// Families of the skeletons the class's function evaluates to (for single abstraction).
  std::set<cost::Family> ownFamilies;
};

struct ProblemStats {
  size_t egraphNodes = 0, egraphClasses = 0;
  size_t reachableNodes = 0, reachableClasses = 0;
  size_t unextractableNodes = 0;
  size_t excludedConvNodes = 0;  // outside ProblemOptions::onlyConvClass
  size_t unlowerableNodes = 0;   // refused by the lowering (the cost model's load oracle)
  size_t dominatedNodes = 0;
  size_t selfDependentNodes = 0;  // need their own class: on every path a cycle
  size_t overLimitNodes = 0;  // need more DSPs / convolution units than the limits allow
  size_t nodes = 0, classes = 0;  // kept
  size_t freeClasses = 0, absorbedClasses = 0, shareableClasses = 0, cyclicClasses = 0;
  std::string str() const;
};

class Problem {
 public:
  /// `g` must be clean and outlive the problem. Throws std::runtime_error when the root
  /// has no finite term (unless onlyConvClass or the lowering excluded every way: then
  /// feasible() is false and the problem is empty; loweringExcludedAll() says which).
  Problem(const egraph::EGraph& g, const cost::CostModel& model, egraph::ClassId root,
          const ProblemOptions& opts = {});

  const egraph::EGraph& egraph() const { return *g_; }
  bool feasible() const { return feasible_; }
  /// The root has a term, but every one contains a node the lowering refuses.
  bool loweringExcludedAll() const { return loweringExcludedAll_; }
  const cost::CostModel& model() const { return *model_; }
  const ProblemOptions& options() const { return opts_; }
  uint32_t root() const { return root_; }
  const std::vector<PNode>& nodes() const { return nodes_; }
  const std::vector<PClass>& classes() const { return classes_; }
  const PNode& node(uint32_t n) const { return nodes_[n]; }
  const PClass& cls(uint32_t c) const { return classes_[c]; }
  /// Dense index of an e-graph class, or UINT32_MAX when it was dropped.
  uint32_t indexOf(egraph::ClassId c) const;
  const ProblemStats& stats() const { return stats_; }
  /// The lowest use time of each class over all selections, sharing ignored (sharing only
  /// adds time, but for a caller's handover credit, which leastNodeTime takes): a lower
  /// bound on any design's time.
  const std::vector<int64_t>& minTime() const { return minTime_; }
  /// The lowest compute time of each class, likewise.
  const std::vector<int64_t>& minCompute() const { return minCompute_; }
  /// With limits: the fewest convolution units any design of the root needs (a lower
  /// bound; exact without sharing), computed before any node was dropped.
  int64_t rootMinConvUnits() const { return rootMinConvUnits_; }
  /// With --overlap: the shareable function class that node n calls and may be credited
  /// for (cost::NodeCost::overlap), where some design has every unit call that class and
  /// no other; else -1. Only such a design hands its instance over from unit to unit.
  int64_t handoverCallee(uint32_t n) const { return callee_.empty() ? -1 : callee_[n]; }
  /// The least time of a node given its children's: its time, or, when it has a handover
  /// callee, its credited time (NodeCost::overlap), whichever is less. Lower bounds take
  /// this one.
  int64_t leastNodeTime(uint32_t n, std::span<const int64_t> use, std::span<const int64_t> compute) const;

 private:
  void build(egraph::ClassId root);
  /// Bellman-Ford fixpoint of the least tree time per class. `childTime(node, slot)` >= 0
  /// overrides a child's time; `classTime(class, t)` may lower a class's time t. With
  /// `leastCompute` the least compute times are computed alongside (and stored there);
  /// without, the children's compute times are minCompute().
  std::vector<int64_t> leastTreeTime(const std::function<int64_t(uint32_t, uint32_t)>& childTime,
                                     const std::function<int64_t(uint32_t, int64_t)>& classTime,
                                     std::vector<int64_t>* leastCompute = nullptr) const;
  void raiseFloorsForOneUnit(uint32_t unit);
  void findHandovers();
  const egraph::EGraph* g_;
  const cost::CostModel* model_;
  ProblemOptions opts_;
  uint32_t root_ = 0;
  std::vector<PNode> nodes_;
  std::vector<PClass> classes_;
  std::vector<uint32_t> index_;  // by e-graph class id
  std::vector<int64_t> minTime_, minCompute_;
  std::vector<int64_t> callee_;  // handoverCallee by node; empty without --overlap
  ProblemStats stats_;
  bool feasible_ = true;
  bool loweringExcludedAll_ = false;
  int64_t rootMinConvUnits_ = 0;
};

}  // namespace skeleshare::extract
