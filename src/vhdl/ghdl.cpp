#include "skeleshare/vhdl/ghdl.h"

#include "shell.h"

#include <fmt/format.h>

#include <stdexcept>

namespace skeleshare::vhdl {
namespace {

using detail::runLogged;
using detail::shellQuote;
using detail::slurp;

/// The shell words that run GHDL with `backend` (the wrapper reads GHDL_BACKEND).
std::string ghdlWords(GhdlBackend backend) {
  if (backend == GhdlBackend::Default) return "ghdl";
  return fmt::format("GHDL_BACKEND={} ghdl", ghdlBackendName(backend));
}

bool llvmInstalled() { return detail::commandSucceeds("ghdl-llvm --version"); }

GhdlResult analyse(const std::filesystem::path& workDir, const std::filesystem::path& lib,
                   const std::vector<std::filesystem::path>& files, const std::filesystem::path& log,
                   GhdlBackend backend = GhdlBackend::Default) {
  GhdlResult r;
  std::filesystem::create_directories(lib);
  std::string cmd = fmt::format("cd {} && {} -a --std=08 --workdir={}", shellQuote(workDir.string()), ghdlWords(backend),
                                shellQuote(lib.string()));
  for (const auto& f : files) cmd += " " + shellQuote(std::filesystem::absolute(f).string());
  r.ok = runLogged(cmd, log, &r.why);
  if (!r.ok) r.failedStep = "analyse";
  return r;
}

}  // namespace

bool ghdlAvailable() { return detail::commandSucceeds("ghdl --version"); }

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
                        GhdlBackend backend, const std::function<void(const std::string&)>& onLine) {
  std::filesystem::create_directories(workDir);
  auto log = workDir / "ghdl.log";
  std::filesystem::remove(log);
  auto lib = std::filesystem::absolute(workDir / "work");
  GhdlResult r = analyse(workDir, lib, files, log, backend);
  std::string base = fmt::format("cd {} && {}", shellQuote(workDir.string()), ghdlWords(backend));
  if (r.ok && !runLogged(fmt::format("{} -e --std=08 --workdir={} {}", base, shellQuote(lib.string()), entity), log, &r.why)) {
    r.ok = false;
    r.failedStep = "elaborate";
  }
  if (r.ok) {
    std::string cmd = fmt::format("{} -r --std=08 --workdir={} {}", base, shellQuote(lib.string()), entity);
    for (const auto& [name, value] : generics) cmd += " " + shellQuote(fmt::format("-g{}={}", name, value));
    if (!(onLine ? detail::runStreaming(cmd, log, onLine, &r.why) : runLogged(cmd, log, &r.why))) {
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
    std::string cmd = fmt::format("cd {} && ghdl synth --std=08 --workdir={}", shellQuote(workDir.string()), shellQuote(lib.string()));
    if (outFile.extension() == ".v") cmd += " --out=verilog";
    cmd += " " + top;
    cmd += outFile.empty() ? " >/dev/null" : " >" + shellQuote(std::filesystem::absolute(outFile).string());
    if (!runLogged(cmd, log, &r.why)) {
      r.ok = false;
      r.failedStep = "synth";
    }
  }
  r.log = slurp(log);
  return r;
}

}  // namespace skeleshare::vhdl
