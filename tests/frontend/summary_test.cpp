// Per-layer summary and MAC counting.

#include <gtest/gtest.h>

#include "test_util.h"

namespace skeleshare::frontend {
namespace {

TEST(Summary, LayersAndMacs) {
  test::Checked c(
      "input x : i8[10][10][3];\nweight w : i8[8][3][3][3];\nweight fc : i8[5][128];\n"
      "input a : i8[6][4];\nweight b : i8[7][4];\nweight k : i8[3];\n"
      "let c1 = requant(conv(pad(x, 1), w), 4);\n"   // 10x10x8, 10*10*8*27 = 21600
      "output y = mv(fc, flatten(maxpool(c1, 2, 4)));\n"  // 3x3... see below
      "output z = mm(a, b);\n"                       // 6*7*4 = 168
      "output u = conv1d_w(a, k);\n"                 // 6*2*3 = 36
      "output v = conv1d_h(a, k);\n");               // 4*4*3 = 48
  ASSERT_FALSE(c.prog) << "fc has the wrong width on purpose";
  EXPECT_EQ(c.firstError(), "8:12: error: mv: matrix has 128 columns, vector has 72 elements (matrix i8[5][128], vector i8[72])");

  test::Checked ok(
      "input x : i8[10][10][3];\nweight w : i8[8][3][3][3];\nweight fc : i8[5][72];\n"
      "input a : i8[6][4];\nweight b : i8[7][4];\nweight k : i8[3];\n"
      "let c1 = requant(conv(pad(x, 1), w), 4);\n"
      "output y = mv(fc, flatten(maxpool(c1, 2, 4)));\n"
      "output z = mm(a, b);\noutput u = conv1d_w(a, k);\noutput v = conv1d_h(a, k);\n");
  ASSERT_TRUE(ok.prog) << ok.printed();
  auto layers = summarize(*ok.prog);
  std::vector<std::string> ops;
  for (const auto& l : layers) ops.push_back(l.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"pad", "conv", "requant", "maxpool", "flatten", "mv", "mm", "conv1d_w", "conv1d_h"}));
  const LayerInfo& conv = layers[1];
  EXPECT_TRUE(conv.dsp);
  EXPECT_EQ(conv.binding, "c1");
  EXPECT_EQ(conv.loc.line, 7u);
  EXPECT_EQ(conv.loc.col, 18u);
  ASSERT_EQ(conv.inputs.size(), 2u);
  EXPECT_EQ(conv.inputs[0].str(), "i8[12][12][3]");
  EXPECT_EQ(conv.inputs[1].str(), "i8[8][3][3][3]");
  EXPECT_EQ(conv.output.str(), "i32[10][10][8]");
  EXPECT_EQ(conv.macs, 21600u);
  EXPECT_EQ(layers[0].macs, 0u);
  EXPECT_FALSE(layers[0].dsp);
  EXPECT_EQ(layers[0].inputs.size(), 1u);  // pad's amounts are not inputs
  EXPECT_EQ(layers[5].macs, 5u * 72);
  EXPECT_EQ(layers[6].macs, 168u);
  EXPECT_EQ(layers[7].macs, 36u);
  EXPECT_EQ(layers[8].macs, 48u);
  EXPECT_EQ(totalMacs(layers), 21600u + 360 + 168 + 36 + 48);
  // The weights each layer names (inputs and computed values are not weights).
  std::vector<uint64_t> weightBytes;
  for (const auto& l : layers) weightBytes.push_back(l.weightBytes);
  EXPECT_EQ(weightBytes, (std::vector<uint64_t>{0, 8 * 27, 0, 0, 0, 5 * 72, 7 * 4, 3, 3}));
}

TEST(Summary, DeadLetsDoNotCountAndLetsCountOnce) {
  test::Checked c("input a : i8[4][4];\nlet dead = mm(a, a);\nlet m = mm(a, a);\noutput o = m + m;");
  ASSERT_TRUE(c.prog);
  auto layers = summarize(*c.prog);
  EXPECT_EQ(totalMacs(layers), 64u);
  EXPECT_EQ(layers.size(), 2u);  // mm, add
}

TEST(Summary, OperatorsInLambdasCountPerIteration) {
  test::Checked c("input x : i8[5][4];\nweight m : i8[3][4];\noutput o = map(x, \\r. mv(m, r));");
  ASSERT_TRUE(c.prog) << c.printed();
  auto layers = summarize(*c.prog);
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0].op, "mv");
  EXPECT_EQ(layers[0].calls, 5u);
  EXPECT_EQ(layers[0].macs, 5u * 3 * 4);
  EXPECT_EQ(layers[1].op, "map");
  EXPECT_EQ(totalMacs(layers), 60u);
}

TEST(Summary, LargeCountsUse64Bits) {
  EXPECT_EQ(macsOf(Builtin::Conv, {ValueType{8, {15, 15, 1024}}, ValueType{8, {1024, 3, 3, 1024}}}),
            13ull * 13 * 1024 * 9 * 1024);
  std::string path = std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/tinyyolo_v2_full.dsl";
  std::string error;
  auto file = SourceFile::read(path, error);
  ASSERT_TRUE(file) << error;
  DiagnosticEngine d;
  auto prog = parseAndCheck(*file, d);
  ASSERT_TRUE(prog);
  EXPECT_EQ(totalMacs(summarize(*prog)), 3485520896ull);
}

}  // namespace
}  // namespace skeleshare::frontend
