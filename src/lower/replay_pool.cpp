#include "skeleshare/lower/replay_pool.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace skeleshare::lower {

ReplayShape replayShape(const Unit& unit, const Node& repeat) {
  const MType& in = unit.nodes.at(repeat.operands.at(0)).type;
  int64_t block = 1;
  for (size_t d = static_cast<size_t>(repeat.params.at(1)); d < in.numStreamDims(); ++d) block *= in.dims[d].extent;
  return {in.vectorLanes() * in.bits, 2 * block};
}

int64_t ReplayPool::bits() const {
  int64_t b = 0;
  for (const auto& s : slots) b += s.bits();
  return b;
}

std::optional<uint32_t> replayedRepeat(const Unit& unit, uint32_t n) {
  while (reshapesOnly(unit.nodes.at(n).prim)) n = unit.nodes[n].operands.at(0);
  if (unit.nodes[n].prim != Prim::Repeat) return std::nullopt;
  return n;
}

ReplayPool planReplayPool(const Program& prog) {
  ReplayPool pool;
  // (width, rank within its unit, side) -> slot. A unit that starts with the one before it
  // runs beside it, so it takes slots of its own side (the parity of its index) that the
  // units beside it, of the other side or of none (-1), never use.
  std::map<std::tuple<int64_t, size_t, int>, size_t> slotByKey;
  for (size_t u = 0; u < prog.units.size(); ++u) {
    const Unit& unit = prog.units[u];
    struct Buf {
      uint32_t node;
      ReplayShape shape;
    };
    std::vector<Buf> bufs;
    for (size_t i = 0; i < unit.nodes.size(); ++i) {
      if (unit.nodes[i].prim != Prim::Repeat) continue;
      if (unit.call && std::binary_search(unit.call->datapath.begin(), unit.call->datapath.end(), static_cast<uint32_t>(i)))
        continue;
      bufs.push_back({static_cast<uint32_t>(i), replayShape(unit, unit.nodes[i])});
    }
    // What a shared instance reads first, so that every call's operand is in the same slot
    // where it can be (the instance reads that RAM with no multiplexer between the calls:
    // an 8,192-bit one in TinyYolo v2, whose layer 2 replays its weights twice); then
    // deepest first. A stable order for equal keys keeps the plan deterministic.
    std::set<uint32_t> fed;  // the Repeats a shared instance reads (from the pool RAM)
    for (uint32_t o : callOperands(unit))
      if (auto r = replayedRepeat(unit, o)) fed.insert(*r);
    auto key = [&](const Buf& b) { return std::pair{fed.count(b.node) ? 1 : 0, b.shape.words}; };
    std::stable_sort(bufs.begin(), bufs.end(), [&](const Buf& a, const Buf& b) { return key(a) > key(b); });
    std::map<int64_t, size_t> rank;  // width -> buffers of that width placed so far
    const int side = prog.firstShared(u) != u ? static_cast<int>(u % 2) : -1;
    for (const Buf& b : bufs) {
      const std::tuple<int64_t, size_t, int> key{b.shape.width, rank[b.shape.width]++, side};
      auto [it, fresh] = slotByKey.try_emplace(key, pool.slots.size());
      if (fresh) pool.slots.push_back({b.shape.width, 0, {}});
      ReplaySlot& slot = pool.slots[it->second];
      slot.words = std::max(slot.words, b.shape.words);
      slot.users.push_back({u, b.node});
      pool.slotOf[{u, b.node}] = it->second;
    }
  }
  return pool;
}

}  // namespace skeleshare::lower
