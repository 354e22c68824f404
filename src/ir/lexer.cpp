#include "lexer.h"

#include <cstdio>
#include <limits>

namespace skeleshare::ir::text {

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
int hexDigit(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Token error(size_t offset, std::string msg) {
  Token t;
  t.kind = Tok::Error;
  t.offset = offset;
  t.text = std::move(msg);
  return t;
}

/// A byte as a message shows it: printable ASCII quoted, anything else in hex.
std::string describeByte(unsigned char c) {
  char buf[16];
  if (c >= 32 && c < 127) std::snprintf(buf, sizeof buf, "'%c'", c);
  else std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
  return buf;
}
}  // namespace

std::string_view tokName(Tok t) {
  switch (t) {
    case Tok::End: return "end of input";
    case Tok::Error: return "invalid token";
    case Tok::Ident: return "a name";
    case Tok::String: return "a quoted name";
    case Tok::Int: return "an integer";
    case Tok::Var: return "a variable";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::Semi: return "';'";
    case Tok::Equals: return "'='";
    case Tok::Dot: return "'.'";
    case Tok::Backslash: return "'\\'";
    case Tok::At: return "'@'";
    case Tok::Arrow: return "'->'";
  }
  return "token";
}

void Lexer::skipSpaceAndComments() {
  while (pos_ < s_.size()) {
    char c = s_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '#' || (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/')) {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::lexNumber(size_t start, bool negative) {
  // Accumulate the magnitude in uint64 so that INT64_MIN itself is representable.
  constexpr uint64_t kPosMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const uint64_t limit = negative ? kPosMax + 1 : kPosMax;
  uint64_t mag = 0;
  bool overflow = false;
  while (pos_ < s_.size() && isDigit(s_[pos_])) {
    uint64_t d = static_cast<uint64_t>(s_[pos_++] - '0');
    if (mag > (limit - d) / 10) overflow = true;
    else mag = mag * 10 + d;
  }
  std::string spelling(s_.substr(start, pos_ - start));
  if (overflow) return error(start, "integer literal " + spelling + " does not fit in 64 bits");
  Token t;
  t.kind = Tok::Int;
  t.offset = start;
  t.text = std::move(spelling);
  // -(mag) computed without overflowing when mag == 2^63.
  t.value = negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  return t;
}

Token Lexer::lexString(size_t start) {
  std::string out;
  ++pos_;  // opening quote
  while (true) {
    if (pos_ >= s_.size() || s_[pos_] == '\n') return error(start, "unterminated quoted name");
    char c = s_[pos_++];
    if (c == '"') break;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (pos_ >= s_.size()) return error(start, "unterminated quoted name");
    char e = s_[pos_++];
    if (e == '"' || e == '\\') {
      out.push_back(e);
    } else if (e == 'x' && pos_ + 1 < s_.size() && hexDigit(s_[pos_]) >= 0 && hexDigit(s_[pos_ + 1]) >= 0) {
      out.push_back(static_cast<char>(hexDigit(s_[pos_]) * 16 + hexDigit(s_[pos_ + 1])));
      pos_ += 2;
    } else {
      return error(pos_ - 2, "invalid escape in quoted name (use \\\", \\\\ or \\xNN)");
    }
  }
  Token t;
  t.kind = Tok::String;
  t.offset = start;
  t.text = std::move(out);
  return t;
}

Token Lexer::next() {
  skipSpaceAndComments();
  Token t;
  t.offset = pos_;
  if (pos_ >= s_.size()) return t;  // End
  const size_t start = pos_;
  const char c = s_[pos_];
  if (isIdentStart(c)) {
    while (pos_ < s_.size() && isIdentChar(s_[pos_])) ++pos_;
    t.kind = Tok::Ident;
    t.text = std::string(s_.substr(start, pos_ - start));
    return t;
  }
  if (isDigit(c)) return lexNumber(start, false);
  if (c == '-') {
    if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '>') {
      pos_ += 2;
      t.kind = Tok::Arrow;
      return t;
    }
    if (pos_ + 1 < s_.size() && isDigit(s_[pos_ + 1])) {
      ++pos_;
      return lexNumber(start, true);
    }
    ++pos_;
    return error(start, "'-' must start a negative integer or '->'");
  }
  if (c == '%') {
    ++pos_;
    if (pos_ >= s_.size() || !isDigit(s_[pos_]))
      return error(start, "expected a variable index after '%'");
    Token n = lexNumber(pos_, false);
    if (n.kind == Tok::Error) return n;
    n.kind = Tok::Var;
    n.offset = start;
    return n;
  }
  if (c == '"') return lexString(start);
  ++pos_;
  switch (c) {
    case '(': t.kind = Tok::LParen; return t;
    case ')': t.kind = Tok::RParen; return t;
    case '[': t.kind = Tok::LBracket; return t;
    case ']': t.kind = Tok::RBracket; return t;
    case ',': t.kind = Tok::Comma; return t;
    case ':': t.kind = Tok::Colon; return t;
    case ';': t.kind = Tok::Semi; return t;
    case '=': t.kind = Tok::Equals; return t;
    case '.': t.kind = Tok::Dot; return t;
    case '\\': t.kind = Tok::Backslash; return t;
    case '@': t.kind = Tok::At; return t;
    default: break;
  }
  return error(start, "unexpected " + describeByte(static_cast<unsigned char>(c)));
}

bool isPlainIdent(std::string_view name) {
  if (name.empty() || !isIdentStart(name[0])) return false;
  for (char c : name)
    if (!isIdentChar(c)) return false;
  return true;
}

std::string quoteName(std::string_view name) {
  if (isPlainIdent(name)) return std::string(name);
  std::string out = "\"";
  for (unsigned char c : name) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 32 || c >= 127) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

}  // namespace skeleshare::ir::text
