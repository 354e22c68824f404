// Simulation only: the Verilator testbench of an emitted design (docs/hardware.md,
// "Simulation"). It is the C++ twin of the generated VHDL testbench (<design>_tb.vhd) and
// its memory model (ss_avmm_model.vhd): the same reset, start pulse and cycle count, the
// same Avalon-MM memory with the same xorshift32 decisions drawn in the same order, the
// same dump and result files. GHDL and Verilator must agree cycle for cycle and bit for
// bit on every design (tests/tools/cli_sim_test.cpp); a change of either side's timing
// must be made in both.
//
// Built by skeleshare with `verilator --cc --exe --build --prefix Vdut`: the design's top
// (GHDL's Verilog netlist of <design>_top) is the class Vdut. Everything design-specific
// is on the command line, so one build runs any seed and stall rate:
//
//   Vdut --image memory.hex --dump dump.txt --result result.txt --lines N --units U
//        --region LO:HI... --seed S --stall-pct P --max-cycles M [--progress-every K]
//
// Writes "cycles <n>" (or "timeout <n>", exit 1) to the result file, then
// "unit <i> <n> <first> <end>" for each of the U units as the VHDL testbench does, the lines LO .. HI-1
// of every region as "<line> <hex>" to the dump file, and "progress <n>" to standard
// output every K cycles. An access outside the memory is an error (exit 2).

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Vdut.h"
#include "verilated.h"

namespace {

constexpr int kWords = 16;  // 32-bit words of a 512-bit line
using Line = std::array<uint32_t, kWords>;

[[noreturn]] void fail(const std::string& msg, int code) {
  std::fprintf(stderr, "ss_verilator_tb: %s\n", msg.c_str());
  std::exit(code);
}

struct Args {
  std::string image, dump, result;
  int64_t lines = 0;
  size_t units = 0;
  std::vector<std::pair<int64_t, int64_t>> regions;
  uint32_t seed = 1;
  uint32_t stallPct = 25;
  int64_t maxCycles = 100000000;
  int64_t progressEvery = 0;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k.rfind("+verilator", 0) == 0) continue;
    if (i + 1 >= argc) fail("missing value after " + k, 2);
    std::string v = argv[++i];
    if (k == "--image") a.image = v;
    else if (k == "--dump") a.dump = v;
    else if (k == "--result") a.result = v;
    else if (k == "--lines") a.lines = std::stoll(v);
    else if (k == "--units") a.units = std::stoull(v);
    else if (k == "--seed") a.seed = static_cast<uint32_t>(std::stoul(v));
    else if (k == "--stall-pct") a.stallPct = static_cast<uint32_t>(std::stoul(v));
    else if (k == "--max-cycles") a.maxCycles = std::stoll(v);
    else if (k == "--progress-every") a.progressEvery = std::stoll(v);
    else if (k == "--region") {
      auto colon = v.find(':');
      if (colon == std::string::npos) fail("--region expects LO:HI, got " + v, 2);
      a.regions.emplace_back(std::stoll(v.substr(0, colon)), std::stoll(v.substr(colon + 1)));
    } else {
      fail("unknown option " + k, 2);
    }
  }
  if (a.image.empty() || a.dump.empty() || a.result.empty() || a.lines <= 0 || a.units == 0 || a.maxCycles <= 0)
    fail("needs --image, --dump, --result, --lines, --units and --max-cycles", 2);
  return a;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The memory image: one line of 128 hex digits per 512-bit word, byte 63 first; lines
/// after the image are 0 (as in ss_avmm_model).
std::vector<Line> loadImage(const Args& a) {
  std::vector<Line> mem(static_cast<size_t>(a.lines), Line{});
  std::ifstream f(a.image);
  if (!f) fail("cannot read the memory image " + a.image, 2);
  std::string text;
  for (size_t n = 0; n < mem.size() && std::getline(f, text); ++n) {
    if (text.size() < 2 * 4 * kWords) fail("memory image: bad line " + std::to_string(n), 2);
    for (int w = 0; w < kWords; ++w) {
      uint32_t v = 0;
      for (int d = 0; d < 8; ++d) {
        int h = hexDigit(text[static_cast<size_t>(8 * (kWords - 1 - w) + d)]);
        if (h < 0) fail("memory image: bad line " + std::to_string(n), 2);
        v = v << 4 | static_cast<uint32_t>(h);
      }
      mem[n][static_cast<size_t>(w)] = v;
    }
  }
  return mem;
}

