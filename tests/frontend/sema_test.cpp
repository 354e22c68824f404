// Sema: exact messages and positions, and the types it assigns.

#include <gtest/gtest.h>

#include "test_util.h"

namespace skeleshare::frontend {
namespace {

using test::Checked;

std::string err(const std::string& text) { return Checked(text).firstError(); }

const char* kDecls =
    "input x : i8[8][8][3];\n"
    "weight w : i8[4][3][3][3];\n"
    "weight m : i8[10][12];\n"
    "input v : i16[12];\n";

std::string withDecls(const std::string& body) { return std::string(kDecls) + body; }

TEST(Sema, ErrorsAmongManyOperators) {
  Checked c(withDecls(
      "let a = conv(x, w);\nlet b = mv(m, v);\nlet c = mm(m, m);\nlet d = conv1d_w(m, cast(v, i8));\n"
      "let e = conv1d_h(transpose(m), v);\nlet f = pad(x, 1, 2, 3, 4, fill=-1);\nlet g = maxpool(a, 3, 2);\n"
      "let h = requant(g, 4) + 1;\nlet i = bias(a, cast(flatten(w), i16));\n"
      "let j = map(m, \\row. reduce(row, 0, \\acc p. acc + mul(p, p)));\n"
      "let k = zip(m, m, \\r s. max(r, s));\nlet l = transpose(flatten(x) >> 1);\n"
      "let n = leaky_relu(relu(b), 2) - b;\nlet q = min(m, 3);\n"
      "output o1 = a; output o2 = b; output o3 = c; output o4 = d; output o5 = e; output o6 = f;\n"
      "output o7 = g; output o8 = h; output o10 = j; output o11 = k; output o13 = n; output o14 = q;\n"));
  // i (bias with 108 elements over 4 channels) is wrong, and l (transpose of rank 1).
  EXPECT_EQ(c.diags.errorCount(), 2u) << c.printed();
  EXPECT_EQ(c.firstError(), "13:9: error: bias: bias has 108 elements, input has 4 channels (input i32[6][6][4], bias i16[108])");
  EXPECT_EQ(c.diags.diagnostics()[1].message, "transpose: input must be an array of rank >= 2, got i8[192]");
}

TEST(Sema, ResultTypes) {
  Checked c(withDecls(
      "let a = conv(x, w);\nlet b = mv(m, v);\nlet c = mm(m, m);\nlet d = conv1d_w(m, cast(v, i8));\n"
      "let e = conv1d_h(transpose(m), v);\nlet f = pad(x, 1, 2, 3, 4, fill=-1);\nlet g = maxpool(a, 3, 2);\n"
      "let h = requant(g, 4) + 1;\nlet j = map(m, \\row. reduce(row, 0, \\acc p. acc + mul(p, p)));\n"
      "let k = zip(m, m, \\r s. max(r, s));\nlet n = leaky_relu(relu(b), 2) - b;\nlet q = min(m, 3);\n"
      "output o = a; output o2 = b; output o3 = c; output o4 = d; output o5 = e; output o6 = f;\n"
      "output o7 = g; output o8 = h; output o10 = j; output o11 = k; output o13 = n; output o14 = q;\n"));
  ASSERT_TRUE(c.prog) << c.printed();
  std::vector<std::string> want = {"i32[6][6][4]", "i32[10]",        "i32[10][10]",   "i32[10][1]",
                                   "i32[1][10]",   "i8[11][15][3]",  "i32[2][2][4]",  "i8[2][2][4]",
                                   "i32[10]",      "i8[10][12]",     "i32[10]",       "i8[10][12]"};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(c.prog->stmts[4 + i].type.str(), want[i]) << "let " << i;
}

TEST(Sema, ShapeErrorsNameBothShapes) {
  EXPECT_EQ(err("input x : i8[8][8][3];\nweight w : i8[64][3][3][64];\noutput o = conv(x, w);"),
            "3:12: error: conv: weight expects 64 input channels, input has 3 (weights i8[64][3][3][64], input i8[8][8][3])");
  EXPECT_EQ(err("input x : i8[8][8][3];\nweight w : i8[4][3][5][3];\noutput o = conv(x, w);"),
            "3:12: error: conv: kernel must be square, got 3x5 (weights i8[4][3][5][3])");
  EXPECT_EQ(err("input x : i8[2][8][3];\nweight w : i8[4][3][3][3];\noutput o = conv(x, w);"),
            "3:12: error: conv: kernel size 3 exceeds the input's 2x8 (input i8[2][8][3])");
  EXPECT_EQ(err("input x : i8[8][8];\nweight w : i8[4][3][3][3];\noutput o = conv(x, w);"),
            "3:12: error: conv: input must be a rank-3 array (H x W x ICH), got i8[8][8]");
  EXPECT_EQ(err("weight m : i8[10][512];\ninput v : i8[256];\noutput o = mv(m, v);"),
            "3:12: error: mv: matrix has 512 columns, vector has 256 elements (matrix i8[10][512], vector i8[256])");
  EXPECT_EQ(err("input a : i8[4][8];\ninput b : i8[5][7];\noutput o = mm(a, b);"),
            "3:12: error: mm: inner dimensions differ: a is i8[4][8], b is i8[5][7] (mm computes a * b^T)");
  EXPECT_EQ(err("input a : i8[4][3];\ninput k : i8[5];\noutput o = conv1d_w(a, k);"),
            "3:12: error: conv1d_w: kernel of 5 taps is longer than the image's width 3 (image i8[4][3])");
  EXPECT_EQ(err("input a : i8[4][3];\ninput k : i8[5];\noutput o = conv1d_h(a, k);"),
            "3:12: error: conv1d_h: kernel of 5 taps is longer than the image's height 4 (image i8[4][3])");
  EXPECT_EQ(err("input a : i8[4][3];\ninput b : i8[4][4];\noutput o = a + b;"),
            "3:14: error: '+': operands must have the same shape, got i8[4][3] and i8[4][4]");
  EXPECT_EQ(err("input a : i8[4][3];\ninput b : i8[5][3];\noutput o = zip(a, b, \\p q. p);"),
            "3:12: error: zip: arrays have different lengths: i8[4][3] and i8[5][3]");
}

TEST(Sema, StaticArguments) {
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = requant(x, 40);"),
            "2:23: error: requant: shift 40 is out of range [0, 31]");
  EXPECT_EQ(err("input x : i8[4][4];\ninput s : i8[1];\noutput o = shr(x, s);"),
            "3:19: error: shr: shift amount must be an integer literal");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = maxpool(x, 5);"),
            "2:23: error: maxpool: window size 5 exceeds the input's 4x4 (input i8[4][4])");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = maxpool(x, 2, 0);"),
            "2:26: error: maxpool: stride 0 is out of range [1, 16777216]");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = pad(x, 1, fill=200);"),
            "2:27: error: pad: fill 200 does not fit in i8, the input's element type");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = pad(x, -1);"),
            "2:19: error: pad: padding -1 is out of range [0, 16777216]");
  EXPECT_EQ(err("input x : i8[4];\noutput o = pad(x, 1);"),
            "2:12: error: pad: input must be an array of rank >= 2 (H x W x ...), got i8[4]");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = pad(x, 16777216);"),
            "2:12: error: pad: result: dimension 33554436 of i8[33554436][33554436] is out of range [1, 16777216]");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = cast(x, 8);"),
            "2:20: error: cast: second argument must be a type (i8, i16 or i32)");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = pad(x, 1, value=3);"),
            "2:22: error: pad: unknown named argument 'value'");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = relu(x, fill=3);"),
            "2:20: error: relu: unknown named argument 'fill'");
}

