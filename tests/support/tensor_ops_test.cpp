// The shape helpers of tensor.h that the interpreter's data-transform skeletons use.

#include <gtest/gtest.h>

#include "skeleshare/support/tensor.h"

using namespace skeleshare;

namespace {

Tensor iota(int bits, std::vector<int64_t> shape) {
  Tensor t(bits, std::move(shape));
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<int32_t>(i);
  return t;
}

std::vector<int32_t> vals(const Tensor& t) { return t.values(); }

TEST(TensorOps, SubTensorAndReshape) {
  Tensor t = iota(8, {2, 3});
  EXPECT_EQ(vals(subTensor(t, 1)), (std::vector<int32_t>{3, 4, 5}));
  EXPECT_EQ(subTensor(t, 1).describe(), "i8[3]");
  EXPECT_EQ(subTensor(subTensor(t, 0), 2).describe(), "i8");
  EXPECT_THROW(subTensor(t, 2), std::out_of_range);
  EXPECT_THROW(subTensor(Tensor(8, {}), 0), std::out_of_range);
  EXPECT_EQ(reshaped(t, {3, 2}).describe(), "i8[3][2]");
  EXPECT_EQ(vals(reshaped(t, {6})), vals(t));
  EXPECT_THROW(reshaped(t, {4}), std::out_of_range);
}

TEST(TensorOps, ExtractAndInsertBlocks) {
  Tensor t = iota(16, {3, 4, 2});
  Tensor b = extractBlock(t, {1, 2, 1}, {2, 2, 1});
  // t[y][x][c] = 8y + 2x + c
  EXPECT_EQ(vals(b), (std::vector<int32_t>{13, 15, 21, 23}));
  EXPECT_THROW(extractBlock(t, {2, 0, 0}, {2, 1, 1}), std::out_of_range);
  EXPECT_THROW(extractBlock(t, {0, 0}, {1, 1}), std::out_of_range);
  Tensor z(16, {3, 4, 2});
  insertBlock(z, {1, 2, 1}, b);
  EXPECT_EQ(extractBlock(z, {1, 2, 1}, {2, 2, 1}), b);
  EXPECT_EQ(z[0], 0);
  EXPECT_THROW(insertBlock(z, {2, 2, 1}, b), std::out_of_range);
  Tensor wide(32, {2, 2, 1});
  EXPECT_THROW(insertBlock(z, {0, 0, 0}, wide), std::out_of_range);  // i32 into i16
  // Scalars and empty extents.
  Tensor s(8, {});
  s[0] = 9;
  Tensor s2(8, {});
  insertBlock(s2, {}, s);
  EXPECT_EQ(s2[0], 9);
}

TEST(TensorOps, PadToAndTranspose) {
  Tensor t = iota(8, {2, 2});
  EXPECT_EQ(vals(padTo(t, {3, 3}, -1)), (std::vector<int32_t>{0, 1, -1, 2, 3, -1, -1, -1, -1}));
  EXPECT_THROW(padTo(t, {1, 3}), std::out_of_range);
  Tensor u = iota(8, {2, 3, 2});
  Tensor tr = transposeOuter(u);
  EXPECT_EQ(tr.describe(), "i8[3][2][2]");
  EXPECT_EQ(vals(tr), (std::vector<int32_t>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
  EXPECT_EQ(transposeOuter(tr), u);
  EXPECT_THROW(transposeOuter(iota(8, {3})), std::out_of_range);
}

}  // namespace
