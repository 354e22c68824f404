// End to end: saturate each benchmark's small variant with the full rule set, extract
// many different terms from the root class, and check that each is well typed and
// computes what the source program computes.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "skeleshare/rules/saturate.h"
#include "test_util.h"

using namespace skeleshare;
using namespace skeleshare::rules;
using namespace skeleshare::rules::test;

namespace {

class SmallBenchmark : public ::testing::TestWithParam<std::string> {};

TEST_P(SmallBenchmark, ExtractedTermsComputeTheSourceProgram) {
  const RuleSet* rs = projectRules();
  ASSERT_TRUE(rs);
  DslModule dsl = loadDsl(std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/small/" + GetParam());
  ASSERT_FALSE(dsl.module.outputs.empty());
  ir::Context& ctx = *dsl.ctx;
  const ir::Term* source = dsl.module.root(ctx);
  Saturation sat = saturateModule(ctx, dsl.module, *rs);
  EXPECT_EQ(sat.report.stop, egraph::StopReason::Saturated);

  auto inputs = ir::randomInputs(dsl.module, 2026);
  std::string why;
  auto expected = checkAndEval(ctx, source, inputs, why);
  ASSERT_TRUE(expected) << why;
  std::set<const ir::Term*> distinct;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const ir::Term* t = egraph::RandomExtractor(*sat.graph, seed).extract(sat.root);
    if (!distinct.insert(t).second) continue;
    auto got = checkAndEval(ctx, t, inputs, why);
    ASSERT_TRUE(got) << "seed " << seed << ": " << why;
    EXPECT_TRUE(sameValue(*expected, *got)) << "seed " << seed << ": the extracted term computes something else";
  }
  // Saturation found alternatives, and the random extractions use them.
  EXPECT_GT(sat.graph->nodeCount(), 20u);
  EXPECT_GE(distinct.size(), 3u);
}

std::vector<std::string> smallBenchmarks() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/small"))
    if (e.path().extension() == ".dsl") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Benchmarks, SmallBenchmark, ::testing::ValuesIn(smallBenchmarks()),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.size() - 4);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
