// On-chip buffers (docs/hardware.md, "On-chip buffers"): an intermediate the lowering
// placed on chip lives in a RAM of the design's own (ss_line_ram), whose port its reads and
// writes use instead of the external memory's. Bit-exact against the mid-level
// interpreter under random wait states, with a unit that reads the RAM on two ports and
// the external memory on a third in the same cycles, and the cycle model's count of the
// lines each port moves.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <utility>
#include <vector>

#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/verifier.h"
#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

using namespace lower;

constexpr int64_t kRows = 24, kCols = 16;

/// The whole buffer, a row (kCols lanes) per step.
AddrGen rows() {
  AddrGen g = AddrGen::identity({kRows, kCols});
  g.counters[1].kind = DimKind::Vector;
  return g;
}

/// t = a; o = t + t + b, with t placed on chip or not.
Program twoUnits(Memory tMemory) {
  Program prog;
  prog.buffers.push_back({"a", 8, {kRows, kCols}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"b", 8, {kRows, kCols}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"t", 8, {kRows, kCols}, tMemory, Role::Intermediate});
  prog.buffers.push_back({"o", 8, {kRows, kCols}, Memory::OffChip, Role::Output});
  {
    Unit u;
    u.name = "copy";
    UnitBuilder b(prog, u);
    b.write(2, rows(), b.read(0, rows()));
    prog.units.push_back(std::move(u));
  }
  {
    Unit u;
    u.name = "sum";
    UnitBuilder b(prog, u);
    uint32_t t1 = b.read(2, rows());
    uint32_t t2 = b.read(2, rows());
    uint32_t x = b.read(1, rows());
    b.write(3, rows(), b.op(Prim::Add, {b.op(Prim::Add, {t1, t2}), x}));
    prog.units.push_back(std::move(u));
  }
  auto problems = verify(prog);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return prog;
}

TEST(OnChipBuffer, AnIntermediateOnChipIsItsOwnRamAndPort) {
  Program prog = twoUnits(Memory::OnChip);
  std::map<std::string, Tensor> inputs;
  for (const char* name : {"a", "b"}) {
    Tensor t(8, {kRows, kCols});
    for (size_t i = 0; i < t.size(); ++i) t.setWrapped(i, static_cast<int64_t>((i * 53 + (name[0] - 'a') * 17) % 255) - 127);
    inputs[name] = t;
  }
  auto want = run(prog, inputs);
  for (uint64_t seed : {1, 2}) {
    Simulated s = emitAndSimulate(prog, inputs, "t_onchip", seed, 20000);
    ASSERT_TRUE(s.sim.ok) << s.sim.error << "\n" << s.sim.log;
    auto bad = firstMismatch(want, s.sim.outputs);
    EXPECT_FALSE(bad.has_value()) << "seed " << seed << ": " << bad->describe();
    std::string top, sum;
    for (const auto& f : s.design.files) {
      if (f.name == "t_onchip_top.vhd") top = f.text;
      if (f.name == "t_onchip_u1.vhd") sum = f.text;
    }
    // one RAM, for t, with the copy's write and the sum's two reads on its port
    EXPECT_NE(top.find("entity work.ss_line_ram\n    generic map (N => 3, LINES => 6,"), std::string::npos) << top;
    EXPECT_NE(sum.find("l_odata  : in  std_logic_vector(1023 downto 0)"), std::string::npos) << sum;
  }
  // The model: t's lines cross its own port, not the external one.
  AccessCounter counts;
  const cost::UnitLoad on = unitLoad(prog, prog.units[1], counts, {});
  const cost::UnitLoad off = unitLoad(twoUnits(Memory::OffChip), prog.units[1], counts, {});
  const int64_t tLines = kRows * kCols / kLineBytes;  // 6
  EXPECT_EQ(on.onChipLines, 2 * tLines);
  EXPECT_EQ(off.onChipLines, 0);
  EXPECT_EQ(off.lines - on.lines, 2 * tLines);
  // t's 6 lines are the only on-chip bits, in LUT-RAM (too shallow for an M20K): one
  // 32 x 1 cell per bit of a line, as for each read's FIFO of 16 lines
  const Resources res = programResources(prog);
  EXPECT_EQ(res.onChipBits, tLines * kLineBytes * 8);
  EXPECT_EQ(res.m20kBlocks, 0);
  size_t reads = 0;
  for (const auto& u : prog.units)
    for (const auto& n : u.nodes) reads += n.prim == Prim::Read;
  EXPECT_EQ(res.mlabCells, static_cast<int64_t>(1 + reads) * kLineBytes * 8);
  EXPECT_EQ(onChipBufferBits(prog.buffers[2]), 0);
}

