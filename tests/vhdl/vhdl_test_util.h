#pragma once
// Helpers of the VHDL tests: lowering DSL programs, emitting, simulating in GHDL, and
// comparing with the reference interpreters.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "../common/dsl_module.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/lower/interpreter.h"
#include "skeleshare/lower/lower.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/vhdl/emitter.h"
#include "skeleshare/vhdl/ghdl.h"
#include "skeleshare/vhdl/simulate.h"

namespace skeleshare::vhdl::test {

inline std::string templateDir() { return std::string(SKELESHARE_SOURCE_DIR) + "/src/vhdl/templates"; }

inline std::filesystem::path scratch(const std::string& name) {
  auto p = std::filesystem::path(SKELESHARE_BINARY_DIR) / "test-vhdl" / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

inline std::string benchPath(const std::string& name) {
  return std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/small/" + name;
}

/// The default device's memory port (the cycle model's).
inline cost::MemorySystem testMemory() {
  return cost::memorySystem(cost::findDevice(cost::kDefaultDevice, SKELESHARE_SOURCE_DIR));
}

struct Simulated {
  SimResult sim;
  EmittedDesign design;
};

/// Emits `prog`, simulates it on `inputs` in scratch directory `name`.
inline Simulated emitAndSimulate(const lower::Program& prog, const std::map<std::string, Tensor>& inputs,
                                 const std::string& name, uint64_t seed = 1, int64_t maxCycles = 20'000'000) {
  EmitOptions eo;
  eo.design = name;
  eo.templateDir = templateDir();
  Simulated s{{}, emitDesign(prog, eo)};
  TestbenchFiles tb = emitTestbench(s.design, templateDir());
  auto dir = scratch(name);
  writeDesign(s.design, dir / "vhdl");
  writeTestbench(tb, dir / "vhdl");
  SimOptions so;
  so.seed = seed;
  so.maxCycles = maxCycles;
  so.backend = chooseGhdlBackend("auto", lower::estimateCycles(prog, testMemory()).total);  // as `skeleshare sim` does
  s.sim = simulate(s.design, tb, inputs, dir / "vhdl", dir / "sim", so);
  return s;
}

}  // namespace skeleshare::vhdl::test
