#include "skeleshare/vhdl/simulate.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "shell.h"
#include "skeleshare/vhdl/ghdl.h"

namespace skeleshare::vhdl {
namespace {

void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
}

using detail::slurp;

// Both testbenches print "progress <cycles>" this often.
constexpr int64_t kProgressEvery = 5000;

/// 1234567 -> "1,234,567".
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string duration(double seconds) {
  auto s = static_cast<int64_t>(seconds + 0.5);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, s % 3600 / 60);
}

/// Turns the testbench's "progress <cycles>" lines into progress on stderr: cycles,
/// cycles per second and the time left at the lowering's estimate, every two seconds.
class ProgressMeter {
 public:
  explicit ProgressMeter(const SimOptions& o) : o_(o), start_(std::chrono::steady_clock::now()) {}

  void operator()(const std::string& line) {
    if (!o_.progress || line.rfind("progress ", 0) != 0) return;
    char* end = nullptr;
    int64_t cycles = std::strtoll(line.c_str() + 9, &end, 10);
    if (end == line.c_str() + 9) return;
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (t < shown_ + 2.0) return;
    shown_ = t;
    double rate = static_cast<double>(cycles) / t;
    std::string eta;
    if (o_.estimatedCycles > cycles && rate > 0)
      eta = fmt::format(", ETA {} at the estimated {} cycles", duration(static_cast<double>(o_.estimatedCycles - cycles) / rate),
                        grouped(o_.estimatedCycles));
    else if (o_.estimatedCycles > 0)
      eta = fmt::format(", past the estimated {} cycles", grouped(o_.estimatedCycles));
    o_.progress(fmt::format("{}: {} cycles, {} cycles/s{}", simulatorName(o_.simulator), grouped(cycles),
                            grouped(static_cast<int64_t>(rate)), eta));
  }

 private:
  const SimOptions& o_;
  std::chrono::steady_clock::time_point start_;
  double shown_ = 0;
};

/// Runs the Verilator model on the image in `simDir`; false when it failed (why: in r).
bool runVerilator(const EmittedDesign& design, const TestbenchFiles& tb, const std::filesystem::path& vhdlDir,
                  const std::filesystem::path& simDir, const SimOptions& o, SimResult& r) {
  r.model = buildVerilatorModel(design, tb, vhdlDir, simDir / "verilator", o.verilatorCache,
                                o.estimatedCycles >= kVerilatorOptimizeMinEstimatedCycles, o.progress);
  if (!r.model.ok) {
    r.error = r.model.error;
    return false;
  }
  // A full-size model's evaluation functions keep wide vectors on the stack: more than the
  // usual 8 MB (full VGG-CIFAR's crashed at its first evaluation), hence no stack limit.
  std::string cmd = fmt::format("ulimit -s unlimited 2>/dev/null; cd {} && {} --image memory.hex --dump dump.txt "
                                "--result result.txt --lines {} --units {}",
                                detail::shellQuote(simDir.string()),
                                detail::shellQuote(std::filesystem::absolute(r.model.executable).string()), design.map.lines(),
                                design.units);
  for (auto [lo, hi] : tb.dumpLines) cmd += fmt::format(" --region {}:{}", lo, hi);
  cmd += fmt::format(" --seed {} --stall-pct {} --max-cycles {} --progress-every {}", o.seed % 2147483646 + 1, o.stallPercent,
                     o.maxCycles, kProgressEvery);
  auto log = simDir / "verilator-run.log";
  std::filesystem::remove(log);
  ProgressMeter meter(o);
  auto t0 = std::chrono::steady_clock::now();
  std::string why;
  bool ok = detail::runStreaming(cmd, log, [&](const std::string& line) { meter(line); }, &why);
  r.runSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.log = slurp(log);
  if (!ok) r.error = fmt::format("the Verilator model failed to run the design: {} (log: {})", why, log.string());
  return ok;
}

}  // namespace

std::string synthesisView(const std::string& vhdl) {
  std::istringstream in(vhdl);
  std::string out, line;
  bool skipping = false;
  while (std::getline(in, line)) {
    const bool off = line.find("pragma translate_off") != std::string::npos;
    const bool on = line.find("pragma translate_on") != std::string::npos;
    if (off) skipping = true;
    if (!skipping) out += line + "\n";
    if (on) skipping = false;
  }
  if (skipping) throw std::runtime_error("a translate_off region without its translate_on");
  return out;
}

void writeDesign(const EmittedDesign& design, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::string list;
  for (const auto& f : design.files) {
    writeFile(dir / f.name, f.text);
    list += f.name + "\n";
  }
  writeFile(dir / "files.txt", list);
}

void writeTestbench(const TestbenchFiles& tb, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& f : tb.files) writeFile(dir / f.name, f.text);
}

