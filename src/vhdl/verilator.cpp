#include "skeleshare/vhdl/verilator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "shell.h"
#include "skeleshare/vhdl/ghdl.h"

namespace skeleshare::vhdl {
namespace {

using detail::shellQuote;

// What Verilator is asked for (docs/hardware.md, "Simulation", measured): -O3 and fast X
// handling for the model; GHDL's netlist is Verilog-2005 (it names nets `final`, an
// SystemVerilog keyword). Its style gives warnings that are not problems: non-blocking
// assignments in its `always @*` case statements and `initial` blocks.
constexpr const char* kVerilatorFlags =
    "--cc --exe --default-language 1364-2005 -O3 --x-assign fast --x-initial fast --prefix Vdut -Wno-fatal "
    "-Wno-lint -Wno-style -Wno-COMBDLY -Wno-INITIALDLY";
// How the model's C++ is compiled. Long simulations: the hot code (OPT_FAST) at -O1.
// Short ones (tests): everything at -O0.
const char* compilerFlags(bool optimize) { return optimize ? "OPT_FAST=-O1" : "OPT_FAST=-O0 OPT_GLOBAL=-O0"; }
// A short simulation's model from a netlist of at most this many lines is compiled as one
// translation unit (VM_PARALLEL_BUILDS=0), which parses Verilator's headers once instead
// of once per file: the small stencil's C++ (365,000 lines of Verilog) took 26 s of CPU
// instead of 50 s; small self-attention at 400 DSPs (570,000 lines) compiles in about a
// minute, in 0.9 GB. A larger model (VGG-small: 2.7 M lines) is compiled file by file, in
// parallel, as one unit would be compiled serially and need the memory of all of them at
// once. Lines, not bytes: GHDL's comments name the VHDL files' absolute paths. The model
// is the same either way, so the cache key does not name the choice.
constexpr int64_t kOneUnitMaxNetlistLines = 1'000'000;

int64_t countLines(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<char> buf(1 << 20);
  int64_t n = 0;
  while (f) {
    f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    n += std::count(buf.data(), buf.data() + f.gcount(), '\n');
  }
  return n;
}
// Part of every cache key: a change of the netlist fix-ups or of how the model is built
// must not reuse models built before it.
constexpr const char* kModelVersion = "skeleshare-verilator-model-2";

/// FNV-1a, 64 bits.
struct Hash {
  uint64_t h = 14695981039346656037ull;
  void add(std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // separates consecutive parts
    h *= 1099511628211ull;
  }
};

std::string verilatorVersion() {
  std::string out;
  std::FILE* p = popen("verilator --version 2>/dev/null", "r");
  if (!p) return out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

std::string cacheKey(const EmittedDesign& d, const TestbenchFiles& tb, bool optimize) {
  Hash a, b;  // two different seeds of the same hash: 128 bits
  b.add("second");
  std::string version = verilatorVersion();
  for (Hash* h : {&a, &b}) {
    h->add(kModelVersion);
    h->add(version);
    h->add(kVerilatorFlags);
    h->add(compilerFlags(optimize));
    h->add(tb.harness.text);
    h->add(d.top);
    for (const auto& f : d.files) {
      h->add(f.name);
      h->add(f.text);
    }
  }
  return fmt::format("{:016x}{:016x}", a.h, b.h);
}

/// The model's build facts, kept beside it in the cache.
void writeInfo(const std::filesystem::path& p, const VerilatorModel& m) {
  std::ofstream f(p);
  f << "synth_seconds " << m.synthSeconds << "\ncompile_seconds " << m.compileSeconds << "\nverilog_bytes "
    << m.verilogBytes << "\nliterals " << m.fixes.literals << "\nselections " << m.fixes.selections << "\nshifts "
    << m.fixes.shifts << "\nself_assignments " << m.fixes.selfAssignments << "\nverilate_seconds " << m.verilateSeconds
    << "\n";
}

void readInfo(const std::filesystem::path& p, VerilatorModel& m) {
  std::istringstream in(detail::slurp(p));
  std::string k;
  double v = 0;
  while (in >> k >> v) {
    if (k == "synth_seconds") m.synthSeconds = v;
    else if (k == "compile_seconds") m.compileSeconds = v;
    else if (k == "verilate_seconds") m.verilateSeconds = v;
    else if (k == "verilog_bytes") m.verilogBytes = static_cast<int64_t>(v);
    else if (k == "literals") m.fixes.literals = static_cast<int64_t>(v);
    else if (k == "selections") m.fixes.selections = static_cast<int64_t>(v);
    else if (k == "shifts") m.fixes.shifts = static_cast<int64_t>(v);
    else if (k == "self_assignments") m.fixes.selfAssignments = static_cast<int64_t>(v);
  }
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Puts the built model into the cache: copied beside its final name, then renamed, so
/// that a concurrent run sees a whole model or none (two runs building the same model
/// both put the same bytes there).
void storeInCache(const std::filesystem::path& dir, const VerilatorModel& m) {
  std::filesystem::create_directories(dir);
  std::string tag = fmt::format(".{}.tmp", getpid());
  auto exe = dir / "Vdut", info = dir / "info.txt";
  std::filesystem::copy_file(m.executable, exe.string() + tag, std::filesystem::copy_options::overwrite_existing);
  writeInfo(info.string() + tag, m);
  std::filesystem::rename(info.string() + tag, info);
  std::filesystem::rename(exe.string() + tag, exe);
}

}  // namespace

const char* simulatorName(Simulator s) { return s == Simulator::Verilator ? "verilator" : "ghdl"; }

bool verilatorAvailable() { return detail::commandSucceeds("verilator --version"); }

Simulator chooseSimulator(const std::string& name) {
  if (name == "verilator") {
    if (!verilatorAvailable()) throw std::runtime_error("verilator is not installed (apt-get install verilator)");
    return Simulator::Verilator;
  }
  if (name != "ghdl" && name != "auto") throw std::invalid_argument("unknown simulator '" + name + "' (auto, ghdl or verilator)");
  if (!ghdlAvailable()) throw std::runtime_error("ghdl is not installed (apt-get install ghdl)");
  return Simulator::Ghdl;
}

std::filesystem::path defaultVerilatorCache() {
  if (const char* c = std::getenv("SKELESHARE_VERILATOR_CACHE"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "skeleshare" / "verilator";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "skeleshare" / "verilator";
  return {};
}

VerilatorModel buildVerilatorModel(const EmittedDesign& design, const TestbenchFiles& tb, const std::filesystem::path& vhdlDir,
                                   const std::filesystem::path& workDir, const std::filesystem::path& cacheDir, bool optimize,
                                   const std::function<void(const std::string&)>& note) {
  auto say = [&](const std::string& line) {
    if (note) note(line);
  };
  VerilatorModel m;
  m.key = cacheKey(design, tb, optimize);
  std::filesystem::path cached = cacheDir.empty() ? std::filesystem::path() : cacheDir / m.key;
  if (!cached.empty() && std::filesystem::exists(cached / "Vdut") && std::filesystem::exists(cached / "info.txt")) {
    readInfo(cached / "info.txt", m);
    m.executable = cached / "Vdut";
    m.cached = m.ok = true;
    say(fmt::format("verilator: model {} from the cache ({})", m.key.substr(0, 12), cacheDir.string()));
    return m;
  }
  std::filesystem::remove_all(workDir);
  std::filesystem::create_directories(workDir);
  auto netlist = workDir / "design.v";
  std::vector<std::filesystem::path> files;
  for (const auto& f : design.files) files.push_back(vhdlDir / f.name);
  say(fmt::format("verilator: ghdl synth of {} ({} files) to Verilog", design.top, files.size()));
  auto t0 = std::chrono::steady_clock::now();
  GhdlResult g = ghdlSynth(workDir, files, design.top, netlist);
  m.synthSeconds = secondsSince(t0);
  if (!g.ok) {
    m.error = fmt::format("ghdl synth failed to {} the design: {} (log: {})", g.failedStep, g.why,
                          (workDir / "synth.log").string());
    return m;
  }
  m.fixes = fixGhdlVerilogFile(netlist);
  m.verilogBytes = static_cast<int64_t>(std::filesystem::file_size(netlist));
  {
    std::ofstream h(workDir / tb.harness.name, std::ios::binary);
    h << tb.harness.text;
    if (!h) throw std::runtime_error("cannot write '" + (workDir / tb.harness.name).string() + "'");
  }
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string flags = compilerFlags(optimize);
  if (!optimize && countLines(netlist) <= kOneUnitMaxNetlistLines) flags += " VM_PARALLEL_BUILDS=0";
  say(fmt::format("verilator: ghdl synth {:.1f} s, {:.1f} MB of Verilog; compiling the model (verilator, then the C++ "
                  "compiler with {} jobs, {})",
                  m.synthSeconds, static_cast<double>(m.verilogBytes) / 1e6, jobs, flags));
  t0 = std::chrono::steady_clock::now();
  // Verilator, then make in a second step: Verilator's --build would keep its own
  // process (14 GB for full VGG-CIFAR) alive while the C++ compiler runs.
  auto log = workDir / "verilator.log";
  std::string cmd = fmt::format("cd {} && verilator {} --top-module {} --Mdir obj design.v {}", shellQuote(workDir.string()),
                                kVerilatorFlags, design.top, shellQuote(tb.harness.name));
  std::string why = "no executable";
  bool built = detail::runLogged(cmd, log, &why);
  m.verilateSeconds = secondsSince(t0);
  if (built) {
    say(fmt::format("verilator: Verilog to C++ in {:.1f} s; compiling the C++", m.verilateSeconds));
    built = detail::runLogged(fmt::format("cd {} && make -j {} -f Vdut.mk {} Vdut", shellQuote((workDir / "obj").string()), jobs,
                                          flags),
                              log, &why);
  }
  m.compileSeconds = secondsSince(t0);
  m.executable = workDir / "obj" / "Vdut";
  if (!built || !std::filesystem::exists(m.executable)) {
    m.error = fmt::format("verilator failed to build the model: {} (log: {})", why, (workDir / "verilator.log").string());
    return m;
  }
  say(fmt::format("verilator: model built in {:.1f} s", m.compileSeconds));
  m.ok = true;
  if (!cached.empty()) {
    try {
      storeInCache(cached, m);
    } catch (const std::exception& e) {
      say(fmt::format("verilator: the model was not cached: {}", e.what()));
    }
  }
  return m;
}

}  // namespace skeleshare::vhdl
