#include "skeleshare/cost/cycle_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace skeleshare::cost {

MemorySystem memorySystem(const Device& device) {
  return MemorySystem{std::llround(device.memoryLinesPerCycle * 1000.0), device.memoryLatency};
}

int64_t portCycles(int64_t lines, const MemorySystem& memory) {
  return (lines * 1000 + memory.linesPerKilocycle - 1) / memory.linesPerKilocycle;
}

int64_t computeCycles(uint64_t macs, int64_t multipliers) {
  const auto lanes = static_cast<uint64_t>(std::max<int64_t>(1, multipliers));
  const uint64_t cycles = macs / lanes + (macs % lanes != 0 ? 1 : 0);
  return static_cast<int64_t>(std::min<uint64_t>(cycles, std::numeric_limits<int64_t>::max()));
}

int64_t layerBoundCycles(uint64_t macs, uint64_t weightBytes, int64_t multipliers, int64_t lineBytes,
                         const MemorySystem& memory) {
  const auto lines = static_cast<int64_t>((weightBytes + static_cast<uint64_t>(lineBytes) - 1) / static_cast<uint64_t>(lineBytes));
  return std::max(computeCycles(macs, multipliers), portCycles(lines, memory));
}

int64_t unitCycles(const UnitLoad& load, const MemorySystem& memory) {
  const int64_t port = portCycles(load.lines, memory);
  // When the stages and the port are both nearly saturated they stall each other: a run
  // waits for a line the port has not delivered yet. Then the unit takes about
  // kInterference of their sum (see cycle_model.h), with the stages a late line can stall.
  const int64_t both = (kInterferenceNum * (load.stalled + port) + kInterferenceDen - 1) / kInterferenceDen;
  return std::max({load.busiest, port, load.onChipLines, both}) + load.depth + memory.latency;
}

namespace {

/// When the unit's first step may enter its instance.
int64_t firstStep(const OverlappingUnit& unit, const Neighbour& prev) {
  const int64_t first = std::max(unit.start + unit.lead, unit.fill > 0 ? prev.portDone + unit.fill : 0);
  return prev.sharesInstance && prev.interleaves ? std::max(first, prev.stepsTaken) : first;
}

}  // namespace

int64_t stepsTaken(const OverlappingUnit& unit, const Neighbour& prev) { return firstStep(unit, prev) + unit.steps; }

int64_t portDone(const OverlappingUnit& unit, const Neighbour& prev) {
  return std::max(unit.start, prev.portDone) + unit.port;
}

int64_t overlappedEnd(const OverlappingUnit& unit, const Neighbour& prev) {
  const int64_t start = unit.start, cycles = unit.cycles, lead = unit.lead;
  int64_t end = start + cycles;
  if (prev.feeds) end = std::max(end, prev.end + unit.tail);
  if (prev.sharesInstance && prev.interleaves) {
    // The neighbour's steps go first; the unit's own, and the time it needs alone beyond
    // its lead (its port's, say), follow them.
    end = std::max(end, firstStep(unit, prev) + std::max(unit.steps + unit.drain, cycles - lead));
  } else if (prev.sharesInstance) {
    const int64_t takeover = std::max(start, prev.end - prev.drain);
    end = std::max(end, takeover + cycles - std::min(takeover - start, lead));
  }
  if (unit.port > 0) end = std::max(end, portDone(unit, prev) + unit.portTail);
  // A unit bound by its reads' runs rather than its lines needs the port seldom but
  // often: beside a neighbour that holds the port its stalled stages wait for it
  // (TinyYolo's convolution after a pool: 23,440 lines in 129,995 runs, simulated to end
  // 118,116 cycles after the pool's end, where the port term alone said 64,333).
  if (unit.stalled > 0) end = std::max(end, std::max(start, prev.portDone) + unit.stalled + unit.portTail);
  return end;
}

int64_t handoverCredit(int64_t lead, int64_t neighbourDrain) {
  // A neighbour that has held the instance long enough, and a unit whose time alone
  // covers its lead: nothing but the handover binds.
  Neighbour prev;
  prev.sharesInstance = true;
  prev.drain = neighbourDrain;
  prev.end = neighbourDrain + lead;
  OverlappingUnit unit;
  unit.lead = lead;
  unit.cycles = lead + 1;
  const int64_t afterIt = prev.end + kUnitSwitch + unit.cycles;
  return afterIt - overlappedEnd(unit, prev);
}

}  // namespace skeleshare::cost
