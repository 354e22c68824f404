#pragma once
// Running GHDL (VHDL-2008; Debian's mcode build, or its llvm build for long simulations)
// on emitted files: analyse, elaborate, run a testbench with generics, and `ghdl synth`.
// Each step's output is kept in a log.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace skeleshare::vhdl {

struct GhdlResult {
  bool ok = false;
  std::string failedStep;  // "analyse", "elaborate", "run" or "synth" when !ok
  std::string why;         // how the failed step ended: "exit status 1", "killed by signal 9 (...)"
  std::string log;         // the combined output of the steps run
};

/// True when `ghdl` can be run.
bool ghdlAvailable();

/// The GHDL code generator a simulation uses (`GHDL_BACKEND` of Debian's `ghdl` wrapper).
/// mcode compiles in memory and starts at once; llvm compiles to native code first (about
/// 2 s more) and then runs the same testbench about twice as fast (measured on the
/// benchmarks' designs: docs/hardware.md, "Simulation").
enum class GhdlBackend { Default, Mcode, Llvm };

/// "default", "mcode" or "llvm" (the value of GHDL_BACKEND, and of sim's report).
const char* ghdlBackendName(GhdlBackend backend);

/// "auto": llvm when `ghdl-llvm` is installed and the simulation is long enough to repay
/// the native compile (the lowering estimates at least `kLlvmMinEstimatedCycles`
/// cycles), otherwise GHDL's default (mcode); "mcode" and "llvm" as named. Throws
/// std::invalid_argument on another name and std::runtime_error when llvm is asked for
/// but not installed.
GhdlBackend chooseGhdlBackend(const std::string& name, int64_t estimatedCycles);
inline constexpr int64_t kLlvmMinEstimatedCycles = 4096;

/// Analyses `files` (in order) into workDir/work, elaborates `entity`, runs it with the
/// generics; the log is workDir/ghdl.log. `onLine`, when given, receives each line the
/// run writes to standard output as it comes (the testbench's progress).
GhdlResult ghdlSimulate(const std::filesystem::path& workDir, const std::vector<std::filesystem::path>& files,
                        const std::string& entity, const std::vector<std::pair<std::string, std::string>>& generics,
                        GhdlBackend backend = GhdlBackend::Default,
                        const std::function<void(const std::string&)>& onLine = {});

/// `ghdl synth --std=08` of `top` from `files` (analysed into workDir/synth-work).
/// `outFile`, when not empty, receives the netlist (`--out=verilog` when it ends in .v).
GhdlResult ghdlSynth(const std::filesystem::path& workDir, const std::vector<std::filesystem::path>& files,
                     const std::string& top, const std::filesystem::path& outFile = {});

}  // namespace skeleshare::vhdl
