// Translation: each DSL operator becomes the expected skeleton-IR term, compared by
// pointer (the IR is hash-consed) against a term built directly with builders.h.

#include <gtest/gtest.h>

#include "skeleshare/ir/builders.h"
#include "test_util.h"

namespace skeleshare::frontend {
namespace {

using ir::Op;
using ir::Term;

struct Translated {
  test::Checked checked;
  ir::Context ctx;
  ir::Module mod;
  explicit Translated(const std::string& text) : checked(text) {
    if (checked.prog) mod = translate(*checked.prog, ctx);
  }
  const Term* out(size_t i = 0) const { return mod.outputs.at(i).term; }
  const Term* in(const std::string& name, std::vector<int64_t> shape, int bits = 8) {
    return ctx.input(name, ctx.tensorType(shape, ctx.intType(bits)));
  }
};

TEST(Translate, Conv) {
  Translated t("input x : i16[8][8][3];\nweight w : i8[4][3][3][3];\noutput o = conv(x, w);");
  ASSERT_TRUE(t.checked.prog) << t.checked.printed();
  auto& c = t.ctx;
  const Term* want = c.op(Op::Conv, {t.in("x", {8, 8, 3}, 16), t.in("w", {4, 3, 3, 3}),
                                     ir::cMvF(c, 4, 27, c.intType(8), c.intType(16))});
  EXPECT_EQ(t.out(), want);
  EXPECT_EQ(t.out()->type()->str(), "i32[6][6][4]");
  ASSERT_EQ(t.mod.decls.size(), 2u);
  EXPECT_EQ(t.mod.decls[0].kind, ir::Decl::Kind::Input);
  EXPECT_EQ(t.mod.decls[1].type->str(), "i8[4][3][3][3]");
}

TEST(Translate, MvMmConv1D) {
  Translated t("input a : i8[4][6];\nweight b : i16[5][6];\ninput v : i16[6];\nweight k : i8[3];\n"
               "output o1 = mv(a, v);\noutput o2 = mm(a, b);\noutput o3 = conv1d_w(a, k);\noutput o4 = conv1d_h(a, k);");
  ASSERT_TRUE(t.checked.prog) << t.checked.printed();
  auto& c = t.ctx;
  const ir::Type *i8 = c.intType(8), *i16 = c.intType(16);
  const Term *a = t.in("a", {4, 6}), *b = t.in("b", {5, 6}, 16), *v = t.in("v", {6}, 16), *k = t.in("k", {3});
  EXPECT_EQ(t.out(0), c.op(Op::Mv, {a, v, ir::dotF(c, 4, 6, i8, i16, 4)}));
  EXPECT_EQ(t.out(1), c.op(Op::Mm, {a, b, ir::cMvF(c, 5, 6, i16, i8)}));
  EXPECT_EQ(t.out(2), c.op(Op::Conv1DW, {a, k, ir::cMvF(c, 4, 3, i8, i8)}));
  EXPECT_EQ(t.out(3), c.op(Op::Conv1DH, {a, k, ir::cMvF(c, 2, 3, i8, i8)}));
  EXPECT_EQ(t.out(1)->type()->str(), "i32[4][5]");
  EXPECT_EQ(t.out(3)->type()->str(), "i32[2][6]");
}

TEST(Translate, ElementwiseAndReshape) {
  Translated t("input x : i8[4][4][2];\ninput b : i16[2];\n"
               "output o = flatten(transpose(bias(cast(leaky_relu(relu(requant(shr(maxpool(pad(x, 1, 0, 2, 0, fill=-3), 2, 1), 1), 2)), 3), i16), b)));");
  ASSERT_TRUE(t.checked.prog) << t.checked.printed();
  auto& c = t.ctx;
  const Term* e = c.op(Op::Pad, {t.in("x", {4, 4, 2})}, {1, 0, 2, 0, -3});
  e = c.op(Op::MaxPool, {e}, {2, 1});
  e = c.op(Op::ShiftRight, {e}, {1});
  e = c.op(Op::Requant, {e}, {2});
  e = c.op(Op::Relu, {e});
  e = c.op(Op::LeakyRelu, {e}, {3});
  e = c.op(Op::Cast, {e}, {16});
  e = c.op(Op::Bias, {e, t.in("b", {2}, 16)});
  e = c.op(Op::Transpose, {e});
  e = c.op(Op::Flatten, {e});
  EXPECT_EQ(t.out(), e);
}

TEST(Translate, LetsAreSharedStructurally) {
  Translated t("input x : i8[4];\nlet r = relu(x);\noutput o = r + r;\noutput p = min(r, x);");
  ASSERT_TRUE(t.checked.prog);
  const Term* r = t.out(0)->child(0);
  EXPECT_EQ(r, t.out(0)->child(1));
  EXPECT_EQ(r, t.out(1)->child(0));
  EXPECT_EQ(t.mod.outputs[1].name, "p");
}

TEST(Translate, LambdasUseDeBruijnIndices) {
  Translated t("input x : i8[3][4];\ninput y : i16[3];\n"
               "output o = zip(x, y, \\row s. reduce(row, s, \\acc v. acc + v));");
  ASSERT_TRUE(t.checked.prog) << t.checked.printed();
  auto& c = t.ctx;
  const ir::Type *i8 = c.intType(8), *i16 = c.intType(16), *row = c.arrayType(4, i8);
  // Inside \acc v: v = %0, acc = %1; row = %3, s = %2.
  const Term* inner = c.lam2(i16, i8, c.op(Op::Add, {c.var(1, i16), c.var(0, i8)}));
  const Term* body = c.op(Op::Reduce, {c.var(0, i16), c.var(1, row), inner});
  const Term* want = c.op(Op::ZipWith, {t.in("x", {3, 4}), t.in("y", {3}, 16), c.lam2(row, i16, body)});
  EXPECT_EQ(t.out(), want);
  EXPECT_EQ(t.out()->type()->str(), "i16[3]");
}

TEST(Translate, LiteralOperandsBroadcastThroughMaps) {
  Translated t("input x : i8[2][3];\noutput o = 5 - x;\noutput p = map(x, \\r. max(r, 0) * 2);");
  ASSERT_TRUE(t.checked.prog) << t.checked.printed();
  auto& c = t.ctx;
  const ir::Type *i8 = c.intType(8), *row = c.arrayType(3, i8);
  const Term* five = c.constant(5, i8);
  const Term* inner = c.op(Op::Map, {c.var(0, row), c.lam(i8, c.op(Op::Sub, {five, c.var(0, i8)}))});
  EXPECT_EQ(t.out(0), c.op(Op::Map, {t.in("x", {2, 3}), c.lam(row, inner)}));
  EXPECT_EQ(t.out(1)->type()->str(), "i32[2][3]");
}

TEST(Translate, DeadLetsAreNotTranslated) {
  Translated t("input x : i8[4];\nlet unused = relu(x);\noutput o = x;");
  ASSERT_TRUE(t.checked.prog);
  EXPECT_EQ(t.out(), t.in("x", {4}));
  EXPECT_EQ(t.mod.root(t.ctx), t.out());
}

TEST(Translate, BenchmarksTranslateWellTyped) {
  for (const char* name : {"vgg_cifar", "tinyyolo_v2", "tinyyolo_v2_full", "self_attention", "stencil4"}) {
    std::string path = std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/" + name + ".dsl";
    std::string error;
    auto file = SourceFile::read(path, error);
    ASSERT_TRUE(file) << "benchmark not present: " << error;
    DiagnosticEngine d;
    auto prog = parseAndCheck(*file, d);
    ASSERT_TRUE(prog) << name;
    ir::Context ctx;
    ir::Module m = translate(*prog, ctx);
    EXPECT_FALSE(m.outputs.empty()) << name;
    EXPECT_TRUE(m.root(ctx)->closed()) << name;
  }
}

}  // namespace
}  // namespace skeleshare::frontend
