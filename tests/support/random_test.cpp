// The deterministic generator: published constants, golden values computed by an
// independent Python implementation of the documented algorithm, ranges, independence.

#include <gtest/gtest.h>

#include "skeleshare/support/random.h"

using namespace skeleshare;
using namespace skeleshare::rng;

namespace {

TEST(Random, PublishedConstants) {
  EXPECT_EQ(fnv1a64(""), 0xCBF29CE484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xAF63DC4C8601EC8CULL);
  SplitMix64 g(0);
  EXPECT_EQ(g.next(), 0xE220A8397B1DCDAFULL);  // SplitMix64's reference first output
}

TEST(Random, GoldenValues) {
  // From a Python transcription of the algorithm in random.h.
  EXPECT_EQ(randomTensor(0, "image", 8, {2, 4}, Role::Input).values(),
            (std::vector<int32_t>{21, -66, -64, 24, 43, -115, -15, -90}));
  EXPECT_EQ(randomTensor(42, "w1", 8, {8}, Role::Weight).values(), (std::vector<int32_t>{-5, 1, 1, 7, 0, 6, -2, 3}));
  EXPECT_EQ(randomTensor(42, "w16", 16, {6}, Role::Weight).values(),
            (std::vector<int32_t>{-48, -73, -82, -20, -117, -124}));
  EXPECT_EQ(randomTensor(42, "bias", 32, {4}, Role::Weight).values(), (std::vector<int32_t>{-356, 575, 963, -115}));
  // An explicit range is used as given (the former i8 weight default, [-8, 7]).
  EXPECT_EQ(randomTensor(42, "w1", 8, {8}, Range{-8, 7}).values(), (std::vector<int32_t>{-5, -8, 5, 3, -2, -5, -7, 6}));
}

TEST(Random, DependsOnSeedAndNameOnly) {
  Tensor a = randomTensor(7, "x", 16, {64}, Role::Input);
  EXPECT_EQ(a, randomTensor(7, "x", 16, {64}, Role::Input));
  EXPECT_NE(a, randomTensor(8, "x", 16, {64}, Role::Input));
  EXPECT_NE(a, randomTensor(7, "y", 16, {64}, Role::Input));
  // Row-major prefix property: the shape only decides how many values are drawn.
  Tensor b = randomTensor(7, "x", 16, {8, 8}, Role::Input);
  EXPECT_EQ(a.values(), b.values());
}

TEST(Random, StaysInTheDocumentedRanges) {
  for (int bits : {8, 16, 32})
    for (Role role : {Role::Input, Role::Weight}) {
      Range r = defaultRange(bits, role);
      Tensor t = randomTensor(1, "t", bits, {4096}, role);
      int32_t lo = INT32_MAX, hi = INT32_MIN;
      for (int32_t v : t.values()) lo = std::min(lo, v), hi = std::max(hi, v);
      EXPECT_GE(lo, r.lo);
      EXPECT_LE(hi, r.hi);
      // 4096 draws reach close to both ends of every range.
      EXPECT_LE(lo, r.lo + (int64_t{r.hi} - r.lo) / 50);
      EXPECT_GE(hi, r.hi - (int64_t{r.hi} - r.lo) / 50);
    }
  EXPECT_EQ(defaultRange(8, Role::Input).lo, -128);
  EXPECT_EQ(defaultRange(8, Role::Weight).lo, -7);
  EXPECT_EQ(defaultRange(8, Role::Weight).hi, 7);
}

TEST(Random, WeightRangesAreSymmetric) {
  // Zero-mean weights: an asymmetric range would bias every channel's weight sum.
  for (int bits : {8, 16, 32}) {
    Range r = defaultRange(bits, Role::Weight);
    EXPECT_EQ(r.lo, -r.hi) << "i" << bits;
  }
}

TEST(Random, RejectsBadArguments) {
  EXPECT_THROW(defaultRange(12, Role::Input), std::invalid_argument);
  EXPECT_THROW(randomTensor(0, "x", 8, {2}, Range{-200, 0}), std::invalid_argument);
  EXPECT_THROW(randomTensor(0, "x", 8, {2}, Range{3, 2}), std::invalid_argument);
  // A single-value range is fine.
  EXPECT_EQ(randomTensor(0, "x", 8, {3}, Range{5, 5}).values(), (std::vector<int32_t>{5, 5, 5}));
}

}  // namespace
