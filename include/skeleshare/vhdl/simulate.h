#pragma once
// Simulation of an emitted design against the reference, in GHDL or Verilator: files on
// disk, the memory image, the testbench run, the outputs read back and compared bit for
// bit. Both simulators run the same RTL against the same memory model and must agree
// cycle for cycle.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "skeleshare/support/tensor.h"
#include "skeleshare/vhdl/emitter.h"
#include "skeleshare/vhdl/ghdl.h"
#include "skeleshare/vhdl/verilator.h"

namespace skeleshare::vhdl {

/// Writes the design's files into `dir` and `dir/files.txt` (their names in compile order).
void writeDesign(const EmittedDesign& design, const std::filesystem::path& dir);
/// Writes the testbench's files into `dir`.
void writeTestbench(const TestbenchFiles& tb, const std::filesystem::path& dir);

struct SimOptions {
  uint64_t seed = 1;          // the memory model's random wait states and the poison of unwritten memory
  int stallPercent = 25;      // waitrequest on about this share of cycles
  int64_t maxCycles = 50'000'000;
  Simulator simulator = Simulator::Ghdl;
  GhdlBackend backend = GhdlBackend::Default;  // GHDL's code generator
  std::filesystem::path verilatorCache;        // where Verilator models are kept; empty: none
  /// GHDL: simulate the RTL as synthesis reads it, without the simulation forms
  /// (synthesisView); slower, and it must give the same cycles and outputs.
  bool synthesisForms = false;
  int64_t estimatedCycles = 0;                 // the lowering's estimate, for the progress' ETA
  /// Progress lines (the build steps; cycles simulated, cycles per second, ETA at most
  /// every two seconds); none when empty.
  std::function<void(const std::string&)> progress;
};

/// One unit in a simulation: cycles counted from the one where start is high (0).
struct UnitRun {
  int64_t cycles = 0;  // of the total, the cycles while it was the top's current_unit
  int64_t first = -1;  // the first cycle it ran (the top's unit_running), -1 if never
  int64_t end = -1;    // the cycle after its last
  bool operator==(const UnitRun&) const = default;
};

struct SimResult {
  bool ok = false;            // ran to done and the outputs were read
  std::string error;          // why not
  int64_t cycles = 0;         // start to done
  std::vector<UnitRun> units;  // each unit's share of those and when it ran
  std::map<std::string, Tensor> outputs;
  std::string log;            // the simulator's output
  Simulator simulator = Simulator::Ghdl;
  double runSeconds = 0;      // the simulation itself (GHDL: analysis and elaboration included)
  VerilatorModel model;       // Verilator: how the model was built or found
};

/// VHDL text as synthesis reads it: every `-- pragma translate_off` ... `translate_on`
/// region removed (ss_pkg.SIMULATING is then false, so every template takes its
/// synthesis form).
std::string synthesisView(const std::string& vhdl);

/// Runs the testbench in `options.simulator`: `vhdlDir` holds the design and testbench
/// files (written by writeDesign/writeTestbench), `simDir` receives the memory image, the
/// work library or model (simDir/verilator), the dump, the result file and the log
/// (ghdl.log, verilator-run.log). `inputs` are the contents of the input and weight
/// buffers by name.
SimResult simulate(const EmittedDesign& design, const TestbenchFiles& tb, const std::map<std::string, Tensor>& inputs,
                   const std::filesystem::path& vhdlDir, const std::filesystem::path& simDir, const SimOptions& options);

struct Mismatch {
  std::string buffer;
  std::string index;  // "[1][0][3]"
  int64_t expected = 0, got = 0;
  std::string describe() const;
};

/// The first element (buffers in name order, elements in row-major order) where `got`
/// differs from `want`; nullopt when they are bit-identical. A missing buffer or a shape
/// difference is a mismatch with an empty index.
std::optional<Mismatch> firstMismatch(const std::map<std::string, Tensor>& want, const std::map<std::string, Tensor>& got);

}  // namespace skeleshare::vhdl
