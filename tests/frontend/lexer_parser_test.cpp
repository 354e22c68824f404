#include <gtest/gtest.h>

#include "skeleshare/frontend/lexer.h"
#include "skeleshare/frontend/parser.h"
#include "test_util.h"

namespace skeleshare::frontend {
namespace {

std::vector<Tok> kinds(const std::string& text, DiagnosticEngine& d) {
  SourceFile f("t.dsl", text);
  std::vector<Tok> out;
  for (const Token& t : lex(f, d)) out.push_back(t.kind);
  return out;
}

TEST(Lexer, TokensKeywordsAndComments) {
  DiagnosticEngine d;
  auto k = kinds("input x : i8[3]; // comment (ignored)\n# also a comment\nlet y = \\a b. a >> 2 + -1 * 3;", d);
  std::vector<Tok> want = {Tok::KwInput, Tok::Ident, Tok::Colon, Tok::TypeName, Tok::LBracket, Tok::Int,
                           Tok::RBracket, Tok::Semi, Tok::KwLet, Tok::Ident, Tok::Equal, Tok::Backslash,
                           Tok::Ident, Tok::Ident, Tok::Dot, Tok::Ident, Tok::ShiftRight, Tok::Int, Tok::Plus,
                           Tok::Minus, Tok::Int, Tok::Star, Tok::Int, Tok::Semi, Tok::End};
  EXPECT_EQ(k, want);
  EXPECT_FALSE(d.hasErrors());
}

TEST(Lexer, LocationsAreLineAndByteColumn) {
  DiagnosticEngine d;
  SourceFile f("t.dsl", "let\n  abc = 12;");
  auto toks = lex(f, d);
  ASSERT_GE(toks.size(), 3u);
  EXPECT_EQ(toks[1].text, "abc");
  EXPECT_EQ(toks[1].loc.line, 2u);
  EXPECT_EQ(toks[1].loc.col, 3u);
  EXPECT_EQ(toks[3].value, 12);
}

TEST(Lexer, Utf8InCommentsIsFineElsewhereNot) {
  DiagnosticEngine d;
  kinds("// caf\xc3\xa9 \xe2\x86\x92 ok\nlet x = 1;", d);
  EXPECT_FALSE(d.hasErrors());
  DiagnosticEngine d2;
  kinds("let caf\xc3\xa9 = 1;", d2);
  ASSERT_EQ(d2.errorCount(), 1u);
  EXPECT_EQ(d2.diagnostics()[0].message, "non-ASCII character outside a comment");
  EXPECT_EQ(d2.diagnostics()[0].loc.col, 8u);
  DiagnosticEngine d3;
  kinds("// bad \xff\xfe here\n", d3);
  ASSERT_EQ(d3.errorCount(), 1u);
  EXPECT_EQ(d3.diagnostics()[0].message, "invalid UTF-8 byte 0xff in comment");
}

TEST(Lexer, RunsOfBadBytesAreOneError) {
  DiagnosticEngine d;
  auto k = kinds("let x = 1 \x01\x02\x03$$ ;", d);
  EXPECT_EQ(d.errorCount(), 1u);
  EXPECT_EQ(d.diagnostics()[0].message, "invalid control character 0x01");
  EXPECT_EQ(k.back(), Tok::End);
  DiagnosticEngine d2;
  kinds(std::string("let\0x", 5), d2);
  ASSERT_EQ(d2.errorCount(), 1u);
  EXPECT_EQ(d2.diagnostics()[0].message, "NUL byte in source");
}

TEST(Lexer, IntegerLiteralLimits) {
  DiagnosticEngine d;
  SourceFile f("t.dsl", "2147483648 2147483649 99999999999999999999999");
  auto toks = lex(f, d);
  EXPECT_EQ(toks[0].value, 2147483648);
  ASSERT_EQ(d.errorCount(), 2u);
  EXPECT_EQ(d.diagnostics()[0].message, "integer literal 2147483649 is too large (limit 2147483648)");
  EXPECT_EQ(d.diagnostics()[1].loc.col, 23u);
}

TEST(Parser, StatementsAndPrecedence) {
  DiagnosticEngine d;
  SourceFile f("t.dsl", "input x : i16[4][5];\nlet y = x + 1 * 2 >> 3 - 4;\noutput z = pad(y, 1, fill=-7);");
  Program p = parse(f, d);
  ASSERT_FALSE(d.hasErrors());
  ASSERT_EQ(p.stmts.size(), 3u);
  EXPECT_EQ(p.stmts[0].kind, StmtKind::Input);
  EXPECT_EQ(p.stmts[0].declType.str(), "i16[4][5]");
  // (x + (1 * 2)) >> (3 - 4): '>>' binds loosest, '*' tightest.
  const Expr& e = *p.stmts[1].value;
  ASSERT_EQ(e.kind, ExprKind::Call);
  EXPECT_EQ(e.name, "shr");
  EXPECT_TRUE(e.infix);
  EXPECT_EQ(e.args[0]->name, "add");
  EXPECT_EQ(e.args[0]->args[1]->name, "mul");
  EXPECT_EQ(e.args[1]->name, "sub");
  EXPECT_EQ(e.loc.col, 19u);  // the operator
  const Expr& pad = *p.stmts[2].value;
  ASSERT_EQ(pad.namedArgs.size(), 1u);
  EXPECT_EQ(pad.namedArgs[0].name, "fill");
  EXPECT_EQ(pad.namedArgs[0].value->intValue, -7);
}

TEST(Parser, Lambdas) {
  DiagnosticEngine d;
  SourceFile f("t.dsl", "output o = zip(a, b, \\p q. map(p, \\v. v + q));");
  Program p = parse(f, d);
  ASSERT_FALSE(d.hasErrors());
  const Expr& lam = *p.stmts[0].value->args[2];
  ASSERT_EQ(lam.kind, ExprKind::Lambda);
  EXPECT_EQ(lam.params, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(lam.body->name, "map");
}

TEST(Parser, RecoversAtSemicolonAndReportsSeveralErrors) {
  test::Checked c("input x : i8[4];\nlet a = relu(x;\nlet b = ;\noutput o = relu(x);\n");
  EXPECT_FALSE(c.prog);
  ASSERT_EQ(c.diags.errorCount(), 2u) << c.printed();
  EXPECT_EQ(c.firstError(), "2:15: error: expected ',' or ')', found ';'");
  EXPECT_EQ(c.diags.diagnostics()[1].message, "expected an expression, found ';'");
  EXPECT_EQ(c.diags.diagnostics()[1].loc.line, 3u);
}

TEST(Parser, BrokenLetDoesNotCascade) {
  // 'a' failed to parse: its use on line 3 must not add "undefined name 'a'".
  test::Checked c("input x : i8[4];\nlet a = relu(x));\noutput o = relu(a);\n");
  EXPECT_EQ(c.diags.errorCount(), 1u) << c.printed();
}

TEST(Parser, MissingSemicolonBeforeKeyword) {
  test::Checked c("input x : i8[4]\noutput o = relu(x);\n");
  EXPECT_EQ(c.firstError(), "2:1: error: expected ';', found 'output'");
  EXPECT_EQ(c.diags.errorCount(), 1u) << c.printed();
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "input x : i8[4];\noutput o = " + std::string(10000, '(') + "x" + std::string(10000, ')') + ";\n";
  test::Checked c(deep);
  EXPECT_EQ(c.firstError(), "2:268: error: expression nested too deeply (limit 256)");
  std::string chain = "input x : i8[4];\noutput o = x";
  for (int i = 0; i < 5000; ++i) chain += " + x";
  test::Checked c2(chain + ";\n");
  EXPECT_EQ(c2.diags.diagnostics().at(0).message, "expression nested too deeply (limit 256)");
  std::string lambdas = "input x : i8[4];\noutput o = ";
  for (int i = 0; i < 3000; ++i) lambdas += "map(x, \\v. ";
  test::Checked c3(lambdas + "v;\n");
  EXPECT_EQ(c3.diags.diagnostics().at(0).message, "expression nested too deeply (limit 256)");
}

TEST(Parser, TooManyErrorsStopsCleanly) {
  std::string many;
  for (int i = 0; i < 100; ++i) many += "let = ;\n";
  test::Checked c(many);
  EXPECT_FALSE(c.prog);
  EXPECT_EQ(c.diags.errorCount(), 20u);
}

TEST(Parser, EmptyAndCommentOnlyFiles) {
  test::Checked c("");
  EXPECT_EQ(c.firstError(), "1:1: error: program has no output (add a statement 'output name = expr;')");
  test::Checked c2("// nothing here\n");
  EXPECT_EQ(c2.firstError(), "2:1: error: program has no output (add a statement 'output name = expr;')");
}

}  // namespace
}  // namespace skeleshare::frontend
