#include "skeleshare/frontend/lexer.h"

#include <fmt/format.h>

namespace skeleshare::frontend {

namespace {

bool isIdentStart(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(unsigned char c) { return isIdentStart(c) || isDigit(c); }

/// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid
/// (overlong forms, surrogates and code points past U+10FFFF are invalid).
size_t utf8Length(std::string_view s, size_t i) {
  auto b = [&](size_t k) -> unsigned { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  auto cont = [&](size_t k) { return (b(k) & 0xC0u) == 0x80u; };
  unsigned c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

std::string describeByte(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == 0) return "NUL byte in source";
  if (c < 0x80 && (c < 32 || c == 127)) return fmt::format("invalid control character 0x{:02x}", c);
  if (c < 0x80) return fmt::format("unexpected character '{}'", static_cast<char>(c));
  if (utf8Length(s, i) == 0) return fmt::format("invalid UTF-8 byte 0x{:02x}", c);
  return "non-ASCII character outside a comment";
}

class Lexer {
 public:
  Lexer(const SourceFile& f, DiagnosticEngine& d) : file_(f), text_(f.text()), diags_(d) {}

  std::vector<Token> run() {
    while (true) {
      skipSpaceAndComments();
      if (pos_ >= text_.size()) break;
      if (!lexToken()) skipBadBytes();
    }
    Token end;
    end.kind = Tok::End;
    end.loc = file_.locate(text_.size());
    toks_.push_back(end);
    return std::move(toks_);
  }

 private:
  void skipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++pos_;
      } else if (c == '#' || (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/')) {
        skipComment();
      } else {
        break;
      }
    }
  }

  // Comments may hold any valid UTF-8 but no NUL or invalid bytes: a file with those
  // is binary or corrupt, and we say so once per comment.
  void skipComment() {
    bool reported = false;
    while (pos_ < text_.size() && text_[pos_] != '\n') {
      size_t n = text_[pos_] == '\0' ? 0 : utf8Length(text_, pos_);
      if (n == 0) {
        if (!reported) diags_.error(file_, file_.locate(pos_), describeByte(text_, pos_) + " in comment");
        reported = true;
        n = 1;
      }
      pos_ += n;
    }
  }

  // A run of bytes that start no token is reported once, at its first byte.
  void skipBadBytes() {
    diags_.error(file_, file_.locate(pos_), describeByte(text_, pos_));
    ++pos_;
    while (pos_ < text_.size() && !startsToken(pos_)) ++pos_;
  }

  bool startsToken(size_t i) const {
    unsigned char c = static_cast<unsigned char>(text_[i]);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#') return true;
    if (isIdentChar(c)) return true;
    return std::string_view("()[],;:=\\.+-*>/").find(static_cast<char>(c)) != std::string_view::npos;
  }

  void push(Tok kind, size_t begin, size_t end, int64_t value = 0) {
    Token t;
    t.kind = kind;
    t.text = text_.substr(begin, end - begin);
    t.loc = file_.locate(begin);
    t.value = value;
    toks_.push_back(t);
  }

  bool lexToken() {
    size_t begin = pos_;
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (isIdentStart(c)) {
      while (pos_ < text_.size() && isIdentChar(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      std::string_view w = text_.substr(begin, pos_ - begin);
      if (w == "input") push(Tok::KwInput, begin, pos_);
      else if (w == "weight") push(Tok::KwWeight, begin, pos_);
      else if (w == "let") push(Tok::KwLet, begin, pos_);
      else if (w == "output") push(Tok::KwOutput, begin, pos_);
      else if (w == "i8") push(Tok::TypeName, begin, pos_, 8);
      else if (w == "i16") push(Tok::TypeName, begin, pos_, 16);
      else if (w == "i32") push(Tok::TypeName, begin, pos_, 32);
      else push(Tok::Ident, begin, pos_);
      return true;
    }
    if (isDigit(c)) {
      int64_t v = 0;
      bool tooBig = false;
      while (pos_ < text_.size() && isDigit(static_cast<unsigned char>(text_[pos_]))) {
        if (!tooBig) {
          v = v * 10 + (text_[pos_] - '0');
          if (v > kMaxLiteral) tooBig = true;
        }
        ++pos_;
      }
      if (pos_ < text_.size() && isIdentStart(static_cast<unsigned char>(text_[pos_]))) {
        diags_.error(file_, file_.locate(pos_), fmt::format("invalid digit '{}' in integer literal", text_[pos_]));
        while (pos_ < text_.size() && isIdentChar(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      }
      if (tooBig) {
        std::string_view lit = text_.substr(begin, pos_ - begin);
        if (lit.size() > 40) lit = lit.substr(0, 40);
        diags_.error(file_, file_.locate(begin),
                     fmt::format("integer literal {}{} is too large (limit {})", lit,
                                 pos_ - begin > 40 ? "..." : "", kMaxLiteral));
        v = 0;  // a harmless value keeps the parse going
      }
      push(Tok::Int, begin, pos_, v);
      return true;
    }
    ++pos_;
    switch (c) {
      case '(': push(Tok::LParen, begin, pos_); return true;
      case ')': push(Tok::RParen, begin, pos_); return true;
      case '[': push(Tok::LBracket, begin, pos_); return true;
      case ']': push(Tok::RBracket, begin, pos_); return true;
      case ',': push(Tok::Comma, begin, pos_); return true;
      case ';': push(Tok::Semi, begin, pos_); return true;
      case ':': push(Tok::Colon, begin, pos_); return true;
      case '=': push(Tok::Equal, begin, pos_); return true;
      case '\\': push(Tok::Backslash, begin, pos_); return true;
      case '.': push(Tok::Dot, begin, pos_); return true;
      case '+': push(Tok::Plus, begin, pos_); return true;
      case '-': push(Tok::Minus, begin, pos_); return true;
      case '*': push(Tok::Star, begin, pos_); return true;
      case '>':
        if (pos_ < text_.size() && text_[pos_] == '>') {
          ++pos_;
          push(Tok::ShiftRight, begin, pos_);
          return true;
        }
        break;
      default: break;
    }
    pos_ = begin;
    return false;
  }

  const SourceFile& file_;
  std::string_view text_;
  DiagnosticEngine& diags_;
  size_t pos_ = 0;
  std::vector<Token> toks_;
};

}  // namespace

std::vector<Token> lex(const SourceFile& file, DiagnosticEngine& diags) {
  return Lexer(file, diags).run();
}

std::string_view tokName(Tok t) {
  switch (t) {
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer literal";
    case Tok::KwInput: return "'input'";
    case Tok::KwWeight: return "'weight'";
    case Tok::KwLet: return "'let'";
    case Tok::KwOutput: return "'output'";
    case Tok::TypeName: return "type name";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::Comma: return "','";
    case Tok::Semi: return "';'";
    case Tok::Colon: return "':'";
    case Tok::Equal: return "'='";
    case Tok::Backslash: return "'\\'";
    case Tok::Dot: return "'.'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::ShiftRight: return "'>>'";
    case Tok::End: return "end of file";
  }
  return "token";
}

}  // namespace skeleshare::frontend
