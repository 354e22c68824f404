#include <gtest/gtest.h>

#include <set>

#include "skeleshare/egraph/extract.h"
#include "skeleshare/egraph/runner.h"
#include "skeleshare/ir/builders.h"

using namespace skeleshare;
using namespace skeleshare::egraph;
using ir::Op;
using P = Pattern;

namespace {

struct ExtractTest : ::testing::Test {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  const ir::Type* v4 = ctx.arrayType(4, i8);
  EGraph g{ctx};
};

TEST_F(ExtractTest, SmallestTermAndTies) {
  const ir::Term* x = ctx.input("x", v4);
  const ir::Term* big = ctx.op(Op::Relu, {ctx.op(Op::Relu, {x})});
  ClassId cb = g.addTerm(big);
  ClassId cx = g.addTerm(x);
  g.merge(cb, cx);
  g.rebuild();
  SmallestExtractor ex(g);
  EXPECT_EQ(ex.extract(cb), x);
  EXPECT_EQ(ex.size(cb), 1u);
  // The inner Relu's class: Relu(x) = Relu(Relu(...)) = ... its smallest term is Relu(x).
  ClassId inner = g.lookupTerm(ctx.op(Op::Relu, {x}));
  EXPECT_EQ(ex.extract(inner), ctx.op(Op::Relu, {x}));
  // Ties: Add(a, b) and Add(b, a) in one class have equal size; the earlier node wins.
  const ir::Term* a = ctx.input("a", v4);
  const ir::Term* b = ctx.input("b", v4);
  ClassId ab = g.addTerm(ctx.op(Op::Add, {a, b}));
  ClassId ba = g.addTerm(ctx.op(Op::Add, {b, a}));
  g.merge(ba, ab);
  g.rebuild();
  EXPECT_EQ(SmallestExtractor(g).extract(ba), ctx.op(Op::Add, {a, b}));
}

TEST_F(ExtractTest, ClassesWithOnlyCyclicNodesHaveNoTerm) {
  // c = Relu(c) only: no finite term.
  ClassId x = g.addTerm(ctx.input("x", v4));
  ClassId r = g.add(ENode(Op::Relu, {x}));
  ClassId rr = g.add(ENode(Op::Relu, {r}));
  g.merge(r, rr);
  g.rebuild();
  SmallestExtractor ex(g);
  EXPECT_EQ(ex.size(r), 2u);  // Relu(x) is still there
  // A class whose only node uses itself.
  ClassId y = g.addTerm(ctx.input("y", v4));
  ClassId ry = g.add(ENode(Op::Relu, {y}));
  g.merge(y, ry);  // y = Relu(y): Input y is still a finite choice
  g.rebuild();
  EXPECT_EQ(SmallestExtractor(g).size(y), 1u);
}

TEST_F(ExtractTest, RandomExtractionIsSeededAndWellTyped) {
  ClassId root = g.addTerm(ctx.op(Op::Conv, {ctx.input("x", ctx.tensorType(std::vector<int64_t>{34, 34, 3}, i8)),
                                             ctx.input("w", ctx.tensorType(std::vector<int64_t>{64, 3, 3, 3}, i8)),
                                             ir::cMvF(ctx, 64, 27, i8, i8)}));
  PatternRewrite halve("halve", P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q")}),
                       P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q") / 2}));
  Runner().run(g, {&halve});
  // Make the graph cyclic as well: x = Relu(Relu(x)) would be ill-typed for Conv's input
  // (i8 stays i8 under Relu, so it is fine).
  ClassId x = g.lookupTerm(ctx.input("x", ctx.tensorType(std::vector<int64_t>{34, 34, 3}, i8)));
  g.merge(x, g.add(ENode(Op::Relu, {x})));
  g.rebuild();

  std::set<const ir::Term*> seen;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    RandomExtractor ex(g, seed);
    const ir::Term* t = ex.extract(root);
    EXPECT_EQ(t->type(), g.typeOf(root));
    EXPECT_EQ(g.lookupTerm(t), g.find(root)) << "an extracted term is represented by its class";
    EXPECT_EQ(RandomExtractor(g, seed).extract(root), t) << "same seed, same term";
    seen.insert(t);
  }
  // 7 parallelism variants, and 1 or more Relus around x.
  EXPECT_GE(seen.size(), 5u);
}

}  // namespace
