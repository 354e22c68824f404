// Soundness of every rule in rules/: instantiate its left-hand side on random small
// shapes that satisfy its conditions (plus "donor" terms whose dimensions the rule's
// `for` domains draw from), run only that rule, then check every right-hand side
// instance in the root class, and random extractions, with the verifier and the
// reference interpreter against the left-hand side. A rule without a generator here
// fails the test.

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "skeleshare/egraph/runner.h"
#include "skeleshare/ir/builders.h"
#include "test_util.h"

using namespace skeleshare;
using namespace skeleshare::rules;
using namespace skeleshare::rules::test;
using ir::Op;

namespace {

struct Case {
  const ir::Term* lhs = nullptr;
  std::vector<const ir::Term*> donors;
};

class Gen {
 public:
  Gen(ir::Context& ctx, uint64_t seed) : ctx_(ctx), rng_(seed) {}
  ir::Context& ctx() { return ctx_; }
  int64_t pick(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_.next() % static_cast<uint64_t>(hi - lo + 1)); }
  const ir::Type* scalar() { return ctx_.intType(pick(0, 2) == 0 ? 16 : 8); }
  const ir::Term* in(std::vector<int64_t> shape, const ir::Type* s) {
    return ctx_.input("x" + std::to_string(counter_++), ctx_.tensorType(shape, s));
  }
  /// Conv(in: h x w x ich, wgt: och x ks x ks x ich, cMvF) over scalars a, b.
  const ir::Term* conv(int64_t h, int64_t w, int64_t ich, int64_t och, int64_t ks, const ir::Type* a,
                       const ir::Type* b) {
    return ctx_.op(Op::Conv, {in({h, w, ich}, a), in({och, ks, ks, ich}, b), ir::cMvF(ctx_, och, ks * ks * ich, b, a)});
  }
  /// Mv(mat: m x n, vec: n, dotF[p]).
  const ir::Term* mv(int64_t m, int64_t n, const ir::Type* a, const ir::Type* b, int64_t p = 0) {
    return ctx_.op(Op::Mv, {in({m, n}, a), in({n}, b), ir::dotF(ctx_, m, n, a, b, p ? p : m)});
  }
  const ir::Term* mm(int64_t h, int64_t w, int64_t k, const ir::Type* a, const ir::Type* b) {
    return ctx_.op(Op::Mm, {in({h, k}, a), in({w, k}, b), ir::cMvF(ctx_, w, k, b, a)});
  }
  /// ParallelPartialDot[p, c] over m x n operands.
  const ir::Term* ppd(int64_t m, int64_t n, int64_t p, int64_t c, const ir::Type* a, const ir::Type* b) {
    return ctx_.op(Op::ParallelPartialDot, {in({m, n}, a), in({m, n}, b)}, {p, c});
  }
  const ir::Term* ppdLam(int64_t m, int64_t n, int64_t p, int64_t c, const ir::Type* a, const ir::Type* b) {
    const ir::Type* ta = ctx_.tensorType(std::vector<int64_t>{m, n}, a);
    const ir::Type* tb = ctx_.tensorType(std::vector<int64_t>{m, n}, b);
    return ctx_.lam2(ta, tb, ctx_.op(Op::ParallelPartialDot, {ctx_.var(1, ta), ctx_.var(0, tb)}, {p, c}));
  }

 private:
  ir::Context& ctx_;
  rng::SplitMix64 rng_;
  int counter_ = 0;
};

using Generator = std::function<Case(Gen&)>;

