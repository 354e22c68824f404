// Recursive-descent parser of the rule language; the grammar is in docs/rules.md.

#include "parser.h"

#include <fmt/format.h>

#include "lexer.h"

namespace skeleshare::rules::detail {

namespace {

struct SyntaxError {
  size_t offset;
  std::string message;
};

class Parser {
 public:
  Parser(const SourceFile& file, size_t index, DiagnosticEngine& diags)
      : file_(file), index_(index), diags_(diags), toks_(lex(std::string(file.text()))) {}

  bool run(FileAst& out) {
    bool ok = true;
    while (peek().kind != Tok::End) {
      size_t start = pos_;
      depth_ = 0;
      try {
        statement(out);
      } catch (const SyntaxError& e) {
        ok = false;
        diags_.error(file_, file_.locate(e.offset), e.message);
        if (pos_ == start) ++pos_;
        while (peek().kind != Tok::End && peek().kind != Tok::Semi) ++pos_;
        if (peek().kind == Tok::Semi) ++pos_;
      }
    }
    return ok;
  }

 private:
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  SourceLoc loc() const { return file_.locate(peek().offset); }
  [[noreturn]] void fail(const std::string& msg) const {
    const Token& t = peek();
    if (t.kind == Tok::Bad) throw SyntaxError{t.offset, t.text};
    throw SyntaxError{t.offset, msg};
  }
  [[noreturn]] void expected(const std::string& what) const {
    const Token& t = peek();
    std::string got = t.kind == Tok::End ? "the end of the file" : "'" + t.text + "'";
    fail(fmt::format("expected {}, got {}", what, got));
  }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    ++pos_;
    return true;
  }
  const Token& expect(Tok k, const char* what = nullptr) {
    if (peek().kind != k) expected(what ? what : tokName(k));
    return toks_[pos_++];
  }
  bool isKeyword(const char* kw, size_t k = 0) const {
    return peek(k).kind == Tok::Ident && peek(k).text == kw;
  }

  void statement(FileAst& out) {
    if (isKeyword("const")) return constDecl(out);
    if (isKeyword("template")) return templateDecl(out);
    if (isKeyword("rule")) return ruleDecl(out);
    expected("'const', 'template' or 'rule'");
  }

  void constDecl(FileAst& out) {
    ConstAst c;
    c.loc = loc();
    ++pos_;
    c.file = index_;
    c.name = expect(Tok::Ident, "a constant's name").text;
    expect(Tok::Assign);
    bool neg = accept(Tok::Minus);
    c.value = expect(Tok::Int, "an integer").value * (neg ? -1 : 1);
    expect(Tok::Semi);
    out.consts.push_back(std::move(c));
  }

  void templateDecl(FileAst& out) {
    TemplateAst t;
    t.loc = loc();
    ++pos_;
    t.file = index_;
    t.name = expect(Tok::Ident, "a template's name").text;
    expect(Tok::LBrack);
    do {
      TemplateParam p;
      p.loc = loc();
      p.name = expect(Tok::Ident, "a parameter name").text;
      if (accept(Tok::Colon)) {
        if (isKeyword("type")) p.isType = true;
        else if (!isKeyword("int")) expected("'int' or 'type'");
        ++pos_;
      }
      t.params.push_back(std::move(p));
    } while (accept(Tok::Comma));
    expect(Tok::RBrack);
    expect(Tok::Assign);
    t.body = term();
    expect(Tok::Semi);
    out.templates.push_back(std::move(t));
  }

  /// A rule name: words joined by '-' with no blanks, e.g. R-TILE-CONV-HW.
  std::string ruleName() {
    std::string name = expect(Tok::Ident, "a rule name").text;
    while (peek().kind == Tok::Minus && peek().offset == toks_[pos_ - 1].end &&
           (peek(1).kind == Tok::Ident || peek(1).kind == Tok::Int) && peek(1).offset == peek().end) {
      name += "-" + peek(1).text;
      pos_ += 2;
    }
    return name;
  }

