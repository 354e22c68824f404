// Inputs kept on chip for the units that read them again (lower/reused_inputs.h), and the
// schedule's choice of them by the estimate (lower/overlap_schedule.h).

#include <gtest/gtest.h>

#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/overlap_schedule.h"
#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/reused_inputs.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/verifier.h"

namespace skeleshare::lower {
namespace {

const std::vector<int64_t> kShape{1024, 64};  // 1,024 lines of i8
const int64_t kRoomy = int64_t{1} << 40;

AddrGen rows() {
  AddrGen g = AddrGen::identity(kShape);
  g.counters[1].kind = DimKind::Vector;
  return g;
}

/// x in; `count` units each copy x, as read by `read`, to an output of their own
Program readers(int count, const AddrGen& read = rows()) {
  Program p;
  p.buffers.push_back({"x", 8, kShape, Memory::OffChip, Role::Input});
  for (int u = 0; u < count; ++u) {
    p.buffers.push_back({"t" + std::to_string(u), 8, kShape, Memory::OffChip, Role::Output});
    p.units.push_back({"u" + std::to_string(u) + "_copy", {}, std::nullopt});
    UnitBuilder b(p, p.units.back());
    b.write(u + 1, read, b.read(0, read));
  }
  return p;
}

int readBuffer(const Unit& unit) {
  for (const Node& n : unit.nodes)
    if (n.prim == Prim::Read) return n.buffer;
  return -1;
}

TEST(ReusedInputs, AnInputKeptOnChipIsWrittenByItsFirstReaderAndReadByTheOthers) {
  Program p = readers(3);
  ASSERT_EQ(reusedInputs(p), (std::vector<int>{0}));
  keepOnChip(p, 0);
  ASSERT_EQ(p.buffers.size(), 5u);
  EXPECT_EQ(p.buffers[4].name, "x_kept");
  EXPECT_EQ(p.buffers[4].memory, Memory::OnChip);
  EXPECT_EQ(readBuffer(p.units[0]), 0);  // the first reader still reads x...
  int writes = 0;
  for (const Node& n : p.units[0].nodes) writes += n.prim == Prim::Write && n.buffer == 4;
  EXPECT_EQ(writes, 1);  // ...and writes the copy
  EXPECT_EQ(readBuffer(p.units[1]), 4);
  EXPECT_EQ(readBuffer(p.units[2]), 4);
  EXPECT_TRUE(verify(p).empty()) << verify(p).front();
}

TEST(ReusedInputs, OnlyAnInputWhoseFirstReaderSeesEveryLineOnceInOrderIsKept) {
  EXPECT_TRUE(reusedInputs(readers(1)).empty());  // one reader: nothing to save
  AddrGen half = rows();  // the first reader sees half the lines
  half.slice(0, 0, 512);
  EXPECT_TRUE(reusedInputs(readers(2, half)).empty());
  AddrGen falling = rows();  // or sees them last first
  falling.reverse(0);
  EXPECT_TRUE(reusedInputs(readers(2, falling)).empty());
  // an input that only one unit reads, twice
  Program twice = readers(1);
  UnitBuilder b(twice, twice.units[0]);
  b.write(1, rows(), b.read(0, rows()));
  EXPECT_TRUE(reusedInputs(twice).empty());
}

TEST(OverlapSchedule, KeepsAnInputOnChipWhereTheSchedulesEstimateFalls) {
  // three units each read x's 1,024 lines; with the port at 0.7 lines a cycle they are
  // port-bound side by side, and the copy leaves the port only the first one's reads
  const cost::MemorySystem slowPort{700, 4};
  Program plain = readers(3);
  AccessCounter counts;
  applyOverlap(plain, kRoomy);
  const int64_t before = estimateCycles(plain, slowPort, counts).total;
  Program p = readers(3);
  EXPECT_EQ(scheduleForOverlap(p, kRoomy, slowPort, counts), 1);
  EXPECT_EQ(readBuffer(p.units[1]), 4);
  EXPECT_EQ(p.startsWithPrevious, (std::vector<bool>{false, true, true}));
  const int64_t after = estimateCycles(p, slowPort, counts).total;
  EXPECT_LT(after, before - 1000) << before << " -> " << after;
  EXPECT_TRUE(verify(p).empty());
}

TEST(OverlapSchedule, LeavesAnInputOffChipWhereTheCopyGainsNothingOrDoesNotFit) {
  AccessCounter counts;
  {
    // u0 replays each line of x 4 times, so it reads a line every 4 cycles; u1 copies x
    // into t, which u2 replays whole (so it waits for u1's end). Reading x from the port,
    // u1 ends long before u0 and u2 runs beside u0; reading u0's copy, u1 keeps u0's pace
    // and u2 comes after both
    const cost::MemorySystem slowPort{700, 4};
    Program p;
    p.buffers.push_back({"x", 8, kShape, Memory::OffChip, Role::Input});
    p.buffers.push_back({"t", 8, kShape, Memory::OnChip, Role::Intermediate});
    auto unit = [&](const char* name) {
      p.units.push_back({name, {}, std::nullopt});
      return UnitBuilder(p, p.units.back());
    };
    UnitBuilder u0 = unit("u0_slow");
    u0.op(Prim::Repeat, {u0.read(0, rows())}, {4, 1});
    UnitBuilder u1 = unit("u1_copy");
    u1.write(1, rows(), u1.read(0, rows()));
    UnitBuilder u2 = unit("u2_replay");
    u2.op(Prim::Repeat, {u2.read(1, rows())}, {2, 0});
    ASSERT_EQ(reusedInputs(p), (std::vector<int>{0}));
    Program kept = p;
    keepOnChip(kept, 0);
    applyOverlap(kept, kRoomy);
    const int64_t withCopy = estimateCycles(kept, slowPort, counts).total;
    EXPECT_EQ(scheduleForOverlap(p, kRoomy, slowPort, counts), 0);
    EXPECT_EQ(p.buffers.size(), 2u);
    EXPECT_LT(estimateCycles(p, slowPort, counts).total, withCopy);
  }
  {
    // only the blocks the design needs without the copy: none
    const cost::MemorySystem slowPort{700, 4};
    Program p = readers(3);
    applyOverlap(p, kRoomy);
    const int64_t without = programResources(p).m20kBlocks * kM20kBits;
    ASSERT_EQ(without, 0);
    Program q = readers(3);
    EXPECT_EQ(scheduleForOverlap(q, without, slowPort, counts), 0);
    EXPECT_EQ(readBuffer(q.units[2]), 0);
  }
}

}  // namespace
}  // namespace skeleshare::lower
