// The Z3 extractor on small hand-built e-graphs whose optimum is known by enumerating
// every selection and every sharing decision (brute force below), plus the outlined
// designs' semantics.

#include <gtest/gtest.h>

#include <functional>

#include "skeleshare/egraph/runner.h"
#include "skeleshare/extract/extractor.h"
#include "skeleshare/extract/greedy.h"
#include "skeleshare/extract/outline.h"
#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/ir/printer.h"
#include "../egraph/paper_rewrites.h"

using namespace skeleshare;
using namespace skeleshare::egraph;
using namespace skeleshare::extract;
using cost::kConvUnits;
using cost::kDsp;
using cost::kTime;
using ir::Op;
using P = Pattern;
using T = TypePattern;

namespace {

cost::CostModel model() { return cost::CostModel(cost::findDevice(cost::kDefaultDevice, SKELESHARE_SOURCE_DIR)); }

/// R-HALVE-PARALLELISM.
PatternRewrite halve() {
  PatternRewrite r("R-HALVE-PARALLELISM", P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q")}),
                   P::node(Op::ParallelDot, {P::cls("?a"), P::cls("?b")}, {iv("?Q") / 2}), {"parallelism"});
  uint32_t q = r.vars().intSlot("?Q");
  r.when([q](const EGraph&, const Subst& s) { return s.integer(q) % 2 == 0; });
  return r;
}

PatternRewrite padMv() { return skeleshare::paper_rewrites::padMvRewrite("padding"); }

/// The best design by enumeration: every node choice for every class, every subset of the
/// shareable classes used. Returns (time, dsps) or (-1, -1) when nothing fits.
std::pair<int64_t, int64_t> bruteForce(const Problem& p, int64_t budget, int64_t maxConv) {
  const size_t nc = p.classes().size();
  Selection base;
  base.chosen.assign(nc, -1);
  base.shared.assign(nc, 0);
  std::pair<int64_t, int64_t> best{-1, -1};
  size_t combos = 0;
  std::function<void(uint32_t)> rec = [&](uint32_t c) {
    if (c == nc) {
      ++combos;
      Selection s = base;
      Evaluation e0 = evaluate(p, s);
      if (!e0.valid) return;
      std::vector<uint32_t> cand;
      for (uint32_t x : e0.order)
        if (p.cls(x).shareable) cand.push_back(x);
      for (uint64_t mask = 0; mask < (uint64_t{1} << cand.size()); ++mask) {
        Selection t = base;
        for (size_t i = 0; i < cand.size(); ++i) t.shared[cand[i]] = (mask >> i) & 1;
        Evaluation e = evaluate(p, t);
        if (!checkLimits(e, budget, maxConv).empty()) continue;
        if (best.first < 0 || e.time() < best.first || (e.time() == best.first && e.dsps() < best.second))
          best = {e.time(), e.dsps()};
      }
      return;
    }
    for (uint32_t n : p.cls(c).nodes) {
      base.chosen[c] = static_cast<int32_t>(n);
      rec(c + 1);
    }
  };
  rec(0);
  EXPECT_LT(combos, 2'000'000u);
  return best;
}

ExtractOptions opts(int64_t budget, int64_t maxConv = 1) {
  ExtractOptions o;
  o.dspBudget = budget;
  o.maxConvUnits = maxConv;
  o.effort = 200'000'000;  // deterministic; far more than these problems need
  o.timeoutSeconds = 0;
  return o;
}

/// The paper's running example: mv(fcWgt, flatten(conv(input, convWgt))), with the halving
/// and padded-Mv rules run to saturation.
struct PaperExample : ::testing::Test {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  cost::CostModel cm = model();
  ir::Module source;
  std::unique_ptr<EGraph> g;
  ClassId root = kNoClass;

