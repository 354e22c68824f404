#include "skeleshare/lower/overlap.h"

#include <set>

#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

namespace {

int elementBytes(const Program& prog, const Node& n) { return prog.buffers.at(static_cast<size_t>(n.buffer)).bits / 8; }

}  // namespace

OverlapPlan planOverlap(const Program& prog) {
  OverlapPlan plan;
  plan.withPrevious.assign(prog.units.size(), false);
  // every buffer's writers, as (unit, Write node)
  std::map<int, std::vector<std::pair<size_t, uint32_t>>> writers;
  for (size_t u = 0; u < prog.units.size(); ++u)
    for (size_t i = 0; i < prog.units[u].nodes.size(); ++i)
      if (prog.units[u].nodes[i].prim == Prim::Write) writers[prog.units[u].nodes[i].buffer].push_back({u, static_cast<uint32_t>(i)});
  auto accessed = [&](size_t u, Prim p) {
    std::set<int> b;
    for (const Node& n : prog.units[u].nodes)
      if (n.prim == p) b.insert(n.buffer);
    return b;
  };
  for (size_t u = 1; u < prog.units.size(); ++u) {
    const std::set<int> prevReads = accessed(u - 1, Prim::Read), prevWrites = accessed(u - 1, Prim::Write);
    bool ok = true;
    for (int b : accessed(u, Prim::Write)) ok = ok && !prevReads.count(b) && !prevWrites.count(b);
    std::map<std::pair<size_t, uint32_t>, uint32_t> gated;
    const Unit& unit = prog.units[u];
    for (size_t i = 0; ok && i < unit.nodes.size(); ++i) {
      const Node& read = unit.nodes[i];
      if (read.prim != Prim::Read || !prevWrites.count(read.buffer)) continue;
      const auto& ws = writers.at(read.buffer);
      ok = ws.size() == 1;
      if (!ok) break;
      const Node& write = prog.units[u - 1].nodes.at(ws[0].second);
      const int64_t lanes = prog.units[u - 1].nodes.at(write.operands.at(0)).type.vectorLanes();
      ok = writeLinesRise(write.addr, elementBytes(prog, write), lanes);
      gated[{u, static_cast<uint32_t>(i)}] = ws[0].second;
    }
    if (!ok) continue;
    plan.withPrevious[u] = true;
    plan.gatedOn.insert(gated.begin(), gated.end());
  }
  return plan;
}

void applyOverlap(Program& prog, int64_t onChipBudgetBits) {
  // Two neighbours that run at once share no RAM (line RAMs, replay-pool slots), so each
  // overlap may cost blocks: in schedule order, a unit starts with the one before it only
  // while the design's RAMs still fit the device.
  const std::vector<bool> may = planOverlap(prog).withPrevious;
  prog.startsWithPrevious.assign(prog.units.size(), false);
  for (size_t u = 0; u < may.size(); ++u) {
    if (!may[u]) continue;
    prog.startsWithPrevious[u] = true;
    if (programResources(prog).m20kBlocks * kM20kBits > onChipBudgetBits) prog.startsWithPrevious[u] = false;
  }
}

std::map<uint32_t, uint32_t> gatedReads(const Program& prog, size_t u) {
  std::map<uint32_t, uint32_t> reads;
  if (prog.firstShared(u) == u) return reads;
  for (const auto& [key, write] : planOverlap(prog).gatedOn)
    if (key.first == u) reads[key.second] = write;
  return reads;
}

}  // namespace skeleshare::lower
