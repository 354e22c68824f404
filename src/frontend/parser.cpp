#include "skeleshare/frontend/parser.h"

#include <fmt/format.h>

#include <algorithm>

#include "skeleshare/frontend/lexer.h"

namespace skeleshare::frontend {

namespace {

/// Thrown after a syntax error has been reported; caught at statement level.
struct Recover {};

class Parser {
 public:
  Parser(const SourceFile& file, DiagnosticEngine& diags)
      : file_(file), diags_(diags), toks_(lex(file, diags)) {}

  Program run() {
    Program prog;
    prog.file = file_.path();
    while (peek().kind != Tok::End) {
      size_t start = pos_;
      Stmt stmt;
      try {
        parseStmt(stmt);
      } catch (const Recover&) {
        stmt.broken = true;
        skipToStatementEnd(start);
      }
      // A broken statement without a name gives sema nothing to work with.
      if (!stmt.broken || !stmt.name.empty()) prog.stmts.push_back(std::move(stmt));
    }
    return prog;
  }

 private:
  // ---- tokens ------------------------------------------------------------------
  const Token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    next();
    return true;
  }
  const Token& expect(Tok k, std::string_view what) {
    if (peek().kind != k) fail(peek(), fmt::format("expected {}, found {}", what, describe(peek())));
    return next();
  }
  [[noreturn]] void fail(const Token& at, std::string msg) { fail(at.loc, std::move(msg)); }
  [[noreturn]] void fail(SourceLoc loc, std::string msg) {
    diags_.error(file_, loc, std::move(msg));
    throw Recover{};
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return "end of file";
    std::string_view text = t.text.size() > 32 ? t.text.substr(0, 32) : t.text;
    return fmt::format("'{}'{}", text, t.text.size() > 32 ? "..." : "");
  }
  static bool isStmtKeyword(Tok k) {
    return k == Tok::KwInput || k == Tok::KwWeight || k == Tok::KwLet || k == Tok::KwOutput;
  }
  /// Skips past the next `;`, or up to the next statement keyword; always makes progress.
  void skipToStatementEnd(size_t start) {
    if (pos_ == start && peek().kind != Tok::End) next();
    while (peek().kind != Tok::End) {
      if (accept(Tok::Semi)) return;
      if (isStmtKeyword(peek().kind)) return;
      next();
    }
  }

  // ---- statements ----------------------------------------------------------------
  void parseStmt(Stmt& s) {
    const Token& kw = next();
    s.loc = kw.loc;
    switch (kw.kind) {
      case Tok::KwInput: s.kind = StmtKind::Input; break;
      case Tok::KwWeight: s.kind = StmtKind::Weight; break;
      case Tok::KwLet: s.kind = StmtKind::Let; break;
      case Tok::KwOutput: s.kind = StmtKind::Output; break;
      default:
        fail(kw, fmt::format("expected a statement ('input', 'weight', 'let' or 'output'), found {}", describe(kw)));
    }
    const Token& name = expect(Tok::Ident, "a name");
    s.name = std::string(name.text);
    s.nameLoc = name.loc;
    if (s.kind == StmtKind::Input || s.kind == StmtKind::Weight) {
      expect(Tok::Colon, "':' and a type");
      parseType(s);
    } else {
      expect(Tok::Equal, "'='");
      s.value = parseExpr();
    }
    expect(Tok::Semi, "';'");
  }

  void parseType(Stmt& s) {
    const Token& t = expect(Tok::TypeName, "an element type (i8, i16 or i32)");
    s.declType.bits = static_cast<int>(t.value);
    while (accept(Tok::LBracket)) {
      const Token& d = expect(Tok::Int, "a dimension (an integer literal)");
      if (static_cast<int>(s.declType.shape.size()) == kMaxRank)
        fail(d, fmt::format("too many dimensions (limit {})", kMaxRank));
      s.declType.shape.push_back(d.value);
      s.dimLocs.push_back(d.loc);
      expect(Tok::RBracket, "']'");
    }
  }

  // ---- expressions ---------------------------------------------------------------
  // expr := shift ; shift := additive {'>>' additive} ; additive := term {('+'|'-') term}
  // term := unary {'*' unary} ; unary := '-' INT | primary
  ExprPtr parseExpr() {
    if (depth_ >= kMaxNesting) fail(peek(), fmt::format("expression nested too deeply (limit {})", kMaxNesting));
    ++depth_;
    ExprPtr e = parseShift();
    --depth_;
    return e;
  }

  ExprPtr parseShift() {
    ExprPtr lhs = parseAdditive();
    while (peek().kind == Tok::ShiftRight) {
      const Token& op = next();
      lhs = infix(op, "shr", std::move(lhs), parseAdditive());
    }
    return lhs;
  }

