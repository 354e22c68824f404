// The affine address generator: every edit of a view against the tensor operation it
// stands for, the linear form, masks and their priority, chunking with guards, checking.

#include <gtest/gtest.h>

#include "skeleshare/lower/addrgen.h"
#include "skeleshare/lower/interpreter.h"

namespace skeleshare::lower {
namespace {

Tensor iota(std::vector<int64_t> shape, int bits = 8) {
  Tensor t(bits, shape);
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<int32_t>(i % 100) + 1;
  return t;
}

TEST(AddrGen, IdentityReadsTheBufferAndIsLinear) {
  Tensor src = iota({2, 3, 4});
  AddrGen g = AddrGen::identity({2, 3, 4});
  EXPECT_TRUE(g.isView());
  EXPECT_EQ(readThrough(g, src), src);
  auto lf = g.linear();
  ASSERT_TRUE(lf);
  EXPECT_EQ(lf->base, 0);
  EXPECT_EQ(lf->strides, (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(g.check(), "");
}

TEST(AddrGen, PadIsAMaskWithItsFill) {
  Tensor src = iota({2, 3});
  AddrGen g = AddrGen::identity({2, 3});
  g.pad(0, 1, 2, -5);
  g.pad(1, 0, 1, -5);
  EXPECT_EQ(g.counters[0].extent, 5);
  EXPECT_EQ(g.counters[1].extent, 4);
  EXPECT_EQ(g.masks.size(), 2u);
  EXPECT_EQ(g.check(), "");
  Tensor r = readThrough(g, src);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      bool inside = i >= 1 && i < 3 && j < 3;
      EXPECT_EQ(r.at({i, j}), inside ? src.at({i - 1, j}) : -5) << i << "," << j;
    }
  EXPECT_EQ(g.linear()->base, -3);  // the masked address pattern starts one row early
}

TEST(AddrGen, NestedPadsKeepTheirOwnFills) {
  Tensor src = iota({2});
  AddrGen g = AddrGen::identity({2});
  g.pad(0, 1, 0, 7);   // inner: [7, a, b]
  g.pad(0, 1, 0, -9);  // outer: [-9, 7, a, b]
  Tensor r = readThrough(g, src);
  EXPECT_EQ(r.values(), (std::vector<int32_t>{-9, 7, src[0], src[1]}));
}

TEST(AddrGen, RepeatIsStrideZero) {
  Tensor src = iota({3});
  AddrGen g = AddrGen::identity({3});
  g.repeat(0, 4);
  auto lf = g.linear();
  ASSERT_TRUE(lf);
  EXPECT_EQ(lf->strides, (std::vector<int64_t>{0, 1}));
  Tensor r = readThrough(g, src);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(r.at({i, j}), src[static_cast<size_t>(j)]);
}

TEST(AddrGen, TransposeSwapsStrides) {
  Tensor src = iota({3, 5, 2});
  AddrGen g = AddrGen::identity({3, 5, 2});
  g.transpose(0, 1);
  EXPECT_EQ(readThrough(g, src), transposeOuter(src));
  EXPECT_EQ(g.linear()->strides, (std::vector<int64_t>{2, 10, 1}));
}

TEST(AddrGen, ReverseRunsACounterBackwardsThroughItsMasks) {
  Tensor src = iota({2, 3});
  AddrGen g = AddrGen::identity({2, 3});
  g.pad(1, 1, 0, -1);  // a mask on the counter: [-1, x0, x1, x2] per row
  g.reverse(1);
  Tensor r = readThrough(g, src);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(r.at({i, j}), src.at({i, 2 - j}));
    EXPECT_EQ(r.at({i, 3}), -1);  // the pad, now last
  }
  EXPECT_EQ(g.check(), "");
  AddrGen flat = AddrGen::identity({2, 3});
  flat.flatten(0);
  EXPECT_THROW(flat.reverse(0), std::logic_error) << "a flattened index is not one digit";
}

TEST(AddrGen, ExtendReadsTheBuffersOwnElementsWhereItHasThem) {
  Tensor src = iota({2, 5});
  AddrGen g = AddrGen::identity({2, 5});
  g.slice(1, 1, 2);  // columns 1 and 2 of each row
  ASSERT_TRUE(g.extend(1, 1, 2));  // columns 0 to 4: all in the buffer, no mask
  EXPECT_TRUE(g.masks.empty());
  EXPECT_EQ(g.check(), "");
  EXPECT_EQ(readThrough(g, src), src);
  // past the buffer's end it would need a mask: not done, nothing changed
  AddrGen before = g;
  EXPECT_FALSE(g.extend(1, 0, 1));
  EXPECT_EQ(g.str(), before.str());
  g.pad(1, 0, 1, -1);  // which pad does, with its mask
  EXPECT_EQ(readThrough(g, src).at({1, 5}), -1);
}

TEST(AddrGen, SlideMakesWindowsWithStep) {
  Tensor src = iota({7});
  AddrGen g = AddrGen::identity({7});
  g.slide(0, 3, 2);  // windows at 0, 2, 4
  ASSERT_EQ(g.counters.size(), 2u);
  EXPECT_EQ(g.counters[0].extent, 3);
  Tensor r = readThrough(g, src);
  for (int64_t w = 0; w < 3; ++w)
    for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(r.at({w, k}), src[static_cast<size_t>(2 * w + k)]);
  EXPECT_EQ(g.linear()->strides, (std::vector<int64_t>{2, 1}));
}

TEST(AddrGen, FlattenOfAWindowIsMixedRadix) {
  // A 2-D window (ky, kx) of a 4x4 image is not contiguous: flattening it keeps both digits.
  Tensor src = iota({4, 4});
  AddrGen g = AddrGen::identity({4, 4});
  g.slide(0, 2, 1);       // [3][2][4]
  g.slide(2, 2, 1);       // [3][2][3][2]
  g.transpose(1, 2);      // [3][3][2][2]
  g.flatten(2);           // [3][3][4]
  EXPECT_TRUE(g.isView());
  EXPECT_FALSE(g.linear().has_value());
  EXPECT_EQ(g.groups[2].radices, (std::vector<int64_t>{2, 2}));
  Tensor r = readThrough(g, src);
  for (int64_t y = 0; y < 3; ++y)
    for (int64_t x = 0; x < 3; ++x)
      for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(r.at({y, x, j}), src.at({y + j / 2, x + j % 2}));
}

TEST(AddrGen, PadDigitGivesEveryWindowRowTheSameLength) {
  // The same windows, each row (kx) padded from 2 to 3 columns: element j is (j / 3, j % 3)
  // of the window, the third column of each row reads the fill.
  Tensor src = iota({4, 4});
  AddrGen g = AddrGen::identity({4, 4});
  g.slide(0, 2, 1);
  g.slide(2, 2, 1);
  g.transpose(1, 2);
  g.flatten(2);  // [3][3][4], radices 2 x 2
  g.padDigit(2, 1, 3, 7);
  EXPECT_EQ(g.counters[2].extent, 6);
  EXPECT_EQ(g.groups[2].radices, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g.check(), "");
  Tensor r = readThrough(g, src);
  for (int64_t y = 0; y < 3; ++y)
    for (int64_t x = 0; x < 3; ++x)
      for (int64_t j = 0; j < 6; ++j)
        EXPECT_EQ(r.at({y, x, j}), j % 3 == 2 ? 7 : src.at({y + j / 3, x + j % 3})) << y << x << j;
  EXPECT_THROW(g.padDigit(2, 0, 3, 0), std::logic_error);  // the top digit: pad() does that
  EXPECT_THROW(g.padDigit(2, 1, 2, 0), std::logic_error);  // smaller
}

TEST(AddrGen, SliceAndSplit) {
  Tensor src = iota({10});
  AddrGen g = AddrGen::identity({10});
  g.slice(0, 2, 6);
  g.split(0, 3);  // [2][3] over elements 2..7
  Tensor r = readThrough(g, src);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b) EXPECT_EQ(r.at({a, b}), src[static_cast<size_t>(2 + 3 * a + b)]);
  EXPECT_THROW(g.split(0, 4), std::logic_error);
}

TEST(AddrGen, SplitByOneOfAFlattenedIndexAddsAUnitCounter) {
  // A 3x3 one-channel window flattened to 9, tiled by one (random program 315's TiledMv):
  // the radix-boundary split would leave the new group no radix.
  Tensor src = iota({3, 3, 1});
  AddrGen g = AddrGen::identity({3, 3, 1});
  g.flatten(0);
  g.flatten(0);  // [9], radices 3 x 3 x 1
  g.split(0, 1);  // [9][1]
  EXPECT_EQ(g.check(), "");
  Tensor r = readThrough(g, src);
  ASSERT_EQ(r.shape(), (std::vector<int64_t>{9, 1}));
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(r.at({i, 0}), src.at({i / 3, i % 3, 0}));
}

TEST(AddrGen, RegroupChunksAFlattenedIndexWithAGuard) {
  // N = 6 elements (radices 3 x 2) read as 2 chunks of K = 4 lanes: n = 4*c + k, n >= 6 reads 0.
  Tensor src = iota({3, 2});
  AddrGen g = AddrGen::identity({3, 2});
  g.flatten(0);
  Affine n{0, {4, 1}};
  g.regroup({{2, DimKind::Stream}, {4, DimKind::Vector}}, {n});
  g.guardGroup(0, 0);
  EXPECT_EQ(g.check(), "");
  Tensor r = readThrough(g, src);
  std::vector<int32_t> want = {src[0], src[1], src[2], src[3], src[4], src[5], 0, 0};
  EXPECT_EQ(r.values(), want);
  EXPECT_EQ(g.valueType(8).str(), "stm[2] vec[4] i8");
}

TEST(AddrGen, CheckRejectsAnUnguardedCoordinate) {
  AddrGen g = AddrGen::identity({4});
  g.coords[0].offset = 1;  // reads element 4 at counter 3
  EXPECT_NE(g.check(), "");
  EXPECT_THROW(readThrough(g, iota({4})), std::out_of_range);
  AddrGen p = AddrGen::identity({4});
  p.pad(0, 1, 1, 0);
  EXPECT_EQ(p.check(), "");
  p.masks.clear();  // the padding without its mask
  EXPECT_NE(p.check(), "");
}

TEST(AddrGen, WriteSkipsMaskedElements) {
  AddrGen g = AddrGen::identity({3});
  g.pad(0, 0, 1, 0);  // counter 3 is masked: not written
  Tensor x(8, {4});
  x.values() = {1, 2, 3, 4};
  Tensor dst(8, {3});
  writeThrough(g, x, dst);
  EXPECT_EQ(dst.values(), (std::vector<int32_t>{1, 2, 3}));
}

TEST(AddrGen, EditsOutsideViewFormAreRefused) {
  AddrGen g = AddrGen::identity({4, 4});
  g.flatten(0);
  EXPECT_THROW(g.pad(0, 1, 1, 0), std::logic_error);  // a multi-radix counter cannot be padded
  g.regroup({{16, DimKind::Stream}}, {Affine{0, {1}}});
  g.counters[0].extent = 8;
  EXPECT_FALSE(g.isView());
  EXPECT_THROW(g.repeat(0, 2), std::logic_error);
}

}  // namespace
}  // namespace skeleshare::lower
