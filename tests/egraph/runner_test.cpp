#include <gtest/gtest.h>

#include <chrono>

#include "skeleshare/egraph/extract.h"
#include "skeleshare/egraph/runner.h"
#include "skeleshare/frontend/frontend.h"
#include "skeleshare/ir/builders.h"

using namespace skeleshare;
using namespace skeleshare::egraph;
using ir::Op;
using P = Pattern;
using T = TypePattern;

namespace {

/// R-HALVE-PARALLELISM: ParallelDot[?Q](?a, ?b) -> ParallelDot[?Q/2](?a, ?b) if ?Q % 2 == 0.
PatternRewrite halveParallelism() {
  PatternRewrite r("R-HALVE-PARALLELISM",
                   P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q")}),
                   P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q") / 2}),
                   {"parallelism"});
  uint32_t q = r.vars().intSlot("?Q");
  r.when([q](const EGraph&, const Subst& s) { return s.integer(q) % 2 == 0; });
  return r;
}

/// A conv translated by the frontend.
const ir::Term* translatedConv(ir::Context& ctx) {
  SourceFile file("conv.dsl", "input x : i8[34][34][3];\nweight w : i8[64][3][3][3];\noutput o = conv(x, w);");
  DiagnosticEngine diags;
  auto prog = frontend::parseAndCheck(file, diags);
  if (!prog) return nullptr;
  return frontend::translate(*prog, ctx).root(ctx);
}

std::vector<int64_t> parallelDotParams(const EGraph& g, ClassId c) {
  std::vector<int64_t> ps;
  for (NodeId id : g.eclass(c).nodes)
    if (g.node(id).op() == Op::ParallelDot) ps.push_back(g.node(id).param(0));
  std::sort(ps.begin(), ps.end());
  return ps;
}

struct RunnerTest : ::testing::Test {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  EGraph g{ctx};
};

TEST_F(RunnerTest, HalveParallelismSaturatesOnTranslatedConv) {
  const ir::Term* conv = translatedConv(ctx);
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv, ctx.op(Op::Conv, {ctx.input("x", ctx.tensorType(std::vector<int64_t>{34, 34, 3}, i8)),
                                    ctx.input("w", ctx.tensorType(std::vector<int64_t>{64, 3, 3, 3}, i8)),
                                    ir::cMvF(ctx, 64, 27, i8, i8)}));
  ClassId root = g.addTerm(conv);
  PatternRewrite halve = halveParallelism();
  RunReport rep = Runner().run(g, {&halve});
  EXPECT_EQ(rep.stop, StopReason::Saturated) << rep.summary();
  // 64 -> 32 -> ... -> 1: six productive iterations and a last one that changes nothing.
  EXPECT_EQ(rep.iterations.size(), 7u);
  ClassId dot = g.lookupTerm(ir::dotF(ctx, 64, 27, i8, i8, 64)->body()->body());
  ASSERT_NE(dot, kNoClass);
  EXPECT_EQ(parallelDotParams(g, dot), (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(g.lookupTerm(ir::dotF(ctx, 64, 27, i8, i8, 8)), g.lookupTerm(ir::dotF(ctx, 64, 27, i8, i8, 64)));
  ASSERT_EQ(rep.rules.size(), 1u);
  EXPECT_EQ(rep.rules[0].applied, 6u);
  // Iteration k re-matches the k even variants present (1, 2, ..., 6, then 6 again).
  EXPECT_EQ(rep.rules[0].matches, 1u + 2u + 3u + 4u + 5u + 6u + 6u);
  EXPECT_EQ(rep.iterations[0].rules[0].matches, 1u);
  EXPECT_EQ(rep.iterations[0].rules[0].newNodes, 1u);
  EXPECT_EQ(g.nodeCount(), 12u + 6u);
  // Extraction still gives back the original (all variants have the same size; ties go to
  // the earliest node).
  EXPECT_EQ(SmallestExtractor(g).extract(root), conv);
}

TEST_F(RunnerTest, IterationLimit) {
  g.addTerm(ir::cMvF(ctx, 64, 27, i8, i8));
  PatternRewrite halve = halveParallelism();
  RunReport rep = Runner({.maxIterations = 3}).run(g, {&halve});
  EXPECT_EQ(rep.stop, StopReason::IterationLimit);
  EXPECT_EQ(rep.iterations.size(), 3u);
  ClassId dot = g.lookupTerm(ir::dotF(ctx, 64, 27, i8, i8, 64)->body()->body());
  EXPECT_EQ(parallelDotParams(g, dot), (std::vector<int64_t>{8, 16, 32, 64}));
}

TEST_F(RunnerTest, DisabledGroupsAreSkipped) {
  g.addTerm(ir::cMvF(ctx, 64, 27, i8, i8));
  PatternRewrite halve = halveParallelism();
  RunReport rep = Runner().disableGroup("parallelism").run(g, {&halve});
  EXPECT_EQ(rep.stop, StopReason::Saturated);
  EXPECT_EQ(rep.iterations.size(), 1u);
  EXPECT_TRUE(rep.rules.empty());
  EXPECT_EQ(g.nodeCount(), 9u);  // the nodes of cMvF alone
}

/// Commutativity and associativity of Add: the e-graph of an n-term sum grows
/// exponentially, good for exercising the limits.
struct AddRules {
  PatternRewrite comm{"add-comm", P::node(Op::Add, {P::cls("?a"), P::cls("?b")}),
                      P::node(Op::Add, {P::cls("?b"), P::cls("?a")})};
  PatternRewrite assoc{"add-assoc", P::node(Op::Add, {P::node(Op::Add, {P::cls("?a"), P::cls("?b")}), P::cls("?c")}),
                       P::node(Op::Add, {P::cls("?a"), P::node(Op::Add, {P::cls("?b"), P::cls("?c")})})};
};

ClassId addChain(ir::Context& ctx, EGraph& g, int n) {
  const ir::Type* t = ctx.arrayType(4, ctx.intType(8));
  const ir::Term* sum = ctx.input("x0", t);
  for (int i = 1; i < n; ++i) sum = ctx.op(Op::Add, {sum, ctx.input("x" + std::to_string(i), t)});
  return g.addTerm(sum);
}

TEST_F(RunnerTest, NodeLimitStopsInsideTheApplyPhase) {
  addChain(ctx, g, 9);
  AddRules rules;
  RunReport rep = Runner({.maxIterations = 100, .maxNodes = 2000, .maxSeconds = 60}).run(g, {&rules.comm, &rules.assoc});
  EXPECT_EQ(rep.stop, StopReason::NodeLimit) << rep.summary();
  // Checked after every application, each of which adds at most two nodes: when the apply
  // phase stopped, the e-graph held 2000 or 2001 nodes (rebuild then removes duplicates).
  ASSERT_GE(rep.iterations.size(), 2u);
  size_t atStop = rep.iterations[rep.iterations.size() - 2].nodes + rep.iterations.back().newNodes;
  EXPECT_GE(atStop, 2000u);
  EXPECT_LE(atStop, 2001u);
  EXPECT_LE(rep.iterations.back().nodes, atStop);
  // The last iteration did not apply all its matches.
  const IterationStats& last = rep.iterations.back();
  EXPECT_LT(last.rules[0].applied + last.rules[1].applied, last.matches);
}

TEST_F(RunnerTest, TimeLimit) {
  addChain(ctx, g, 14);
  AddRules rules;
  auto t0 = std::chrono::steady_clock::now();
  RunReport rep = Runner({.maxIterations = 1000, .maxNodes = 100000000, .maxSeconds = 0.2})
                      .run(g, {&rules.comm, &rules.assoc});
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(rep.stop, StopReason::TimeLimit) << rep.summary();
  EXPECT_LT(secs, 2.0);  // a generous bound: the limit is checked every 64 applications
}

TEST_F(RunnerTest, AddRulesSaturateOnSmallSums) {
  ClassId root = addChain(ctx, g, 4);
  AddRules rules;
  RunReport rep = Runner().run(g, {&rules.comm, &rules.assoc});
  EXPECT_EQ(rep.stop, StopReason::Saturated);
  // All 2^4 - 1 non-empty subsets of {x0..x3} as classes; the root holds every bracketing
  // and order of the four inputs.
  EXPECT_EQ(g.classCount(), 15u);
  const ir::Type* t = ctx.arrayType(4, i8);
  auto x = [&](int i) { return ctx.input("x" + std::to_string(i), t); };
  const ir::Term* other = ctx.op(Op::Add, {ctx.op(Op::Add, {x(3), x(1)}), ctx.op(Op::Add, {x(0), x(2)})});
  EXPECT_EQ(g.lookupTerm(other), root);
}

TEST_F(RunnerTest, ErrorsNameTheRule) {
  g.addTerm(ir::cMvF(ctx, 64, 27, i8, i8));
  // A wrong rule: ParallelDot's result is i32[64], its operand i8[64][27].
  PatternRewrite bad("BAD-RULE", P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q")}), P::cls("?a"));
  try {
    Runner().run(g, {&bad});
    FAIL() << "expected RewriteError";
  } catch (const RewriteError& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.rule(), "BAD-RULE");
    EXPECT_EQ(msg.rfind("rule BAD-RULE: merging e-classes of different types", 0), 0u) << msg;
  }
  // An ill-typed right-hand side names the rule and the template.
  PatternRewrite ill("ILL", P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q")}),
                     P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q") * 2}));
  try {
    Runner().run(g, {&ill});
    FAIL() << "expected RewriteError";
  } catch (const RewriteError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("rule ILL: template ParallelDot[?Q*2](?a, ?b)"), std::string::npos) << msg;
  }
}

TEST_F(RunnerTest, ExpanderDrawsParametersFromTheDimensionIndex) {
  // ParallelDot[?Q](?a : ?A[?M][?N], ?b) -> ParallelDot[?P](?a, ?b) for each dimension ?P
  // present in the e-graph with ?P < ?Q and ?M % ?P == 0.
  g.addTerm(ir::cMvF(ctx, 64, 27, i8, i8));
  g.addTerm(ctx.input("other", ctx.tensorType(std::vector<int64_t>{16, 5}, i8)));
  PatternRewrite pick("pick-parallelism",
                      P::node(Op::ParallelDot, {P::cls("?a", T::tensor(T::scalar(), {iv("?M"), iv("?N")})), P::cls("?b")}, {iv("?Q")}),
                      P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?P")}));
  uint32_t q = pick.vars().intSlot("?Q"), m = pick.vars().intSlot("?M"), p = pick.vars().intSlot("?P");
  pick.expand([=](const EGraph& eg, const Subst& s, std::vector<Subst>& out) {
    for (int64_t d : eg.dimensions()) {
      if (d >= s.integer(q) || s.integer(m) % d != 0) continue;
      Subst t = s;
      t.setInt(p, d);
      out.push_back(std::move(t));
    }
  });
  RunReport rep = Runner().run(g, {&pick});
  EXPECT_EQ(rep.stop, StopReason::Saturated);
  ClassId dot = g.lookupTerm(ir::dotF(ctx, 64, 27, i8, i8, 64)->body()->body());
  // Dimensions: 5, 16, 27, 64; divisors of 64 below 64 among them: 16.
  EXPECT_EQ(parallelDotParams(g, dot), (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(rep.iterations[0].rules[0].matches, 1u);
}

}  // namespace
