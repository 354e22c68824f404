// On-chip buffers share line RAMs where their lives (spans of units) do not overlap.

#include <gtest/gtest.h>

#include "skeleshare/lower/line_rams.h"
#include "skeleshare/lower/resources.h"

namespace skeleshare::lower {
namespace {

TEST(LineRams, BuffersWhoseLivesDoNotOverlapShareARam) {
  // x -> u0 -> t0 -> u1 -> t1 -> u2 -> t2 -> u3 -> out: t0 lives over u0..u1, t1 over
  // u1..u2, t2 over u2..u3. t2 starts after t0's last reader: they share a RAM; t1 meets
  // both (u1 reads t0 and writes t1), so it has its own.
  Program prog;
  const std::vector<int64_t> shape{256, 64};  // 256 lines
  prog.buffers.push_back({"x", 8, shape, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"t0", 8, shape, Memory::OnChip, Role::Intermediate});
  prog.buffers.push_back({"t1", 8, shape, Memory::OnChip, Role::Intermediate});
  prog.buffers.push_back({"t2", 8, shape, Memory::OnChip, Role::Intermediate});
  prog.buffers.push_back({"out", 8, shape, Memory::OffChip, Role::Output});
  auto copy = [&](int from, int to) {
    prog.units.push_back({"u" + std::to_string(prog.units.size()), {}, std::nullopt});
    UnitBuilder b(prog, prog.units.back());
    b.write(to, AddrGen::identity(shape), b.read(from, AddrGen::identity(shape)));
  };
  copy(0, 1);
  copy(1, 2);
  copy(2, 3);
  copy(3, 4);
  const LineRamPlan plan = planLineRams(prog);
  ASSERT_EQ(plan.rams.size(), 2u);
  EXPECT_EQ(plan.rams[0].buffers, (std::vector<int>{1, 3}));
  EXPECT_EQ(plan.rams[0].lines, 256);
  EXPECT_EQ(plan.rams[1].buffers, (std::vector<int>{2}));
  EXPECT_EQ(plan.ramOf, (std::vector<int>{-1, 0, 1, 0, -1}));
  // two RAMs of 256 lines: 64 M20K blocks each (one per byte), where three took 192
  EXPECT_EQ(programResources(prog).m20kBlocks, 128);

  // Off chip, a buffer has no RAM.
  prog.buffers[2].memory = Memory::OffChip;
  EXPECT_EQ(planLineRams(prog).ramOf, (std::vector<int>{-1, 0, -1, 0, -1}));
}

}  // namespace
}  // namespace skeleshare::lower