std::map<std::string, Generator> generators() {
  std::map<std::string, Generator> m;
  m["R-HALVE-PARALLELISM"] = [](Gen& g) {
    int64_t mm = 2 * g.pick(1, 4), n = g.pick(1, 5);
    auto& c = g.ctx();
    return Case{c.op(Op::ParallelDot, {g.in({mm, n}, g.scalar()), g.in({mm, n}, g.scalar())}, {mm}), {}};
  };
  m["R-FINE-PARALLELISM"] = [](Gen& g) {
    int64_t mm = g.pick(3, 9), n = g.pick(1, 5);
    auto& c = g.ctx();
    return Case{c.op(Op::ParallelDot, {g.in({mm, n}, g.scalar()), g.in({mm, n}, g.scalar())}, {mm}), {}};
  };
  m["R-TILE-CONV-HW"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), ot = std::max<int64_t>(7 - ks, 2) + g.pick(0, 1), t = g.pick(2, 3);
    int64_t th = ot + ks - 1, h = ot * t + ks - 1, ich = g.pick(1, 2), och = g.pick(1, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, h, ich, och, ks, a, b), {g.conv(th, th, ich, och, ks, a, b)}};
  };
  m["R-TILE-CONV-ICH"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 5), w = g.pick(ks, 5), tc = g.pick(1, 3), ich = tc * g.pick(2, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, w, ich, g.pick(1, 3), ks, a, b), {g.conv(h, w, tc, 1, ks, a, b)}};
  };
  m["R-TILE-CONV-OCH"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 5), w = g.pick(ks, 5), to = g.pick(1, 3), och = to * g.pick(2, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, w, g.pick(1, 3), och, ks, a, b), {g.conv(h, w, 1, to, ks, a, b)}};
  };
  m["R-PAD-CONV-HW"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 5), ph = h + g.pick(1, 3), ich = g.pick(1, 3), och = g.pick(1, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, h, ich, och, ks, a, b), {g.conv(ph, ph, 1, 1, ks, a, b)}};
  };
  m["R-PAD-CONV-ICH"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 5), ich = g.pick(1, 3), pich = ich + g.pick(1, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, h, ich, g.pick(1, 3), ks, a, b), {g.conv(h, h, pich, 1, ks, a, b)}};
  };
  m["R-PAD-CONV-OCH"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 4), poch = 8 * g.pick(1, 2), och = poch - g.pick(1, poch / 8);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, h, g.pick(1, 2), och, ks, a, b), {g.conv(h, h, 1, poch, ks, a, b)}};
  };
  m["R-PAD-CONV-OCH-DOUBLE"] = [](Gen& g) {
    // a window of fewer than 64 columns doubles its 16 or more filters to the other
    // convolution's
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 4), och = g.pick(16, 17);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, h, g.pick(1, 3), och, ks, a, b), {g.conv(h, h, 1, 2 * och, ks, a, b)}};
  };
  m["R-PAIR-CONV-W"] = [](Gen& g) {
    // two windows fit a line of 64 columns; an even width, an odd kernel; the other
    // convolution brings the tile extent and the doubled filters
    int64_t ks = 2 * g.pick(0, 1) + 1, ot = g.pick(1, 3), ich = g.pick(1, ks == 1 ? 4 : 3), och = g.pick(16, 17);
    int64_t t = ot + ks - 1, h = ot * g.pick(1, 2) + ks - 1, w = 2 * ot * g.pick(1, 2) + ks - 1;
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, w, ich, och, ks, a, b), {g.conv(t, t, 1, 2 * och, ks, a, b)}};
  };
  m["R-PAD-CONV-KS"] = [](Gen& g) {
    int64_t ks = g.pick(1, 2), pk = ks + g.pick(1, 2), h = g.pick(ks, 5), ph = h + pk - ks + g.pick(0, 2);
    auto a = g.scalar(), b = g.scalar();
    // the other convolution brings its kernel size and its extent into the domains
    return Case{g.conv(h, h, g.pick(1, 3), g.pick(1, 3), ks, a, b), {g.conv(ph, ph, 1, 1, pk, a, b)}};
  };
  m["R-CALL-CONV"] = [](Gen& g) {
    int64_t ks = g.pick(2, 3), h = g.pick(ks, 5), w = g.pick(ks, 5), sk = g.pick(1, ks - 1);
    auto a = g.scalar(), b = g.scalar();
    // the other convolution brings a smaller kernel size into the domain
    return Case{g.conv(h, w, g.pick(1, 3), g.pick(1, 3), ks, a, b), {g.conv(sk, sk, 1, 1, sk, a, b)}};
  };
  m["R-CALL-CONV-ANY"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 5), w = g.pick(ks, 5);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, w, g.pick(1, 3), g.pick(1, 3), ks, a, b), {}};
  };
  m["R-PAD-CONV-OCH-WIDE"] = [](Gen& g) {
    // beyond R-PAD-CONV-OCH's one eighth: up to eight idle filters of a small unit
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 4), och = g.pick(1, 3), poch = och + g.pick(1, 8);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, h, g.pick(1, 2), och, ks, a, b), {g.conv(h, h, 1, poch, ks, a, b)}};
  };
  m["R-TILE-CONV-OCH-COMMON"] = [](Gen& g) {
    // the other convolution's filter count shares the divisor `to` with this one's
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 5), w = g.pick(ks, 5), to = g.pick(1, 3), k = g.pick(2, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, w, g.pick(1, 3), to * k, ks, a, b), {g.conv(h, w, 1, to * (k + 1), ks, a, b)}};
  };
  m["R-TILE-CONV-HW-MEET"] = [](Gen& g) {
    // output rows tile by `to` into tiles of `th` input rows; the other convolution's
    // extent is up to two rows short of a tile (R-PAD-CONV-HW would pad it up)
    int64_t ks = g.pick(1, 3), to = g.pick(2, 3), oh = to * g.pick(2, 3), th = to + ks - 1;
    int64_t e = std::max<int64_t>(1, th - g.pick(0, 2));
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(oh + ks - 1, oh + ks - 1, g.pick(1, 2), g.pick(1, 2), ks, a, b), {g.conv(e, e, 1, 1, 1, a, b)}};
  };
  m["R-PAD-PAR-CONV"] = [](Gen& g) {
    int64_t ks = g.pick(1, 3), h = g.pick(ks, 5), w = g.pick(ks, 5), ich = g.pick(1, 3);
    int64_t pich = ich + g.pick(0, ich - 1), groups = g.pick(2, 4), pn = groups * ks * ks * pich;
    auto a = g.scalar(), b = g.scalar();
    return Case{g.conv(h, w, ich, g.pick(1, 3), ks, a, b), {g.mv(2, pn, b, a)}};
  };
  m["R-SPLIT-PARTIAL-DOT"] = [](Gen& g) {
    int64_t mm = g.pick(1, 4), c = g.pick(2, 3), n = c * g.pick(1, 3);
    auto& ctx = g.ctx();
    return Case{ctx.op(Op::ParallelDot, {g.in({mm, n}, g.scalar()), g.in({mm, n}, g.scalar())}, {mm}),
                {g.ppd(1, c, 1, c, g.scalar(), g.scalar())}};
  };
  m["R-MERGE-PARTIAL-DOT"] = [](Gen& g) {
    int64_t mm = g.pick(1, 4), c = g.pick(1, 3), n = c * g.pick(1, 3);
    return Case{g.ctx().op(Op::MergePartialSum, {g.ppd(mm, n, g.pick(1, mm), c, g.scalar(), g.scalar())}), {}};
  };
  m["R-SPLIT-PARTIAL-MV"] = [](Gen& g) {
    int64_t mm = g.pick(1, 4), c = g.pick(2, 3), n = c * g.pick(1, 3);
    return Case{g.mv(mm, n, g.scalar(), g.scalar()), {g.ppd(1, c, 1, c, g.scalar(), g.scalar())}};
  };
  m["R-MERGE-PARTIAL-MV"] = [](Gen& g) {
    int64_t mm = g.pick(1, 4), c = g.pick(1, 3), n = c * g.pick(1, 3);
    auto a = g.scalar(), b = g.scalar();
    auto& ctx = g.ctx();
    const ir::Term* mv = ctx.op(Op::Mv, {g.in({mm, n}, a), g.in({n}, b), g.ppdLam(mm, n, g.pick(1, mm), c, a, b)});
    return Case{ctx.op(Op::MergePartialSum, {mv}), {}};
  };
  m["R-TILE-MV"] = [](Gen& g) {
    int64_t mm = g.pick(1, 4), tn = g.pick(1, 4), n = tn * g.pick(2, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.mv(mm, n, a, b, g.pick(1, mm)), {g.mv(1, tn, a, b)}};
  };
  m["R-PAD-MV"] = [](Gen& g) {
    int64_t mm = g.pick(1, 4), n = g.pick(1, 5), pn = n + g.pick(1, 4);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.mv(mm, n, a, b, g.pick(1, mm)), {g.mv(1, pn, a, b)}};
  };
  m["R-TILE-MV-ROWS"] = [](Gen& g) {
    int64_t tm = g.pick(1, 3), mm = tm * g.pick(2, 3), n = g.pick(1, 5);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.mv(mm, n, a, b, g.pick(1, mm)), {g.mv(tm, 1, a, b)}};
  };
  m["R-PAD-MV-ROWS"] = [](Gen& g) {
    int64_t mm = g.pick(1, 4), pm = mm + g.pick(1, 3), n = g.pick(1, 5);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.mv(mm, n, a, b, g.pick(1, mm)), {g.mv(pm, 1, a, b)}};
  };
  m["R-TILE-MMW"] = [](Gen& g) {
    int64_t h = g.pick(1, 4), k = g.pick(1, 4), tw = g.pick(1, 3), w = tw * g.pick(2, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.mm(h, w, k, a, b), {g.mm(1, tw, 1, a, b)}};
  };
  m["R-TILE-MMH"] = [](Gen& g) {
    int64_t th = g.pick(1, 3), h = th * g.pick(2, 3), k = g.pick(1, 4), w = g.pick(1, 4);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.mm(h, w, k, a, b), {g.mm(th, 1, 1, a, b)}};
  };
  m["R-TILE-MMK"] = [](Gen& g) {
    int64_t h = g.pick(1, 4), w = g.pick(1, 4), tk = g.pick(1, 3), k = tk * g.pick(2, 3);
    auto a = g.scalar(), b = g.scalar();
    return Case{g.mm(h, w, k, a, b), {g.mm(1, 1, tk, a, b)}};
  };
  m["R-CONV1D-W-AS-H"] = [](Gen& g) {
    int64_t k = g.pick(1, 3), h = g.pick(1, 5), w = g.pick(k, 6);
    auto a = g.scalar(), b = g.scalar();
    auto& ctx = g.ctx();
    return Case{ctx.op(Op::Conv1DW, {g.in({h, w}, a), g.in({k}, b), ir::cMvF(ctx, w - k + 1, k, a, b)}), {}};
  };
  m["R-TRANSPOSE-CONV1D-H"] = [](Gen& g) {
    int64_t k = g.pick(1, 3), h = g.pick(k, 6), w = g.pick(1, 5);
    auto a = g.scalar(), b = g.scalar();
    auto& ctx = g.ctx();
    return Case{ctx.op(Op::Conv1DH, {g.in({h, w}, a), g.in({k}, b), ir::cMvF(ctx, h - k + 1, k, a, b)}), {}};
  };
  // Mm(c, Transpose(Mm(a, b))) with an optional Requant between the transpose and the
  // product: the consumer's matrix is the transposed product, h x w -> w x h.
  auto transposedProduct = [](Gen& g, bool requant) {
    int64_t h = g.pick(1, 4), w = g.pick(1, 4), k = g.pick(1, 4), c = g.pick(1, 4);
    auto& ctx = g.ctx();
    const ir::Term* inner = g.mm(h, w, k, g.scalar(), g.scalar());
    if (requant) inner = ctx.op(Op::Requant, {inner}, {g.pick(0, 4)});
    const ir::Type* s = g.scalar();
    const ir::Type* t = inner->type()->scalar();
    return Case{ctx.op(Op::Mm, {g.in({c, h}, s), ctx.op(Op::Transpose, {inner}), ir::cMvF(ctx, w, h, t, s)}), {}};
  };
  m["R-MM-TRANSPOSED-MM"] = [transposedProduct](Gen& g) { return transposedProduct(g, false); };
  m["R-MM-TRANSPOSED-REQUANT-MM"] = [transposedProduct](Gen& g) { return transposedProduct(g, true); };
  return m;
}