  void ruleDecl(FileAst& out) {
    RuleAst r;
    r.loc = loc();
    ++pos_;
    r.file = index_;
    r.loc = loc();
    r.name = ruleName();
    if (isKeyword("group")) {
      ++pos_;
      do r.groups.push_back(expect(Tok::Ident, "a group name").text);
      while (accept(Tok::Comma));
    }
    expect(Tok::Colon);
    r.lhs = term();
    expect(Tok::Arrow, "'=>'");
    r.rhs = term();
    while (isKeyword("where") || isKeyword("for")) r.clauses.push_back(clause());
    if (peek().kind != Tok::Semi) expected("'where', 'for' or ';'");
    ++pos_;
    out.rules.push_back(std::move(r));
  }

  Clause clause() {
    Clause c;
    c.loc = loc();
    if (isKeyword("where")) {
      ++pos_;
      c.kind = Clause::Kind::Where;
      do c.conds.push_back(cond());
      while (accept(Tok::Comma));
      return c;
    }
    ++pos_;
    c.kind = Clause::Kind::For;
    c.var = expect(Tok::Var, "a ?variable").text;
    if (!isKeyword("in")) expected("'in'");
    ++pos_;
    do c.domain.push_back(domainPart());
    while (accept(Tok::Bar));
    return c;
  }

  DomainPart domainPart() {
    DomainPart d;
    d.loc = loc();
    if (isKeyword("dims") && peek(1).kind != Tok::LParen) {
      ++pos_;
      d.kind = DomainPart::Kind::Dims;
      return d;
    }
    if (isKeyword("axis") && peek(1).kind == Tok::LParen) {
      pos_ += 2;
      d.kind = DomainPart::Kind::Axis;
      d.op = expect(Tok::Ident, "an operator name").text;
      expect(Tok::Comma);
      if (isKeyword("out")) {
        ++pos_;
        d.arg = -1;
      } else {
        d.arg = expect(Tok::Int, "an argument index or 'out'").value;
      }
      expect(Tok::Comma);
      d.axis = expect(Tok::Int, "an axis").value;
      expect(Tok::RParen);
      return d;
    }
    d.kind = DomainPart::Kind::Range;
    d.lo = expr();
    expect(Tok::DotDot, "'dims', 'axis(...)' or a range 'lo .. hi'");
    d.hi = expr();
    return d;
  }

  Cond cond() {
    Cond c;
    c.loc = loc();
    c.lhs = expr();
    switch (peek().kind) {
      case Tok::Eq: c.rel = Cond::Rel::Eq; break;
      case Tok::Ne: c.rel = Cond::Rel::Ne; break;
      case Tok::Lt: c.rel = Cond::Rel::Lt; break;
      case Tok::Le: c.rel = Cond::Rel::Le; break;
      case Tok::Gt: c.rel = Cond::Rel::Gt; break;
      case Tok::Ge: c.rel = Cond::Rel::Ge; break;
      default: expected("a comparison (==, !=, <, <=, >, >=)");
    }
    ++pos_;
    c.rhs = expr();
    if (isKeyword("or")) {
      ++pos_;
      c.alternatives.push_back(cond());
    }
    return c;
  }

  // ---- integer expressions -----------------------------------------------------
  ExprP bin(Expr::Kind k, ExprP a, ExprP b, SourceLoc l) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->lhs = std::move(a);
    e->rhs = std::move(b);
    e->loc = l;
    return e;
  }
  ExprP expr() {
    ExprP e = termExpr();
    for (;;) {
      SourceLoc l = loc();
      if (accept(Tok::Plus)) e = bin(Expr::Kind::Add, e, termExpr(), l);
      else if (accept(Tok::Minus)) e = bin(Expr::Kind::Sub, e, termExpr(), l);
      else return e;
    }
  }
  ExprP termExpr() {
    ExprP e = atomExpr();
    for (;;) {
      SourceLoc l = loc();
      if (accept(Tok::Star)) e = bin(Expr::Kind::Mul, e, atomExpr(), l);
      else if (accept(Tok::Slash)) e = bin(Expr::Kind::Div, e, atomExpr(), l);
      else if (accept(Tok::Percent)) e = bin(Expr::Kind::Mod, e, atomExpr(), l);
      else return e;
    }
  }
  ExprP atomExpr() {
    auto e = std::make_shared<Expr>();
    e->loc = loc();
    switch (peek().kind) {
      case Tok::Int:
        e->kind = Expr::Kind::Lit;
        e->value = toks_[pos_++].value;
        return e;
      case Tok::Minus:
        ++pos_;
        e->kind = Expr::Kind::Lit;
        e->value = -expect(Tok::Int, "an integer").value;
        return e;
      case Tok::Var:
        e->kind = Expr::Kind::Var;
        e->name = toks_[pos_++].text;
        return e;
      case Tok::Ident:
        e->kind = Expr::Kind::Name;
        e->name = toks_[pos_++].text;
        return e;
      case Tok::LParen: {
        ++pos_;
        ExprP inner = expr();
        expect(Tok::RParen);
        return inner;
      }
      default: expected("an integer expression");
    }
  }

