#include "skeleshare/egraph/union_find.h"

#include <stdexcept>

namespace skeleshare::egraph {

uint32_t UnionFind::makeSet() {
  if (parent_.size() >= kNoClass) throw std::length_error("union-find: too many ids");
  auto id = static_cast<uint32_t>(parent_.size());
  parent_.push_back(id);
  size_.push_back(1);
  return id;
}

uint32_t UnionFind::winner(uint32_t a, uint32_t b) const {
  if (size_[a] != size_[b]) return size_[a] > size_[b] ? a : b;
  return a < b ? a : b;
}

uint32_t UnionFind::unite(uint32_t a, uint32_t b) {
  if (a == b) return a;
  uint32_t root = winner(a, b);
  uint32_t other = root == a ? b : a;
  parent_[other] = root;
  size_[root] += size_[other];
  return root;
}

}  // namespace skeleshare::egraph
