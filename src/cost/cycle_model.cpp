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
  // kInterference of their sum (see cycle_model.h).
  const int64_t both = (kInterferenceNum * (load.busiest + port) + kInterferenceDen - 1) / kInterferenceDen;
  return std::max({load.busiest, port, load.onChipLines, both}) + load.depth + memory.latency;
}

int64_t overlappedEnd(int64_t start, const Neighbour& prev, int64_t cycles, int64_t lead, int64_t tail) {
  int64_t end = start + cycles;
  if (prev.feeds) end = std::max(end, prev.end + tail);
  if (prev.sharesInstance) {
    const int64_t takeover = std::max(start, prev.end - prev.drain);
    end = std::max(end, takeover + cycles - std::min(takeover - start, lead));
  }
  return end;
}

}  // namespace skeleshare::cost