  // ---- types -------------------------------------------------------------------
  TypeP type() {
    auto t = std::make_shared<TypeAst>();
    t->loc = loc();
    if (accept(Tok::LParen)) {
      TypeP a = type();
      expect(Tok::FunArrow, "'->'");
      TypeP r = type();
      std::vector<TypeP> rest{r};
      while (accept(Tok::FunArrow)) rest.push_back(type());
      expect(Tok::RParen);
      // right-associative: (A -> B -> C) = (A -> (B -> C))
      TypeP res = rest.back();
      for (size_t i = rest.size() - 1; i-- > 0;) {
        auto f = std::make_shared<TypeAst>();
        f->kind = TypeAst::Kind::Fun;
        f->param = rest[i];
        f->result = res;
        f->loc = rest[i]->loc;
        res = f;
      }
      t->kind = TypeAst::Kind::Fun;
      t->param = a;
      t->result = res;
    } else if (peek().kind == Tok::Var) {
      t->var = toks_[pos_++].text;
    } else if (peek().kind == Tok::Ident) {
      const std::string& n = peek().text;
      if (n == "i8") t->bits = 8;
      else if (n == "i16") t->bits = 16;
      else if (n == "i32") t->bits = 32;
      else t->name = n;
      ++pos_;
    } else {
      expected("a type");
    }
    if (t->kind == TypeAst::Kind::Tensor) {
      while (accept(Tok::LBrack)) {
        t->dims.push_back(expr());
        expect(Tok::RBrack);
      }
    }
    return t;
  }

  // ---- terms -------------------------------------------------------------------
  TermAst term() {
    if (++depth_ > 200) fail("terms nested too deeply");
    TermAst t = termInner();
    --depth_;
    return t;
  }
  TermAst termInner() {
    TermAst t;
    t.loc = loc();
    if (peek().kind == Tok::Var) {
      t.kind = TermAst::Kind::ClassVar;
      t.name = toks_[pos_++].text;
      if (accept(Tok::Colon)) t.type = type();
      return t;
    }
    if (accept(Tok::Backslash)) {
      t.kind = TermAst::Kind::Lam;
      t.name = expect(Tok::Ident, "a binder name").text;
      expect(Tok::Colon, "':' and the binder's type");
      t.type = type();
      expect(Tok::Dot, "'.' after the binder's type");
      t.kids.push_back(term());
      return t;
    }
    if (peek().kind != Tok::Ident) expected("a term");
    t.name = toks_[pos_++].text;
    if (peek().kind != Tok::LBrack && peek().kind != Tok::LParen) {
      t.kind = TermAst::Kind::Name;
      return t;
    }
    t.kind = TermAst::Kind::Op;
    if (accept(Tok::LBrack)) {
      t.hasBrackets = true;
      do t.params.push_back(expr());
      while (accept(Tok::Comma));
      expect(Tok::RBrack);
    }
    if (accept(Tok::LParen)) {
      t.hasParens = true;
      if (!accept(Tok::RParen)) {
        do t.kids.push_back(term());
        while (accept(Tok::Comma));
        expect(Tok::RParen);
      }
    }
    if (t.hasParens && accept(Tok::Colon)) t.type = type();
    return t;
  }

  const SourceFile& file_;
  size_t index_;
  DiagnosticEngine& diags_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

bool parseRuleFile(const SourceFile& file, size_t fileIndex, FileAst& out, DiagnosticEngine& diags) {
  return Parser(file, fileIndex, diags).run(out);
}

}  // namespace skeleshare::rules::detail
