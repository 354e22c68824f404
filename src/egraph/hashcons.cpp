#include "skeleshare/egraph/hashcons.h"

namespace skeleshare::egraph {

namespace {
constexpr size_t kInitialCapacity = 64;
}

NodeMemo::NodeMemo() { clear(); }

void NodeMemo::clear() {
  slots_.assign(kInitialCapacity, Slot{});
  mask_ = kInitialCapacity - 1;
  size_ = 0;
}

NodeId NodeMemo::find(const ENode& n, uint64_t hash, const std::vector<ENode>& nodes) const {
  uint32_t tag = tagOf(hash);
  for (size_t i = home(hash);; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.id == kNoClass) return kNoClass;
    if (s.tag == tag && nodes[s.id] == n) return s.id;
  }
}

void NodeMemo::insert(NodeId id, const std::vector<uint64_t>& hashes) {
  // Keep the load factor at most 3/4.
  if ((size_ + 1) * 4 > slots_.size() * 3) grow(hashes);
  uint64_t h = hashes[id];
  size_t i = home(h);
  while (slots_[i].id != kNoClass) i = (i + 1) & mask_;
  slots_[i] = Slot{id, tagOf(h)};
  ++size_;
}

bool NodeMemo::erase(NodeId id, const std::vector<uint64_t>& hashes) {
  size_t i = home(hashes[id]);
  for (;; i = (i + 1) & mask_) {
    if (slots_[i].id == kNoClass) return false;
    if (slots_[i].id == id) break;
  }
  // Backward-shift deletion: pull later entries of the probe run into the hole whenever
  // the hole lies cyclically between their home slot and their current slot.
  size_t hole = i;
  for (size_t j = (hole + 1) & mask_; slots_[j].id != kNoClass; j = (j + 1) & mask_) {
    size_t h = home(hashes[slots_[j].id]);
    bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
    if (movable) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
  --size_;
  return true;
}

void NodeMemo::grow(const std::vector<uint64_t>& hashes) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kNoClass) continue;
    size_t i = home(hashes[s.id]);
    while (slots_[i].id != kNoClass) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace skeleshare::egraph
