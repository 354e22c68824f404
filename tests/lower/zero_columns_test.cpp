// Zero columns (zero_columns.h): a dot over zero-padded channels takes the steps of its
// real columns only, under every structure a padded convolution's function may have (a
// whole-window dot, a tiling of the window's columns, a tiling of the channels, nested
// paddings), and the lowered program computes what the skeleton interpreter does.

#include <gtest/gtest.h>

#include "skeleshare/lower/zero_columns.h"
#include "test_util.h"

namespace skeleshare::lower::test {
namespace {

/// The datapath's steps per call: the stream steps of the unit's multiplier.
int64_t mulSteps(const Program& p) {
  int64_t steps = 0;
  for (const auto& u : p.units)
    for (const auto& n : u.nodes)
      if (n.prim == Prim::Mul) steps = std::max(steps, n.type.streamSteps());
  return steps;
}

/// The multiplier lanes: the datapath keeps the padded type's (a shared unit's calls share it).
int64_t mulLanes(const Program& p) {
  for (const auto& u : p.units)
    for (const auto& n : u.nodes)
      if (n.prim == Prim::Mul) return n.type.vectorLanes();
  return 0;
}

// Three channels padded to 16 for a 3x3 kernel: 144 columns in 64 lanes (3 steps a
// position) hold 27 real ones, one step.
TEST(ZeroColumns, PaddedChannelsOfAWholeWindowDotTakeOneStep) {
  Loaded m = loadIrText(R"(
input x : i8[6][6][3];
weight w : i8[4][3][3][3];
output o = PaddedConvICH(@x, @w, \i8[6][6][16]. \i8[4][3][3][16]. Conv(%1, %0,
  \i8[4][144]. \i8[144]. Mv(%1, %0, \i8[4][144]. \i8[4][144]. ParallelDot[4](%1, %0))));
)");
  Program p;
  expectAgrees(m, 7, &p);
  EXPECT_EQ(mulSteps(p), 4 * 4);  // 16 positions, one step each (was three)
  EXPECT_EQ(mulLanes(p), 4 * 64);
}

// The window's columns tiled by 36 inside the padding (TiledMv: a summed tile loop of
// four): the tiles merge back into the columns, which then shrink to 27, one step of 36.
TEST(ZeroColumns, ATilingOfTheColumnsMergesBackAndShrinks) {
  Loaded m = loadIrText(R"(
input x : i8[6][6][3];
weight w : i8[2][3][3][3];
output o = PaddedConvICH(@x, @w, \i8[6][6][16]. \i8[2][3][3][16]. Conv(%1, %0,
  \i8[2][144]. \i8[144]. TiledMv(%1, %0, \i8[2][36]. \i8[36]. Mv(%1, %0,
    \i8[2][36]. \i8[2][36]. ParallelDot[2](%1, %0)))));
)");
  Program p;
  expectAgrees(m, 8, &p);
  EXPECT_EQ(mulSteps(p), 4 * 4);  // was four tiles a position
  EXPECT_EQ(mulLanes(p), 2 * 36);
}

// The channels tiled by 8 inside the padding to 16 (TiledConvICH): the second tile is all
// zero and goes; the first's channels past the real 3 shrink as well.
TEST(ZeroColumns, ATilingOfThePaddedChannelsKeepsTheRealTiles) {
  Loaded m = loadIrText(R"(
input x : i8[6][6][3];
weight w : i8[4][3][3][3];
output o = PaddedConvICH(@x, @w, \i8[6][6][16]. \i8[4][3][3][16]. TiledConvICH(%1, %0,
  \i8[6][6][8]. \i8[4][3][3][8]. Conv(%1, %0,
    \i8[4][72]. \i8[72]. Mv(%1, %0, \i8[4][72]. \i8[4][72]. ParallelDot[4](%1, %0)))));
)");
  Program p;
  expectAgrees(m, 9, &p);
  EXPECT_EQ(mulSteps(p), 4 * 4);  // one tile of one step (was two tiles of two)
  EXPECT_EQ(mulLanes(p), 4 * 64);
}

// Nested paddings (3 to 8 to 16): the tighter mask decides.
TEST(ZeroColumns, NestedPaddingsShrinkToTheRealChannels) {
  Loaded m = loadIrText(R"(
input x : i8[6][6][3];
weight w : i8[4][3][3][3];
output o = PaddedConvICH(@x, @w, \i8[6][6][8]. \i8[4][3][3][8]. PaddedConvICH(%1, %0,
  \i8[6][6][16]. \i8[4][3][3][16]. Conv(%1, %0,
    \i8[4][144]. \i8[144]. Mv(%1, %0, \i8[4][144]. \i8[4][144]. ParallelDot[4](%1, %0)))));
)");
  Program p;
  expectAgrees(m, 10, &p);
  EXPECT_EQ(mulSteps(p), 4 * 4);
}

// The columns of a matrix-vector product padded from 100 to 200 (PaddedMv of a flattened
// window would run its top digit past its radix; a plain matrix's column is one digit):
// 100 real columns in 64 lanes, two steps, not four.
TEST(ZeroColumns, PaddedMatrixColumnsTakeTheRealColumnsSteps) {
  Loaded m = loadIrText(R"(
input a : i8[4][100];
input v : i8[100];
output o = PaddedMv(@a, @v, \i8[4][200]. \i8[200]. Mv(%1, %0, \i8[4][200]. \i8[4][200]. ParallelDot[4](%1, %0)));
)");
  Program p;
  expectAgrees(m, 11, &p);
  EXPECT_EQ(mulSteps(p), 2);
}

// A padding that fills with something other than 0 (a max-pool's -128) makes no zero.
TEST(ZeroColumns, OnlyAZeroFillDropsColumns) {
  AddrGen a = AddrGen::identity({4, 3, 3, 3});
  AddrGen b = a;
  a.pad(3, 0, 13, -128);
  b.pad(3, 0, 13, 0);
  a.flatten(1);
  a.flatten(1);
  b.flatten(1);
  b.flatten(1);  // [4][3x3x16]
  AddrGen a2 = a, b2 = b;
  EXPECT_TRUE(dropZeroColumns(a2, b2, 1));  // b's zero decides: a's -128 times 0 is 0
  EXPECT_EQ(a2.counters[1].extent, 27);
  EXPECT_EQ(a2.groups[1].radices, (std::vector<int64_t>{3, 3, 3}));
  AddrGen a3 = a, a4 = a;
  EXPECT_FALSE(dropZeroColumns(a3, a4, 1));  // -128 in both: nothing is zero
  EXPECT_EQ(a3, a);
}

}  // namespace
}  // namespace skeleshare::lower::test
