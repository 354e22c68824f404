#include "skeleshare/lower/replay_pool.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

#include "skeleshare/lower/runs.h"

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

int64_t replayWriteBeats(const Program& prog, const Unit& unit, uint32_t repeat) {
  const uint32_t in = unit.nodes.at(repeat).operands.at(0);
  const Node& read = unit.nodes[in];
  if (read.prim != Prim::Read) return 1;
  for (const Node& n : unit.nodes)
    for (uint32_t o : n.operands)
      if (o == in && &n != &unit.nodes[repeat]) return 1;
  const int64_t lanes = read.type.vectorLanes();
  const int bytes = prog.buffers.at(static_cast<size_t>(read.buffer)).bits / 8;
  const int64_t perCycle = readPerCycle(lanes, bytes);
  int log = 0;
  while ((int64_t{1} << log) < perCycle) ++log;
  const int64_t beat = int64_t{1} << log;
  if (lanes <= beat || !readRunsStayInBlocks(read.addr, bytes, lanes, beat, kMaxAlignedRuns)) return 1;
  return lanes / beat;
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
      if (fresh) pool.slots.push_back({b.shape.width, 0, 1, {}});
      ReplaySlot& slot = pool.slots[it->second];
      slot.words = std::max(slot.words, b.shape.words);
      slot.users.push_back({u, b.node});
      pool.slotOf[{u, b.node}] = it->second;
      const int64_t beats = replayWriteBeats(prog, unit, b.node);
      pool.beatsOf[{u, b.node}] = beats;
      slot.beats = std::max(slot.beats, beats);
    }
  }
  // A user writes the largest number of beats that divides both its own and its slot's:
  // a divisor of its own keeps every run inside a beat, one of the slot's a beat inside a
  // slot beat (the user's beats are the slot's taken in groups).
  for (auto& [user, beats] : pool.beatsOf) beats = std::gcd(beats, pool.slots[pool.slotOf.at(user)].beats);
  return pool;
}

}  // namespace skeleshare::lower
