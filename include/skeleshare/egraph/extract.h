#pragma once
// Extraction of terms from e-classes, for tests and debugging (the real extractor, with
// costs and sharing, is a later stage).
//
// SmallestExtractor: the term with the fewest nodes (tree size), computed as a fixpoint
// over all classes; ties are broken by the class's node order (operator, then id), so the
// result is deterministic. RandomExtractor: a random node per class (seeded), restricted
// to nodes whose children have a finite smallest term and that do not close a cycle with
// the classes being extracted above them; past a depth guard it falls back to the
// smallest term. Both build hash-consed ir::Terms through the e-graph's ir::Context.

#include <cstdint>
#include <vector>

#include "skeleshare/egraph/egraph.h"
#include "skeleshare/ir/term.h"

namespace skeleshare::egraph {

class SmallestExtractor {
 public:
  static constexpr uint64_t kInfinite = UINT64_MAX;

  /// Computes the sizes; `g` must be clean and must outlive the extractor.
  explicit SmallestExtractor(const EGraph& g);

  /// Tree size of the smallest term of class `c` (kInfinite when it has none: every node
  /// depends on a cycle).
  uint64_t size(ClassId c) const { return size_[g_.find(c)]; }
  /// The node chosen for `c`, or kNoClass when its size is infinite.
  NodeId bestNode(ClassId c) const { return best_[g_.find(c)]; }
  /// Tree size of a node given the sizes of its children's classes (saturating).
  uint64_t nodeSize(NodeId n) const;
  /// The smallest term of `c`. Throws EGraphError when there is none.
  const ir::Term* extract(ClassId c) const;

 private:
  const EGraph& g_;
  std::vector<uint64_t> size_;  // by class id
  std::vector<NodeId> best_;
  mutable std::vector<const ir::Term*> terms_;
};

class RandomExtractor {
 public:
  /// `g` must be clean and outlive the extractor.
  RandomExtractor(const EGraph& g, uint64_t seed, uint32_t maxDepth = 64);

  /// A random term of class `c`. Choices are made once per class and reused, so one
  /// extractor gives one consistent selection; new seeds give new selections.
  const ir::Term* extract(ClassId c);
  /// The node chosen for `c` by the last extract() that reached it (kNoClass otherwise;
  /// also kNoClass when `c` fell back to its smallest term).
  NodeId chosen(ClassId c) const { return chosen_[g_.find(c)]; }

 private:
  const ir::Term* build(ClassId c, uint32_t depth);
  uint64_t next();

  const EGraph& g_;
  SmallestExtractor smallest_;
  uint64_t state_;
  uint32_t maxDepth_;
  std::vector<const ir::Term*> terms_;
  std::vector<NodeId> chosen_;
  std::vector<uint8_t> onStack_;
};

}  // namespace skeleshare::egraph
