#include <gtest/gtest.h>

#include "skeleshare/egraph/egraph.h"
#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/context.h"

using namespace skeleshare;
using namespace skeleshare::egraph;
using ir::Op;

namespace {

struct EGraphTest : ::testing::Test {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  const ir::Type* i32 = ctx.intType(32);
  const ir::Type* v4 = ctx.arrayType(4, i8);
  EGraph g{ctx};

  ClassId input(const char* name, const ir::Type* t = nullptr) {
    return g.addTerm(ctx.input(name, t ? t : v4));
  }
  ClassId addNode(Op op, std::initializer_list<ClassId> kids) { return g.add(ENode(op, kids)); }
};

TEST_F(EGraphTest, HashConsing) {
  ClassId a = input("a"), b = input("b");
  ClassId ab = addNode(Op::Add, {a, b});
  EXPECT_EQ(addNode(Op::Add, {a, b}), ab);
  EXPECT_NE(addNode(Op::Add, {b, a}), ab);
  EXPECT_EQ(g.nodeCount(), 4u);  // a, b, Add(a, b), Add(b, a)
  EXPECT_EQ(g.classCount(), 4u);
  EXPECT_EQ(g.lookup(ENode(Op::Add, {a, b})), ab);
  EXPECT_EQ(g.lookup(ENode(Op::Sub, {a, b})), kNoClass);
  // Adding a term twice yields the same class and no new nodes.
  const ir::Term* t = ctx.op(Op::Add, {ctx.input("a", v4), ctx.input("b", v4)});
  EXPECT_EQ(g.addTerm(t), ab);
  EXPECT_EQ(g.lookupTerm(t), ab);
  EXPECT_EQ(g.nodeCount(), 4u);
}

TEST_F(EGraphTest, AnnotationIsPartOfTheKey) {
  const int64_t s1[] = {64, 576}, s2[] = {64, 256};
  ClassId v1 = g.addTerm(ctx.var(0, ctx.tensorType(s1, i8)));
  ClassId v2 = g.addTerm(ctx.var(0, ctx.tensorType(s2, i8)));
  EXPECT_NE(v1, v2);
  EXPECT_EQ(g.typeOf(v1)->str(), "i8[64][576]");
  EXPECT_EQ(g.typeOf(v2)->str(), "i8[64][256]");
  // Same for lambdas that differ only in their parameter type.
  ClassId l1 = g.addTerm(ctx.lam(v4, ctx.constant(1, i8)));
  ClassId l2 = g.addTerm(ctx.lam(ctx.arrayType(5, i8), ctx.constant(1, i8)));
  EXPECT_NE(l1, l2);
}

TEST_F(EGraphTest, CongruenceAfterMerge) {
  ClassId a = input("a"), b = input("b");
  ClassId fa = addNode(Op::Relu, {a});
  ClassId fb = addNode(Op::Relu, {b});
  ClassId gfa = g.add(ENode(Op::Requant, {g.add(ENode(Op::Cast, {fa}, {16}))}, {0}));
  ClassId gfb = g.add(ENode(Op::Requant, {g.add(ENode(Op::Cast, {fb}, {16}))}, {0}));
  EXPECT_NE(g.find(fa), g.find(fb));
  EXPECT_TRUE(g.merge(a, b));
  EXPECT_FALSE(g.merge(a, b));
  EXPECT_FALSE(g.clean());
  EXPECT_EQ(g.rebuild(), 3u);  // Relu, Cast and Requant merge by congruence
  EXPECT_TRUE(g.clean());
  EXPECT_EQ(g.find(fa), g.find(fb));
  EXPECT_EQ(g.find(gfa), g.find(gfb));
  EXPECT_EQ(g.eclass(fa).nodes.size(), 1u);
  EXPECT_EQ(g.eclass(a).parents.size(), 1u);
  EXPECT_EQ(g.eclass(a).nodes.size(), 2u);  // the inputs a and b
  EXPECT_EQ(g.nodeCount(), 5u);  // a, b, one Relu, one Cast, one Requant
}

TEST_F(EGraphTest, RebuildOnChains) {
  // Two chains x_{i+1} = Relu(x_i) and y_{i+1} = Relu(y_i); merging the bottoms merges
  // every level, in one rebuild.
  const int n = 200;
  std::vector<ClassId> xs{input("x")}, ys{input("y")};
  for (int i = 0; i < n; ++i) {
    xs.push_back(addNode(Op::Relu, {xs.back()}));
    ys.push_back(addNode(Op::Relu, {ys.back()}));
  }
  EXPECT_EQ(g.classCount(), 2u * (n + 1));
  g.merge(xs[0], ys[0]);
  EXPECT_EQ(g.rebuild(), static_cast<size_t>(n));
  for (int i = 0; i <= n; ++i) EXPECT_EQ(g.find(xs[i]), g.find(ys[i])) << i;
  EXPECT_EQ(g.classCount(), static_cast<size_t>(n + 1));
  EXPECT_EQ(g.nodeCount(), static_cast<size_t>(n + 2));
  // The operator index is canonical and duplicate-free.
  auto relus = g.classesWithOp(Op::Relu);
  EXPECT_EQ(relus.size(), static_cast<size_t>(n));
  for (ClassId c : relus) EXPECT_EQ(g.find(c), c);
  EXPECT_TRUE(std::is_sorted(relus.begin(), relus.end()));
}

TEST_F(EGraphTest, CyclicMergeStaysFinite) {
  // x = Relu(x) after a merge: a cycle in the e-graph, which rebuild must handle.
  ClassId x = input("x");
  ClassId rx = addNode(Op::Relu, {x});
  ClassId rrx = addNode(Op::Relu, {rx});
  g.merge(x, rx);
  g.rebuild();
  EXPECT_EQ(g.find(rrx), g.find(x));
  EXPECT_EQ(g.classCount(), 1u);
  EXPECT_EQ(g.nodeCount(), 2u);  // Input, Relu(self)
  const EClass& c = g.eclass(x);
  EXPECT_EQ(c.parents.size(), 1u);
}

TEST_F(EGraphTest, TypeMismatchIsRejected) {
  ClassId a = input("a");
  ClassId w = input("w", ctx.arrayType(4, i32));
  try {
    g.merge(a, w);
    FAIL() << "merge of differently typed classes must throw";
  } catch (const TypeMismatchError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("i8[4]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("i32[4]"), std::string::npos) << msg;
  }
  EXPECT_NE(g.find(a), g.find(w));
  EXPECT_TRUE(g.clean());
}

TEST_F(EGraphTest, IllTypedNodesAreRejected) {
  ClassId a = input("a");
  ClassId b = input("b", ctx.arrayType(5, i8));
  size_t before = g.nodeCount();
  EXPECT_THROW(addNode(Op::Add, {a, b}), IllTypedNodeError);
  std::string err;
  EXPECT_EQ(g.tryAdd(ENode(Op::Add, {a, b}), err), kNoClass);
  EXPECT_NE(err.find("same shape"), std::string::npos) << err;
  EXPECT_EQ(g.nodeCount(), before);
  EXPECT_THROW(g.add(ENode(Op::Relu, {12345})), EGraphError);
}

TEST_F(EGraphTest, FreeVariableAnalysis) {
  ClassId v0 = g.addTerm(ctx.var(0, i8));
  ClassId v2 = g.addTerm(ctx.var(2, i8));
  EXPECT_EQ(g.freeVars(v0).str(), "{0}");
  ClassId sum = addNode(Op::Add, {v0, v2});
  EXPECT_EQ(g.freeVars(sum).str(), "{0, 2}");
  EXPECT_EQ(g.freeVars(sum).bound(), 3u);
  ClassId lam = g.add(ENode(Op::Lam, {sum}, {}, i8));
  EXPECT_EQ(g.freeVars(lam).str(), "{1}");
  ClassId closed = g.addTerm(ctx.lam2(i8, i8, ctx.var(1, i8)));
  EXPECT_TRUE(g.freeVars(closed).closed());
  ClassId big = g.addTerm(ctx.var(70, i8));
  EXPECT_TRUE(g.freeVars(big).overflow());
  EXPECT_TRUE(g.freeVars(big).contains(70));

  // Merge = union, propagated to parents: Relu(c) where c gains index 2.
  ClassId c = g.addTerm(ctx.constant(3, i8));
  ClassId rc = addNode(Op::Relu, {c});
  ClassId lamRc = g.add(ENode(Op::Lam, {rc}, {}, i8));
  EXPECT_TRUE(g.freeVars(lamRc).closed());
  g.merge(c, v2);
  g.rebuild();
  EXPECT_EQ(g.freeVars(rc).str(), "{2}");
  EXPECT_EQ(g.freeVars(lamRc).str(), "{1}");
}

TEST_F(EGraphTest, DimensionIndex) {
  const int64_t s[] = {34, 34, 3}, w[] = {64, 3, 3, 3};
  g.addTerm(ctx.input("image", ctx.tensorType(s, i8)));
  EXPECT_EQ(g.dimensions(), (std::vector<int64_t>{3, 34}));
  g.addTerm(ctx.input("w", ctx.tensorType(w, i8)));
  EXPECT_EQ(g.dimensions(), (std::vector<int64_t>{3, 34, 64}));
  // Function types contribute their parameters' and results' dimensions.
  g.addTerm(ir::cMvF(ctx, 64, 27, i8, i8));
  EXPECT_EQ(g.dimensions(), (std::vector<int64_t>{3, 27, 34, 64}));
  EXPECT_TRUE(g.hasDimension(27));
  EXPECT_FALSE(g.hasDimension(28));
}

TEST_F(EGraphTest, TranslatedConvIsAddedOnce) {
  const int64_t s[] = {34, 34, 3}, w[] = {64, 3, 3, 3};
  const ir::Term* conv = ctx.op(Op::Conv, {ctx.input("image", ctx.tensorType(s, i8)),
                                          ctx.input("w", ctx.tensorType(w, i8)),
                                          ir::cMvF(ctx, 64, 27, i8, i8)});
  ClassId c = g.addTerm(conv);
  size_t nodes = g.nodeCount();
  EXPECT_EQ(g.addTerm(conv), c);
  EXPECT_EQ(g.nodeCount(), nodes);
  EXPECT_EQ(g.typeOf(c), conv->type());
  EXPECT_TRUE(g.freeVars(c).closed());
  // Distinct sub-terms: image, w, conv; mv's 2 lambdas, Mv, %1 : i8[64][27], %0 : i8[27];
  // dot's 2 lambdas, ParallelDot, %0 : i8[64][27]. `%1 : i8[64][27]` occurs in Mv and in
  // dot and is one node.
  EXPECT_EQ(nodes, 12u);
}

TEST_F(EGraphTest, DeterministicIds) {
  auto build = [&](EGraph& e) {
    std::vector<ClassId> ids;
    for (int i = 0; i < 20; ++i) ids.push_back(e.addTerm(ctx.input("in" + std::to_string(i), v4)));
    for (int i = 0; i + 1 < 20; ++i) ids.push_back(e.add(ENode(Op::Add, {ids[i], ids[i + 1]})));
    for (int i = 0; i + 3 < 20; i += 3) e.merge(ids[i], ids[i + 3]);
    e.rebuild();
    std::vector<ClassId> out;
    for (ClassId c : ids) out.push_back(e.find(c));
    return out;
  };
  EGraph g1(ctx), g2(ctx);
  EXPECT_EQ(build(g1), build(g2));
  EXPECT_EQ(g1.classIds(), g2.classIds());
}

}  // namespace
