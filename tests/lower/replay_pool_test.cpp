// The replay pool: units that run one at a time share their replay buffers' RAMs.

#include <gtest/gtest.h>

#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/replay_pool.h"
#include "skeleshare/lower/resources.h"

namespace skeleshare::lower {
namespace {

constexpr DimKind S = DimKind::Stream;
constexpr DimKind V = DimKind::Vector;

/// A program with one i8 input of 4 x 3 x 2 elements; units are added by `unit`.
struct PoolFixture {
  Program prog;
  PoolFixture() { prog.buffers.push_back({"x", 8, {4, 3, 2}, Memory::OffChip, Role::Input}); }
  /// A unit that reads x with `kinds` and replays the read at each stream position in
  /// `repeats` (twice), each Repeat on the read.
  Unit& unit(std::vector<DimKind> kinds, std::vector<int64_t> repeats) {
    prog.units.push_back({"u" + std::to_string(prog.units.size()), {}, std::nullopt});
    Unit& u = prog.units.back();
    UnitBuilder b(prog, u);
    AddrGen g = AddrGen::identity(prog.buffers[0].shape);
    for (size_t i = 0; i < kinds.size(); ++i) g.counters[i].kind = kinds[i];
    uint32_t x = b.read(0, g);
    for (int64_t d : repeats) b.op(Prim::Repeat, {x}, {2, d});
    return u;
  }
};

uint32_t repeatNode(const Unit& u, size_t k) {
  size_t seen = 0;
  for (size_t i = 0; i < u.nodes.size(); ++i)
    if (u.nodes[i].prim == Prim::Repeat && seen++ == k) return static_cast<uint32_t>(i);
  ADD_FAILURE() << "no Repeat " << k;
  return 0;
}

TEST(ReplayPool, UnitsShareOneRamPerWidthAndRankAsDeepAsTheirDeepestBuffer) {
  PoolFixture f;
  // u0: words of vec[2] i8 (16 bits); a Repeat at stream position 1 (blocks of 3 words,
  // two banks: 6) and one at position 0 (the whole stream, 12 words: 24)
  f.unit({S, S, V}, {1, 0});
  // u1: the same width, one buffer of 2 x 12 words
  f.unit({S, S, V}, {0});
  // u2: vec[3][2] words (48 bits): another width, its own slot
  f.unit({S, V, V}, {0});
  const ReplayPool pool = planReplayPool(f.prog);
  ASSERT_EQ(pool.slots.size(), 3u);
  // slot 0: u0's deepest (2 x 12 words) and u1's only buffer (2 x 12 words)
  EXPECT_EQ(pool.slots[0].width, 16);
  EXPECT_EQ(pool.slots[0].words, 24);
  EXPECT_EQ(pool.slotOf.at({0, repeatNode(f.prog.units[0], 1)}), 0u);
  EXPECT_EQ(pool.slotOf.at({1, repeatNode(f.prog.units[1], 0)}), 0u);
  // slot 1: u0's second-deepest buffer of that width, 2 x 3 words
  EXPECT_EQ(pool.slots[1].width, 16);
  EXPECT_EQ(pool.slots[1].words, 6);
  EXPECT_EQ(pool.slotOf.at({0, repeatNode(f.prog.units[0], 0)}), 1u);
  // slot 2: u2's buffer of vec[3][2] i8 words (48 bits), 2 x 4
  EXPECT_EQ(pool.slots[2].width, 48);
  EXPECT_EQ(pool.slots[2].words, 8);
  EXPECT_EQ(pool.slots[2].users, (std::vector<std::pair<size_t, uint32_t>>{{2, repeatNode(f.prog.units[2], 0)}}));

  // The design's on-chip bits are the pool's RAMs, not every buffer.
  int64_t perBuffer = 0;
  for (const Unit& u : f.prog.units)
    for (const Node& n : u.nodes) perBuffer += nodeResources(u, n).onChipBits;
  EXPECT_EQ(perBuffer, 24 * 16 + 6 * 16 + 24 * 16 + 8 * 48);
  EXPECT_EQ(pool.bits(), 24 * 16 + 6 * 16 + 8 * 48);
  EXPECT_EQ(programResources(f.prog).onChipBits, pool.bits());
}

TEST(ReplayPool, ADatapathsBufferKeepsItsOwnRam) {
  PoolFixture f;
  Unit& u = f.unit({S, S, V}, {0});
  const uint32_t r = repeatNode(u, 0);
  u.call = Call{0, {r}};
  EXPECT_TRUE(planReplayPool(f.prog).slots.empty());
}

TEST(ReplayPool, WhatASharedInstanceReadsGoesFirst) {
  // Two calls of one instance: u0 replays its read twice, and the instance reads the
  // shallower replay (2 x 3 words); u1's instance reads its only one (2 x 12 words). Both
  // operands share slot 0, so the instance reads one RAM in both calls.
  PoolFixture f;
  for (const std::vector<int64_t>& repeats : {std::vector<int64_t>{0, 1}, std::vector<int64_t>{0}}) {
    Unit& u = f.unit({S, S, V}, repeats);
    const uint32_t read = repeatNode(u, repeats.size() - 1);
    UnitBuilder b(f.prog, u);
    const uint32_t shift = b.op(Prim::ShiftRight, {read}, {1});
    u.call = Call{0, {shift}};
  }
  const ReplayPool pool = planReplayPool(f.prog);
  ASSERT_EQ(pool.slots.size(), 2u);
  EXPECT_EQ(pool.slotOf.at({0, repeatNode(f.prog.units[0], 1)}), 0u);  // the shallower, read by the instance
  EXPECT_EQ(pool.slotOf.at({1, repeatNode(f.prog.units[1], 0)}), 0u);
  EXPECT_EQ(pool.slotOf.at({0, repeatNode(f.prog.units[0], 0)}), 1u);
  EXPECT_EQ(pool.slots[0].words, 24);
  EXPECT_EQ(pool.slots[1].words, 24);
}

TEST(ReplayPool, IntermediatesGoOnChipOnlyWhereThePoolLeavesRoom) {
  // A device of 200 M20K blocks: an intermediate of 2,048 lines takes 64 (within its half),
  // and a replay buffer of 1,024 words of 3,200 bits (vec[400] i8) 160 blocks.
  const int64_t device = 200 * 20480;
  Program prog;
  prog.buffers.push_back({"x", 8, {512, 400}, Memory::OffChip, Role::Input});
  prog.buffers.push_back({"t", 8, {2048, 64}, Memory::OffChip, Role::Intermediate});
  prog.units.push_back({"u", {}, std::nullopt});
  UnitBuilder b(prog, prog.units.back());
  b.read(1, AddrGen::identity(prog.buffers[1].shape));
  placeBuffers(prog, device);
  EXPECT_EQ(prog.buffers[1].memory, Memory::OnChip);  // no replay buffer: its half fits
  EXPECT_EQ(programResources(prog).m20kBlocks, 64);

  AddrGen g = AddrGen::identity(prog.buffers[0].shape);
  g.counters[0].kind = S;
  g.counters[1].kind = V;
  b.op(Prim::Repeat, {b.read(0, g)}, {2, 0});
  EXPECT_EQ(mapRam(3200, 1024).m20k, 160);
  placeBuffers(prog, device);
  EXPECT_EQ(prog.buffers[1].memory, Memory::OffChip);  // 64 + 160 blocks are more than 200
  EXPECT_EQ(programResources(prog).m20kBlocks, 160);
}

}  // namespace
}  // namespace skeleshare::lower
