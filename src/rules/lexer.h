#pragma once
// Tokens of the rule language (docs/rules.md). Internal to skeleshare_rules.

#include <cstdint>
#include <string>
#include <vector>

#include "skeleshare/support/source.h"

namespace skeleshare::rules::detail {

enum class Tok : uint8_t {
  Ident,    // name, keyword or operator: [A-Za-z_][A-Za-z0-9_]*
  Var,      // ?name
  Int,      // 64
  LParen, RParen, LBrack, RBrack, Comma, Semi, Colon, Dot, DotDot, Backslash,
  Assign,   // =
  Arrow,    // =>
  FunArrow, // ->
  Plus, Minus, Star, Slash, Percent, Bar,
  Eq, Ne, Lt, Le, Gt, Ge,
  End,
  Bad,      // a byte that starts no token
};

struct Token {
  Tok kind = Tok::End;
  std::string text;
  int64_t value = 0;  // Int
  size_t offset = 0;  // byte offset of the first character
  size_t end = 0;     // one past the last character
};

/// Splits `text` into tokens, skipping blanks and comments (`#` or `//` to the end of the
/// line). The last token is End. An integer literal that does not fit in 64 bits, or a
/// stray byte, becomes a Bad token (text = the reason).
std::vector<Token> lex(const std::string& text);

const char* tokName(Tok t);

}  // namespace skeleshare::rules::detail
