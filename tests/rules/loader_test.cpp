// The rule loader: the project's rules load, templates are the builders' terms, and
// malformed rule files give file:line:col diagnostics instead of crashing.

#include <gtest/gtest.h>

#include "skeleshare/egraph/runner.h"
#include "skeleshare/egraph/template.h"
#include "skeleshare/ir/builders.h"
#include "test_util.h"

using namespace skeleshare;
using namespace skeleshare::rules;
using namespace skeleshare::rules::test;

namespace {

/// Instantiates template `name[args]` into `g`.
egraph::ClassId instantiate(const RuleSet& rs, egraph::EGraph& g, const char* name, std::vector<TemplateArg> args) {
  std::string err;
  auto p = rs.instantiateTemplate(name, args, err);
  EXPECT_TRUE(p.has_value()) << err;
  if (!p) return egraph::kNoClass;
  egraph::VarTable vars;
  egraph::CompiledTemplate t(*p, vars);
  return t.instantiate(g, egraph::Subst(vars.size()));
}

TEST(RuleLoader, ProjectRulesLoadWithTheirNamesAndGroups) {
  const RuleSet* rs = projectRules();
  ASSERT_TRUE(rs);
  for (const char* name : {"R-HALVE-PARALLELISM", "R-TILE-CONV-HW", "R-TILE-CONV-ICH", "R-TILE-CONV-OCH",
                           "R-PAD-CONV-HW", "R-PAD-CONV-ICH", "R-PAD-CONV-OCH", "R-PAD-CONV-OCH-DOUBLE", "R-PAIR-CONV-W", "R-PAD-CONV-KS", "R-CALL-CONV", "R-CALL-CONV-ANY",
                           "R-PAD-CONV-OCH-WIDE", "R-TILE-CONV-OCH-COMMON", "R-TILE-CONV-HW-MEET", "R-TILE-MMW", "R-TILE-MMH",
                           "R-TILE-MMK", "R-TILE-MV", "R-TILE-MV-ROWS", "R-PAD-MV", "R-PAD-MV-ROWS",
                           "R-PAD-PAR-CONV", "R-SPLIT-PARTIAL-DOT", "R-MERGE-PARTIAL-DOT", "R-SPLIT-PARTIAL-MV",
                           "R-MERGE-PARTIAL-MV", "R-TRANSPOSE-CONV1D-H"})
    EXPECT_NE(rs->find(name), nullptr) << name;
  EXPECT_EQ(rs->find("R-PAD-MV")->groups, std::vector<std::string>{"padding"});
  EXPECT_EQ(rs->find("R-PAD-PAR-CONV")->groups, (std::vector<std::string>{"partial", "padding"}));
  EXPECT_EQ(rs->find("R-TILE-MV")->rhsOp, ir::Op::TiledMv);
  EXPECT_EQ(rs->find("R-TILE-CONV-HW")->forVars, (std::vector<std::string>{"?TH", "?TW"}));
  EXPECT_EQ(rs->constants().at("CACHELN"), 64);
  EXPECT_EQ(rs->find("R-TILE-CONV-OCH-COMMON")->groups, (std::vector<std::string>{"widening", "tiling"}));
  EXPECT_EQ(rs->groups(),
            (std::vector<std::string>{"padding", "parallelism", "partial", "tiling", "transpose", "widening"}));
}

TEST(RuleLoader, TemplatesAreTheBuildersTerms) {
  const RuleSet* rs = projectRules();
  ASSERT_TRUE(rs);
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  const ir::Type* i16 = ctx.intType(16);
  egraph::EGraph g(ctx);
  struct Case {
    const char* name;
    std::vector<TemplateArg> args;
    const ir::Term* built;
  };
  std::vector<Case> cases = {
      {"cMvF", {int64_t{64}, int64_t{576}, i8, i8}, ir::cMvF(ctx, 64, 576, i8, i8)},
      {"cMvF", {int64_t{10}, int64_t{512}, i16, i8}, ir::cMvF(ctx, 10, 512, i16, i8)},
      {"dotF", {int64_t{4}, int64_t{9}, int64_t{2}, i8, i16}, ir::dotF(ctx, 4, 9, i8, i16, 2)},
      {"pMvF", {int64_t{64}, int64_t{576}, int64_t{16}, i8, i16}, ir::pMvF(ctx, 64, 576, 16, i8, i16)},
      {"cMmF", {int64_t{8}, int64_t{4}, int64_t{16}, i8, i16}, ir::cMmF(ctx, 8, 4, 16, i8, i16)},
      {"cConvF", {int64_t{6}, int64_t{6}, int64_t{64}, int64_t{64}, int64_t{3}, i8, i8},
       ir::cConvF(ctx, 6, 6, 64, 64, 3, i8, i8)},
      {"cConvF", {int64_t{7}, int64_t{5}, int64_t{3}, int64_t{2}, int64_t{1}, i16, i8},
       ir::cConvF(ctx, 7, 5, 3, 2, 1, i16, i8)},
      {"cConv1D_WF", {int64_t{8}, int64_t{10}, int64_t{3}, i8, i16}, ir::cConv1DWF(ctx, 8, 10, 3, i8, i16)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    egraph::ClassId id = instantiate(*rs, g, c.name, c.args);
    ASSERT_NE(id, egraph::kNoClass);
    g.rebuild();
    // The instance is the builder's term: the same e-class, and extracted back, the same
    // hash-consed ir::Term (pointer equality).
    EXPECT_EQ(g.find(id), g.lookupTerm(c.built));
    EXPECT_EQ(egraph::SmallestExtractor(g).extract(id), c.built);
  }
}

TEST(RuleLoader, InstantiateTemplateRejectsBadArguments) {
  const RuleSet* rs = projectRules();
  ASSERT_TRUE(rs);
  ir::Context ctx;
  std::string err;
  std::vector<TemplateArg> few{int64_t{4}};
  EXPECT_FALSE(rs->instantiateTemplate("cMvF", few, err));
  EXPECT_NE(err.find("expects 4 argument(s), got 1"), std::string::npos) << err;
  std::vector<TemplateArg> kinds{ctx.intType(8), int64_t{4}, ctx.intType(8), ctx.intType(8)};
  EXPECT_FALSE(rs->instantiateTemplate("cMvF", kinds, err));
  EXPECT_FALSE(rs->instantiateTemplate("nope", few, err));
  EXPECT_NE(err.find("unknown template"), std::string::npos);
}

// A new rule over existing skeletons needs only a rule file: here a rule that pads the
// columns of any Mv by exactly one, written in a test file and run.
TEST(RuleLoader, ANewRuleNeedsNoCpp) {
  std::string printed;
  auto rs = loadTexts({{"t.rules", R"(
const ONE = 1;
template myMvF[M, N, A : type, B : type] =
  \m: A[M][N]. \v: B[N]. Mv(m, v, \a: A[M][N]. \b: B[M][N]. ParallelDot[M](a, b));
rule R-PAD-ONE group padding:
  Mv(?m : ?A[?M][?N], ?v : ?B[?N], ?f) : i32[?M] => PaddedMv(?m, ?v, myMvF[?M, ?N + ONE, ?A, ?B])
  where ?N < 5;
)"}},
                      printed);
  ASSERT_TRUE(rs) << printed;
  ir::Context ctx;
  const ir::Type* i8 = ctx.intType(8);
  egraph::EGraph g(ctx);
  const ir::Term* mv = ctx.op(ir::Op::Mv, {ctx.input("m", ctx.tensorType(std::vector<int64_t>{2, 3}, i8)),
                                           ctx.input("v", ctx.arrayType(3, i8)), ir::dotF(ctx, 2, 3, i8, i8, 2)});
  egraph::ClassId root = g.addTerm(mv);
  auto rep = egraph::Runner().run(g, rs->rewrites());
  EXPECT_EQ(rep.stop, egraph::StopReason::Saturated);
  // 3 -> 4 -> 5: two paddings, and the last Mv (N = 5) is not padded.
  EXPECT_EQ(rep.rules[0].applied, 2u);
  EXPECT_NE(g.lookupTerm(ir::cMvF(ctx, 2, 5, i8, i8)), egraph::kNoClass);
  EXPECT_EQ(g.lookupTerm(ir::cMvF(ctx, 2, 6, i8, i8)), egraph::kNoClass);
  EXPECT_EQ(g.eclass(root).nodes.size(), 2u);
}

struct Malformed {
  std::string text;
  const char* expected;  // "line:col: error: message" prefix of the first error
};

std::string firstError(const std::string& printed) {
  auto start = printed.find("t.rules:");
  if (start == std::string::npos) return printed;
  return printed.substr(start + 8, printed.find('\n', start) - start - 8);
}

TEST(RuleLoader, MalformedFilesGiveDiagnostics) {
  const std::string tpl = "template cMvF[M, N, A : type, B : type] =\n"
                          "  \\mat: A[M][N]. \\vec: B[N]. Mv(mat, vec, \\a: A[M][N]. \\b: B[M][N]. ParallelDot[M](a, b));\n";
  std::vector<Malformed> cases = {
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?Q / 2](?a, ?b)\n", "2:1: error: expected 'where', 'for' or ';'"},
      {"rule R-X: Frobnicate(?a) => ?a;\n", "1:11: error: unknown operator or template 'Frobnicate'"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?P](?a, ?b);\n",
       "1:50: error: unbound variable '?P' on the right-hand side"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?Q](?a, ?c);\n",
       "1:58: error: unbound variable '?c' on the right-hand side"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?Q](?a, ?b) where ?Z > 1;\n",
       "1:68: error: unbound variable '?Z'"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?Q](?a, ?b);\nrule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?Q](?a, ?b);\n",
       "2:6: error: duplicate rule name 'R-X'"},
      {"rule R-X: ParallelDot(?a, ?b) => ?a;\n", "1:11: error: ParallelDot expects 1 parameter(s), got 0"},
      {"rule R-X: Mv(?a, ?b) => ?a;\n", "1:11: error: Mv expects 3 argument(s), got 2"},
      {"rule R-X: Mv(?a, ?b, \\x: ?A[?N]. y) => ?a;\n", "1:34: error: unbound name 'y'"},
      {"rule R-X: ParallelDot[?a](?a, ?b) => ?a;\n", "1:27: error: '?a' is used as a term (class) variable here"},
      {"template bad[M, A : type] = \\x: A[M]. \\y: A[M]. ParallelDot[M](x, y);\n",
       "1:1: error: template 'bad' is ill typed"},
      {tpl + "rule R-X: Mv(?m : ?A[?M][?N], ?v : ?B[?N], ?f) => PaddedMv(?m, ?v, cMvF[?M, ?A, ?B]);\n",
       "3:68: error: template 'cMvF' expects 4 argument(s), got 3"},
      {tpl + tpl, "3:1: error: duplicate template 'cMvF'"},
      {"const C = 1;\nconst C = 2;\n", "2:1: error: duplicate constant 'C'"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?T](?a, ?b) for ?T in axis(Frob, 0, 0);\n",
       "1:72: error: unknown operator 'Frob' in axis(...)"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[?Q](?a, ?b) where ?Q > NOPE;\n",
       "1:73: error: unknown name 'NOPE'"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => $;\n", "1:38: error: unexpected character '$'"},
      {"rule R-X: ?a => ?a;\n", "1:11: error: the left-hand side must be an operator application"},
      {"rule R-X: ParallelDot[?Q](?a, ?b) => ParallelDot[99999999999999999999](?a, ?b);\n",
       "1:50: error: integer literal does not fit in 64 bits"},
  };
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.text);
    std::string printed;
    auto rs = loadTexts({{"t.rules", c.text}}, printed);
    EXPECT_FALSE(rs.has_value());
    EXPECT_EQ(firstError(printed).rfind(c.expected, 0), 0u) << printed;
  }
}

TEST(RuleLoader, OneDiagnosticPerBrokenStatementAndMissingDirectory) {
  std::string printed;
  auto rs = loadTexts({{"t.rules", "rule A: Foo(?a) => ?a;\nrule B: Bar(?a) => ?a;\nrule C: ParallelDot[?Q](?a, ?b) "
                                   "=> ParallelDot[?Q](?a, ?b);\n"}},
                      printed);
  EXPECT_FALSE(rs);
  EXPECT_NE(printed.find("t.rules:1:9: error: unknown operator or template 'Foo'"), std::string::npos) << printed;
  EXPECT_NE(printed.find("t.rules:2:9: error: unknown operator or template 'Bar'"), std::string::npos) << printed;
  DiagnosticEngine diags;
  EXPECT_FALSE(loadRuleDir("/nonexistent/rules", diags));
  EXPECT_TRUE(diags.hasErrors());
}

}  // namespace