TEST(Sema, Arity) {
  EXPECT_EQ(err("input x : i8[4][4][1];\noutput o = conv(x);"),
            "2:12: error: conv expects 2 arguments, got 1 (usage: conv(input, weights))");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = pad(x, 1, 2);"),
            "2:12: error: pad expects 2 or 5 arguments, got 3 (usage: pad(x, p) or pad(x, top, bottom, left, right), optional fill=v)");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = relu();"),
            "2:12: error: relu expects 1 argument, got 0 (usage: relu(x))");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = map(x, \\a b. a);"),
            "2:19: error: map: the lambda must take 1 parameter, got 2");
  EXPECT_EQ(err("input x : i8[4][4];\noutput o = map(x, relu(x));"),
            "2:19: error: map: last argument must be a lambda (usage: map(x, \\v. e))");
}

TEST(Sema, Names) {
  EXPECT_EQ(err("input x : i8[4];\noutput o = relu(y);"), "2:17: error: undefined name 'y'");
  EXPECT_EQ(err("input x : i8[4];\ninput x : i8[4];\noutput o = relu(x);"), "2:7: error: redefinition of 'x'");
  Checked c("input x : i8[4];\ninput x : i8[4];\noutput o = relu(x);");
  ASSERT_GE(c.diags.diagnostics().size(), 2u);
  EXPECT_EQ(c.diags.diagnostics()[1].severity, Severity::Note);
  EXPECT_EQ(c.diags.diagnostics()[1].loc.line, 1u);
  EXPECT_EQ(err("input relu : i8[4];\noutput o = relu;"), "1:7: error: 'relu' is the name of a built-in operator");
  EXPECT_EQ(err("input x : i8[4];\noutput o = x(1);"), "2:12: error: 'x' is a value, not an operator");
  EXPECT_EQ(err("input x : i8[4];\noutput o = zip(x, x, \\v v. v);"), "2:25: error: duplicate parameter 'v'");
  EXPECT_EQ(err("input x : i8[4];\noutput o = i8;"),
            "2:12: error: 'i8' is a type, not a value (types appear in declarations and as cast's second argument)");
  EXPECT_EQ(err("input x : i8[4];\noutput o = \\v. v;"),
            "2:12: error: a lambda may only appear as the last argument of map, zip or reduce");
  // Use before definition is an undefined name: there are no forward references.
  EXPECT_EQ(err("output o = relu(x);\ninput x : i8[4];"), "1:17: error: undefined name 'x'");
  // Lambda parameters shadow globals.
  EXPECT_TRUE(Checked("input x : i8[4][2];\noutput o = map(x, \\x. relu(x));").prog);
}

