#pragma once
// The e-graph: union-find + hash-cons memo + e-classes with nodes and parents, congruence
// restored by a deferred rebuild (egg's design), typed and De Bruijn aware.
//
// Ids. Every new e-node gets a fresh NodeId, which is also the id of the singleton class
// it creates; union-find works over these ids, so find(node id) is the node's class.
//
// Invariants after rebuild() (the e-graph is "clean"):
//  - every live node's children are canonical class ids, and no two live nodes are equal
//    (the memo holds each live node exactly once);
//  - a class's `nodes` lists its live nodes ordered by operator, then id; its `parents`
//    the live nodes that use it, ascending and without repetitions;
//  - classesWithOp(op) lists, ascending, the canonical classes holding a node with op.
// Between rebuilds, add() and merge() may leave duplicates and stale ids, as in egg.
//
// Analyses: every class has exactly one type (ir::inferType of its first node; merging
// classes of different types throws TypeMismatchError), a set of free De Bruijn indices
// (merge = union, propagated to parents during rebuild), and the e-graph keeps the sorted
// set of all array dimensions occurring in class types.
//
// Determinism: no container is iterated in an order that depends on addresses or hash
// values, so the same sequence of calls gives the same ids and the same e-graph.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "skeleshare/egraph/analysis.h"
#include "skeleshare/egraph/enode.h"
#include "skeleshare/egraph/errors.h"
#include "skeleshare/egraph/hashcons.h"
#include "skeleshare/egraph/ids.h"
#include "skeleshare/egraph/union_find.h"
#include "skeleshare/ir/context.h"

namespace skeleshare::egraph {

struct EClass {
  ClassId id = kNoClass;
  const ir::Type* type = nullptr;
  FreeVars free;
  std::vector<NodeId> nodes;
  std::vector<NodeId> parents;
};

class EGraph {
 public:
  explicit EGraph(ir::Context& ctx);
  EGraph(const EGraph&) = delete;
  EGraph& operator=(const EGraph&) = delete;

  ir::Context& context() const { return *ctx_; }

  // ---- building ----------------------------------------------------------------
  /// Adds a node (children are canonicalised first) and returns its class: the existing
  /// one when an equal node is present. Throws IllTypedNodeError when the operator's type
  /// rule rejects the node, and EGraphError for a child id that does not exist.
  ClassId add(ENode node);
  /// Like add, but returns kNoClass and sets `error` ("<node>: <reason>") instead of
  /// throwing on a type error.
  ClassId tryAdd(ENode node, std::string& error);
  /// Adds a term and all its sub-terms; returns the class of the term.
  ClassId addTerm(const ir::Term* term);
  /// The class of a node equal to `node` (children canonicalised), or kNoClass. Exact
  /// only on a clean e-graph.
  ClassId lookup(ENode node) const;
  /// The class of `term` when every sub-term is present, or kNoClass.
  ClassId lookupTerm(const ir::Term* term) const;
  /// Unites two classes. Returns false when they already were one. Throws
  /// TypeMismatchError (naming both types) when their types differ, leaving the e-graph
  /// unchanged.
  bool merge(ClassId a, ClassId b);
  /// Restores the invariants above. Returns the number of unions rebuild performed
  /// (congruence closure).
  size_t rebuild();
  bool clean() const { return pending_.empty() && analysisPending_.empty() && touched_.empty() && !opIndexStale_; }

  // ---- union-find --------------------------------------------------------------
  ClassId find(ClassId id) const { return uf_.find(id); }
  ClassId findMut(ClassId id) { return uf_.findMut(id); }

  // ---- inspection --------------------------------------------------------------
  /// The class `id` belongs to (any id of the class may be given).
  const EClass& eclass(ClassId id) const { return classes_[find(id)]; }
  const ENode& node(NodeId id) const { return nodes_[id]; }
  /// True for nodes removed as duplicates of a congruent node.
  bool dead(NodeId id) const { return dead_[id] != 0; }
  const ir::Type* typeOf(ClassId id) const { return eclass(id).type; }
  FreeVars freeVars(ClassId id) const { return eclass(id).free; }
  /// Canonical classes holding a node with operator `op`, ascending (clean e-graph).
  std::span<const ClassId> classesWithOp(ir::Op op) const {
    return byOp_[static_cast<size_t>(op)];
  }
  /// All canonical class ids, ascending.
  std::vector<ClassId> classIds() const;
  /// All array dimensions present in the types of the classes, ascending, no repetitions.
  const std::vector<int64_t>& dimensions() const { return dims_; }
  bool hasDimension(int64_t d) const;

  /// Distinct live e-nodes (the size of the hash-cons memo).
  size_t nodeCount() const { return liveNodes_; }
  /// Canonical e-classes.
  size_t classCount() const { return classCount_; }
  /// Ids handed out so far (live and dead nodes).
  size_t idCount() const { return nodes_.size(); }
  /// Unions performed since construction (by merge and by rebuild).
  size_t unionCount() const { return unions_; }
  /// Bytes held by the e-graph's own containers (capacity, not just size): an estimate
  /// that ignores allocator overhead.
  size_t memoryBytes() const;

 private:
  void canonicalise(ENode& node);
  ClassId addCanonical(ENode& node, std::string& error);
  void noteType(const ir::Type* t);
  FreeVars makeFree(const ENode& n) const;
  void rebuildClasses();
  void rebuildOpIndex();

  ir::Context* ctx_;
  TypeInference types_;
  UnionFind uf_;
  std::vector<ENode> nodes_;      // by NodeId; canonicalised in place by rebuild
  std::vector<uint64_t> hashes_;  // hash each live node is in the memo with
  std::vector<uint8_t> dead_;
  std::vector<EClass> classes_;   // by ClassId; only canonical entries are meaningful
  NodeMemo memo_;
  std::vector<std::vector<ClassId>> byOp_;
  std::vector<NodeId> pending_;          // nodes whose children may be stale
  std::vector<NodeId> analysisPending_;  // nodes whose class analysis may need to grow
  std::vector<ClassId> touched_;         // classes whose lists need cleaning
  bool opIndexStale_ = false;
  std::vector<int64_t> dims_;
  std::vector<uint8_t> typeSeen_;  // by ir::Type::id
  size_t liveNodes_ = 0;
  size_t classCount_ = 0;
  size_t unions_ = 0;
};

}  // namespace skeleshare::egraph
