#include "skeleshare/vhdl/ghdl.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace skeleshare::vhdl {
namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `command` with its output appended to `logFile`; true on exit status 0.
bool runLogged(const std::string& command, const std::filesystem::path& logFile) {
  std::string full = "(" + command + ") >>" + quote(logFile.string()) + " 2>&1";
  return std::system(full.c_str()) == 0;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The shell words that run GHDL with `backend` (the wrapper reads GHDL_BACKEND).
std::string ghdlWords(GhdlBackend backend) {
  if (backend == GhdlBackend::Default) return "ghdl";
  return fmt::format("GHDL_BACKEND={} ghdl", ghdlBackendName(backend));
}

bool llvmInstalled() { return std::system("ghdl-llvm --version >/dev/null 2>&1") == 0; }

GhdlResult analyse(const std::filesystem::path& workDir, const std::filesystem::path& lib,
                   const std::vector<std::filesystem::path>& files, const std::filesystem::path& log,
                   GhdlBackend backend = GhdlBackend::Default) {
  GhdlResult r;
  std::filesystem::create_directories(lib);
  std::string cmd = fmt::format("cd {} && {} -a --std=08 --workdir={}", quote(workDir.string()), ghdlWords(backend),
                                quote(lib.string()));
  for (const auto& f : files) cmd += " " + quote(std::filesystem::absolute(f).string());
  r.ok = runLogged(cmd, log);
  if (!r.ok) r.failedStep = "analyse";
  return r;
}

}  // namespace

bool ghdlAvailable() { return std::system("ghdl --version >/dev/null 2>&1") == 0; }

const char* ghdlBackendName(GhdlBackend backend) {
  switch (backend) {
    case GhdlBackend::Mcode: return "mcode";
    case GhdlBackend::Llvm: return "llvm";
    case GhdlBackend::Default: break;
  }
  return "default";
}

GhdlBackend chooseGhdlBackend(const std::string& name, int64_t estimatedCycles) {
  if (name == "mcode") return GhdlBackend::Mcode;
  if (name == "llvm") {
    if (!llvmInstalled()) throw std::runtime_error("the GHDL llvm backend is not installed (apt-get install ghdl-llvm)");
    return GhdlBackend::Llvm;
  }
  if (name != "auto") throw std::invalid_argument("unknown GHDL backend '" + name + "' (auto, mcode or llvm)");
  return estimatedCycles >= kLlvmMinEstimatedCycles && llvmInstalled() ? GhdlBackend::Llvm : GhdlBackend::Default;
}

GhdlResult ghdlSimulate(const std::filesystem::path& workDir, const std::vector<std::filesystem::path>& files,
                        const std::string& entity, const std::vector<std::pair<std::string, std::string>>& generics,
                        GhdlBackend backend) {
  std::filesystem::create_directories(workDir);
  auto log = workDir / "ghdl.log";
  std::filesystem::remove(log);
  auto lib = std::filesystem::absolute(workDir / "work");
  GhdlResult r = analyse(workDir, lib, files, log, backend);
  std::string base = fmt::format("cd {} && {}", quote(workDir.string()), ghdlWords(backend));
  if (r.ok && !runLogged(fmt::format("{} -e --std=08 --workdir={} {}", base, quote(lib.string()), entity), log)) {
    r.ok = false;
    r.failedStep = "elaborate";
  }
  if (r.ok) {
    std::string cmd = fmt::format("{} -r --std=08 --workdir={} {}", base, quote(lib.string()), entity);
    for (const auto& [name, value] : generics) cmd += " " + quote(fmt::format("-g{}={}", name, value));
    if (!runLogged(cmd, log)) {
      r.ok = false;
      r.failedStep = "run";
    }
  }
  r.log = slurp(log);
  return r;
}

GhdlResult ghdlSynth(const std::filesystem::path& workDir, const std::vector<std::filesystem::path>& files,
                     const std::string& top, const std::filesystem::path& outFile) {
  std::filesystem::create_directories(workDir);
  auto log = workDir / "synth.log";
  std::filesystem::remove(log);
  auto lib = std::filesystem::absolute(workDir / "synth-work");
  GhdlResult r = analyse(workDir, lib, files, log);
  if (r.ok) {
    std::string cmd = fmt::format("cd {} && ghdl synth --std=08 --workdir={}", quote(workDir.string()), quote(lib.string()));
    if (outFile.extension() == ".v") cmd += " --out=verilog";
    cmd += " " + top;
    cmd += outFile.empty() ? " >/dev/null" : " >" + quote(std::filesystem::absolute(outFile).string());
    if (!runLogged(cmd, log)) {
      r.ok = false;
      r.failedStep = "synth";
    }
  }
  r.log = slurp(log);
  return r;
}

}  // namespace skeleshare::vhdl
