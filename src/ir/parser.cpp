// The parser of the IR text form: recursive descent over the tokens of lexer.h,
// building terms bottom-up with Context::tryMake so that the result is the very same
// hash-consed term that was printed. Errors are reported once, at the offending token;
// the statement is then abandoned (Abort) and parsing resumes after the next ';', so a
// module with several broken statements gets one diagnostic for each.

#include "skeleshare/ir/parser.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "lexer.h"

namespace skeleshare::ir {

namespace {

using text::Tok;
using text::Token;

/// Edit distance, case-insensitive, for "did you mean" suggestions.
size_t editDistance(std::string_view a, std::string_view b) {
  auto low = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (low(a[i - 1]) == low(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// "; did you mean 'X'?" for the closest operator name, or "" when nothing is close.
std::string suggestOp(std::string_view name) {
  std::string_view best;
  size_t bestDist = std::max<size_t>(2, name.size() / 3) + 1;
  for (int i = 0; i < opCount(); ++i) {
    std::string_view cand = opName(static_cast<Op>(i));
    size_t d = editDistance(name, cand);
    if (d < bestDist) {
      bestDist = d;
      best = cand;
    }
  }
  return best.empty() ? "" : "; did you mean '" + std::string(best) + "'?";
}

std::string plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

class Parser {
 public:
  Parser(Context& ctx, const SourceFile& file, DiagnosticEngine& diags, const ParseOptions& opts)
      : ctx_(ctx), file_(file), diags_(diags), opts_(opts), lex_(file.text()) {}

  std::optional<Module> module();
  const Term* lone(const TermEnv& env);

 private:
  struct Abort {};  // the current statement is broken and has been reported

  /// Counts one level of nesting for as long as it lives.
  class Nest {
   public:
    Nest(Parser& p, size_t offset) : p_(p) {
      if (++p_.depth_ > p_.opts_.maxDepth)
        p_.fail(offset, "nesting deeper than " + std::to_string(p_.opts_.maxDepth) + " levels");
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& p_;
  };

  [[noreturn]] void fail(size_t offset, std::string msg) {
    diags_.error(file_, file_.locate(offset), std::move(msg));
    throw Abort{};
  }
  std::string describe(const Token& t) const {
    switch (t.kind) {
      case Tok::Ident: return "'" + t.text + "'";
      case Tok::Int: return "'" + t.text + "'";
      case Tok::Var: return "'%" + t.text + "'";
      default: return std::string(text::tokName(t.kind));
    }
  }
  void advanceRaw() { tok_ = lex_.next(); }
  /// Moves to the next token; a token the lexer could not make is an error right here.
  void advance() {
    advanceRaw();
    if (tok_.kind == Tok::Error) fail(tok_.offset, tok_.text);
  }
  void start() {
    advanceRaw();
    if (tok_.kind == Tok::Error) fail(tok_.offset, tok_.text);
  }
  void expect(Tok k, std::string_view where) {
    if (tok_.kind != k)
      fail(tok_.offset, "expected " + std::string(text::tokName(k)) + " " + std::string(where) +
                            ", got " + describe(tok_));
    advance();
  }
  bool isKeyword(std::string_view kw) const { return tok_.kind == Tok::Ident && tok_.text == kw; }

  std::string name(std::string_view what);
  const Type* type();
  const Type* arrayDims(const Type* t);
  const Term* term();
  const Term* var();
  const Term* input();
  const Term* constant();
  const Term* opTerm();
  const Term* build(Op op, std::span<const int64_t> params, const Type* annot,
                    std::span<const Term* const> kids, size_t offset);
  void declaration(Module& m);
  void output(Module& m);
  void statement(Module& m);
  void skipStatement();

  Context& ctx_;
  const SourceFile& file_;
  DiagnosticEngine& diags_;
  const ParseOptions& opts_;
  text::Lexer lex_;
  Token tok_;
  int depth_ = 0;
  std::vector<const Type*> binders_;  // innermost last
  std::vector<const Type*> freeVarTypes_;
  std::unordered_map<std::string, const Type*> decls_;
  bool allowAnnotatedUndeclared_ = false;
};

// ---- types ---------------------------------------------------------------------------

const Type* Parser::type() {
  Nest nest(*this, tok_.offset);
  if (tok_.kind == Tok::Ident) {
    const Type* t = nullptr;
    if (tok_.text == "i8") t = ctx_.intType(8);
    else if (tok_.text == "i16") t = ctx_.intType(16);
    else if (tok_.text == "i32") t = ctx_.intType(32);
    else fail(tok_.offset, "unknown type '" + tok_.text + "' (types are i8, i16, i32, arrays, (A -> B) and tuples)");
    advance();
    return arrayDims(t);
  }
  if (tok_.kind != Tok::LParen) fail(tok_.offset, "expected a type, got " + describe(tok_));
  size_t open = tok_.offset;
  advance();
  if (tok_.kind == Tok::RParen) {  // the empty tuple
    advance();
    return arrayDims(ctx_.tupleType({}));
  }
  std::vector<const Type*> parts{type()};
  const Type* t = nullptr;
  if (tok_.kind == Tok::Arrow) {
    // (A -> B -> C) is (A -> (B -> C)).
    while (tok_.kind == Tok::Arrow) {
      advance();
      parts.push_back(type());
    }
    t = parts.back();
    for (size_t i = parts.size() - 1; i-- > 0;) t = ctx_.funType(parts[i], t);
  } else if (tok_.kind == Tok::Comma) {
    // (A, B) is a pair; (A,) a one-element tuple, as Type::str prints it.
    while (tok_.kind == Tok::Comma) {
      advance();
      if (tok_.kind == Tok::RParen) break;
      parts.push_back(type());
    }
    t = ctx_.tupleType(parts);
  } else {
    t = parts[0];  // (A) only groups
  }
  if (tok_.kind != Tok::RParen) {
    if (tok_.kind == Tok::End) diags_.note(file_, file_.locate(open), "to match this '('");
    fail(tok_.offset, "expected '->', ',' or ')' in a type, got " + describe(tok_));
  }
  advance();
  return arrayDims(t);
}

const Type* Parser::arrayDims(const Type* t) {
  // Lengths are written outermost first, as in C: i8[2][3] is 2 arrays of i8[3].
  std::vector<std::pair<int64_t, size_t>> dims;
  while (tok_.kind == Tok::LBracket) {
    advance();
    if (tok_.kind != Tok::Int) fail(tok_.offset, "expected an array length, got " + describe(tok_));
    dims.emplace_back(tok_.value, tok_.offset);
    advance();
    expect(Tok::RBracket, "after an array length");
  }
  for (size_t i = dims.size(); i-- > 0;) {
    try {
      t = ctx_.arrayType(dims[i].first, t);
    } catch (const TypeError& e) {
      fail(dims[i].second, e.what());
    }
  }
  return t;
}

// ---- terms ---------------------------------------------------------------------------

const Term* Parser::build(Op op, std::span<const int64_t> params, const Type* annot,
                          std::span<const Term* const> kids, size_t offset) {
  std::string error;
  const Term* t = ctx_.tryMake(op, params, annot, kids, error);
  if (!t) fail(offset, error);
  return t;
}

std::string Parser::name(std::string_view what) {
  if (tok_.kind != Tok::Ident && tok_.kind != Tok::String)
    fail(tok_.offset, "expected " + std::string(what) + ", got " + describe(tok_));
  if (tok_.text.empty()) fail(tok_.offset, "a name cannot be empty");
  std::string n = tok_.text;
  advance();
  return n;
}

const Term* Parser::term() {
  Nest nest(*this, tok_.offset);
  switch (tok_.kind) {
    case Tok::Var: return var();
    case Tok::At: return input();
    case Tok::Int: return constant();
    case Tok::Ident: return opTerm();
    case Tok::Backslash: {
      size_t at = tok_.offset;
      advance();
      const Type* param = type();
      expect(Tok::Dot, "after a lambda's parameter type");
      binders_.push_back(param);
      const Term* body = term();  // extends as far right as possible
      binders_.pop_back();
      const Term* kids[] = {body};
      return build(Op::Lam, {}, param, kids, at);
    }
    case Tok::End: fail(tok_.offset, "unexpected end of input, expected a term");
    default: fail(tok_.offset, "expected a term, got " + describe(tok_));
  }
}

const Term* Parser::var() {
  size_t at = tok_.offset;
  int64_t index = tok_.value;
  std::string spelled = "%" + tok_.text;
  advance();
  const Type* annot = nullptr;
  if (tok_.kind == Tok::Colon) {
    advance();
    annot = type();
  }
  const Type* bound = nullptr;
  std::string boundBy;
  uint64_t depth = binders_.size();
  if (static_cast<uint64_t>(index) < depth) {
    bound = binders_[depth - 1 - static_cast<size_t>(index)];
    boundBy = "its lambda";
  } else if (static_cast<uint64_t>(index) - depth < freeVarTypes_.size()) {
    bound = freeVarTypes_[static_cast<size_t>(static_cast<uint64_t>(index) - depth)];
    boundBy = "the environment";
  }
  if (bound && annot && annot != bound)
    fail(at, spelled + " is annotated " + annot->str() + " but " + boundBy + " gives it type " + bound->str());
  if (!bound && !annot)
    fail(at, spelled + " is not bound by any enclosing lambda; a free variable needs its type, e.g. " +
                 spelled + ":i8");
  int64_t p[] = {index};
  return build(Op::Var, p, bound ? bound : annot, {}, at);
}

const Term* Parser::input() {
  size_t at = tok_.offset;
  advance();
  std::string n = name("an input name after '@'");
  const Type* annot = nullptr;
  if (tok_.kind == Tok::Colon) {
    advance();
    annot = type();
  }
  auto it = decls_.find(n);
  const Type* t = annot;
  if (it != decls_.end()) {
    if (annot && annot != it->second)
      fail(at, "@" + text::quoteName(n) + " is annotated " + annot->str() + " but declared as " + it->second->str());
    t = it->second;
  } else if (!annot || !allowAnnotatedUndeclared_) {
    fail(at, "undeclared input or weight '" + n + "'");
  }
  int64_t p[] = {ctx_.symbol(n)};
  return build(Op::Input, p, t, {}, at);
}

const Term* Parser::constant() {
  size_t at = tok_.offset;
  int64_t value = tok_.value;
  advance();
  if (tok_.kind != Tok::Colon)
    fail(tok_.offset, "expected ':' and a type after the constant (e.g. " + std::to_string(value) + ":i8), got " + describe(tok_));
  advance();
  const Type* t = type();
  int64_t p[] = {value};
  return build(Op::Const, p, t, {}, at);
}

const Term* Parser::opTerm() {
  size_t at = tok_.offset;
  std::string opname = tok_.text;
  std::optional<Op> op = opByName(opname);
  if (!op) fail(at, "unknown operator '" + opname + "'" + suggestOp(opname));
  switch (*op) {
    case Op::Var: fail(at, "variables are written %i (De Bruijn index), not Var");
    case Op::Lam: fail(at, "lambdas are written \\T. body, not Lam");
    case Op::Input: fail(at, "inputs are written @name, not Input");
    case Op::Const: fail(at, "constants are written value:type (e.g. -3:i8), not Const");
    default: break;
  }
  const OpInfo& info = opInfo(*op);
  advance();
  std::vector<int64_t> params;
  if (tok_.kind == Tok::LBracket) {
    advance();
    while (true) {
      if (tok_.kind != Tok::Int) fail(tok_.offset, "expected an integer parameter, got " + describe(tok_));
      params.push_back(tok_.value);
      advance();
      if (tok_.kind == Tok::RBracket) break;
      expect(Tok::Comma, "between parameters");
    }
    advance();
  }
  if (static_cast<int>(params.size()) != info.numParams) {
    std::string want = plural(static_cast<size_t>(info.numParams), "parameter");
    if (info.numParams > 0) want += " (" + std::string(info.paramNames) + ")";
    fail(at, opname + " takes " + want + ", got " + std::to_string(params.size()));
  }
  size_t open = tok_.offset;
  expect(Tok::LParen, "after the operator " + opname);
  std::vector<const Term*> kids;
  if (tok_.kind != Tok::RParen) {
    while (true) {
      kids.push_back(term());
      if (tok_.kind == Tok::RParen) break;
      if (tok_.kind != Tok::Comma) {
        if (tok_.kind == Tok::End) diags_.note(file_, file_.locate(open), "to match this '('");
        fail(tok_.offset, "expected ',' or ')' after an argument of " + opname + ", got " + describe(tok_));
      }
      advance();
    }
  }
  advance();  // ')'
  if (info.arity >= 0 && kids.size() != static_cast<size_t>(info.arity))
    fail(at, opname + " takes " + plural(static_cast<size_t>(info.arity), "argument") + ", got " +
                 std::to_string(kids.size()));
  return build(*op, params, nullptr, kids, at);
}

// ---- statements ----------------------------------------------------------------------

void Parser::declaration(Module& m) {
  Decl d;
  d.kind = tok_.text == "input" ? Decl::Kind::Input : Decl::Kind::Weight;
  advance();
  size_t at = tok_.offset;
  d.name = name("a name to declare");
  expect(Tok::Colon, "after the declared name");
  size_t typeAt = tok_.offset;
  d.type = type();
  expect(Tok::Semi, "after a declaration");
  if (decls_.count(d.name)) fail(at, "'" + d.name + "' is declared twice");
  if (!d.type->isIntTensor())
    fail(typeAt, "an input or weight must have an integer or integer array type, got " + d.type->str());
  decls_.emplace(d.name, d.type);
  m.decls.push_back(std::move(d));
}

void Parser::output(Module& m) {
  advance();
  size_t at = tok_.offset;
  Output o;
  o.name = name("the output's name");
  expect(Tok::Equals, "after the output's name");
  size_t termAt = tok_.offset;
  binders_.clear();
  o.term = term();
  expect(Tok::Semi, "after an output");
  for (const Output& prev : m.outputs)
    if (prev.name == o.name) fail(at, "output '" + o.name + "' is defined twice");
  if (!o.term->closed()) fail(termAt, "an output must be closed, but this term has free variables");
  m.outputs.push_back(std::move(o));
}

void Parser::statement(Module& m) {
  if (tok_.kind == Tok::Error) fail(tok_.offset, tok_.text);
  if (isKeyword("input") || isKeyword("weight")) {
    if (!m.outputs.empty()) fail(tok_.offset, "declarations must come before the outputs");
    declaration(m);
  } else if (isKeyword("output")) {
    output(m);
  } else {
    fail(tok_.offset, "expected 'input', 'weight' or 'output', got " + describe(tok_));
  }
}

void Parser::skipStatement() {
  // One diagnostic per statement: skip silently past the next ';'. Every step consumes
  // a token, so this and the statement loop always make progress.
  while (tok_.kind != Tok::End && tok_.kind != Tok::Semi) advanceRaw();
  if (tok_.kind == Tok::Semi) advanceRaw();
}

std::optional<Module> Parser::module() {
  Module m;
  size_t before = diags_.errorCount();
  try {
    try {
      start();
    } catch (const Abort&) {
      skipStatement();
    }
    while (tok_.kind != Tok::End) {
      try {
        statement(m);
      } catch (const Abort&) {
        skipStatement();
      }
    }
    if (diags_.errorCount() == before && m.outputs.empty())
      diags_.error(file_, file_.locate(tok_.offset), "a module needs at least one output");
  } catch (const TooManyErrors&) {
    return std::nullopt;
  }
  if (diags_.errorCount() != before) return std::nullopt;
  return m;
}

const Term* Parser::lone(const TermEnv& env) {
  allowAnnotatedUndeclared_ = true;
  freeVarTypes_ = env.freeVarTypes;
  for (const Decl& d : env.decls) decls_.emplace(d.name, d.type);
  size_t before = diags_.errorCount();
  try {
    start();
    const Term* t = term();
    if (tok_.kind != Tok::End) fail(tok_.offset, "expected end of input after the term, got " + describe(tok_));
    return diags_.errorCount() == before ? t : nullptr;
  } catch (const Abort&) {
  } catch (const TooManyErrors&) {
  }
  return nullptr;
}

}  // namespace

std::optional<Module> parseModule(Context& ctx, const SourceFile& file, DiagnosticEngine& diags,
                                  const ParseOptions& opts) {
  Parser p(ctx, file, diags, opts);
  return p.module();
}

const Term* parseTerm(Context& ctx, const SourceFile& file, DiagnosticEngine& diags,
                      const TermEnv& env, const ParseOptions& opts) {
  Parser p(ctx, file, diags, opts);
  return p.lone(env);
}

}  // namespace skeleshare::ir
