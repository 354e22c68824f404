// The parser: accepted syntax, and one test per class of error with the exact
// `file:line:col: error: message` it must produce.

#include <gtest/gtest.h>

#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/parser.h"
#include "skeleshare/ir/printer.h"

using namespace skeleshare;
using namespace skeleshare::ir;

namespace {

/// The errors of parsing `text` as a module, one `file:line:col: error: msg` per line.
std::string moduleErrors(const std::string& text) {
  Context ctx;
  SourceFile f("t.ir", text);
  DiagnosticEngine d;
  auto m = parseModule(ctx, f, d);
  std::string s;
  for (const Diagnostic& x : d.diagnostics()) {
    if (x.severity != Severity::Error) continue;
    s += x.file + ":" + std::to_string(x.loc.line) + ":" + std::to_string(x.loc.col) + ": error: " + x.message + "\n";
  }
  EXPECT_EQ(m.has_value(), s.empty()) << "a parse must fail exactly when it reports an error";
  return s;
}

/// The same for a lone term with declarations x: i8[4], w: i8[3][4].
std::string termErrors(const std::string& text) {
  Context ctx;
  TermEnv env;
  env.decls.push_back(Decl{"x", Decl::Kind::Input, ctx.tensorType(std::vector<int64_t>{4}, ctx.intType(8))});
  env.decls.push_back(Decl{"w", Decl::Kind::Weight, ctx.tensorType(std::vector<int64_t>{3, 4}, ctx.intType(8))});
  SourceFile f("t.ir", text);
  DiagnosticEngine d;
  const Term* t = parseTerm(ctx, f, d, env);
  std::string s;
  for (const Diagnostic& x : d.diagnostics())
    if (x.severity == Severity::Error)
      s += std::to_string(x.loc.line) + ":" + std::to_string(x.loc.col) + ": " + x.message + "\n";
  EXPECT_EQ(t != nullptr, s.empty());
  return s;
}

const char* kDecls = "input x : i8[4];\nweight w : i8[3][4];\n";

TEST(Parser, ModuleWithCommentsAndLayout) {
  Context ctx;
  SourceFile f("t.ir",
               "// a comment\n"
               "input image : i8[34][34][3];  # another\n"
               "weight w1 : i8[64][3][3][3];\n"
               "output c1 = Conv(@image, @w1,\n"
               "  \\i8[64][27]. \\i8[27]. Mv(%1, %0, \\i8[64][27]. \\i8[64][27]. ParallelDot[64](%1, %0)));\n");
  DiagnosticEngine d;
  auto m = parseModule(ctx, f, d);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->decls.size(), 2u);
  EXPECT_EQ(m->decls[1].kind, Decl::Kind::Weight);
  EXPECT_EQ(m->decls[1].type->str(), "i8[64][3][3][3]");
  const Type* i8 = ctx.intType(8);
  const Term* want = ctx.op(Op::Conv, {ctx.input("image", m->decls[0].type), ctx.input("w1", m->decls[1].type),
                                       cMvF(ctx, 64, 27, i8, i8)});
  ASSERT_EQ(m->outputs.size(), 1u);
  EXPECT_EQ(m->outputs[0].name, "c1");
  EXPECT_EQ(m->outputs[0].term, want);
}

TEST(Parser, Types) {
  Context ctx;
  auto parseType = [&](const std::string& t) -> const Type* {
    SourceFile f("t.ir", "\\" + t + ". 0:i8");
    DiagnosticEngine d;
    const Term* term = parseTerm(ctx, f, d);
    EXPECT_TRUE(term) << t;
    return term ? term->annot() : nullptr;
  };
  const Type *i8 = ctx.intType(8), *i16 = ctx.intType(16), *i32 = ctx.intType(32);
  EXPECT_EQ(parseType("i8[2][3]"), ctx.arrayType(2, ctx.arrayType(3, i8)));
  EXPECT_EQ(parseType("(i8 -> i16 -> i32)"), ctx.funType(i8, ctx.funType(i16, i32)));
  EXPECT_EQ(parseType("(i8 -> (i16 -> i32))"), ctx.funType(i8, ctx.funType(i16, i32)));
  EXPECT_EQ(parseType("((i8 -> i16) -> i32)"), ctx.funType(ctx.funType(i8, i16), i32));
  const Type* pair[] = {i8, i32};
  EXPECT_EQ(parseType("(i8, i32)"), ctx.tupleType(pair));
  EXPECT_EQ(parseType("(i8,)"), ctx.tupleType(std::span<const Type* const>(pair, 1)));
  EXPECT_EQ(parseType("()"), ctx.tupleType({}));
  EXPECT_EQ(parseType("(i8)[2]"), ctx.arrayType(2, i8));  // parentheses only group
  EXPECT_EQ(parseType("(i8[4] -> i32)[3]"), ctx.arrayType(3, ctx.funType(ctx.arrayType(4, i8), i32)));
  EXPECT_EQ(parseType("(i8, (i16 -> i8))[2][5]"),
            ctx.arrayType(2, ctx.arrayType(5, ctx.tupleType(std::vector<const Type*>{i8, ctx.funType(i16, i8)}))));
}

