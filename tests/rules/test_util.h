#pragma once
// Helpers shared by the rule tests: the project's rule set, DSL programs, random inputs,
// evaluation, and building a term from one e-node.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "skeleshare/egraph/egraph.h"
#include "skeleshare/egraph/extract.h"
#include "skeleshare/frontend/frontend.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/ir/verifier.h"
#include "skeleshare/rules/rule_set.h"
#include "skeleshare/support/random.h"
#include "../common/dsl_module.h"

namespace skeleshare::rules::test {

inline std::string rulesDir() { return std::string(SKELESHARE_SOURCE_DIR) + "/rules"; }

/// The rule set of rules/, loaded once. Fails the test (and returns null) when it does
/// not load.
inline const RuleSet* projectRules() {
  static std::optional<RuleSet> rs;
  static std::string errors;
  static bool loaded = false;
  if (!loaded) {
    loaded = true;
    DiagnosticEngine diags;
    rs = loadRuleDir(rulesDir(), diags);
    std::ostringstream os;
    diags.print(os);
    errors = os.str();
  }
  EXPECT_TRUE(rs.has_value()) << errors;
  return rs ? &*rs : nullptr;
}

/// Loads rule texts from memory; `printed` gets the diagnostics.
inline std::optional<RuleSet> loadTexts(std::vector<std::pair<std::string, std::string>> files,
                                        std::string& printed) {
  std::vector<SourceFile> sf;
  for (auto& [path, text] : files) sf.emplace_back(path, text);
  DiagnosticEngine diags;
  auto rs = loadRuleTexts(sf, diags);
  std::ostringstream os;
  diags.print(os);
  printed = os.str();
  return rs;
}

/// A DSL program translated to the skeleton IR.
using test_support::DslModule;
using test_support::loadDsl;

/// Random tensors for every Input of `term` (by name).
inline void collectInputs(const ir::Context& ctx, const ir::Term* t, uint64_t seed,
                          std::map<std::string, Tensor>& out) {
  if (t->op() == ir::Op::Input) {
    const std::string& name = ctx.symbolName(t->param(0));
    if (!out.count(name))
      out.emplace(name, rng::randomTensor(seed, name, t->type()->scalar()->bits(), t->type()->shape(),
                                          rng::Role::Input));
    return;
  }
  for (const ir::Term* k : t->children()) collectInputs(ctx, k, seed, out);
}

/// The term of node `n` with the smallest term of each child class.
inline const ir::Term* termOfNode(const egraph::EGraph& g, const egraph::SmallestExtractor& ex, egraph::NodeId n) {
  const egraph::ENode& node = g.node(n);
  std::vector<const ir::Term*> kids;
  for (egraph::ClassId c : node.children()) {
    if (ex.size(c) == egraph::SmallestExtractor::kInfinite) return nullptr;
    kids.push_back(ex.extract(c));
  }
  std::string err;
  return g.context().tryMake(node.op(), node.params(), node.annot(), kids, err);
}

/// Verifies `t` and evaluates it; returns the problems or the evaluation error in `why`.
inline std::optional<ir::Value> checkAndEval(ir::Context& ctx, const ir::Term* t,
                                             const std::map<std::string, Tensor>& inputs, std::string& why) {
  auto problems = ir::verify(ctx, t);
  if (!problems.empty()) {
    why = "verify: " + ir::formatProblems(problems);
    return std::nullopt;
  }
  try {
    return ir::evaluate(t, inputs, ctx);
  } catch (const std::exception& e) {
    why = std::string("evaluate: ") + e.what();
    return std::nullopt;
  }
}

inline bool sameValue(const ir::Value& a, const ir::Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.isTensor()) return a.tensor() == b.tensor();
  if (a.isTuple()) {
    if (a.elems().size() != b.elems().size()) return false;
    for (size_t i = 0; i < a.elems().size(); ++i)
      if (!sameValue(a.elems()[i], b.elems()[i])) return false;
    return true;
  }
  return false;
}

}  // namespace skeleshare::rules::test
