#include "skeleshare/lower/overlap.h"

#include <optional>
#include <set>

#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

namespace {

int elementBytes(const Program& prog, const Node& n) { return prog.buffers.at(static_cast<size_t>(n.buffer)).bits / 8; }

/// Wires in hardware: the same transfers, lanes renamed or copied.
bool isWire(Prim p) {
  return reshapesOnly(p) || p == Prim::Broadcast || p == Prim::Slide || p == Prim::SelectLanes || p == Prim::PermuteVec;
}

/// One result for each step it takes; the joins among them take all operands in one transfer.
bool isPerStep(Prim p) {
  switch (p) {
    case Prim::Mul:
    case Prim::Add:
    case Prim::Sub:
    case Prim::Max:
    case Prim::Min:
    case Prim::ShiftRight:
    case Prim::RoundShift:
    case Prim::RoundShiftEven:
    case Prim::Saturate:
    case Prim::Wrap:
    case Prim::ReduceVec: return true;
    default: return false;
  }
}

/// The call's datapath takes a step from all its ports in one transfer and gives one result
/// per step, keeping nothing between steps.
bool stepwiseDatapath(const Unit& unit) {
  const auto& dp = unit.call->datapath;
  const std::set<uint32_t> inside(dp.begin(), dp.end());
  std::set<uint32_t> portWires;  // wires that carry a port's transfers
  std::optional<uint32_t> taker;  // the one node that takes the ports' transfers
  for (uint32_t n : dp) {
    const Node& node = unit.nodes.at(n);
    bool fromPort = false;
    for (uint32_t o : node.operands) fromPort = fromPort || !inside.count(o) || portWires.count(o);
    if (isWire(node.prim)) {
      if (fromPort) portWires.insert(n);
      continue;
    }
    if (node.prim == Prim::ReduceStm) {
      const MType& t = unit.nodes.at(node.operands.at(0)).type;
      if (t.dims.at(t.numStreamDims() - 1).extent != 1) return false;
    } else if (!isPerStep(node.prim)) {
      return false;
    }
    if (!fromPort) continue;
    if (taker) return false;
    taker = n;
    // all of the taker's operands must be the ports' (a join of a port and a result of
    // another step would take them in different transfers)
    for (uint32_t o : node.operands)
      if (inside.count(o) && !portWires.count(o)) return false;
  }
  return taker.has_value();
}

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
    if (!programFitsOnChip(prog, onChipBudgetBits)) prog.startsWithPrevious[u] = false;
  }
}

bool handsOverStreams(const Program& prog, size_t u) {
  if (u == 0 || u >= prog.units.size() || prog.firstShared(u) != u - 1) return false;
  const Unit &a = prog.units[u - 1], &b = prog.units[u];
  if (!a.call || !b.call || a.call->instance != b.call->instance || a.call->datapath.size() != b.call->datapath.size())
    return false;
  // the datapath's one per-call parameter: the length each accumulation sums
  auto length = [](const Unit& unit, uint32_t n) {
    const MType& t = unit.nodes.at(unit.nodes.at(n).operands.at(0)).type;
    return t.dims[t.numStreamDims() - 1].extent;
  };
  for (size_t j = 0; j < a.call->datapath.size(); ++j) {
    const uint32_t na = a.call->datapath[j], nb = b.call->datapath[j];
    if (a.nodes.at(na).prim == Prim::ReduceStm && length(a, na) != length(b, nb)) return false;
  }
  return true;
}

bool stepsInterleave(const Program& prog, size_t instance) {
  bool any = false;
  for (const Unit& unit : prog.units) {
    if (!unit.call || unit.call->instance != static_cast<int>(instance)) continue;
    if (!stepwiseDatapath(unit)) return false;
    any = true;
  }
  return any;
}

bool interleavesSteps(const Program& prog, size_t u) {
  return handsOverStreams(prog, u) && stepsInterleave(prog, static_cast<size_t>(prog.units[u].call->instance));
}

std::map<uint32_t, uint32_t> gatedReads(const Program& prog, size_t u) {
  std::map<uint32_t, uint32_t> reads;
  if (prog.firstShared(u) == u) return reads;
  for (const auto& [key, write] : planOverlap(prog).gatedOn)
    if (key.first == u) reads[key.second] = write;
  return reads;
}

}  // namespace skeleshare::lower