/// ss_avmm_model's generator: xorshift32, a draw in 0 .. m - 1 from bits 31..8.
struct Rng {
  uint32_t x;
  explicit Rng(uint32_t seed) : x(seed ^ 0x9E3779B9u) {}
  uint32_t draw(uint32_t m) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return (x >> 8) % m;
  }
};

/// The Avalon-MM slave of ss_avmm_model.vhd, one rising edge at a time: `step` sees the
/// master's outputs as they were before the edge and returns the slave's outputs after it.
class Memory {
 public:
  Memory(std::vector<Line> mem, uint32_t seed, uint32_t stallPct) : mem_(std::move(mem)), rng_(seed), stallPct_(stallPct) {}

  bool stall() const { return stall_; }
  bool readValid() const { return valid_; }
  const Line& readData() const { return readData_; }

  void step(const Vdut& m) {
    if (!stall_ && m.avm_read) {
      int64_t n = static_cast<int64_t>(m.avm_address / 64);
      for (int64_t b = 0; b < static_cast<int64_t>(m.avm_burstcount); ++b) queue_.push_back(check(n + b));
    }
    if (!stall_ && m.avm_write) {
      if (wLeft_ == 0) {
        wLine_ = static_cast<int64_t>(m.avm_address / 64);
        wLeft_ = static_cast<int64_t>(m.avm_burstcount);
      }
      Line& l = mem_[static_cast<size_t>(check(wLine_))];
      uint64_t be = m.avm_byteenable;
      for (int w = 0; w < kWords; ++w) {
        uint32_t mask = 0;
        for (int b = 0; b < 4; ++b)
          if (be >> (4 * w + b) & 1) mask |= 0xFFu << (8 * b);
        l[static_cast<size_t>(w)] = (l[static_cast<size_t>(w)] & ~mask) | (m.avm_writedata[w] & mask);
      }
      ++wLine_;
      --wLeft_;
    }
    valid_ = false;
    if (!queue_.empty()) {
      uint32_t r = rng_.draw(100);
      if (wait_ > 0) {
        --wait_;
      } else if (r < 70) {
        readData_ = mem_[static_cast<size_t>(queue_.front())];
        valid_ = true;
        queue_.pop_front();
        if (queue_.empty()) wait_ = rng_.draw(4);
      }
    }
    stall_ = rng_.draw(100) < stallPct_;
  }

  void dump(const Args& a) const {
    std::FILE* f = std::fopen(a.dump.c_str(), "w");
    if (!f) fail("cannot write " + a.dump, 2);
    for (auto [lo, hi] : a.regions)
      for (int64_t ln = lo; ln < hi; ++ln) {
        std::fprintf(f, "%lld ", static_cast<long long>(ln));
        const Line& l = mem_[static_cast<size_t>(check(ln))];
        for (int w = kWords; w-- > 0;) std::fprintf(f, "%08X", l[static_cast<size_t>(w)]);
        std::fputc('\n', f);
      }
    if (std::fclose(f) != 0) fail("cannot write " + a.dump, 2);
  }

 private:
  int64_t check(int64_t ln) const {
    if (ln < 0 || ln >= static_cast<int64_t>(mem_.size()))
      fail("memory access to line " + std::to_string(ln) + " outside the " + std::to_string(mem_.size()) + "-line memory", 2);
    return ln;
  }

  std::vector<Line> mem_;
  Rng rng_;
  uint32_t stallPct_;
  bool stall_ = true;  // the VHDL signal's initial value
  bool valid_ = false;
  Line readData_{};
  std::deque<int64_t> queue_;  // lines of accepted reads not yet returned
  uint32_t wait_ = 0;
  int64_t wLine_ = 0, wLeft_ = 0;  // the rest of a write burst
};

// Bit i of a Verilator port: an integer up to 64 bits, a VlWide of 32-bit words above.
template <class Port>
bool bitOf(const Port& port, size_t i) {
  if constexpr (std::is_integral_v<Port>)
    return i < 64 && ((static_cast<uint64_t>(port) >> i) & 1u) != 0;
  else
    return ((port[i / 32] >> (i % 32)) & 1u) != 0;
}