SimResult simulate(const EmittedDesign& design, const TestbenchFiles& tb, const std::map<std::string, Tensor>& inputs,
                   const std::filesystem::path& vhdlDir, const std::filesystem::path& simDir, const SimOptions& o) {
  SimResult r;
  r.simulator = o.simulator;
  std::filesystem::create_directories(simDir);
  writeFile(simDir / "memory.hex", memoryImage(design.map, inputs, o.seed));
  std::filesystem::remove(simDir / "dump.txt");
  std::filesystem::remove(simDir / "result.txt");
  bool ran = false;
  std::string failure;
  if (o.simulator == Simulator::Verilator) {
    ran = runVerilator(design, tb, vhdlDir, simDir, o, r);
    if (!r.model.ok) return r;
    failure = r.error;
  } else {
    std::vector<std::filesystem::path> files;
    const auto viewDir = simDir / "synthesis-view";
    if (o.synthesisForms) std::filesystem::create_directories(viewDir);
    for (const auto& f : design.files) {
      if (!o.synthesisForms) {
        files.push_back(vhdlDir / f.name);
        continue;
      }
      writeFile(viewDir / f.name, synthesisView(slurp(vhdlDir / f.name)));
      files.push_back(viewDir / f.name);
    }
    for (const auto& f : tb.files) files.push_back(vhdlDir / f.name);
    ProgressMeter meter(o);
    auto t0 = std::chrono::steady_clock::now();
    GhdlResult g = ghdlSimulate(simDir, files, tb.entity,
                                {{"IMAGE", "memory.hex"},
                                 {"DUMP_FILE", "dump.txt"},
                                 {"RESULT_FILE", "result.txt"},
                                 {"SEED", std::to_string(o.seed % 2147483646 + 1)},
                                 {"STALL_PCT", std::to_string(o.stallPercent)},
                                 {"MAX_CYCLES", std::to_string(o.maxCycles)},
                                 {"PROGRESS_EVERY", std::to_string(kProgressEvery)}},
                                o.backend, [&](const std::string& line) { meter(line); });
    r.runSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.log = g.log;
    ran = g.ok;
    if (!g.ok) {
      failure = fmt::format("GHDL failed to {} the design: {} (log: {})", g.failedStep, g.why, (simDir / "ghdl.log").string());
      // A template's own check that stopped the run says what went wrong: name it first.
      const size_t at = g.log.find("(assertion failure): ");
      if (at != std::string::npos) {
        const size_t from = g.log.rfind('\n', at) + 1;  // npos + 1 = 0: the first line
        failure = fmt::format("{}; {}", g.log.substr(from, g.log.find('\n', at) - from), failure);
      }
    }
  }
  std::istringstream result(slurp(simDir / "result.txt"));
  std::string word;
  int64_t cycles = 0;
  result >> word >> cycles;
  r.cycles = cycles;
  if (word == "timeout") {
    r.error = fmt::format("the design did not finish within {} cycles", cycles);
    return r;
  }
  if (!ran) {
    r.error = failure;
    return r;
  }
  if (word != "cycles") {
    r.error = "the testbench wrote no result";
    return r;
  }
  r.units.assign(design.units, {});
  for (std::string tag; result >> tag && tag == "unit";) {
    size_t unit = 0;
    UnitRun u;
    if (!(result >> unit >> u.cycles >> u.first >> u.end) || unit >= design.units) {
      r.error = "the testbench wrote a malformed unit line";
      return r;
    }
    r.units[unit] = u;
  }
  try {
    r.outputs = readOutputs(design.map, slurp(simDir / "dump.txt"));
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  r.ok = true;
  if (o.progress)
    o.progress(fmt::format("{}: {} cycles in {:.1f} s ({} cycles/s)", simulatorName(o.simulator), r.cycles, r.runSeconds,
                           grouped(r.runSeconds > 0 ? static_cast<int64_t>(static_cast<double>(r.cycles) / r.runSeconds) : 0)));
  return r;
}

std::string Mismatch::describe() const {
  if (index.empty()) return fmt::format("output '{}': {}", buffer, expected == got ? "missing or misshapen" : "differs");
  return fmt::format("output '{}' element {}: expected {}, got {}", buffer, index, expected, got);
}

std::optional<Mismatch> firstMismatch(const std::map<std::string, Tensor>& want, const std::map<std::string, Tensor>& got) {
  for (const auto& [name, w] : want) {
    auto it = got.find(name);
    if (it == got.end() || it->second.shape() != w.shape() || it->second.bits() != w.bits()) return Mismatch{name, "", 0, 0};
    const Tensor& g = it->second;
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] == g[i]) continue;
      std::vector<int64_t> multi(w.rank());
      size_t rest = i;
      for (size_t d = w.rank(); d-- > 0;) {
        multi[d] = static_cast<int64_t>(rest % static_cast<size_t>(w.dim(d)));
        rest /= static_cast<size_t>(w.dim(d));
      }
      std::string idx;
      for (int64_t m : multi) idx += fmt::format("[{}]", m);
      if (idx.empty()) idx = "[]";
      return Mismatch{name, idx, w[i], g[i]};
    }
  }
  return std::nullopt;
}

}  // namespace skeleshare::vhdl