TEST(Sema, Literals) {
  EXPECT_EQ(err("input x : i8[4];\noutput o = x + 300;"),
            "2:16: error: '+': literal 300 does not fit in i8, the element type of the other operand");
  EXPECT_EQ(err("input x : i8[4];\noutput o = x - 2147483648;"),
            "2:16: error: integer literal 2147483648 does not fit in i32");
  EXPECT_EQ(err("input x : i8[4];\noutput o = - x;"),
            "2:12: error: unary '-' applies only to integer literals; write sub(0, x) or 0 - x");
  // A literal takes the other operand's type; alone it is i32.
  Checked c("input x : i16[4];\nlet a = x * 2;\nlet b = x + -32768;\nlet c = 1 + 2;\noutput o = map(x, \\v. 7);"
            "output p = a; output q = b; output r = c;");
  ASSERT_TRUE(c.prog) << c.printed();
  EXPECT_EQ(c.prog->stmts[1].type.str(), "i32[4]");
  EXPECT_EQ(c.prog->stmts[2].type.str(), "i16[4]");
  EXPECT_EQ(c.prog->stmts[2].value->args[1]->type.str(), "i16");
  EXPECT_EQ(c.prog->stmts[2].value->broadcastLiteral, 1);
  EXPECT_EQ(c.prog->stmts[3].type.str(), "i32");
  EXPECT_EQ(c.prog->stmts[4].type.str(), "i32[4]");
}

TEST(Sema, ReduceAccumulatorType) {
  EXPECT_EQ(err("input x : i8[4];\noutput o = reduce(x, cast(0, i16), \\a v. a * v);"),
            "2:36: error: reduce: the function returns i32, but the accumulator (init) has type i16");
  EXPECT_TRUE(Checked("input x : i8[4];\noutput o = reduce(x, cast(0, i16), \\a v. a + v);").prog);
}

TEST(Sema, DeclarationLimits) {
  EXPECT_EQ(err("input x : i8[0];\noutput o = relu(x);"), "1:14: error: dimension 0 is out of range [1, 16777216]");
  EXPECT_EQ(err("input x : i8[16777217];\noutput o = relu(x);"),
            "1:14: error: dimension 16777217 is out of range [1, 16777216]");
  EXPECT_EQ(err("input x : i8[16777216][16777216];\noutput o = relu(x);"),
            "1:7: error: input 'x': i8[16777216][16777216] has too many elements (limit 68719476736)");
  EXPECT_EQ(err("input x : i8[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1];\noutput o = relu(x);"),
            "1:62: error: too many dimensions (limit 16)");
  EXPECT_EQ(err("input x : i64[4];\noutput o = relu(x);"),
            "1:11: error: expected an element type (i8, i16 or i32), found 'i64'");
}

TEST(Sema, NoOutputAndUnusedWarnings) {
  EXPECT_EQ(err("input x : i8[4];\nlet y = relu(x);\n"),
            "3:1: error: program has no output (add a statement 'output name = expr;')");
  Checked c("input x : i8[4];\nlet y = relu(x);\noutput o = x + 1;\n");
  ASSERT_TRUE(c.prog);
  ASSERT_EQ(c.diags.diagnostics().size(), 1u);
  EXPECT_EQ(c.diags.diagnostics()[0].severity, Severity::Warning);
  EXPECT_EQ(c.diags.diagnostics()[0].message, "'y' is defined but never used");
  EXPECT_FALSE(c.prog->stmts[1].live);
}

TEST(Sema, SeveralIndependentErrors) {
  Checked c("input x : i8[4];\nlet a = relu(q);\nlet b = requant(x, 99);\noutput o = a + b;\noutput p = foo(x);\n");
  EXPECT_EQ(c.diags.errorCount(), 3u) << c.printed();
  EXPECT_EQ(c.printed(),
            "t.dsl:2:14: error: undefined name 'q'\n  let a = relu(q);\n               ^\n"
            "t.dsl:3:20: error: requant: shift 99 is out of range [0, 31]\n  let b = requant(x, 99);\n                     ^\n"
            "t.dsl:5:12: error: unknown operator 'foo'\n  output p = foo(x);\n             ^\n");
}

}  // namespace
}  // namespace skeleshare::frontend
