#include "skeleshare/cost/cycle_model.h"

#include <algorithm>
#include <cmath>

namespace skeleshare::cost {

MemorySystem memorySystem(const Device& device) {
  return MemorySystem{std::llround(device.memoryLinesPerCycle * 1000.0), device.memoryLatency};
}

int64_t unitCycles(const UnitLoad& load, const MemorySystem& memory) {
  const int64_t port = (load.lines * 1000 + memory.linesPerKilocycle - 1) / memory.linesPerKilocycle;
  // When the stages and the port are both nearly saturated they stall each other: a run
  // waits for a line the port has not delivered yet. Then the unit takes about
  // kInterference of their sum (see cycle_model.h).
  const int64_t both = (kInterferenceNum * (load.busiest + port) + kInterferenceDen - 1) / kInterferenceDen;
  return std::max({load.busiest, port, load.onChipLines, both}) + load.depth + memory.latency;
}

}  // namespace skeleshare::cost