  const ir::Term* in(const char* name, std::vector<int64_t> dims, ir::Decl::Kind k = ir::Decl::Kind::Weight) {
    const ir::Type* t = ctx.tensorType(dims, i8);
    source.decls.push_back({name, k, t});
    return ctx.input(name, t);
  }
  void SetUp() override {
    // 4x4x8 input, 8 filters of 3x3x8 -> 2x2x8 (conv Mv 8 x 72); FC 8 x 32.
    const ir::Term* x = in("input", {4, 4, 8}, ir::Decl::Kind::Input);
    const ir::Term* conv = ctx.op(Op::Conv, {x, in("convWgt", {8, 3, 3, 8}), ir::cMvF(ctx, 8, 72, i8, i8)});
    const ir::Term* flat = ctx.op(Op::Flatten, {ctx.op(Op::Requant, {conv}, {4})});
    const ir::Term* fc = ctx.op(Op::Mv, {in("fcWgt", {8, 32}), flat, ir::dotF(ctx, 8, 32, i8, i8, 8)});
    source.outputs.push_back({"out", fc});
    g = std::make_unique<EGraph>(ctx);
    root = g->addTerm(source.root(ctx));
    PatternRewrite h = halve(), pad = padMv();
    RunReport rep = Runner().run(*g, {&h, &pad});
    ASSERT_EQ(rep.stop, StopReason::Saturated);
  }
};

TEST_F(PaperExample, MatchesEnumerationAtEveryBudget) {
  for (bool shrink : {true, false}) {
    Problem p(*g, cm, root, {.sharing = true, .singleAbstraction = false, .shrink = shrink});
    for (int64_t budget : {10000, 1200, 800, 600, 576, 300, 100, 64, 8}) {
      auto bf = bruteForce(p, budget, 1);
      ExtractResult r = extractDesign(p, opts(budget));
      SCOPED_TRACE(testing::Message() << "budget " << budget << " shrink " << shrink);
      if (bf.first < 0) {
        EXPECT_EQ(r.status, Status::NoSolution) << r.message;
        continue;
      }
      ASSERT_EQ(r.status, Status::Ok) << r.message;
      EXPECT_TRUE(r.optimal);
      EXPECT_EQ(r.evaluation.time(), bf.first);
      EXPECT_LE(r.evaluation.dsps(), budget);
    }
  }
}

TEST_F(PaperExample, SharingIsNeededToFit) {
  // The smallest unshared design: the conv's Mv at P = 1 (64 i8 products for 72 columns, two
  // per DSP block: 32 blocks) plus the FC's at P = 1 (16 blocks): 48. With 40 DSPs only the
  // design in which the padded FC layer reuses the conv's cMvF[8, 72] unit fits.
  Problem p(*g, cm, root);
  ExtractResult r = extractDesign(p, opts(40));
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  ExtractResult free = extractDesign(p, opts(100000));
  ASSERT_EQ(free.status, Status::Ok);
  // Without a budget nothing is shared (sharing costs 5 cycles per use).
  EXPECT_EQ(std::count(free.selection.shared.begin(), free.selection.shared.end(), 1), 0);
  int shared = 0;
  for (uint32_t c = 0; c < p.classes().size(); ++c)
    if (r.selection.shared[c]) {
      ++shared;
      EXPECT_EQ(p.cls(c).type->str(), "(i8[8][72] -> (i8[72] -> i32[8]))");
      EXPECT_EQ(r.evaluation.uses[c], 2);
    }
  EXPECT_EQ(shared, 1);
  EXPECT_EQ(r.evaluation.dsps(), 32);
  EXPECT_EQ(r.evaluation.time(), bruteForce(p, 40, 1).first);
  // No sharing allowed: nothing fits.
  Problem noShare(*g, cm, root, {.sharing = false});
  ExtractResult ns = extractDesign(noShare, opts(40));
  EXPECT_EQ(ns.status, Status::NoSolution);
  EXPECT_NE(ns.message.find("no design fits 40 DSPs: the smallest design with at most 1 convolution unit needs 48"),
            std::string::npos)
      << ns.message;
  EXPECT_EQ(bruteForce(noShare, 40, 1).first, -1);
  // Single abstraction: the FC's PaddedMv (Mv family) may not use the conv's Mv unit, whose
  // other user is a Conv.
  Problem single(*g, cm, root, {.sharing = true, .singleAbstraction = true});
  EXPECT_EQ(extractDesign(single, opts(40)).status, Status::NoSolution);
  EXPECT_EQ(bruteForce(single, 40, 1).first, -1);
  ExtractResult sa = extractDesign(single, opts(100));
  ASSERT_EQ(sa.status, Status::Ok);
  EXPECT_EQ(sa.evaluation.time(), bruteForce(single, 100, 1).first);
}

TEST_F(PaperExample, InfeasibleBudgetSaysWhatTheSmallestDesignNeeds) {
  Problem p(*g, cm, root);
  // Smallest: ParallelDot[1] over 72 columns: 64 products in 32 DSP blocks, shared with the
  // FC layer.
  ExtractResult r = extractDesign(p, opts(20));
  EXPECT_EQ(r.status, Status::NoSolution);
  EXPECT_NE(r.message.find("no design fits 20 DSPs: the smallest design with at most 1 convolution unit needs 32"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(bruteForce(p, 32, 1).first >= 0, true);
  EXPECT_EQ(bruteForce(p, 31, 1).first, -1);
}

TEST_F(PaperExample, OutlinedDesignEvaluatesLikeTheSource) {
  Problem p(*g, cm, root);
  for (int64_t budget : {100000, 600, 40, 32}) {
    ExtractResult r = extractDesign(p, opts(budget));
    ASSERT_EQ(r.status, Status::Ok);
    OutlinedDesign d = outline(p, r.selection, r.evaluation, source);
    auto inputs = ir::randomInputs(source, 7);
    auto want = ir::evaluateModule(source, ctx, inputs);
    auto got = ir::evaluateModule(d.module, ctx, inputs);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(got.at("out") == want.at("out")) << "budget " << budget;
    // The outlined term, costed on its own, matches the extractor's prediction.
    cost::DesignCost dc = cost::designCost(cm, d.module.outputs[0].term);
    EXPECT_EQ(dc.total(kTime), r.evaluation.time());
    EXPECT_EQ(dc.total(kDsp), r.evaluation.dsps());
    EXPECT_EQ(dc.sharedUnits, d.units.size());
    if (budget == 40) {
      ASSERT_EQ(d.units.size(), 1u);
      EXPECT_EQ(d.units[0].skeleton, "Mv");
      EXPECT_EQ(d.units[0].uses, 2);
      EXPECT_NE(d.header().find("used 2 times by Conv x1, PaddedMv x1"), std::string::npos) << d.header();
    }
  }
}

/// A model whose load oracle (the lowering, in the compiler) refuses the given operators.
cost::CostModel refusing(std::vector<Op> ops) {
  cost::CostModel m = model();
  m.setLoadOracle([ops](Op op, std::span<const int64_t>, std::span<const cost::ChildShape>,
                        const ir::Type*, bool) -> std::optional<cost::SkeletonLoad> {
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) return std::nullopt;
    cost::SkeletonLoad l;
    l.refused = true;
    return l;
  });
  return m;
}

TEST_F(PaperExample, NodesTheLoweringRefusesAreNeverChosen) {
  cost::CostModel noPaddedMv = refusing({Op::PaddedMv});
  Problem p(*g, noPaddedMv, root);
  EXPECT_GT(p.stats().unlowerableNodes, 0u);
  for (int64_t budget : {100000, 600, 48}) {
    ExtractResult r = extractDesign(p, opts(budget));
    ASSERT_EQ(r.status, Status::Ok) << budget;
    OutlinedDesign d = outline(p, r.selection, r.evaluation, source);
    EXPECT_EQ(ir::printModule(ctx, d.module).find("PaddedMv"), std::string::npos) << budget;
    auto inputs = ir::randomInputs(source, 3);
    EXPECT_TRUE(ir::evaluateModule(d.module, ctx, inputs).at("out") == ir::evaluateModule(source, ctx, inputs).at("out"));
  }
  // Sharing the convolution's Mv with the FC layer needs PaddedMv: 40 DSPs no longer fit.
  EXPECT_EQ(extractDesign(p, opts(40)).status, Status::NoSolution);

  cost::CostModel nothing = refusing({Op::Conv, Op::Mv, Op::PaddedMv});
  Problem q(*g, nothing, root);
  EXPECT_FALSE(q.feasible());
  EXPECT_TRUE(q.loweringExcludedAll());
  ExtractResult r = extractDesign(q, opts(100000));
  EXPECT_EQ(r.status, Status::NoSolution);
  EXPECT_NE(r.message.find("no design the lowering can build"), std::string::npos) << r.message;
}

TEST_F(PaperExample, Deterministic) {
  auto run = [&] {
    // A fresh e-graph over the same program.
    EGraph g2(ctx);
    ClassId r2 = g2.addTerm(source.root(ctx));
    PatternRewrite h = halve(), pad = padMv();
    Runner().run(g2, {&h, &pad});
    Problem p(g2, cm, r2);
    ExtractResult r = extractDesign(p, opts(40));
    OutlinedDesign d = outline(p, r.selection, r.evaluation, source);
    return d.header() + ir::printModule(ctx, d.module);
  };
  std::string a = run(), b = run();
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("App("), std::string::npos);
}

/// Two convolutions of the same shape; each layer class also holds a padded version using
/// one conv function K, which is the only way to have a single convolution unit.
struct TwoConvs : ::testing::Test {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  cost::CostModel cm = model();
  ir::Module source;
  EGraph g{ctx};
  ClassId root = kNoClass;

