// The reference evaluator on tiny, hand-computed examples (docs/ir.md semantics).

#include <gtest/gtest.h>

#include <stdexcept>

#include "test_util.h"

namespace skeleshare::frontend {
namespace {

using test::tensor;
using Inputs = std::map<std::string, Tensor>;

/// Checks `text`, evaluates it on `in` and returns output `name`.
Tensor run(const std::string& text, const Inputs& in, const std::string& name = "o") {
  test::Checked c(text);
  if (!c.prog) {
    ADD_FAILURE() << c.printed();
    return Tensor();
  }
  auto out = evaluate(*c.prog, in);
  return out.at(name);
}

TEST(Evaluate, Conv) {
  // in = 1..9 as 3x3x1; filter 0 adds the diagonal, filter 1 sums the 2x2 window.
  Tensor in = tensor(8, {3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = tensor(8, {2, 2, 2, 1}, {1, 0, 0, 1, 1, 1, 1, 1});
  Tensor o = run("input x : i8[3][3][1];\nweight w : i8[2][2][2][1];\noutput o = conv(x, w);", {{"x", in}, {"w", w}});
  EXPECT_EQ(o, tensor(32, {2, 2, 2}, {6, 12, 8, 16, 12, 24, 14, 28}));
}

TEST(Evaluate, ConvChannelsAndWrapAround) {
  Tensor o = run("input x : i8[2][1][2];\nweight w : i8[1][1][1][2];\noutput o = conv(x, w);",
                 {{"x", tensor(8, {2, 1, 2}, {1, 2, 3, -4})}, {"w", tensor(8, {1, 1, 1, 2}, {5, 6})}});
  EXPECT_EQ(o, tensor(32, {2, 1, 1}, {17, -9}));
  // 2^30*2 + 2^30*1 = 3*2^30 wraps modulo 2^32 to -2^30.
  Tensor o2 = run("input x : i32[1][1][2];\nweight w : i32[1][1][1][2];\noutput o = conv(x, w);",
                  {{"x", tensor(32, {1, 1, 2}, {1 << 30, 1 << 30})}, {"w", tensor(32, {1, 1, 1, 2}, {2, 1})}});
  EXPECT_EQ(o2[0], -(1 << 30));
}

TEST(Evaluate, MvMm) {
  Inputs in{{"a", tensor(8, {2, 3}, {1, 2, 3, 4, 5, 6})}, {"v", tensor(8, {3}, {1, -1, 2})}};
  EXPECT_EQ(run("input a : i8[2][3];\ninput v : i8[3];\noutput o = mv(a, v);", in), tensor(32, {2}, {5, 11}));
  Inputs in2{{"a", tensor(8, {2, 2}, {1, 2, 3, 4})}, {"b", tensor(16, {3, 2}, {1, 0, 0, 1, 1, 1})}};
  EXPECT_EQ(run("input a : i8[2][2];\ninput b : i16[3][2];\noutput o = mm(a, b);", in2),
            tensor(32, {2, 3}, {1, 2, 3, 3, 4, 7}));
}

TEST(Evaluate, Conv1D) {
  Inputs w{{"img", tensor(8, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}, {"k", tensor(8, {2}, {2, 1})}};
  EXPECT_EQ(run("input img : i8[2][4];\nweight k : i8[2];\noutput o = conv1d_w(img, k);", w),
            tensor(32, {2, 3}, {4, 7, 10, 16, 19, 22}));
  Inputs h{{"img", tensor(8, {3, 2}, {1, 2, 3, 4, 5, 6})}, {"k", tensor(8, {2}, {2, 1})}};
  EXPECT_EQ(run("input img : i8[3][2];\nweight k : i8[2];\noutput o = conv1d_h(img, k);", h),
            tensor(32, {2, 2}, {5, 8, 11, 14}));
}

TEST(Evaluate, RequantRoundsAndSaturates) {
  std::vector<int32_t> xs = {-300, -5, -4, -3, -2, 0, 1, 2, 5, 6, 1000, -1000, 2147483647};
  Tensor o = run("input x : i32[13];\noutput o = requant(x, 2);", {{"x", tensor(32, {13}, xs)}});
  // (x + 2) >> 2, rounding toward minus infinity, then clamped to [-128, 127];
  // 2147483647 + 2 is computed exactly, without wrapping.
  EXPECT_EQ(o, tensor(8, {13}, {-75, -1, -1, -1, 0, 0, 0, 1, 1, 2, 127, -128, 127}));
  Tensor o0 = run("input x : i16[3];\noutput o = requant(x, 0);", {{"x", tensor(16, {3}, {200, -200, 5})}});
  EXPECT_EQ(o0, tensor(8, {3}, {127, -128, 5}));
  Tensor o31 = run("input x : i32[2];\noutput o = requant(x, 31);",
                   {{"x", tensor(32, {2}, {INT32_MIN, INT32_MAX})}});
  EXPECT_EQ(o31, tensor(8, {2}, {-1, 1}));
}

TEST(Evaluate, RequantEvenRoundsHalfToEven) {
  // x / 4 with every residue, ties on both sides of zero: ONNX QuantizeLinear's rounding.
  std::vector<int32_t> xs = {-10, -6, -2, 2, 6, 10, -9, -7, 7, 9, 1000, -1000, 2147483647};
  Tensor o = run("input x : i32[13];\noutput o = requant_even(x, 2);", {{"x", tensor(32, {13}, xs)}});
  EXPECT_EQ(o, tensor(8, {13}, {-2, -2, 0, 0, 2, 2, -2, -2, 2, 2, 127, -128, 127}));
  Tensor up = run("input x : i32[13];\noutput o = requant(x, 2);", {{"x", tensor(32, {13}, xs)}});
  EXPECT_EQ(up, tensor(8, {13}, {-2, -1, 0, 1, 2, 3, -2, -2, 2, 2, 127, -128, 127}));
  Tensor o0 = run("input x : i16[3];\noutput o = requant_even(x, 0);", {{"x", tensor(16, {3}, {200, -200, 5})}});
  EXPECT_EQ(o0, tensor(8, {3}, {127, -128, 5}));
}

TEST(Evaluate, ReluLeakyReluShrCast) {
  Inputs in{{"x", tensor(8, {4}, {-9, -1, 0, 7})}};
  EXPECT_EQ(run("input x : i8[4];\noutput o = relu(x);", in), tensor(8, {4}, {0, 0, 0, 7}));
  EXPECT_EQ(run("input x : i8[4];\noutput o = leaky_relu(x, 2);", in), tensor(8, {4}, {-3, -1, 0, 7}));
  EXPECT_EQ(run("input x : i8[4];\noutput o = shr(x, 1);", in), tensor(8, {4}, {-5, -1, 0, 3}));
  EXPECT_EQ(run("input x : i8[4];\noutput o = x >> 3;", in), tensor(8, {4}, {-2, -1, 0, 0}));
  Inputs wide{{"x", tensor(16, {3}, {300, -129, 40})}};
  EXPECT_EQ(run("input x : i16[3];\noutput o = cast(x, i8);", wide), tensor(8, {3}, {44, 127, 40}));
  EXPECT_EQ(run("input x : i16[3];\noutput o = cast(x, i32);", wide), tensor(32, {3}, {300, -129, 40}));
}

TEST(Evaluate, MaxPoolWithStride) {
  Inputs in{{"x", tensor(8, {4, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1, -2, -3, -4, -5, 0, 0, 0, 0, 20})}};
  EXPECT_EQ(run("input x : i8[4][5];\noutput o = maxpool(x, 2);", in), tensor(8, {2, 2}, {7, 9, 0, 0}));
  EXPECT_EQ(run("input x : i8[4][5];\noutput o = maxpool(x, 3, 1);", in), tensor(8, {2, 3}, {8, 9, 10, 8, 9, 20}));
  Inputs ch{{"x", tensor(8, {2, 2, 2}, {1, -1, 2, -2, 3, -3, 0, 5})}};
  EXPECT_EQ(run("input x : i8[2][2][2];\noutput o = maxpool(x, 2);", ch), tensor(8, {1, 1, 2}, {3, 5}));
}

TEST(Evaluate, PadWithFill) {
  Inputs in{{"x", tensor(8, {1, 1, 2}, {7, 8})}};
  EXPECT_EQ(run("input x : i8[1][1][2];\noutput o = pad(x, 0, 1, 1, 0, fill=-1);", in),
            tensor(8, {2, 2, 2}, {-1, -1, 7, 8, -1, -1, -1, -1}));
  Inputs s{{"x", tensor(16, {1, 1}, {5})}};
  EXPECT_EQ(run("input x : i16[1][1];\noutput o = pad(x, 1);", s), tensor(16, {3, 3}, {0, 0, 0, 0, 5, 0, 0, 0, 0}));
}

TEST(Evaluate, Bias) {
  Inputs in{{"x", tensor(8, {2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", tensor(16, {3}, {10, 200, -300})}};
  EXPECT_EQ(run("input x : i8[2][3];\ninput b : i16[3];\noutput o = bias(x, b);", in),
            tensor(16, {2, 3}, {11, 202, -297, 14, 205, -294}));
  Inputs wrap{{"x", tensor(8, {1}, {127})}, {"b", tensor(8, {1}, {1})}};
  EXPECT_EQ(run("input x : i8[1];\ninput b : i8[1];\noutput o = bias(x, b);", wrap), tensor(8, {1}, {-128}));
}

TEST(Evaluate, BinaryOperatorsWidenOrWrap) {
  Inputs in{{"a", tensor(8, {2}, {127, -128})}, {"b", tensor(8, {2}, {1, -128})}, {"c", tensor(16, {2}, {1, -1})}};
  const std::string decls = "input a : i8[2];\ninput b : i8[2];\ninput c : i16[2];\n";
  EXPECT_EQ(run(decls + "output o = a + b;", in), tensor(8, {2}, {-128, 0}));      // i8 wraps
  EXPECT_EQ(run(decls + "output o = add(a, c);", in), tensor(16, {2}, {128, -129}));  // widened to i16
  EXPECT_EQ(run(decls + "output o = a - 1;", in), tensor(8, {2}, {126, 127}));      // -129 wraps
  EXPECT_EQ(run(decls + "output o = a * b;", in), tensor(32, {2}, {127, 16384}));   // i32
  EXPECT_EQ(run(decls + "output o = max(a, c);", in), tensor(16, {2}, {127, -1}));
  EXPECT_EQ(run(decls + "output o = min(a, 0);", in), tensor(8, {2}, {0, -128}));
  EXPECT_EQ(run(decls + "output o = 3 - a;", in), tensor(8, {2}, {-124, -125}));  // 131 wraps
  Inputs big{{"x", tensor(32, {1}, {65536})}};
  EXPECT_EQ(run("input x : i32[1];\noutput o = x * x;", big), tensor(32, {1}, {0}));  // 2^32 wraps
}

TEST(Evaluate, FlattenTranspose) {
  Inputs in{{"x", tensor(8, {2, 2, 1}, {1, 2, 3, 4})}};
  EXPECT_EQ(run("input x : i8[2][2][1];\noutput o = transpose(x);", in), tensor(8, {2, 2, 1}, {1, 3, 2, 4}));
  EXPECT_EQ(run("input x : i8[2][2][1];\noutput o = flatten(transpose(x));", in), tensor(8, {4}, {1, 3, 2, 4}));
  Inputs r{{"x", tensor(8, {2, 3}, {1, 2, 3, 4, 5, 6})}};
  EXPECT_EQ(run("input x : i8[2][3];\noutput o = transpose(x);", r), tensor(8, {3, 2}, {1, 4, 2, 5, 3, 6}));
}

TEST(Evaluate, MapZipReduce) {
  Inputs in{{"x", tensor(8, {2, 3}, {1, 2, 3, -4, 5, 6})}, {"s", tensor(8, {2}, {2, -1})}};
  const std::string decls = "input x : i8[2][3];\ninput s : i8[2];\n";
  EXPECT_EQ(run(decls + "output o = map(x, \\r. reduce(r, 0, \\acc v. acc + v));", in), tensor(32, {2}, {6, 7}));
  EXPECT_EQ(run(decls + "output o = map(x, \\r. reduce(r, -128, \\m v. max(m, cast(v, i32))));", in),
            tensor(32, {2}, {3, 6}));
  // The inner lambda reads the outer parameter k (De Bruijn index 1 inside \v).
  EXPECT_EQ(run(decls + "output o = zip(x, s, \\row k. map(row, \\v. v * k + 1));", in),
            tensor(32, {2, 3}, {3, 5, 7, 5, -4, -5}));
  EXPECT_EQ(run(decls + "output o = map(x, \\r. r);", in), in.at("x"));
  EXPECT_EQ(run(decls + "output o = reduce(s, 10, \\a v. a - v);", in), tensor(32, {}, {9}));
}

TEST(Evaluate, SeveralOutputsAndSharedLets) {
  test::Checked c("input x : i8[2];\nlet r = relu(x);\noutput a = r + 1;\noutput b = r;");
  ASSERT_TRUE(c.prog);
  auto out = evaluate(*c.prog, {{"x", tensor(8, {2}, {-5, 5})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out.at("a"), tensor(8, {2}, {1, 6}));
  EXPECT_EQ(out.at("b"), tensor(8, {2}, {0, 5}));
}

TEST(Evaluate, BadInputsThrowClearErrors) {
  test::Checked c("input x : i8[2];\nweight w : i8[2];\noutput o = x + w;");
  ASSERT_TRUE(c.prog);
  auto msg = [&](const Inputs& in) {
    try {
      evaluate(*c.prog, in);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Tensor ok = tensor(8, {2}, {1, 2});
  EXPECT_EQ(msg({{"x", ok}}), "evaluate: missing value for weight 'w' (i8[2])");
  EXPECT_EQ(msg({{"x", ok}, {"w", tensor(16, {2}, {1, 2})}}), "evaluate: weight 'w' is i16[2], expected i8[2]");
  EXPECT_EQ(msg({{"x", tensor(8, {3}, {1, 2, 3})}, {"w", ok}}), "evaluate: input 'x' is i8[3], expected i8[2]");
  EXPECT_EQ(msg({{"x", ok}, {"w", tensor(8, {2}, {1, 300})}}),
            "evaluate: weight 'w' holds 300 at element 1, which does not fit in i8");
  EXPECT_EQ(msg({{"x", ok}, {"w", ok}, {"z", ok}}), "evaluate: 'z' is not an input or weight of the program");
  EXPECT_EQ(msg({{"x", ok}, {"w", ok}}), "no error");
}

}  // namespace
}  // namespace skeleshare::frontend
