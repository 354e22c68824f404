#include "lexer.h"

#include <cctype>
#include <limits>

namespace skeleshare::rules::detail {

namespace {
bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::vector<Token> lex(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0, n = s.size();
  auto push = [&](Tok k, size_t begin, size_t len) {
    Token t;
    t.kind = k;
    t.offset = begin;
    t.end = begin + len;
    t.text = s.substr(begin, len);
    out.push_back(std::move(t));
    i = begin + len;
  };
  while (i < n) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '#' || (c == '/' && i + 1 < n && s[i + 1] == '/')) {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (identStart(c)) {
      size_t j = i;
      while (j < n && identChar(s[j])) ++j;
      push(Tok::Ident, i, j - i);
      continue;
    }
    if (c == '?' && i + 1 < n && identStart(s[i + 1])) {
      size_t j = i + 1;
      while (j < n && identChar(s[j])) ++j;
      push(Tok::Var, i, j - i);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      int64_t v = 0;
      bool overflow = false;
      while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) {
        int d = s[j] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - d) / 10) overflow = true;
        else v = v * 10 + d;
        ++j;
      }
      push(overflow ? Tok::Bad : Tok::Int, i, j - i);
      if (overflow) out.back().text = "integer literal does not fit in 64 bits";
      out.back().value = v;
      continue;
    }
    auto two = [&](char a, char b) { return c == a && i + 1 < n && s[i + 1] == b; };
    if (two('=', '>')) { push(Tok::Arrow, i, 2); continue; }
    if (two('=', '=')) { push(Tok::Eq, i, 2); continue; }
    if (two('!', '=')) { push(Tok::Ne, i, 2); continue; }
    if (two('<', '=')) { push(Tok::Le, i, 2); continue; }
    if (two('>', '=')) { push(Tok::Ge, i, 2); continue; }
    if (two('-', '>')) { push(Tok::FunArrow, i, 2); continue; }
    if (two('.', '.')) { push(Tok::DotDot, i, 2); continue; }
    Tok k = Tok::Bad;
    switch (c) {
      case '(': k = Tok::LParen; break;
      case ')': k = Tok::RParen; break;
      case '[': k = Tok::LBrack; break;
      case ']': k = Tok::RBrack; break;
      case ',': k = Tok::Comma; break;
      case ';': k = Tok::Semi; break;
      case ':': k = Tok::Colon; break;
      case '.': k = Tok::Dot; break;
      case '\\': k = Tok::Backslash; break;
      case '=': k = Tok::Assign; break;
      case '+': k = Tok::Plus; break;
      case '-': k = Tok::Minus; break;
      case '*': k = Tok::Star; break;
      case '/': k = Tok::Slash; break;
      case '%': k = Tok::Percent; break;
      case '|': k = Tok::Bar; break;
      case '<': k = Tok::Lt; break;
      case '>': k = Tok::Gt; break;
      default: break;
    }
    push(k, i, 1);
    if (k == Tok::Bad) out.back().text = std::string("unexpected character '") + c + "'";
  }
  Token end;
  end.kind = Tok::End;
  end.offset = end.end = n;
  out.push_back(end);
  return out;
}

const char* tokName(Tok t) {
  switch (t) {
    case Tok::Ident: return "a name";
    case Tok::Var: return "a ?variable";
    case Tok::Int: return "an integer";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBrack: return "'['";
    case Tok::RBrack: return "']'";
    case Tok::Comma: return "','";
    case Tok::Semi: return "';'";
    case Tok::Colon: return "':'";
    case Tok::Dot: return "'.'";
    case Tok::DotDot: return "'..'";
    case Tok::Backslash: return "'\\'";
    case Tok::Assign: return "'='";
    case Tok::Arrow: return "'=>'";
    case Tok::FunArrow: return "'->'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
    case Tok::Bar: return "'|'";
    case Tok::Eq: return "'=='";
    case Tok::Ne: return "'!='";
    case Tok::Lt: return "'<'";
    case Tok::Le: return "'<='";
    case Tok::Gt: return "'>'";
    case Tok::Ge: return "'>='";
    case Tok::End: return "the end of the file";
    case Tok::Bad: return "an invalid token";
  }
  return "?";
}

}  // namespace skeleshare::rules::detail