/// One run of tests/vhdl/gated_read_tb.vhd: a write fills an on-chip buffer while a read
/// of it runs. Its result line: "errors E vectors V first F done D cycles C".
struct GatedRun {
  int64_t errors = -1, vectors = 0, first = 0, done = 0, cycles = 0;
};

GatedRun runGatedRead(const std::string& name, std::vector<std::pair<std::string, std::string>> generics) {
  auto dir = scratch(name);
  const std::string t = templateDir();
  std::vector<std::filesystem::path> files{t + "/ss_pkg.vhd",   t + "/ss_agen.vhd",     t + "/ss_read.vhd",
                                           t + "/ss_write.vhd", t + "/ss_line_ram.vhd",
                                           std::string(SKELESHARE_SOURCE_DIR) + "/tests/vhdl/gated_read_tb.vhd"};
  generics.emplace_back("RESULT_FILE", "result.txt");
  GhdlResult r = ghdlSimulate(dir, files, "gated_read_tb", generics);
  EXPECT_TRUE(r.ok) << name << ": " << r.failedStep << "\n" << r.log;
  GatedRun run;
  std::ifstream f(dir / "result.txt");
  std::string e, v, fi, d, c;
  f >> e >> run.errors >> v >> run.vectors >> fi >> run.first >> d >> run.done >> c >> run.cycles;
  std::cerr << name << ": errors " << run.errors << " vectors " << run.vectors << " first " << run.first
            << " done " << run.done << " cycles " << run.cycles << "\n";
  return run;
}

// Overlapping units (a consumer reading the rows its producer has written) need a read
// that waits for its lines: ss_read's GATED scout requests a line only below the
// writer's `wm`. The reader starts with the writer and catches up with it, under random
// valids and readies; its first vector leaves long before the writer is done, and every
// vector is the one written. Without the gate it reads lines not yet written ('U'), so
// the comparison can fail. With both at full speed the RAM takes a write and a read each
// cycle (simple dual-port): 32 lines written and read back a line a vector in 41 cycles,
// where a port shared round-robin took 72.
TEST(OnChipBuffer, AReadGatedByItsWriterReadsEachLineOnceWrittenWhileTheWriteRuns) {
  const std::pair<bool, int> runs[] = {{false, 1}, {false, 2}, {true, 3}};  // {a line a vector, seed}
  for (const auto& [wide, seed] : runs) {
    GatedRun r = runGatedRead(fmt::format("gated_{}_{}", wide ? "wide" : "narrow", seed),
                              {{"SEED", std::to_string(seed)}, {"WIDE", wide ? "true" : "false"}});
    EXPECT_EQ(r.errors, 0) << "wide " << wide << " seed " << seed;
    EXPECT_EQ(r.vectors, wide ? 32 : 64);
    EXPECT_GT(r.done, 0);
    EXPECT_LT(r.first, r.done / 2) << "the read waited for the whole write";
  }
  GatedRun full = runGatedRead("gated_full_speed", {{"IN_PCT", "100"}, {"OUT_PCT", "100"}, {"WIDE", "true"}});
  EXPECT_EQ(full.errors, 0);
  EXPECT_LE(full.cycles, 48) << "a write and a read of the RAM per cycle";
  GatedRun ungated = runGatedRead("gated_off", {{"GATED", "false"}});
  EXPECT_GT(ungated.errors, 0) << "without the gate the read must see unwritten lines";
}

}  // namespace
}  // namespace skeleshare::vhdl::test
