#pragma once
// Running GHDL (VHDL-2008, the Debian mcode build) on emitted files: analyse, elaborate,
// run a testbench with generics, and `ghdl synth`. Each step's output is kept in a log.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace skeleshare::vhdl {

struct GhdlResult {
  bool ok = false;
  std::string failedStep;  // "analyse", "elaborate", "run" or "synth" when !ok
  std::string log;         // the combined output of the steps run
};

/// True when `ghdl` can be run.
bool ghdlAvailable();

/// Analyses `files` (in order) into workDir/work, elaborates `entity`, runs it with the
GhdlResult ghdlSimulate(const std::filesystem::path& workDir, const std::vector<std::filesystem::path>& files,
                        const std::string& entity, const std::vector<std::pair<std::string, std::string>>& generics);

/// `ghdl synth --std=08` of `top` from `files` (analysed into workDir/synth-work).
/// `outFile`, when not empty, receives the netlist (`--out=verilog` when it ends in .v).
GhdlResult ghdlSynth(const std::filesystem::path& workDir, const std::vector<std::filesystem::path>& files,
                     const std::string& top, const std::filesystem::path& outFile = {});

}  // namespace skeleshare::vhdl