TEST(RuleProperty, EveryRuleHasAPropertyTest) {
  const RuleSet* rs = projectRules();
  ASSERT_TRUE(rs);
  auto gens = generators();
  for (const Rule& r : rs->rules()) EXPECT_TRUE(gens.count(r.name)) << "rule " << r.name << " (" << r.file
                                                                     << ") has no property test";
}

/// Runs one rule on one case; returns how many right-hand-side terms were checked.
size_t checkCase(const Rule& rule, ir::Context& ctx, const Case& c, uint64_t seed) {
  egraph::EGraph g(ctx);
  egraph::ClassId root = g.addTerm(c.lhs);
  for (const ir::Term* d : c.donors) g.addTerm(d);
  egraph::Runner runner({.maxIterations = 3, .maxNodes = 20000, .maxSeconds = 10});
  runner.run(g, {rule.rewrite.get()});
  root = g.find(root);

  std::map<std::string, Tensor> inputs;
  collectInputs(ctx, c.lhs, seed, inputs);
  std::string why;
  auto expected = checkAndEval(ctx, c.lhs, inputs, why);
  EXPECT_TRUE(expected) << why;
  if (!expected) return 0;

  std::vector<const ir::Term*> candidates;
  egraph::SmallestExtractor smallest(g);
  for (egraph::NodeId n : g.eclass(root).nodes) {
    if (const ir::Term* t = termOfNode(g, smallest, n); t && t != c.lhs) candidates.push_back(t);
  }
  // The rule applied: the root class holds a right-hand side besides the left-hand side.
  EXPECT_FALSE(candidates.empty()) << rule.name << " did not apply to " << c.lhs->type()->str();
  for (uint64_t s = 0; s < 6; ++s) candidates.push_back(egraph::RandomExtractor(g, seed * 31 + s).extract(root));
  size_t checked = 0;
  for (const ir::Term* t : candidates) {
    auto got = checkAndEval(ctx, t, inputs, why);
    EXPECT_TRUE(got) << rule.name << ": " << why;
    if (!got) continue;
    EXPECT_TRUE(sameValue(*expected, *got)) << rule.name << ": the two sides differ";
    ++checked;
  }
  return checked;
}