TEST(Parser, ConstantsParametersAndNames) {
  Context ctx;
  SourceFile f("t.ir",
               "input \"odd name\" : i8[2][2];\n"
               "output \"out.0\" = Tuple(Pad[0, 1, 1, 0, -128](@\"odd name\"), -2147483648:i32, 127:i8);\n");
  DiagnosticEngine d;
  auto m = parseModule(ctx, f, d);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->decls[0].name, "odd name");
  EXPECT_EQ(m->outputs[0].name, "out.0");
  const Term* t = m->outputs[0].term;
  EXPECT_EQ(t->child(0)->param(4), -128);
  EXPECT_EQ(t->child(1)->param(0), -2147483648LL);
  EXPECT_EQ(printModule(ctx, *m), f.text());
}

TEST(Parser, FreeVariablesInLoneTerms) {
  Context ctx;
  const Type* i8 = ctx.intType(8);
  const Type* i16 = ctx.intType(16);
  DiagnosticEngine d;
  SourceFile annotated("t.ir", "\\i8. Add(%0, %1:i16)");
  EXPECT_EQ(parseTerm(ctx, annotated, d), ctx.lam(i8, ctx.op(Op::Add, {ctx.var(0, i8), ctx.var(1, i16)})));
  SourceFile fromEnv("t.ir", "\\i8. Add(%0, %1)");
  EXPECT_EQ(parseTerm(ctx, fromEnv, d, TermEnv{{}, {i16}}), ctx.lam(i8, ctx.op(Op::Add, {ctx.var(0, i8), ctx.var(1, i16)})));
  EXPECT_FALSE(d.hasErrors());
}

// ---- errors ----------------------------------------------------------------------------

TEST(ParserErrors, UnknownOperatorSuggestsClosest) {
  EXPECT_EQ(moduleErrors(std::string(kDecls) + "output o = Rleu(@x);\n"),
            "t.ir:3:12: error: unknown operator 'Rleu'; did you mean 'Relu'?\n");
  EXPECT_EQ(termErrors("conv1d_w(@x)"), "1:1: unknown operator 'conv1d_w'; did you mean 'Conv1D_W'?\n");
  EXPECT_EQ(termErrors("Frobnicate(@x)"), "1:1: unknown operator 'Frobnicate'\n");
  EXPECT_EQ(termErrors("Var[0]()"), "1:1: variables are written %i (De Bruijn index), not Var\n");
  EXPECT_EQ(termErrors("Const[1]()"), "1:1: constants are written value:type (e.g. -3:i8), not Const\n");
}

TEST(ParserErrors, ParameterAndArgumentCounts) {
  EXPECT_EQ(termErrors("ParallelDot(@w, @w)"), "1:1: ParallelDot takes 1 parameter (P), got 0\n");
  EXPECT_EQ(termErrors("Pad[1, 2](@w)"), "1:1: Pad takes 5 parameters (top, bottom, left, right, fill), got 2\n");
  EXPECT_EQ(termErrors("Relu[3](@x)"), "1:1: Relu takes 0 parameters, got 1\n");
  EXPECT_EQ(termErrors("Relu(@x, @x)"), "1:1: Relu takes 1 argument, got 2\n");
  EXPECT_EQ(termErrors("Mv(@w, @x)"), "1:1: Mv takes 3 arguments, got 2\n");
  EXPECT_EQ(termErrors("Relu()"), "1:1: Relu takes 1 argument, got 0\n");
  EXPECT_EQ(termErrors("Tuple()"), "1:1: Tuple: needs at least one element\n");
}

TEST(ParserErrors, TypeErrorsAtTheOperator) {
  EXPECT_EQ(termErrors("Relu(\n  Mv(@w, @x, \\i8[3][4]. \\i8[3][4]. ParallelDot[4](%1, %0)))"),
            "2:36: ParallelDot: parameter 0 = 4 out of range [1, 3]\n");
  EXPECT_EQ(termErrors("Mv(@w, @w, \\i8[3][4]. \\i8[3][4]. ParallelDot[3](%1, %0))"),
            "1:1: Mv: vector must be an integer array of rank 1, got i8[3][4]\n");
  EXPECT_EQ(termErrors("Map(@x, \\i16. Relu(%0))"),
            "1:1: Map: function's parameter must have type i8, got i16\n");
  EXPECT_EQ(termErrors("300:i8"), "1:1: Const: 300 does not fit in i8\n");
  EXPECT_EQ(termErrors("Add(@x, 1:i8)"),
            "1:1: Add: operands must be integer values of the same shape, got i8[4] and i8\n");
}

