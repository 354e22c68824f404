// The verifier: well-formed terms pass; deliberately broken terms and modules give
// the expected problem text.

#include <gtest/gtest.h>

#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/printer.h"
#include "skeleshare/ir/verifier.h"

using namespace skeleshare::ir;

namespace {

using Shape = std::vector<int64_t>;

struct VerifierTest : ::testing::Test {
  Context ctx;
  const Type* i8 = ctx.intType(8);
  const Type* i16 = ctx.intType(16);
  const Type* i32 = ctx.intType(32);
  const Type* ty(Shape s, const Type* scalar) { return ctx.tensorType(s, scalar); }

  std::string problems(const Term* t, const VerifyOptions& o = {}) { return formatProblems(verify(ctx, t, o)); }
  std::string problems(const Module& m, const VerifyOptions& o = {}) { return formatProblems(verifyModule(ctx, m, o)); }

  Module convModule() {
    Module m;
    m.decls = {Decl{"image", Decl::Kind::Input, ty({34, 34, 3}, i8)}, Decl{"w1", Decl::Kind::Weight, ty({64, 3, 3, 3}, i8)}};
    m.outputs = {Output{"c1", ctx.op(Op::Conv, {ctx.input("image", m.decls[0].type), ctx.input("w1", m.decls[1].type),
                                                cMvF(ctx, 64, 27, i8, i8)})}};
    return m;
  }
};

TEST_F(VerifierTest, WellFormedPasses) {
  Module m = convModule();
  EXPECT_EQ(problems(m), "");
  EXPECT_EQ(problems(m.outputs[0].term), "");
  EXPECT_EQ(problems(cConvF(ctx, 8, 8, 3, 4, 3, i8, i16)), "");
}

TEST_F(VerifierTest, VariableAnnotationDisagreesWithBinder) {
  // Context checks only local rules, so this is constructible.
  const Term* bad = ctx.lam(i8, ctx.var(0, i16));
  EXPECT_EQ(printTerm(ctx, bad), "\\i8. %0:i16");
  EXPECT_EQ(problems(bad), "term/0: %0 is annotated i16 but is bound by a lambda with parameter type i8\n");

  // Deeper: %1 skips the inner binder.
  const Term* body = ctx.op(Op::Add, {ctx.var(1, i16), ctx.var(0, i16)});
  EXPECT_EQ(problems(ctx.lam2(i8, i16, body)),
            "term/0/0/0: %1 is annotated i16 but is bound by a lambda with parameter type i8\n");
  EXPECT_EQ(problems(ctx.lam2(i16, i16, body)), "");
}

TEST_F(VerifierTest, SharedSubtermsAreCheckedPerBinding) {
  const Term* body = ctx.op(Op::Relu, {ctx.var(0, i16)});
  // The same open body under two binders: wrong under one of them only.
  EXPECT_EQ(problems(ctx.op(Op::Tuple, {ctx.lam(i16, body), ctx.lam(i8, body)})),
            "term/1/0/0: %0 is annotated i16 but is bound by a lambda with parameter type i8\n");
  // A closed broken sub-term shared twice is reported once.
  const Term* bad = ctx.lam(i8, body);
  EXPECT_EQ(problems(ctx.op(Op::Tuple, {bad, bad})),
            "term/0/0/0: %0 is annotated i16 but is bound by a lambda with parameter type i8\n");
}

TEST_F(VerifierTest, FreeVariablesNeedTheEnvironment) {
  const Term* open = ctx.lam(i8, ctx.op(Op::Add, {ctx.var(0, i8), ctx.var(1, i16)}));
  EXPECT_EQ(problems(open), "term/0/1: %1 is free (free variable 0) and the environment has no type for it\n");
  VerifyOptions ok;
  ok.freeVarTypes = {i16};
  EXPECT_EQ(problems(open, ok), "");
  VerifyOptions wrong;
  wrong.freeVarTypes = {i32};
  EXPECT_EQ(problems(open, wrong),
            "term/0/1: %1 is annotated i16 but the environment gives free variable 0 type i32\n");
}

TEST_F(VerifierTest, ApplicationOnlyAfterExtraction) {
  const Term* x = ctx.input("x", ty({4}, i8));
  const Term* app = ctx.op(Op::Tuple, {ctx.app(ctx.lam(ty({4}, i8), ctx.op(Op::Relu, {ctx.var(0, ty({4}, i8))})), x)});
  EXPECT_EQ(problems(app), "term/0: App(...): application is only allowed after extraction (VerifyOptions::allowApp)\n");
  VerifyOptions after;
  after.allowApp = true;
  EXPECT_EQ(problems(app, after), "");
}

TEST_F(VerifierTest, TermFromAnotherContext) {
  // Types are compared by pointer: a term of one Context is not well typed in another.
  Context other;
  ctx.symbol("x");  // the same symbol numbering, so only the types differ
  const Term* t = other.op(Op::Cast, {other.input("x", other.arrayType(4, other.intType(8)))}, {16});
  EXPECT_EQ(problems(t),
            "term: Cast[16](...): stored type i16[4] but the type rule gives i16[4] of this Context "
            "(is the term from another Context?)\n");
}

TEST_F(VerifierTest, UnknownSymbol) {
  int64_t sym[] = {999};
  const Term* t = ctx.make(Op::Input, sym, ty({2}, i8), {});
  EXPECT_EQ(problems(t), "term: Input refers to unknown symbol 999\n");
  EXPECT_EQ(printTerm(ctx, t), "@\"<unknown symbol 999>\"");  // printing does not throw
}

TEST_F(VerifierTest, ModuleInputsMustMatchDeclarations) {
  Module m = convModule();
  m.outputs.push_back(Output{"other", ctx.op(Op::Relu, {ctx.input("image", ty({34, 34, 4}, i8))})});
  m.outputs.push_back(Output{"stray", ctx.op(Op::Relu, {ctx.input("nowhere", ty({2}, i8))})});
  EXPECT_EQ(problems(m),
            "output 'other'/0: @image has type i8[34][34][4] but is declared as i8[34][34][3]\n"
            "output 'stray'/0: @nowhere is not declared\n");
}

TEST_F(VerifierTest, ModuleStructure) {
  Module m = convModule();
  m.decls.push_back(Decl{"w1", Decl::Kind::Weight, ty({64, 3, 3, 3}, i8)});
  m.decls.push_back(Decl{"f", Decl::Kind::Input, ctx.funType(i8, i8)});
  m.outputs.push_back(Output{"c1", m.outputs[0].term});
  m.outputs.push_back(Output{"open", ctx.var(0, i8)});
  m.outputs.push_back(Output{"null", nullptr});
  EXPECT_EQ(problems(m),
            "declaration 'w1': declared twice\n"
            "declaration 'f': an input or weight must have an integer array type, got (i8 -> i8)\n"
            "output 'c1': defined twice\n"
            "output 'open': an output must be closed, but its term has free variables\n"
            "output 'open': %0 is free (free variable 0) and the environment has no type for it\n"
            "output 'null': null term\n");
  EXPECT_EQ(problems(Module{}), "module: no outputs\n");
}

TEST_F(VerifierTest, Limits) {
  const Term* t = ctx.input("x", ty({4}, i8));
  for (int i = 0; i < 10; ++i) t = ctx.op(Op::Relu, {t});
  VerifyOptions o;
  o.maxTreeSize = 5;
  o.maxDepth = 8;
  EXPECT_EQ(problems(t, o), "term: tree size 11 exceeds the limit 5\nterm: nesting depth 11 exceeds the limit 8\n");
  o.maxTreeSize = 11;
  o.maxDepth = 11;
  EXPECT_EQ(problems(t, o), "");
}

TEST_F(VerifierTest, ProblemCountIsCapped) {
  std::vector<const Term*> bad;
  for (int i = 0; i < 50; ++i) bad.push_back(ctx.lam(i8, ctx.constant(i, i8)));  // fine
  for (int i = 1; i <= 50; ++i) bad.push_back(ctx.lam(ty({i}, i8), ctx.var(0, i16)));
  VerifyOptions o;
  o.maxProblems = 7;
  EXPECT_EQ(verify(ctx, ctx.op(Op::Tuple, bad), o).size(), 7u);
}

TEST_F(VerifierTest, DeepTermsDoNotOverflowTheStack) {
  const Term* t = ctx.input("x", ty({4}, i8));
  for (int i = 0; i < 100000; ++i) t = ctx.op(Op::Relu, {t});
  EXPECT_EQ(problems(t), "");
  t = ctx.lam(i8, t);
  for (int i = 0; i < 1000; ++i) t = ctx.lam(i8, t);
  EXPECT_EQ(problems(ctx.op(Op::Tuple, {t, ctx.lam(i8, ctx.var(0, i16))})),
            "term/1/0: %0 is annotated i16 but is bound by a lambda with parameter type i8\n");
}

}  // namespace
