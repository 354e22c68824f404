#include "skeleshare/vhdl/simulate.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "skeleshare/vhdl/ghdl.h"

namespace skeleshare::vhdl {
namespace {

void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
}

std::string readFile(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return {};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

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
  std::filesystem::create_directories(simDir);
  writeFile(simDir / "memory.hex", memoryImage(design.map, inputs, o.seed));
  std::filesystem::remove(simDir / "dump.txt");
  std::filesystem::remove(simDir / "result.txt");
  std::vector<std::filesystem::path> files;
  for (const auto& f : design.files) files.push_back(vhdlDir / f.name);
  for (const auto& f : tb.files) files.push_back(vhdlDir / f.name);
  GhdlResult g = ghdlSimulate(simDir, files, tb.entity,
                              {{"IMAGE", "memory.hex"},
                               {"DUMP_FILE", "dump.txt"},
                               {"RESULT_FILE", "result.txt"},
                               {"SEED", std::to_string(o.seed % 2147483646 + 1)},
                               {"STALL_PCT", std::to_string(o.stallPercent)},
                               {"MAX_CYCLES", std::to_string(o.maxCycles)}},
                              o.backend);
  r.log = g.log;
  std::istringstream result(readFile(simDir / "result.txt"));
  std::string word;
  int64_t cycles = 0;
  result >> word >> cycles;
  r.cycles = cycles;
  if (word == "timeout") {
    r.error = fmt::format("the design did not finish within {} cycles", cycles);
    return r;
  }
  if (!g.ok) {
    r.error = fmt::format("GHDL failed to {} the design (log: {})", g.failedStep, (simDir / "ghdl.log").string());
    return r;
  }
  if (word != "cycles") {
    r.error = "the testbench wrote no result";
    return r;
  }
  try {
    r.outputs = readOutputs(design.map, readFile(simDir / "dump.txt"));
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  r.ok = true;
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
