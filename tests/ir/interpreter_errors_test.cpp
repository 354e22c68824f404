// Bad inputs and unsupported values give clear std::runtime_error messages.

#include "interpreter_test_util.h"

using namespace skeleshare;
using namespace skeleshare::ir;
using namespace skeleshare::ir::testing;

namespace {

/// Runs `fn`, expecting a std::runtime_error whose message contains `needle`.
template <class F>
void expectError(F fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

struct Errors : ::testing::Test {
  Context ctx;
  const Term* x = ctx.input("x", tensorTy(ctx, {2, 3}, 8));
  const Term* relu = ctx.op(Op::Relu, {x});
};

TEST_F(Errors, MissingInput) {
  expectError([&] { evaluate(relu, {}, ctx); }, "missing input 'x' of type i8[2][3]");
}

TEST_F(Errors, WrongShapeOrWidth) {
  expectError([&] { evaluate(relu, {{"x", Tensor(8, {3, 2})}}, ctx); }, "input 'x': expected i8[2][3], got i8[3][2]");
  expectError([&] { evaluate(relu, {{"x", Tensor(16, {2, 3})}}, ctx); }, "expected i8[2][3], got i16[2][3]");
  expectError([&] { evaluate(relu, {{"x", Tensor(8, {2, 3, 1})}}, ctx); }, "got i8[2][3][1]");
}

TEST_F(Errors, ValueOutOfRange) {
  Tensor t(8, {2, 3});
  t[4] = 300;
  expectError([&] { evaluate(relu, {{"x", t}}, ctx); }, "element 4 is 300, which does not fit i8");
}

TEST_F(Errors, ModuleChecksDeclarations) {
  Module m;
  m.decls.push_back({"x", Decl::Kind::Input, tensorTy(ctx, {2, 3}, 8)});
  m.outputs.push_back({"y", relu});
  expectError([&] { evaluateModule(m, ctx, {}); }, "missing input 'x'");
  expectError([&] { evaluateModule(m, ctx, {{"x", Tensor(8, {2, 3})}, {"z", Tensor(8, {1})}}); },
              "input 'z' is not declared");
  expectError([&] { evaluateModule(m, ctx, {{"x", Tensor(32, {2, 3})}}); }, "expected i8[2][3], got i32[2][3]");
  auto out = evaluateModule(m, ctx, {{"x", tensorOf(8, {2, 3}, {-1, 2, -3, 4, -5, 6})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at("y"), tensorOf(8, {2, 3}, {0, 2, 0, 4, 0, 6}));
  // An output that is a function is not a tensor.
  m.outputs.push_back({"f", ctx.lam(tensorTy(ctx, {2, 3}, 8), ctx.var(0, tensorTy(ctx, {2, 3}, 8)))});
  expectError([&] { evaluateModule(m, ctx, {{"x", Tensor(8, {2, 3})}}); }, "output 'f' is <closure");
}

TEST_F(Errors, OpenTermNeedsAnEnvironment) {
  Interpreter interp(ctx, {});
  expectError([&] { interp.evaluate(ctx.var(0, ctx.intType(8))); }, "free variable %0");
}

TEST_F(Errors, ArraysOfFunctionsAreUnsupported) {
  // Map(x, \row. \y. y): an array of functions, well typed but not representable.
  const Type* row = tensorTy(ctx, {3}, 8);
  const Term* f = ctx.lam(row, ctx.lam(row, ctx.var(0, row)));
  const Term* m = ctx.op(Op::Map, {x, f});
  expectError([&] { evaluate(m, {{"x", Tensor(8, {2, 3})}}, ctx); }, "not supported by the interpreter");
}

TEST_F(Errors, RandomInputsMatchDeclarations) {
  Module m;
  m.decls.push_back({"x", Decl::Kind::Input, tensorTy(ctx, {2, 3}, 8)});
  m.decls.push_back({"w", Decl::Kind::Weight, tensorTy(ctx, {4}, 16)});
  m.outputs.push_back({"y", relu});
  auto in = randomInputs(m, 7);
  EXPECT_EQ(in.at("x").describe(), "i8[2][3]");
  EXPECT_EQ(in.at("w").describe(), "i16[4]");
  for (int32_t v : in.at("w").values()) EXPECT_TRUE(v >= -128 && v <= 127);  // the weight range of i16
  // Independent of declaration order.
  std::swap(m.decls[0], m.decls[1]);
  EXPECT_EQ(randomInputs(m, 7), in);
  EXPECT_NE(randomInputs(m, 8), in);
}

}  // namespace

namespace {

TEST(DeepTerms, EvaluateOrFailCleanly) {
  // Deeper than the frontend's 4096 limit, through both plain operators and let-style
  // applications; past the interpreter's limit, an error rather than a stack overflow.
  Context ctx;
  const Type* t = tensorTy(ctx, {2}, 8);
  Inputs in{{"x", tensorOf(8, {2}, {-3, 4})}};
  auto chain = [&](int n, bool viaApp) {
    const Term* cur = ctx.input("x", t);
    const Term* relu = ctx.lam(t, ctx.op(Op::Relu, {ctx.var(0, t)}));
    for (int i = 0; i < n; ++i) cur = viaApp ? ctx.app(relu, cur) : ctx.op(Op::Relu, {cur});
    return cur;
  };
  for (bool viaApp : {false, true}) {
    EXPECT_EQ(evaluate(chain(12000, viaApp), in, ctx).tensor(), tensorOf(8, {2}, {0, 4}));
    expectError([&] { evaluate(chain(30000, viaApp), in, ctx); }, "nested deeper than 20000 levels");
  }
}

}  // namespace