TEST(ParserErrors, NamesAndVariables) {
  EXPECT_EQ(termErrors("Relu(@y)"), "1:6: undeclared input or weight 'y'\n");
  EXPECT_EQ(moduleErrors("output o = @y:i8[2];\n"), "t.ir:1:12: error: undeclared input or weight 'y'\n");
  EXPECT_EQ(termErrors("@x:i8[5]"), "1:1: @x is annotated i8[5] but declared as i8[4]\n");
  EXPECT_EQ(termErrors("Relu(%0)"),
            "1:6: %0 is not bound by any enclosing lambda; a free variable needs its type, e.g. %0:i8\n");
  EXPECT_EQ(termErrors("\\i8. Relu(%0:i16)"), "1:11: %0 is annotated i16 but its lambda gives it type i8\n");
  EXPECT_EQ(termErrors("\\i8. \\i16. Add(%1:i8, %0:i16)"), "");
  EXPECT_EQ(moduleErrors("output o = \\i8. %1:i8;\n"),
            "t.ir:1:12: error: an output must be closed, but this term has free variables\n");
}

TEST(ParserErrors, Literals) {
  EXPECT_EQ(termErrors("Pad[0, 0, 0, 0, 99999999999999999999](@w)"),
            "1:17: integer literal 99999999999999999999 does not fit in 64 bits\n");
  EXPECT_EQ(termErrors("-9223372036854775809:i8"), "1:1: integer literal -9223372036854775809 does not fit in 64 bits\n");
  EXPECT_EQ(termErrors("-9223372036854775808:i8"), "1:1: Const: -9223372036854775808 does not fit in i8\n");
  EXPECT_EQ(termErrors("%99999999999999999999:i8"), "1:2: integer literal 99999999999999999999 does not fit in 64 bits\n");
  EXPECT_EQ(termErrors("%5000000:i8"), "1:1: Var: parameter 0 = 5000000 out of range [0, 1048576]\n");
  EXPECT_EQ(termErrors("\\i8[0]. 0:i8"), "1:5: array length 0 out of range [1, 16777216]\n");
  EXPECT_EQ(termErrors("\\i64. 0:i8"),
            "1:2: unknown type 'i64' (types are i8, i16, i32, arrays, (A -> B) and tuples)\n");
  EXPECT_EQ(termErrors("\\(i8 i16). 0:i8"), "1:6: expected '->', ',' or ')' in a type, got 'i16'\n");
  EXPECT_EQ(termErrors("3"), "1:2: expected ':' and a type after the constant (e.g. 3:i8), got end of input\n");
  EXPECT_EQ(termErrors("@\"abc"), "1:2: unterminated quoted name\n");
  EXPECT_EQ(termErrors("@\"a\\qb\":i8"), "1:4: invalid escape in quoted name (use \\\", \\\\ or \\xNN)\n");
  EXPECT_EQ(termErrors("@\"\":i8"), "1:2: a name cannot be empty\n");
  EXPECT_EQ(termErrors("Relu(@x) extra"), "1:10: expected end of input after the term, got 'extra'\n");
}

TEST(ParserErrors, UnterminatedInput) {
  EXPECT_EQ(termErrors("Relu(Relu(@x)"), "1:14: expected ',' or ')' after an argument of Relu, got end of input\n");
  EXPECT_EQ(termErrors(""), "1:1: unexpected end of input, expected a term\n");
  EXPECT_EQ(termErrors("\\(i8 -> i8"), "1:11: expected '->', ',' or ')' in a type, got end of input\n");
  EXPECT_EQ(moduleErrors(std::string(kDecls) + "output o = Relu(@x)\n"),
            "t.ir:4:1: error: expected ';' after an output, got end of input\n");
  // The unclosed '(' is pointed at by a note.
  Context ctx;
  SourceFile f("t.ir", "Relu(\n Relu(@x:i8)");
  DiagnosticEngine d;
  EXPECT_EQ(parseTerm(ctx, f, d), nullptr);
  ASSERT_EQ(d.diagnostics().size(), 2u);
  EXPECT_EQ(d.diagnostics()[0].severity, Severity::Note);
  EXPECT_EQ(d.diagnostics()[0].loc.line, 1u);
  EXPECT_EQ(d.diagnostics()[0].loc.col, 5u);
}

