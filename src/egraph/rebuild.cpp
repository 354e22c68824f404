// Deferred rebuild (egg's "rebuilding"): restores congruence and the class invariants in
// one batch after any number of merges.

#include <algorithm>

#include "skeleshare/egraph/egraph.h"

namespace skeleshare::egraph {

size_t EGraph::rebuild() {
  size_t unionsBefore = unions_;
  while (!pending_.empty() || !analysisPending_.empty()) {
    // Congruence: re-canonicalise every node that used an absorbed class. A node that
    // becomes equal to another live node is a duplicate: it dies and the two classes merge
    // (which may schedule more nodes).
    while (!pending_.empty()) {
      NodeId p = pending_.back();
      pending_.pop_back();
      if (dead_[p]) continue;
      memo_.erase(p, hashes_);
      ENode& n = nodes_[p];
      for (ClassId& c : n.children()) c = uf_.findMut(c);
      hashes_[p] = n.hash();
      NodeId q = memo_.find(n, hashes_[p], nodes_);
      if (q == kNoClass) {
        memo_.insert(p, hashes_);
        continue;
      }
      dead_[p] = 1;
      --liveNodes_;
      // The dead node's children and class must drop it from their lists.
      touched_.push_back(uf_.findMut(p));
      for (ClassId c : n.children()) touched_.push_back(c);
      merge(p, q);
    }
    // Analysis: a class whose free set grew may grow its parents' sets.
    while (!analysisPending_.empty() && pending_.empty()) {
      NodeId p = analysisPending_.back();
      analysisPending_.pop_back();
      if (dead_[p]) continue;
      EClass& cls = classes_[uf_.findMut(p)];
      FreeVars grown = cls.free | makeFree(nodes_[p]);
      if (grown == cls.free) continue;
      cls.free = grown;
      analysisPending_.insert(analysisPending_.end(), cls.parents.begin(), cls.parents.end());
    }
  }
  rebuildClasses();
  rebuildOpIndex();
  return unions_ - unionsBefore;
}

void EGraph::rebuildClasses() {
  for (ClassId& c : touched_) c = uf_.findMut(c);
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  auto isDead = [this](NodeId id) { return dead_[id] != 0; };
  for (ClassId c : touched_) {
    EClass& cls = classes_[c];
    cls.nodes.erase(std::remove_if(cls.nodes.begin(), cls.nodes.end(), isDead), cls.nodes.end());
    // By operator, then id: the matcher binary-searches a class's nodes by operator.
    std::sort(cls.nodes.begin(), cls.nodes.end(), [this](NodeId a, NodeId b) {
      ir::Op oa = nodes_[a].op(), ob = nodes_[b].op();
      return oa != ob ? oa < ob : a < b;
    });
    cls.parents.erase(std::remove_if(cls.parents.begin(), cls.parents.end(), isDead),
                      cls.parents.end());
    std::sort(cls.parents.begin(), cls.parents.end());
    cls.parents.erase(std::unique(cls.parents.begin(), cls.parents.end()), cls.parents.end());
  }
  touched_.clear();
}

void EGraph::rebuildOpIndex() {
  if (!opIndexStale_) return;
  // One ascending scan of the canonical classes; a class's nodes are sorted by operator,
  // so each list comes out sorted and duplicate-free without sorting.
  for (auto& list : byOp_) list.clear();
  for (ClassId c = 0; c < classes_.size(); ++c) {
    if (uf_.find(c) != c) continue;
    const std::vector<NodeId>& nodes = classes_[c].nodes;
    for (size_t i = 0; i < nodes.size(); ++i) {
      ir::Op op = nodes_[nodes[i]].op();
      if (i == 0 || nodes_[nodes[i - 1]].op() != op) byOp_[static_cast<size_t>(op)].push_back(c);
    }
  }
  opIndexStale_ = false;
}

}  // namespace skeleshare::egraph
