// Units that run at the same time (lower/overlap.h): a unit that starts with the one
// before it, its reads of what that one writes waiting for the lines (ss_read GATED on
// ss_write's wm). Bit-exact against the mid-level interpreter under random wait states,
// and sooner than one unit after another.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/verifier.h"
#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

using namespace lower;

constexpr int64_t kRows = 64, kCols = 64;  // 64 lines of i8

AddrGen rows() {
  AddrGen g = AddrGen::identity({kRows, kCols});
  g.counters[1].kind = DimKind::Vector;
  return g;
}

/// t0 = a; t1 = t0 + t0; t2 = t1 + t1; o = t2: the stencil's shape, a chain of layers
/// whose intermediates stay on chip, each unit reading what the one before it writes, row
/// by row. Only the first and the last cross the memory port.
Program chain() {
  Program prog;
  prog.buffers.push_back({"a", 8, {kRows, kCols}, Memory::OffChip, Role::Input});
  for (const char* t : {"t0", "t1", "t2"}) prog.buffers.push_back({t, 8, {kRows, kCols}, Memory::OnChip, Role::Intermediate});
  prog.buffers.push_back({"o", 8, {kRows, kCols}, Memory::OffChip, Role::Output});
  for (int u = 0; u < 4; ++u) {
    prog.units.push_back({fmt::format("u{}", u), {}, std::nullopt});
    UnitBuilder b(prog, prog.units.back());
    const uint32_t x = b.read(u, rows());
    b.write(u + 1, rows(), u == 0 || u == 3 ? x : b.op(Prim::Add, {x, b.read(u, rows())}));
  }
  auto problems = verify(prog);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return prog;
}

TEST(Overlap, AUnitThatStartsWithItsProducerReadsItsRowsAsTheyAreWritten) {
  Program seq = chain();
  Program ovl = chain();
  applyOverlap(ovl, int64_t{1} << 40);  // room for every overlap
  ASSERT_EQ(ovl.startsWithPrevious, (std::vector<bool>{false, true, true, true}));
  std::map<std::string, Tensor> inputs;
  for (const char* name : {"a"}) {
    Tensor t(8, {kRows, kCols});
    for (size_t i = 0; i < t.size(); ++i) t.setWrapped(i, static_cast<int64_t>((i * 37 + (name[0] - 'a') * 11) % 255) - 127);
    inputs[name] = t;
  }
  auto want = run(seq, inputs);
  // The estimate: u1 starts with u0, u2 with u1 once u0 has ended, u3 with u2 once u1 has.
  const int64_t estSeq = estimateCycles(seq, testMemory()).total, estOvl = estimateCycles(ovl, testMemory()).total;
  std::cerr << "estimated: one after another " << estSeq << ", overlapped " << estOvl << "; units";
  for (int64_t c : estimateCycles(seq, testMemory()).perUnit) std::cerr << " " << c;
  std::cerr << "\n";
  EXPECT_LT(estOvl, estSeq * 2 / 3);
  for (uint64_t seed : {1, 2}) {
    Simulated one = emitAndSimulate(seq, inputs, fmt::format("t_seq{}", seed), seed, 20000);
    Simulated both = emitAndSimulate(ovl, inputs, fmt::format("t_ovl{}", seed), seed, 20000);
    ASSERT_TRUE(one.sim.ok) << one.sim.error << "\n" << one.sim.log;
    ASSERT_TRUE(both.sim.ok) << both.sim.error << "\n" << both.sim.log;
    auto bad = firstMismatch(want, both.sim.outputs);
    EXPECT_FALSE(bad.has_value()) << "seed " << seed << ": " << bad->describe();
    EXPECT_FALSE(firstMismatch(want, one.sim.outputs).has_value());
    std::cerr << "seed " << seed << ": one after another " << one.sim.cycles << " cycles, overlapped "
              << both.sim.cycles << "\n";
    EXPECT_LT(both.sim.cycles, one.sim.cycles);
    // the estimate within 15% of what the simulation took, either way
    EXPECT_LT(std::abs(estOvl - both.sim.cycles) * 100, both.sim.cycles * 15);
    EXPECT_LT(std::abs(estSeq - one.sim.cycles) * 100, one.sim.cycles * 15);
    // both reads of t0 wait on its writer
    std::string add;
    for (const auto& f : both.design.files)
      if (f.name == fmt::format("t_ovl{}_u1.vhd", seed)) add = f.text;
    size_t gatedReads = 0;
    for (size_t at = add.find("GATED => true"); at != std::string::npos; at = add.find("GATED => true", at + 1)) ++gatedReads;
    EXPECT_EQ(gatedReads, 2u) << add;
  }
}

}  // namespace
}  // namespace skeleshare::vhdl::test
