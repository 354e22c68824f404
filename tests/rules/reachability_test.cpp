// What the extractor depends on: after saturating the full benchmarks, every convolution
// layer reaches one common shared convolution class (the paper allows one hardware
// convolution unit), the fully connected layer reaches the convolutions' Mv class, and
// the four 1D stages of the stencil reach one Conv1D_W unit.

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "skeleshare/ir/builders.h"
#include "skeleshare/rules/saturate.h"
#include "test_util.h"

using namespace skeleshare;
using namespace skeleshare::rules;
using namespace skeleshare::rules::test;
using ir::Op;

namespace {

/// Classes reachable from `from` through the children of any of their nodes.
std::vector<bool> reachable(const egraph::EGraph& g, egraph::ClassId from) {
  std::vector<bool> seen(g.idCount(), false);
  std::vector<egraph::ClassId> stack{g.find(from)};
  seen[stack.back()] = true;
  while (!stack.empty()) {
    egraph::ClassId c = stack.back();
    stack.pop_back();
    for (egraph::NodeId n : g.eclass(c).nodes)
      for (egraph::ClassId k : g.node(n).children()) {
        k = g.find(k);
        if (!seen[k]) {
          seen[k] = true;
          stack.push_back(k);
        }
      }
  }
  return seen;
}

/// The distinct sub-terms of `t` with operator `op`.
void collect(const ir::Term* t, Op op, std::set<const ir::Term*>& out) {
  if (t->op() == op) out.insert(t);
  for (const ir::Term* k : t->children()) collect(k, op, out);
}

struct Saturated {
  DslModule dsl;
  Saturation sat;
  std::set<const ir::Term*> terms(Op op) const {
    std::set<const ir::Term*> s;
    collect(dsl.module.root(*dsl.ctx), op, s);
    return s;
  }
};

Saturated saturateBenchmark(const std::string& name) {
  Saturated s;
  s.dsl = loadDsl(std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/" + name);
  const RuleSet* rs = projectRules();
  if (!rs) return s;
  s.sat = saturateModule(*s.dsl.ctx, s.dsl.module, *rs);
  EXPECT_EQ(s.sat.report.stop, egraph::StopReason::Saturated);
  return s;
}

void expectEveryConvReaches(const Saturated& s, const ir::Term* shared, size_t expectedLayers) {
  const egraph::EGraph& g = *s.sat.graph;
  egraph::ClassId target = g.lookupTerm(shared);
  ASSERT_NE(target, egraph::kNoClass) << "the shared convolution is not in the e-graph";
  auto convs = s.terms(Op::Conv);
  EXPECT_EQ(convs.size(), expectedLayers);
  for (const ir::Term* c : convs) {
    egraph::ClassId cls = g.lookupTerm(c);
    ASSERT_NE(cls, egraph::kNoClass);
    EXPECT_TRUE(reachable(g, cls)[g.find(target)])
        << "conv layer on " << c->child(0)->type()->str() << " with weights " << c->child(1)->type()->str()
        << " does not reach the shared convolution";
  }
}

TEST(Reachability, VggCifarSharesOneConvolutionAndTheFcReachesItsMv) {
  Saturated s = saturateBenchmark("vgg_cifar.dsl");
  ASSERT_TRUE(s.sat.graph);
  ir::Context& ctx = *s.dsl.ctx;
  const ir::Type* i8 = ctx.intType(8);
  // 6x6x64 input tiles, 64 output channels (4x4 output tiles).
  expectEveryConvReaches(s, ir::cConvF(ctx, 6, 6, 64, 64, 3, i8, i8), 13);
  const egraph::EGraph& g = *s.sat.graph;
  egraph::ClassId convMv = g.lookupTerm(ir::cMvF(ctx, 64, 576, i8, i8));
  ASSERT_NE(convMv, egraph::kNoClass);
  auto mvs = s.terms(Op::Mv);
  const ir::Term* fc = nullptr;
  for (const ir::Term* m : mvs)
    if (m->closed() && m->child(0)->op() == Op::Input) fc = m;
  ASSERT_NE(fc, nullptr);
  egraph::ClassId fcClass = g.lookupTerm(fc);
  EXPECT_TRUE(reachable(g, fcClass)[g.find(convMv)]) << "the FC layer does not reach cMvF[64, 576]";
  // The path is padding: rows 10 -> 64, then columns 512 -> 576.
  EXPECT_NE(g.lookupTerm(ir::cMvF(ctx, 64, 512, i8, i8)), egraph::kNoClass);
  bool paddedRows = false;
  for (egraph::NodeId n : g.eclass(fcClass).nodes) paddedRows |= g.node(n).op() == Op::PaddedMvRows;
  EXPECT_TRUE(paddedRows);
  // Within a few times the paper's size (Fig. 12a: about 1,300 e-nodes for VGG); the
  // paired first layer (R-PAIR-CONV-W) took it from 2,233 to 3,448 e-nodes.
  EXPECT_LT(g.nodeCount(), 4000u);
}

TEST(Reachability, VggFirstLayerReachesTheSharedPartialMvThroughParallelConv) {
  Saturated s = saturateBenchmark("vgg_cifar.dsl");
  ASSERT_TRUE(s.sat.graph);
  ir::Context& ctx = *s.dsl.ctx;
  const ir::Type* i8 = ctx.intType(8);
  const egraph::EGraph& g = *s.sat.graph;
  // R-PAD-PAR-CONV: 3 channels padded to 4, 16 windows of 3x3x4 per call of pMvF[64, 576].
  egraph::ClassId shared = g.lookupTerm(ir::pMvF(ctx, 64, 576, 16, i8, i8));
  ASSERT_NE(shared, egraph::kNoClass);
  const ir::Term* first = nullptr;
  for (const ir::Term* c : s.terms(Op::Conv))
    if (c->child(1)->type()->shape().back() == 3) first = c;
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(reachable(g, g.lookupTerm(first))[g.find(shared)]);
  // ... and a 64-channel layer's cMvF[64, 576] body holds the merged partial product, whose
  // Mv is pMvF's body: the two layers share it.
  const ir::Term* pBody = ir::pMvF(ctx, 64, 576, 16, i8, i8)->body()->body();
  const ir::Term* cBody = ir::cMvF(ctx, 64, 576, i8, i8)->body()->body();
  egraph::ClassId pb = g.lookupTerm(pBody), cb = g.lookupTerm(cBody);
  ASSERT_NE(pb, egraph::kNoClass);
  ASSERT_NE(cb, egraph::kNoClass);
  bool merged = false;
  for (egraph::NodeId n : g.eclass(cb).nodes)
    merged |= g.node(n).op() == Op::MergePartialSum && g.find(g.node(n).child(0)) == g.find(pb);
  EXPECT_TRUE(merged);
}

TEST(Reachability, TinyYoloSharesOneConvolutionIncludingThe125ChannelLayer) {
  Saturated s = saturateBenchmark("tinyyolo_v2.dsl");
  ASSERT_TRUE(s.sat.graph);
  ir::Context& ctx = *s.dsl.ctx;
  const ir::Type* i8 = ctx.intType(8);
  // 15x15 input tiles (13x13 outputs divide 416, 208, 104, 52, 26, 13), 16 channels.
  expectEveryConvReaches(s, ir::cConvF(ctx, 15, 15, 16, 16, 3, i8, i8), 8);
  // The 125-channel layer goes through a 128-channel convolution.
  const egraph::EGraph& g = *s.sat.graph;
  const ir::Term* last = nullptr;
  for (const ir::Term* c : s.terms(Op::Conv))
    if (c->child(1)->type()->length() == 125) last = c;
  ASSERT_NE(last, nullptr);
  bool padded = false;
  for (egraph::NodeId n : g.eclass(g.lookupTerm(last)).nodes) padded |= g.node(n).op() == Op::PaddedConvOCH;
  EXPECT_TRUE(padded);
  EXPECT_NE(g.lookupTerm(ir::cConvF(ctx, 15, 15, 1024, 128, 3, i8, i8)), egraph::kNoClass);
}

TEST(Reachability, StencilStagesShareOneConv1DWUnit) {
  Saturated s = saturateBenchmark("stencil4.dsl");
  ASSERT_TRUE(s.sat.graph);
  const egraph::EGraph& g = *s.sat.graph;
  using Unit = std::tuple<const ir::Type*, const ir::Type*, egraph::ClassId>;  // image, weights, function
  auto units = [&](egraph::ClassId from) {
    auto seen = reachable(g, from);
    std::set<Unit> out;
    for (egraph::ClassId c : g.classesWithOp(Op::Conv1DW)) {
      if (!seen[c]) continue;
      for (egraph::NodeId n : g.eclass(c).nodes) {
        const egraph::ENode& node = g.node(n);
        if (node.op() == Op::Conv1DW)
          out.emplace(g.typeOf(node.child(0)), g.typeOf(node.child(1)), g.find(node.child(2)));
      }
    }
    return out;
  };
  auto stages = s.terms(Op::Conv1DW);
  auto hs = s.terms(Op::Conv1DH);
  EXPECT_EQ(stages.size(), 2u);
  EXPECT_EQ(hs.size(), 2u);
  stages.insert(hs.begin(), hs.end());
  std::optional<std::set<Unit>> common;
  for (const ir::Term* t : stages) {
    auto u = units(g.lookupTerm(t));
    if (!common) {
      common = u;
      continue;
    }
    std::set<Unit> both;
    for (const Unit& x : u)
      if (common->count(x)) both.insert(x);
    common = both;
  }
  ASSERT_TRUE(common);
  EXPECT_FALSE(common->empty()) << "the four stages do not reach one Conv1D_W unit";
}

}  // namespace
