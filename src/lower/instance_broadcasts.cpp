#include "skeleshare/lower/instance_broadcasts.h"

#include <algorithm>
#include <utility>

namespace skeleshare::lower {

namespace {

std::vector<std::vector<uint32_t>> consumersOf(const Unit& u) {
  std::vector<std::vector<uint32_t>> cs(u.nodes.size());
  for (size_t j = 0; j < u.nodes.size(); ++j)
    for (uint32_t o : u.nodes[j].operands) cs[o].push_back(static_cast<uint32_t>(j));
  return cs;
}

/// A Broadcast whose only consumer splits or joins stream dimensions trades places with
/// it (both are wires; the one changes vector dimensions, the other stream dimensions),
/// until the Broadcast meets the node that uses its lanes. Node indices stay ordered: the
/// split or join takes the Broadcast's index, the Broadcast the split's.
void sinkBroadcasts(const Program& prog, Unit& u) {
  for (size_t start = 0; start < u.nodes.size(); ++start) {
    for (size_t i = start; u.nodes[i].prim == Prim::Broadcast;) {
      const auto cs = consumersOf(u);
      if (cs[i].size() != 1) break;
      const uint32_t j = cs[i][0];
      const Prim p = u.nodes[j].prim;
      if (p != Prim::SplitStm && p != Prim::JoinStm) break;
      Node broadcast = u.nodes[i], pass = u.nodes[j];
      pass.operands = broadcast.operands;
      pass.type = inferType(prog, u, pass);
      u.nodes[i] = pass;
      broadcast.operands = {static_cast<uint32_t>(i)};
      broadcast.type = inferType(prog, u, broadcast);
      u.nodes[j] = broadcast;
      i = j;  // follow the Broadcast
    }
  }
}

/// The call's datapath with every Broadcast added that only datapath nodes consume.
std::vector<uint32_t> withBroadcasts(const Unit& u) {
  std::vector<uint32_t> dp = u.call->datapath;
  auto inside = [&](uint32_t n) { return std::binary_search(dp.begin(), dp.end(), n); };
  const auto consumers = consumersOf(u);
  std::vector<uint32_t> added;
  for (size_t i = 0; i < u.nodes.size(); ++i) {
    const auto n = static_cast<uint32_t>(i);
    if (u.nodes[i].prim != Prim::Broadcast || inside(n)) continue;
    const auto& cs = consumers[n];
    if (!cs.empty() && std::all_of(cs.begin(), cs.end(), inside)) added.push_back(n);
  }
  dp.insert(dp.end(), added.begin(), added.end());
  std::sort(dp.begin(), dp.end());
  return dp;
}

}  // namespace

size_t absorbBroadcasts(Program& prog) {
  size_t grown = 0;
  for (size_t k = 0; k < prog.instances.size(); ++k) {
    std::vector<std::pair<Unit*, std::vector<uint32_t>>> before;
    bool changed = false;
    for (Unit& u : prog.units) {
      if (!u.call || u.call->instance != static_cast<int>(k)) continue;
      sinkBroadcasts(prog, u);
      std::vector<uint32_t> dp = withBroadcasts(u);
      changed = changed || dp != u.call->datapath;
      before.push_back({&u, std::exchange(u.call->datapath, std::move(dp))});
    }
    if (!changed) continue;
    if (!checkInstanceCalls(prog, k).empty()) {  // the calls would no longer agree: keep them
      for (auto& [u, dp] : before) u->call->datapath = std::move(dp);
      continue;
    }
    for (const auto& [u, dp] : before) grown += dp != u->call->datapath;
  }
  return grown;
}

}  // namespace skeleshare::lower