  ExprPtr parseAdditive() {
    ExprPtr lhs = parseTerm();
    while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
      const Token& op = next();
      lhs = infix(op, op.kind == Tok::Plus ? "add" : "sub", std::move(lhs), parseTerm());
    }
    return lhs;
  }

  ExprPtr parseTerm() {
    ExprPtr lhs = parseUnary();
    while (peek().kind == Tok::Star) {
      const Token& op = next();
      lhs = infix(op, "mul", std::move(lhs), parseUnary());
    }
    return lhs;
  }

  ExprPtr parseUnary() {
    if (peek().kind == Tok::Minus) {
      const Token& minus = next();
      if (peek().kind != Tok::Int)
        fail(minus, "unary '-' applies only to integer literals; write sub(0, x) or 0 - x");
      const Token& lit = next();
      auto e = leaf(ExprKind::IntLit, minus.loc);
      e->intValue = -lit.value;
      return e;
    }
    return parsePrimary();
  }

  ExprPtr parsePrimary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Int: {
        next();
        if (t.value == kMaxLiteral)
          fail(t, fmt::format("integer literal {} does not fit in i32", t.value));
        auto e = leaf(ExprKind::IntLit, t.loc);
        e->intValue = t.value;
        return e;
      }
      case Tok::TypeName: {
        next();
        auto e = leaf(ExprKind::TypeName, t.loc);
        e->intValue = t.value;
        e->name = std::string(t.text);
        return e;
      }
      case Tok::Ident: {
        next();
        if (peek().kind == Tok::LParen) return parseCall(t);
        auto e = leaf(ExprKind::Name, t.loc);
        e->name = std::string(t.text);
        return e;
      }
      case Tok::LParen: {
        next();
        ExprPtr e = parseExpr();
        expect(Tok::RParen, "')'");
        return e;
      }
      case Tok::Backslash: return parseLambda();
      default: fail(t, fmt::format("expected an expression, found {}", describe(t)));
    }
  }

  ExprPtr parseCall(const Token& callee) {
    auto e = leaf(ExprKind::Call, callee.loc);
    e->name = std::string(callee.text);
    expect(Tok::LParen, "'('");
    if (!accept(Tok::RParen)) {
      do {
        if (peek().kind == Tok::Ident && peek(1).kind == Tok::Equal) {
          const Token& n = next();
          next();
          NamedArg a{std::string(n.text), n.loc, parseExpr()};
          e->height = std::max(e->height, a.value->height + 1);
          e->namedArgs.push_back(std::move(a));
        } else {
          if (!e->namedArgs.empty())
            fail(peek(), "positional argument after a named argument");
          ExprPtr a = parseExpr();
          e->height = std::max(e->height, a->height + 1);
          e->args.push_back(std::move(a));
        }
      } while (accept(Tok::Comma));
      expect(Tok::RParen, "',' or ')'");
    }
    checkHeight(*e);
    return e;
  }

  ExprPtr parseLambda() {
    const Token& bs = next();
    auto e = leaf(ExprKind::Lambda, bs.loc);
    do {
      const Token& p = expect(Tok::Ident, "a parameter name");
      e->params.emplace_back(p.text);
      e->paramLocs.push_back(p.loc);
    } while (peek().kind == Tok::Ident);
    expect(Tok::Dot, "'.' after the lambda's parameters");
    e->body = parseExpr();
    e->height = e->body->height + 1;
    checkHeight(*e);
    return e;
  }

  ExprPtr leaf(ExprKind k, SourceLoc loc) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = loc;
    return e;
  }

  ExprPtr infix(const Token& op, const char* name, ExprPtr lhs, ExprPtr rhs) {
    auto e = leaf(ExprKind::Call, op.loc);
    e->name = name;
    e->infix = true;
    e->height = std::max(lhs->height, rhs->height) + 1;
    e->args.push_back(std::move(lhs));
    e->args.push_back(std::move(rhs));
    checkHeight(*e);
    return e;
  }

  // Long infix chains (a + b + c + ...) nest without recursing in the parser; this
  // bounds them like parenthesised nesting, so later passes recurse at most so deep.
  void checkHeight(const Expr& e) {
    if (e.height > kMaxNesting)
      fail(e.loc, fmt::format("expression nested too deeply (limit {})", kMaxNesting));
  }

  const SourceFile& file_;
  DiagnosticEngine& diags_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Program parse(const SourceFile& file, DiagnosticEngine& diags) { return Parser(file, diags).run(); }

}  // namespace skeleshare::frontend