TEST(ParserErrors, DeepNestingIsAnErrorNotACrash) {
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "Relu(";
  deep += "@x";
  EXPECT_EQ(termErrors(deep), "1:5001: nesting deeper than 1000 levels\n");
  std::string lambdas;
  for (int i = 0; i < 3000; ++i) lambdas += "\\i8. ";
  // The 1000th lambda's parameter type is the 1001st level.
  EXPECT_EQ(termErrors(lambdas + "%0"), "1:4997: nesting deeper than 1000 levels\n");
  std::string types = "\\";
  for (int i = 0; i < 3000; ++i) types += "(";
  EXPECT_EQ(termErrors(types), "1:1001: nesting deeper than 1000 levels\n");
  // Just below the limit is fine.
  std::string ok;
  for (int i = 0; i < 999; ++i) ok += "Relu(";
  ok += "@x" + std::string(999, ')');
  EXPECT_EQ(termErrors(ok), "");
}

TEST(ParserErrors, BinaryGarbage) {
  EXPECT_EQ(termErrors(std::string("Relu(\x01\xff)", 8)), "1:6: unexpected byte 0x01\n");
  EXPECT_EQ(moduleErrors(std::string("\0\0\0", 3)), "t.ir:1:1: error: unexpected byte 0x00\n");
  EXPECT_EQ(termErrors("Relu(@x) $"), "1:10: unexpected '$'\n");
  EXPECT_EQ(termErrors("Relu(@x - 1)"), "1:9: '-' must start a negative integer or '->'\n");
  EXPECT_EQ(termErrors("Relu(% 1)"), "1:6: expected a variable index after '%'\n");
}

TEST(ParserErrors, ModuleStructure) {
  EXPECT_EQ(moduleErrors(kDecls), "t.ir:3:1: error: a module needs at least one output\n");
  EXPECT_EQ(moduleErrors(""), "t.ir:1:1: error: a module needs at least one output\n");
  EXPECT_EQ(moduleErrors("input x : i8;\ninput x : i16;\noutput o = @x;\n"),
            "t.ir:2:7: error: 'x' is declared twice\n");
  EXPECT_EQ(moduleErrors("input x : i8;\noutput o = @x;\noutput o = @x;\n"),
            "t.ir:3:8: error: output 'o' is defined twice\n");
  EXPECT_EQ(moduleErrors("input x : i8;\noutput o = @x;\nweight w : i8;\n"),
            "t.ir:3:1: error: declarations must come before the outputs\n");
  EXPECT_EQ(moduleErrors("input f : (i8 -> i8);\noutput o = 0:i8;\n"),
            "t.ir:1:11: error: an input or weight must have an integer or integer array type, got (i8 -> i8)\n");
  EXPECT_EQ(moduleErrors("inptu x : i8;\noutput o = 0:i8;\n"),
            "t.ir:1:1: error: expected 'input', 'weight' or 'output', got 'inptu'\n");
  EXPECT_EQ(moduleErrors("input x i8;\noutput o = 0:i8;\n"),
            "t.ir:1:9: error: expected ':' after the declared name, got 'i8'\n");
}

TEST(ParserErrors, OneDiagnosticPerBrokenStatement) {
  EXPECT_EQ(moduleErrors(std::string(kDecls) +
                         "output a = Relu(@nope);\n"
                         "output b = Relu(@x);\n"
                         "output c = Mv(@w);\n"
                         "output d = ;\n"),
            "t.ir:3:17: error: undeclared input or weight 'nope'\n"
            "t.ir:5:12: error: Mv takes 3 arguments, got 1\n"
            "t.ir:6:12: error: expected a term, got ';'\n");
}

TEST(ParserErrors, TooManyErrorsStopsCleanly) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "output o" + std::to_string(i) + " = Bad(1);\n";
  Context ctx;
  SourceFile f("t.ir", text);
  DiagnosticEngine d(20);
  EXPECT_FALSE(parseModule(ctx, f, d));
  EXPECT_EQ(d.errorCount(), 20u);
}

TEST(ParserErrors, CaretDisplay) {
  Context ctx;
  SourceFile f("t.ir", "input x : i8[4];\noutput o = Relu(\tConf(@x));\n");
  DiagnosticEngine d;
  EXPECT_FALSE(parseModule(ctx, f, d));
  std::ostringstream os;
  d.print(os);
  EXPECT_EQ(os.str(),
            "t.ir:2:18: error: unknown operator 'Conf'; did you mean 'Conv'?\n"
            "  output o = Relu(\tConf(@x));\n"
            "                  \t^\n");
}

}  // namespace