TEST(RuleProperty, EveryRuleIsSoundOnRandomShapes) {
  const RuleSet* rs = projectRules();
  ASSERT_TRUE(rs);
  auto gens = generators();
  for (const Rule& r : rs->rules()) {
    auto it = gens.find(r.name);
    if (it == gens.end()) continue;  // reported by EveryRuleHasAPropertyTest
    SCOPED_TRACE(r.name);
    size_t checked = 0;
    for (uint64_t trial = 0; trial < 12; ++trial) {
      ir::Context ctx;
      Gen gen(ctx, rng::mix64(trial + 1) ^ rng::fnv1a64(r.name));
      Case c = it->second(gen);
      SCOPED_TRACE(c.lhs->type()->str());
      checked += checkCase(r, ctx, c, trial);
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(checked, 12u);
  }
}

/// Runs checkCase with its failures intercepted; returns their messages.
std::vector<std::string> interceptedFailures(const Rule& rule, ir::Context& ctx, const Case& c) {
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    checkCase(rule, ctx, c, 1);
  }
  std::vector<std::string> out;
  for (int i = 0; i < failures.size(); ++i) out.emplace_back(failures.GetTestPartResult(i).message());
  return out;
}

size_t countContaining(const std::vector<std::string>& messages, const std::string& what) {
  return static_cast<size_t>(
      std::count_if(messages.begin(), messages.end(), [&](const std::string& m) { return m.find(what) != std::string::npos; }));
}

