#pragma once
// The hash-cons memo: a set of node ids keyed by the contents of the nodes they name.
//
// Open addressing with linear probing and backward-shift deletion (no tombstones). A slot
// holds the node id and 32 bits of its hash, so most mismatches never touch the node.
// The table does not own the nodes: the caller passes the node table to lookups and keeps
// the hash each node was inserted with (`hashes[id]`), which erasing needs after the node
// has been changed in place by canonicalisation, and growing needs to re-home entries.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "skeleshare/egraph/enode.h"
#include "skeleshare/egraph/ids.h"

namespace skeleshare::egraph {

class NodeMemo {
 public:
  NodeMemo();

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

  /// The id of a node equal to `n`, or kNoClass.
  NodeId find(const ENode& n, uint64_t hash, const std::vector<ENode>& nodes) const;
  /// Inserts `id` (whose node must not be in the table yet); `hashes[id]` is its hash.
  void insert(NodeId id, const std::vector<uint64_t>& hashes);
  /// Removes `id` (inserted with hash `hashes[id]`). Returns false when it was absent.
  bool erase(NodeId id, const std::vector<uint64_t>& hashes);
  void clear();

 private:
  struct Slot {
    NodeId id = kNoClass;
    uint32_t tag = 0;
  };
  static uint32_t tagOf(uint64_t h) { return static_cast<uint32_t>(h >> 32); }
  size_t home(uint64_t h) const { return static_cast<size_t>(h) & mask_; }
  void grow(const std::vector<uint64_t>& hashes);

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace skeleshare::egraph