// Each unit's cycles while it was current_unit, and the first cycle it ran
// (unit_running) and the one after its last, -1 if it never ran.
struct UnitCycles {
  std::vector<int64_t> cycles, first, end;
  explicit UnitCycles(size_t units) : cycles(units, 0), first(units, -1), end(units, -1) {}
};

void writeResult(const Args& a, const char* word, int64_t cycles, const UnitCycles* units = nullptr) {
  std::FILE* f = std::fopen(a.result.c_str(), "w");
  if (!f) fail("cannot write " + a.result, 2);
  std::fprintf(f, "%s %lld\n", word, static_cast<long long>(cycles));
  for (size_t u = 0; units && u < units->cycles.size(); ++u)
    std::fprintf(f, "unit %zu %lld %lld %lld\n", u, static_cast<long long>(units->cycles[u]),
                 static_cast<long long>(units->first[u]), static_cast<long long>(units->end[u]));
  if (std::fclose(f) != 0) fail("cannot write " + a.result, 2);
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parseArgs(argc, argv);
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->commandArgs(argc, argv);
  auto dut = std::make_unique<Vdut>(ctx.get());
  Memory mem(loadImage(a), a.seed, a.stallPct);

  // The inputs as the VHDL testbench drives them before the first edge: reset, no start,
  // waitrequest high (the model's initial value), no read data.
  dut->clk = 0;
  dut->rst = 1;
  dut->start = 0;
  dut->avm_waitrequest = 1;
  dut->avm_readdatavalid = 0;
  for (int w = 0; w < kWords; ++w) dut->avm_readdata[w] = 0;
  dut->eval();

  // One rising edge: the memory model and the control see the outputs as they were
  // before it, the design's registers take the inputs as they were before it, and the
  // new inputs apply after it (the VHDL processes' signal updates).
  int64_t edge = 0;
  auto rise = [&](bool rst, bool start) {
    mem.step(*dut);
    dut->clk = 1;
    dut->eval();
    ++edge;
    dut->rst = rst;
    dut->start = start;
    dut->avm_waitrequest = mem.stall();
    dut->avm_readdatavalid = mem.readValid();
    if (mem.readValid())
      for (int w = 0; w < kWords; ++w) dut->avm_readdata[w] = mem.readData()[static_cast<size_t>(w)];
    dut->clk = 0;
    dut->eval();
  };

  for (int i = 1; i <= 3; ++i) rise(true, false);  // edges 1-3 in reset
  rise(false, true);                               // edge 4: reset ends, start rises
  // The testbench's control: at edge 5 start falls and counting begins; at each edge it
  // reads `done` as it was before that edge.
  // The unit a cycle is counted for is read with `done`, as the VHDL testbench reads it:
  // in the loop, `unit` and `running` are cycle `cycles`'s (0-based cycles - 1).
  int64_t cycles = 1;
  UnitCycles units(a.units);
  units.cycles[0] = 1;
  std::vector<bool> running(a.units);
  auto readRunning = [&] {
    for (size_t u = 0; u < a.units; ++u) running[u] = bitOf(dut->unit_running, u);
  };
  bool done = dut->done;
  size_t unit = dut->current_unit;
  readRunning();
  rise(false, false);
  while (!done && cycles < a.maxCycles) {
    const size_t counted = unit;
    for (size_t u = 0; u < a.units; ++u)
      if (running[u]) {
        if (units.first[u] < 0) units.first[u] = cycles - 1;
        units.end[u] = cycles;
      }
    done = dut->done;
    unit = dut->current_unit;
    readRunning();
    rise(false, false);
    ++cycles;
    if (counted >= a.units) fail("current_unit " + std::to_string(counted) + " is not a unit", 2);
    ++units.cycles[counted];
    if (a.progressEvery > 0 && cycles % a.progressEvery == 0) {
      std::printf("progress %lld\n", static_cast<long long>(cycles));
      std::fflush(stdout);
    }
  }
  if (!done) {
    writeResult(a, "timeout", cycles);
    std::fprintf(stderr, "ss_verilator_tb: no done after %lld cycles\n", static_cast<long long>(cycles));
    dut->final();
    return 1;
  }
  // The testbench raises `dump` after the edge where it saw done; the model dumps at the
  // next edge, after that edge's accesses.
  mem.step(*dut);
  mem.dump(a);
  writeResult(a, "cycles", cycles, &units);
  dut->final();
  return 0;
}
