#pragma once
// Helpers of the lowering tests: DSL programs translated to the skeleton IR, IR text
// modules, rewriting ParallelDot's parallelism, and the lower-vs-skeleton comparison.

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "skeleshare/frontend/frontend.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/ir/parser.h"
#include "skeleshare/lower/interpreter.h"
#include "skeleshare/lower/lower.h"
#include "skeleshare/lower/printer.h"
#include "skeleshare/lower/verifier.h"
#include "../common/dsl_module.h"

namespace skeleshare::lower::test {

using Loaded = test_support::DslModule;
using test_support::loadDsl;
using test_support::loadDslText;

/// A module in the skeleton IR's text form (parse errors are test failures).
inline Loaded loadIrText(const std::string& text, const std::string& path = "<test>") {
  Loaded m;
  DiagnosticEngine diags;
  auto mod = ir::parseModule(*m.ctx, SourceFile(path, text), diags);
  std::ostringstream os;
  diags.print(os);
  EXPECT_TRUE(mod.has_value()) << os.str();
  if (mod) m.module = std::move(*mod);
  return m;
}

/// A module in the skeleton IR's text form, from a file.
inline Loaded loadIr(const std::string& path) {
  std::string err;
  auto file = SourceFile::read(path, err);
  EXPECT_TRUE(file.has_value()) << path << ": " << err;
  if (!file) return Loaded{};
  return loadIrText(std::string(file->text()), path);
}

/// Units that compute nothing (only reads, writes, wiring): a materialised transpose,
/// slide, pad or copy, which an address pattern should have replaced.
inline std::vector<std::string> dataMovementUnits(const Program& p) {
  std::vector<std::string> out;
  for (const auto& u : p.units) {
    bool computes = false;
    for (const auto& n : u.nodes)
      switch (n.prim) {
        case Prim::Read: case Prim::Write: case Prim::Const: case Prim::SplitStm: case Prim::JoinStm:
        case Prim::SplitVec: case Prim::JoinVec: case Prim::StmToVec: case Prim::VecToStm: case Prim::Repeat: break;
        default: computes = true;
      }
    if (!computes) out.push_back(u.name);
  }
  return out;
}

inline std::string benchPath(const std::string& name) {
  return std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/small/" + name;
}

/// Rebuilds `t` with every ParallelDot[P] replaced by ParallelDot[newP(P, M)].
inline const ir::Term* rewriteP(ir::Context& ctx, const ir::Term* t, const std::function<int64_t(int64_t, int64_t)>& newP,
                                std::map<const ir::Term*, const ir::Term*>& memo) {
  auto it = memo.find(t);
  if (it != memo.end()) return it->second;
  std::vector<const ir::Term*> kids;
  for (const ir::Term* c : t->children()) kids.push_back(rewriteP(ctx, c, newP, memo));
  std::vector<int64_t> params(t->params().begin(), t->params().end());
  if (t->op() == ir::Op::ParallelDot) params[0] = newP(params[0], t->child(0)->type()->length());
  const ir::Term* r = ctx.make(t->op(), params, t->annot(), kids);
  memo[t] = r;
  return r;
}

inline void rewriteModuleP(Loaded& m, const std::function<int64_t(int64_t, int64_t)>& newP) {
  std::map<const ir::Term*, const ir::Term*> memo;
  for (auto& o : m.module.outputs) o.term = rewriteP(*m.ctx, o.term, newP, memo);
}

/// Lowers, verifies, runs both interpreters on seeded inputs and compares every output.
inline void expectAgrees(Loaded& m, uint64_t seed, Program* out = nullptr, const LowerOptions& options = {}) {
  Program prog = lowerModule(m.module, *m.ctx, options);
  auto problems = verify(prog);
  EXPECT_TRUE(problems.empty()) << problems.front();
  auto inputs = ir::randomInputs(m.module, seed);
  auto want = ir::evaluateModule(m.module, *m.ctx, inputs);
  auto got = run(prog, inputs);
  ASSERT_EQ(want.size(), got.size());
  for (const auto& [name, t] : want) {
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_EQ(got.at(name).describe(), t.describe()) << name;
    EXPECT_TRUE(got.at(name) == t) << "output '" << name << "' differs (seed " << seed << ")";
  }
  if (out) *out = std::move(prog);
}

}  // namespace skeleshare::lower::test
