#pragma once
// Union-find over dense ids with path compression and deterministic union by size.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "skeleshare/egraph/ids.h"

namespace skeleshare::egraph {

class UnionFind {
 public:
  /// Adds a singleton set; its id is the number of sets made before.
  uint32_t makeSet();
  size_t size() const { return parent_.size(); }

  /// The root of `x`'s set, without path compression (usable on a const snapshot).
  uint32_t find(uint32_t x) const {
    while (parent_[x] != x) x = parent_[x];
    return x;
  }
  /// The root of `x`'s set; compresses the path (path halving).
  uint32_t findMut(uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  /// Unites the sets of two *roots*. The larger set's root survives; on equal sizes, the
  /// smaller id. Returns the surviving root.
  uint32_t unite(uint32_t rootA, uint32_t rootB);
  /// Which root `unite(a, b)` would keep, without changing anything.
  uint32_t winner(uint32_t rootA, uint32_t rootB) const;
  uint32_t setSize(uint32_t root) const { return size_[root]; }

 private:
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> size_;
};

}  // namespace skeleshare::egraph
