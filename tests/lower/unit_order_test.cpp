// The order of independent units when units start with the unit before them
// (lower/unit_order.h).

#include <gtest/gtest.h>

#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/unit_order.h"

namespace skeleshare::lower {
namespace {

const std::vector<int64_t> kShape{64, 64};     // 64 lines of i8
const std::vector<int64_t> kLong{1024, 64};    // 1,024 lines
const cost::MemorySystem kMemory{700, 4};
const int64_t kRoomy = int64_t{1} << 40;

AddrGen rows(const std::vector<int64_t>& shape = kShape) {
  AddrGen g = AddrGen::identity(shape);
  g.counters[1].kind = DimKind::Vector;
  return g;
}

/// x and y in, a and b on chip: u0_a copies x into a (1,024 lines: the long one), u1_b
/// copies y into b (64), and u2_c replays b twice as one block (so all of it must be
/// written first), writing nothing.
Program program() {
  Program p;
  p.buffers.push_back({"x", 8, kLong, Memory::OffChip, Role::Input});
  p.buffers.push_back({"y", 8, kShape, Memory::OffChip, Role::Input});
  p.buffers.push_back({"a", 8, kLong, Memory::OnChip, Role::Intermediate});
  p.buffers.push_back({"b", 8, kShape, Memory::OnChip, Role::Intermediate});
  auto copy = [&](const char* name, int from, int to, const std::vector<int64_t>& shape) {
    p.units.push_back({name, {}, std::nullopt});
    UnitBuilder b(p, p.units.back());
    b.write(to, rows(shape), b.read(from, rows(shape)));
  };
  copy("u0_a", 0, 2, kLong);
  copy("u1_b", 1, 3, kShape);
  p.units.push_back({"u2_c", {}, std::nullopt});
  UnitBuilder b(p, p.units.back());
  b.op(Prim::Repeat, {b.read(3, rows())}, {2, 0});
  return p;
}

TEST(UnitOrder, UnitsThatShareNoWrittenBufferAreIndependent) {
  const Program p = program();
  EXPECT_TRUE(independentUnits(p.units[0], p.units[1]));  // different inputs and outputs
  EXPECT_TRUE(independentUnits(p.units[0], p.units[2]));
  EXPECT_FALSE(independentUnits(p.units[1], p.units[2]));  // c reads what b writes
  EXPECT_FALSE(independentUnits(p.units[2], p.units[1]));
  Program same = program();
  same.units[0] = same.units[1];  // both write b
  EXPECT_FALSE(independentUnits(same.units[0], same.units[1]));
}

TEST(UnitOrder, AnIndependentUnitMovesBeforeTheProducerThatAReplayWaitsFor) {
  // b just before c: c's replay of all of b waits for b's end, and b's for a's start, so
  // c follows a's 1,024 lines. With b first, a between b and c: c starts beside a once b
  // has ended, and replays from the finished b while a still runs.
  Program p = program();
  AccessCounter counts;
  applyOverlap(p, kRoomy);
  const int64_t before = estimateCycles(p, kMemory, counts).total;
  EXPECT_EQ(orderUnitsForOverlap(p, kRoomy, kMemory, counts), 1u);
  ASSERT_EQ(p.units.size(), 3u);
  EXPECT_EQ(p.units[0].name, "u0_b");
  EXPECT_EQ(p.units[1].name, "u1_a");
  EXPECT_EQ(p.units[2].name, "u2_c");
  EXPECT_EQ(p.startsWithPrevious, (std::vector<bool>{false, true, true}));
  const int64_t after = estimateCycles(p, kMemory, counts).total;
  EXPECT_LT(after, before - 100) << before << " -> " << after;
  // and with no gain to be had, nothing moves: a chain of dependent units
  Program chain = program();
  chain.units.erase(chain.units.begin());
  EXPECT_EQ(orderUnitsForOverlap(chain, kRoomy, kMemory, counts), 0u);
  EXPECT_EQ(chain.units[0].name, "u1_b");
}

}  // namespace
}  // namespace skeleshare::lower
