#pragma once
// The fast simulation path: the emitted design's own RTL, as GHDL's Verilog netlist
// (`ghdl synth --out=verilog`, with the fix-ups of netlist.h), compiled by Verilator 5
// together with the C++ testbench ss_verilator_tb.cpp, the twin of the VHDL testbench
// (docs/hardware.md, "Simulation"). Models are cached by the content of the design.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "skeleshare/vhdl/emitter.h"
#include "skeleshare/vhdl/netlist.h"

namespace skeleshare::vhdl {

enum class Simulator { Ghdl, Verilator };

/// "ghdl" or "verilator".
const char* simulatorName(Simulator s);

/// True when `verilator` can be run.
bool verilatorAvailable();

/// "auto": GHDL. On every design measured (docs/hardware.md, "Verilator"), one run in GHDL
/// ends before a Verilator model is built: the small designs simulate in seconds while
/// their models take about a minute to build; an -O1 model of the full stencil runs 7-10x
/// faster per cycle than GHDL llvm but takes about 2.5 minutes to build, which pays off
/// only from several hundred thousand cycles. "ghdl" and "verilator" as named. Throws
/// std::invalid_argument on another name and std::runtime_error naming the Debian package
/// when the simulator asked for is not installed.
Simulator chooseSimulator(const std::string& name);

/// A model whose simulation the lowering estimates at this many cycles or more is
/// compiled for speed (OPT_FAST=-O1); shorter ones for a short compile (-O0).
inline constexpr int64_t kVerilatorOptimizeMinEstimatedCycles = 100'000;

/// The model cache: $SKELESHARE_VERILATOR_CACHE, else $XDG_CACHE_HOME/skeleshare/verilator,
/// else $HOME/.cache/skeleshare/verilator; empty (no cache) when none is set.
std::filesystem::path defaultVerilatorCache();

struct VerilatorModel {
  bool ok = false;
  std::string error;                // why not, with the log to read
  std::filesystem::path executable; // the compiled testbench (ss_verilator_tb.cpp's options)
  bool cached = false;              // found in the cache: nothing was compiled
  std::string key;                  // the cache key (a hash of everything the model is built from)
  double synthSeconds = 0;          // ghdl synth, when the model was built
  double compileSeconds = 0;        // verilator and the C++ compiler, when the model was built
  double verilateSeconds = 0;       // of which verilator (Verilog to C++)
  int64_t verilogBytes = 0;
  NetlistFixes fixes;
};

/// Builds the Verilator model of `design` (its files written in `vhdlDir`) with `tb`'s
/// harness in `workDir` (netlist design.v, logs synth.log and verilator.log), or takes it from `cacheDir`
/// (when not empty) if one was built from the same files, harness, flags and Verilator.
/// `optimize` compiles the model's C++ for speed (long simulations) rather than for a
/// short compile. `note` receives a line per step (for progress on stderr).
VerilatorModel buildVerilatorModel(const EmittedDesign& design, const TestbenchFiles& tb,
                                   const std::filesystem::path& vhdlDir, const std::filesystem::path& workDir,
                                   const std::filesystem::path& cacheDir, bool optimize,
                                   const std::function<void(const std::string&)>& note = {});

}  // namespace skeleshare::vhdl