// A wrong rule must be caught by the same harness, for the right reason: merging partial
// sums into a dot product of the wrong operands is well typed, applies, and computes a
// different value, so the failures are value mismatches (not "did not apply", not a
// verifier or evaluation error).
TEST(RuleProperty, TheHarnessCatchesAnUnsoundRule) {
  std::string printed;
  auto bad = loadTexts({{"bad.rules", R"(
rule R-BAD-HALVE group parallelism:
  MergePartialSum(ParallelPartialDot[?P, ?C](?a, ?b)) => ParallelDot[?P](?b, ?b);
)"}},
                       printed);
  ASSERT_TRUE(bad) << printed;
  ir::Context ctx;
  Gen gen(ctx, 7);
  const ir::Type* i8 = ctx.intType(8);
  Case c{ctx.op(Op::MergePartialSum, {gen.ppd(2, 4, 2, 2, i8, i8)}), {}};
  auto failures = interceptedFailures(*bad->find("R-BAD-HALVE"), ctx, c);
  ASSERT_FALSE(failures.empty());
  EXPECT_GT(countContaining(failures, "R-BAD-HALVE: the two sides differ"), 0u);
  EXPECT_EQ(countContaining(failures, "the two sides differ"), failures.size()) << failures.front();
}

// ... and a rule that cannot apply is reported as such, not counted as checked.
TEST(RuleProperty, TheHarnessReportsARuleThatDidNotApply) {
  std::string printed;
  auto never = loadTexts({{"never.rules", R"(
rule R-NEVER group parallelism:
  ParallelDot[?P](?a, ?b) => ParallelDot[?P](?b, ?a)
  where ?P == 1000;
)"}},
                         printed);
  ASSERT_TRUE(never) << printed;
  ir::Context ctx;
  Gen gen(ctx, 7);
  const ir::Type* i8 = ctx.intType(8);
  Case c{ctx.op(Op::ParallelDot, {gen.in({2, 3}, i8), gen.in({2, 3}, i8)}, {2}), {}};
  auto failures = interceptedFailures(*never->find("R-NEVER"), ctx, c);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("R-NEVER did not apply"), std::string::npos) << failures[0];
}

}  // namespace
