// The paper's running example (Fig. 3): mv(fcWgt, flatten(conv(convWgt, input))). With a
// hand-written PaddedMv rewrite whose padded size is drawn from the e-graph's dimensions,
// the fully connected layer's Mv reuses the convolution's cMvF[64, 576]: one e-class used
// in two places, which the DOT export highlights.

#include <gtest/gtest.h>

#include <set>

#include "skeleshare/egraph/dot.h"
#include "skeleshare/egraph/extract.h"
#include "skeleshare/egraph/runner.h"
#include "skeleshare/ir/builders.h"
#include "paper_rewrites.h"

using namespace skeleshare;
using namespace skeleshare::egraph;
using ir::Op;
using P = Pattern;
using T = TypePattern;

namespace {

PatternRewrite padMv() { return skeleshare::paper_rewrites::padMvRewrite("data"); }

struct PaperExample : ::testing::Test {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  const ir::Term* shape(const char* name, std::initializer_list<int64_t> dims) {
    return ctx.input(name, ctx.tensorType(std::vector<int64_t>(dims), i8));
  }
  // conv: 4x4x64 input, 64 filters of 3x3x64 -> 2x2x64; requantised to i8 and flattened
  // to 256 values; fc: 64 x 256.
  const ir::Term* program() {
    const ir::Term* conv = ctx.op(Op::Conv, {shape("input", {4, 4, 64}), shape("convWgt", {64, 3, 3, 64}),
                                             ir::cMvF(ctx, 64, 576, i8, i8)});
    const ir::Term* flat = ctx.op(Op::Flatten, {ctx.op(Op::Requant, {conv}, {8})});
    return ctx.op(Op::Mv, {shape("fcWgt", {64, 256}), flat, ir::dotF(ctx, 64, 256, i8, i8, 64)});
  }
};

TEST_F(PaperExample, PaddedMvSharesTheConvolutionsMv) {
  EGraph g(ctx);
  const ir::Term* prog = program();
  ClassId root = g.addTerm(prog);
  ClassId convMv = g.lookupTerm(ir::cMvF(ctx, 64, 576, i8, i8));
  ASSERT_NE(convMv, kNoClass);
  EXPECT_EQ(sharingCandidates(g), std::vector<ClassId>{});

  PatternRewrite pad = padMv();
  RunReport rep = Runner().run(g, {&pad});
  EXPECT_EQ(rep.stop, StopReason::Saturated) << rep.summary();

  // The top class now also holds PaddedMv(fcWgt, flat, cMvF[64, 576]) -- the very class
  // the convolution uses.
  const ir::Term* padded = ctx.op(Op::PaddedMv, {shape("fcWgt", {64, 256}), prog->child(1), ir::cMvF(ctx, 64, 576, i8, i8)});
  EXPECT_EQ(g.lookupTerm(padded), g.find(root));
  EXPECT_EQ(g.find(convMv), g.lookupTerm(ir::cMvF(ctx, 64, 576, i8, i8)));
  std::vector<ClassId> shared = sharingCandidates(g);
  EXPECT_NE(std::find(shared.begin(), shared.end(), g.find(convMv)), shared.end());

  // Its parents lie in two classes: the Conv's and the top Mv's.
  std::set<ClassId> parentClasses;
  for (NodeId p : g.eclass(convMv).parents) parentClasses.insert(g.find(p));
  EXPECT_EQ(parentClasses, (std::set<ClassId>{g.lookupTerm(prog->child(1)->child(0)->child(0)), g.find(root)}));

  std::string dot = toDot(g, {.roots = {root}});
  std::string label = "label=\"e" + std::to_string(g.find(convMv)) + " : " +
                      g.typeOf(convMv)->str() + " (shared)\"";
  EXPECT_NE(dot.find(label), std::string::npos) << dot;
  EXPECT_NE(dot.find("PaddedMv"), std::string::npos);
  EXPECT_NE(dot.find("ParallelDot[64]"), std::string::npos);
  // The smallest term is still the original program.
  EXPECT_EQ(SmallestExtractor(g).extract(root), prog);
}

TEST_F(PaperExample, DotOutputIsDeterministic) {
  auto render = [&]() {
    EGraph g(ctx);
    ClassId root = g.addTerm(program());
    PatternRewrite pad = padMv();
    Runner().run(g, {&pad});
    return toDot(g, {.roots = {root}});
  };
  std::string a = render(), b = render();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.rfind("digraph egraph {", 0), 0u);
  // Every class is a cluster with its id and type.
  EXPECT_NE(a.find("subgraph cluster_e"), std::string::npos);
  EXPECT_NE(a.find("lhead=cluster_e"), std::string::npos);
}

}  // namespace
