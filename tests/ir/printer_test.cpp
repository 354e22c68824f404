// The printer: exact text of the layout rule, annotations and quoting.

#include <gtest/gtest.h>

#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/printer.h"

using namespace skeleshare::ir;

namespace {

using Shape = std::vector<int64_t>;

struct PrinterTest : ::testing::Test {
  Context ctx;
  const Type* i8 = ctx.intType(8);
  const Type* i16 = ctx.intType(16);
  const Type* i32 = ctx.intType(32);
  const Type* ty(Shape s, const Type* scalar) { return ctx.tensorType(s, scalar); }
};

TEST_F(PrinterTest, PaperExampleModule) {
  Module m;
  m.decls = {Decl{"image", Decl::Kind::Input, ty({34, 34, 3}, i8)}, Decl{"w1", Decl::Kind::Weight, ty({64, 3, 3, 3}, i8)}};
  const Term* conv = ctx.op(Op::Conv, {ctx.input("image", m.decls[0].type), ctx.input("w1", m.decls[1].type),
                                       cMvF(ctx, 64, 27, i8, i8)});
  m.outputs = {Output{"c1", conv}, Output{"r", ctx.op(Op::Requant, {conv}, {8})}};
  // "output c1 = " plus the one-line form is 110 columns: the arguments are broken.
  EXPECT_EQ(printModule(ctx, m),
            "input image : i8[34][34][3];\n"
            "weight w1 : i8[64][3][3][3];\n"
            "output c1 = Conv(\n"
            "  @image,\n"
            "  @w1,\n"
            "  \\i8[64][27]. \\i8[27]. Mv(%1, %0, \\i8[64][27]. \\i8[64][27]. ParallelDot[64](%1, %0)));\n"
            "output r = Requant[8](\n"
            "  Conv(\n"
            "    @image,\n"
            "    @w1,\n"
            "    \\i8[64][27]. \\i8[27]. Mv(%1, %0, \\i8[64][27]. \\i8[64][27]. ParallelDot[64](%1, %0))));\n");
  PrintOptions wide;
  wide.width = 200;
  EXPECT_EQ(printTerm(ctx, conv, wide),
            "Conv(@image, @w1, \\i8[64][27]. \\i8[27]. Mv(%1, %0, \\i8[64][27]. \\i8[64][27]. ParallelDot[64](%1, %0)))");
}

TEST_F(PrinterTest, NarrowWidthBreaksInsideLambdaBodies) {
  PrintOptions narrow;
  narrow.width = 30;
  EXPECT_EQ(printTerm(ctx, cMvF(ctx, 4, 6, i8, i16), narrow),
            "\\i8[4][6]. \\i16[6]. Mv(\n"
            "  %1,\n"
            "  %0,\n"
            "  \\i8[4][6]. \\i16[4][6]. ParallelDot[4](\n"
            "    %1,\n"
            "    %0))");
}

TEST_F(PrinterTest, LeavesAndAnnotations) {
  EXPECT_EQ(printTerm(ctx, ctx.constant(-3, i8)), "-3:i8");
  EXPECT_EQ(printTerm(ctx, ctx.var(2, ty({4}, i8))), "%2:i8[4]");  // free: typed
  EXPECT_EQ(printTerm(ctx, ctx.lam(i8, ctx.var(0, i8))), "\\i8. %0");  // bound: implied
  EXPECT_EQ(printTerm(ctx, ctx.lam(i8, ctx.var(0, i16))), "\\i8. %0:i16");  // disagreeing: shown
  const Term* x = ctx.input("x", ty({2}, i8));
  EXPECT_EQ(printTerm(ctx, x), "@x");
  PrintOptions annotated;
  annotated.annotateInputs = true;
  EXPECT_EQ(printTerm(ctx, ctx.op(Op::Relu, {x}), annotated), "Relu(@x:i8[2])");
  EXPECT_EQ(printTerm(ctx, ctx.op(Op::Pad, {ctx.input("y", ty({2, 2}, i8))}, {0, 1, 1, 0, -128})),
            "Pad[0, 1, 1, 0, -128](@y)");
}

TEST_F(PrinterTest, TypesOfLambdaParameters) {
  const Type* pair[] = {i8, ctx.funType(i16, i32)};
  const Type* tup = ctx.arrayType(3, ctx.tupleType(pair));
  EXPECT_EQ(printTerm(ctx, ctx.lam(tup, ctx.constant(0, i8))), "\\(i8, (i16 -> i32))[3]. 0:i8");
  EXPECT_EQ(printTerm(ctx, ctx.lam(ctx.tupleType(std::span<const Type* const>(pair, 1)), ctx.constant(0, i8))),
            "\\(i8,). 0:i8");
  EXPECT_EQ(printTerm(ctx, ctx.lam(ctx.tupleType({}), ctx.constant(0, i8))), "\\(). 0:i8");
}

TEST_F(PrinterTest, NamesAreQuotedWhenNeeded) {
  Module m;
  m.decls = {Decl{"conv1.weight", Decl::Kind::Weight, ty({2}, i8)}, Decl{"a\"b\\c\n", Decl::Kind::Input, ty({2}, i8)}};
  m.outputs = {Output{"out 1", ctx.op(Op::Add, {ctx.input("conv1.weight", ty({2}, i8)), ctx.input("a\"b\\c\n", ty({2}, i8))})}};
  EXPECT_EQ(printModule(ctx, m),
            "weight \"conv1.weight\" : i8[2];\n"
            "input \"a\\\"b\\\\c\\x0a\" : i8[2];\n"
            "output \"out 1\" = Add(@\"conv1.weight\", @\"a\\\"b\\\\c\\x0a\");\n");
}

TEST_F(PrinterTest, ModuleShowsInputsThatDisagreeWithTheirDeclaration) {
  Module m;
  m.decls = {Decl{"x", Decl::Kind::Input, ty({2}, i8)}};
  m.outputs = {Output{"o", ctx.op(Op::Tuple, {ctx.input("x", ty({2}, i8)), ctx.input("x", ty({3}, i8)),
                                              ctx.input("y", ty({3}, i8))})}};
  EXPECT_EQ(printModule(ctx, m), "input x : i8[2];\noutput o = Tuple(@x, @x:i8[3], @y:i8[3]);\n");
}

TEST_F(PrinterTest, LinesStayWithinTheWidthWhenTheyCan) {
  // Every line of a broken layout fits when the width leaves room for the unbreakable
  // parts: leaves and lambda headers (`\T. `) are never split.
  const Term* t = cConvF(ctx, 8, 8, 3, 4, 3, i8, i16);
  t = ctx.op(Op::Tuple, {ctx.op(Op::Conv, {ctx.input("in", ty({8, 8, 3}, i8)), ctx.input("w", ty({4, 3, 3, 3}, i16)),
                                           cMvF(ctx, 4, 27, i16, i8)}),
                         t->body()->body()->child(2)});
  for (int width : {60, 80, 100}) {
    PrintOptions o;
    o.width = width;
    std::string s = printTerm(ctx, t, o);
    size_t start = 0;
    while (start <= s.size()) {
      size_t end = s.find('\n', start);
      if (end == std::string::npos) end = s.size();
      std::string line = s.substr(start, end - start);
      // Closing parentheses and the comma after an argument may hang past the width.
      while (!line.empty() && (line.back() == ')' || line.back() == ',')) line.pop_back();
      EXPECT_LE(line.size(), static_cast<size_t>(width)) << s;
      start = end + 1;
    }
  }
}

}  // namespace
