#include "skeleshare/cost/cycle_model.h"

#include <algorithm>
#include <cmath>

namespace skeleshare::cost {

MemorySystem memorySystem(const Device& device) {
  return MemorySystem{std::llround(device.memoryLinesPerCycle * 1000.0), device.memoryLatency};
}

int64_t unitCycles(const UnitLoad& load, const MemorySystem& memory) {
  const int64_t port = (load.lines * 1000 + memory.linesPerKilocycle - 1) / memory.linesPerKilocycle;
  return std::max(load.busiest, port) + load.depth + memory.latency;
}

}  // namespace skeleshare::cost