  const ir::Term* in(const char* name, std::vector<int64_t> dims) {
    const ir::Type* t = ctx.tensorType(dims, i8);
    source.decls.push_back({name, ir::Decl::Kind::Weight, t});
    return ctx.input(name, t);
  }
  void SetUp() override {
    const ir::Term* x = in("x", {6, 6, 4});
    const ir::Term* c1 = ctx.op(Op::Conv, {x, in("w1", {4, 3, 3, 4}), ir::cMvF(ctx, 4, 36, i8, i8)});
    const ir::Term* a1 = ctx.op(Op::Requant, {ctx.op(Op::Pad, {c1}, {1, 1, 1, 1, 0})}, {4});
    const ir::Term* c2 = ctx.op(Op::Conv, {a1, in("w2", {4, 3, 3, 4}), ir::cMvF(ctx, 4, 36, i8, i8)});
    source.outputs.push_back({"y", c2});
    root = g.addTerm(c2);
    const ir::Term* k = ir::cConvF(ctx, 6, 6, 4, 4, 3, i8, i8);
    for (const ir::Term* c : {c1, c2}) {
      ClassId alt = g.addTerm(ctx.op(Op::PaddedConvHW, {c->child(0), c->child(1), k}));
      g.merge(g.lookupTerm(c), alt);
    }
    g.rebuild();
    PatternRewrite h = halve();
    Runner().run(g, {&h});
  }
};

TEST_F(TwoConvs, AtMostOneConvolutionUnit) {
  Problem p(g, cm, root);
  ExtractResult one = extractDesign(p, opts(100000, 1));
  ASSERT_EQ(one.status, Status::Ok) << one.message;
  EXPECT_EQ(one.evaluation.convUnits(), 1);
  EXPECT_EQ(one.evaluation.time(), bruteForce(p, 100000, 1).first);
  ExtractResult two = extractDesign(p, opts(100000, 2));
  ASSERT_EQ(two.status, Status::Ok);
  EXPECT_EQ(two.evaluation.convUnits(), 2);
  EXPECT_LT(two.evaluation.time(), one.evaluation.time());  // no 5-cycle call overhead
  EXPECT_EQ(two.evaluation.time(), bruteForce(p, 100000, 2).first);
  // The design with one unit outlines to a let of the conv function, used twice.
  OutlinedDesign d = outline(p, one.selection, one.evaluation, source);
  ASSERT_GE(d.units.size(), 1u);
  bool convUnit = false;
  for (const auto& u : d.units) convUnit |= u.skeleton == "Conv" && u.uses == 2 && u.convUnits == 1;
  EXPECT_TRUE(convUnit) << d.header();
  auto inputs = ir::randomInputs(source, 3);
  EXPECT_TRUE(ir::evaluateModule(d.module, ctx, inputs).at("y") == ir::evaluateModule(source, ctx, inputs).at("y"));
  // Without sharing, one unit is impossible: the message names the conv-unit limit.
  Problem ns(g, cm, root, {.sharing = false});
  ExtractResult r = extractDesign(ns, opts(100000, 1));
  EXPECT_EQ(r.status, Status::NoSolution);
  EXPECT_NE(r.message.find("no design has at most 1 convolution unit: the fewest possible is 2"), std::string::npos)
      << r.message;
}

/// A hardware model whose oracle reads a convolution's windows in `freshRuns` runs per call
/// and gives every unit an empty load.
cost::CostModel freshWindows(int64_t freshRuns) {
  cost::CostModel m = model();
  m.setLoadOracle([freshRuns](Op op, std::span<const int64_t>, std::span<const cost::ChildShape>, const ir::Type*,
                              bool) -> std::optional<cost::SkeletonLoad> {
    cost::SkeletonLoad l;
    if (op == Op::Conv) l.freshRuns = freshRuns;
    return l;
  });
  return m;
}

TEST(ComputeTimes, TheSolverPricesFilterTilesLikeTheEvaluation) {
  // Two convolutions (4 and 8 filters) and a fully connected layer, one convolution unit:
  // a unit K4 of 4 filters that the second layer calls in two filter tiles (TiledConvOCH,
  // which replays the windows: it pays them once, cost::NodeCost::compute), or a unit K8
  // that the first layer calls padded. A call reads its windows in 30 runs. At 144 DSP
  // blocks the optimum is K4 at 4 lanes: max(16, 30) + max(2 * 16, 30) cycles for the
  // convolutions; charging the windows per tile (2 * 30) makes K4 lose to K8. The solver
  // alone (no greedy start) must find the enumerated optimum at every budget: it fails when
  // the encoding over- or under-prices the tiles.
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  ir::Module source;
  auto in = [&](const char* name, std::vector<int64_t> dims) {
    const ir::Type* t = ctx.tensorType(dims, i8);
    source.decls.push_back({name, ir::Decl::Kind::Weight, t});
    return ctx.input(name, t);
  };
  const ir::Term* x = in("x", {6, 6, 4});
  const ir::Term* wa = in("wa", {4, 3, 3, 4});
  const ir::Term* wb = in("wb", {8, 3, 3, 4});
  const ir::Term* k4 = ir::cConvF(ctx, 6, 6, 4, 4, 3, i8, i8);
  const ir::Term* k8 = ir::cConvF(ctx, 6, 6, 4, 8, 3, i8, i8);
  const ir::Term* a = ctx.op(Op::Conv, {x, wa, ir::cMvF(ctx, 4, 36, i8, i8)});
  const ir::Term* a1 = ctx.op(Op::Requant, {ctx.op(Op::Pad, {a}, {1, 1, 1, 1, 0})}, {4});
  const ir::Term* b = ctx.op(Op::Conv, {a1, wb, ir::cMvF(ctx, 8, 36, i8, i8)});
  // A fully connected layer after it competes for the DSPs.
  const ir::Term* flat = ctx.op(Op::Flatten, {ctx.op(Op::Requant, {b}, {4})});
  const ir::Term* fc = ctx.op(Op::Mv, {in("fc", {8, 128}), flat, ir::dotF(ctx, 8, 128, i8, i8, 8)});
  source.outputs.push_back({"y", fc});
  EGraph g(ctx);
  ClassId root = g.addTerm(fc);
  const ClassId bc = g.lookupTerm(b);
  g.merge(g.lookupTerm(a), g.addTerm(ctx.op(Op::PaddedConvHW, {x, wa, k4})));
  g.merge(g.lookupTerm(a), g.addTerm(ctx.op(Op::PaddedConvOCH, {x, wa, k8})));
  g.merge(bc, g.addTerm(ctx.op(Op::TiledConvOCH, {a1, wb, k4})));
  g.merge(bc, g.addTerm(ctx.op(Op::PaddedConvHW, {a1, wb, k8})));
  g.rebuild();
  PatternRewrite h = halve();
  Runner().run(g, {&h});
  cost::CostModel cm = freshWindows(30);
  Problem p(g, cm, g.find(root));
  EXPECT_TRUE(std::any_of(p.classes().begin(), p.classes().end(), [](const PClass& c) { return c.hasCompute; }));
  for (int64_t budget : {600, 200, 144, 100, 72, 50}) {
    SCOPED_TRACE(testing::Message() << "budget " << budget);
    auto bf = bruteForce(p, budget, 1);
    ExtractOptions solverOnly = opts(budget);
    solverOnly.greedyWarmStart = false;  // the encoding alone finds the optimum
    ExtractResult r = extractDesign(p, solverOnly);
    ASSERT_EQ(r.status, Status::Ok) << r.message;
    EXPECT_TRUE(r.optimal);
    EXPECT_EQ(r.evaluation.time(), bf.first);
    EXPECT_EQ(r.lowerBound, bf.first);
    OutlinedDesign d = outline(p, r.selection, r.evaluation, source);
    EXPECT_EQ(cost::designCost(cm, d.module.outputs[0].term).total(kTime), r.evaluation.time());
    auto inputs = ir::randomInputs(source, 5);
    EXPECT_TRUE(ir::evaluateModule(d.module, ctx, inputs).at("y") == ir::evaluateModule(source, ctx, inputs).at("y"));
    GreedyResult gr = greedyExtract(p, budget, 1);
    ASSERT_TRUE(gr.found);
    EXPECT_GE(gr.evaluation.time(), r.evaluation.time());
  }
}

TEST(Cycles, SelectionStaysAcyclic) {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  ir::Module source;
  const ir::Type* tx = ctx.tensorType(std::vector<int64_t>{4, 4, 2}, i8);
  const ir::Type* tw = ctx.tensorType(std::vector<int64_t>{2, 3, 3, 2}, i8);
  source.decls = {{"x", ir::Decl::Kind::Input, tx}, {"w", ir::Decl::Kind::Weight, tw}};
  const ir::Term* conv = ctx.op(Op::Conv, {ctx.input("x", tx), ctx.input("w", tw), ir::cMvF(ctx, 2, 18, i8, i8)});
  const ir::Term* r1 = ctx.op(Op::Relu, {conv});
  const ir::Term* r2 = ctx.op(Op::Relu, {r1});
  source.outputs.push_back({"y", r1});
  EGraph g(ctx);
  ClassId root = g.addTerm(r2);
  // Relu(Relu(conv)) = Relu(conv), then conv's class = Relu(Relu(conv))'s: two cycles.
  g.merge(root, g.lookupTerm(r1));
  g.rebuild();
  g.merge(g.lookupTerm(conv), root);  // not semantically true; only the structure matters
  g.rebuild();
  PatternRewrite h = halve();
  Runner().run(g, {&h});
  cost::CostModel cm = model();
  Problem p(g, cm, root);
  // Relu(conv) in conv's own class needs that class: dropped before encoding.
  EXPECT_GT(p.stats().selfDependentNodes, 0u);
  ExtractResult r = extractDesign(p, opts(100));
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_TRUE(r.evaluation.valid);
  EXPECT_EQ(r.evaluation.time(), bruteForce(p, 100, 1).first);
  OutlinedDesign d = outline(p, r.selection, r.evaluation, source);
  EXPECT_EQ(d.module.outputs[0].term->op() == Op::Conv || d.module.outputs[0].term->op() == Op::Relu, true);
}

TEST(Cycles, OptionalCyclesAreCutLazilyOrByLabels) {
  // Two classes that hold each other's Relu besides a convolution of their own: the cycle
  // A -> Relu(B) -> Relu(A) is optional, costs nothing, and must never be selected.
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  const ir::Type* tx = ctx.tensorType(std::vector<int64_t>{4, 4, 2}, i8);
  const ir::Type* tw = ctx.tensorType(std::vector<int64_t>{2, 3, 3, 2}, i8);
  const ir::Term* a = ctx.op(Op::Conv, {ctx.input("x", tx), ctx.input("w", tw), ir::cMvF(ctx, 2, 18, i8, i8)});
  const ir::Term* b = ctx.op(Op::Conv, {ctx.input("x2", tx), ctx.input("w", tw), ir::cMvF(ctx, 2, 18, i8, i8)});
  EGraph g(ctx);
  ClassId root = g.addTerm(ctx.op(Op::Tuple, {a, b}));
  ClassId ra = g.addTerm(ctx.op(Op::Relu, {a})), rb = g.addTerm(ctx.op(Op::Relu, {b}));
  g.merge(g.lookupTerm(a), rb);
  g.merge(g.lookupTerm(b), ra);
  g.rebuild();
  PatternRewrite h = halve();
  Runner().run(g, {&h});
  cost::CostModel cm = model();
  Problem p(g, cm, root);
  EXPECT_EQ(p.stats().selfDependentNodes, 0u);
  EXPECT_GT(p.stats().cyclicClasses, 0u);
  int64_t want = bruteForce(p, 200, 2).first;
  for (bool lazy : {true, false}) {
    ExtractOptions o = opts(200, 2);
    o.lazyAcyclicity = lazy;
    o.greedyWarmStart = false;
    ExtractResult r = extractDesign(p, o);
    ASSERT_EQ(r.status, Status::Ok) << r.message;
    EXPECT_TRUE(r.evaluation.valid) << r.evaluation.error;
    EXPECT_TRUE(r.optimal);
    EXPECT_EQ(r.evaluation.time(), want);
  }
}

TEST(Shrinking, DropsDominatedNodesAndAbsorbsChains) {
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  cost::CostModel cm = model();
  EGraph g(ctx);
  const ir::Term* t = ctx.op(Op::Mv, {ctx.input("m", ctx.tensorType(std::vector<int64_t>{8, 16}, i8)),
                                      ctx.input("v", ctx.tensorType(std::vector<int64_t>{16}, i8)),
                                      ir::dotF(ctx, 8, 16, i8, i8, 8)});
  ClassId root = g.addTerm(ctx.op(Op::Relu, {ctx.op(Op::Requant, {t}, {3})}));
  // A node equal in every cost to another with the same children: LeakyRelu(x) next to
  // Relu(x) costs the same (as slow as the child, no DSPs): one of them is dominated.
  ClassId req = g.lookupTerm(ctx.op(Op::Requant, {t}, {3}));
  g.merge(root, g.add(ENode(Op::LeakyRelu, {req}, {2})));
  g.rebuild();
  Problem p(g, cm, root);
  EXPECT_EQ(p.stats().dominatedNodes, 1u);
  EXPECT_GT(p.stats().absorbedClasses, 0u);
  EXPECT_GT(p.stats().freeClasses, 0u);
  Problem q(g, cm, root, {.shrink = false});
  EXPECT_EQ(q.stats().dominatedNodes, 0u);
  ExtractResult a = extractDesign(p, opts(1000)), b = extractDesign(q, opts(1000));
  EXPECT_EQ(a.evaluation.time(), b.evaluation.time());
}

TEST_F(PaperExample, GreedyIsWithinTheLimitsAndNoBetterThanTheSolver) {
  Problem p(*g, cm, root);
  for (int64_t budget : {100000, 600, 100}) {
    GreedyResult gr = greedyExtract(p, budget, 1);
    ExtractResult r = extractDesign(p, opts(budget));
    ASSERT_EQ(r.status, Status::Ok);
    if (gr.found) {
      EXPECT_LE(gr.evaluation.dsps(), budget);
      EXPECT_GE(gr.evaluation.time(), r.evaluation.time());
    }
  }
  // At an unlimited budget the greedy design is the fastest one.
  GreedyResult gr = greedyExtract(p, 100000, 1);
  ASSERT_TRUE(gr.found);
  EXPECT_EQ(gr.evaluation.time(), bruteForce(p, 100000, 1).first);
}

TEST_F(PaperExample, ProgressLinesAndImprovements) {
  Problem p(*g, cm, root);
  std::vector<std::string> lines;
  ExtractOptions o = opts(600);
  o.progress = [&](const std::string& l) { lines.push_back(l); };
  ExtractResult r = extractDesign(p, o);
  ASSERT_EQ(r.status, Status::Ok);
  ASSERT_FALSE(r.improvements.empty());
  for (size_t i = 1; i < r.improvements.size(); ++i)
    EXPECT_LT(r.improvements[i].time, r.improvements[i - 1].time);
  EXPECT_EQ(r.improvements.back().time, r.evaluation.time());
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("proven optimal"), std::string::npos) << lines.back();
}

}  // namespace
