#pragma once
// The DSL's lexer: ASCII tokens, `//` and `#` comments (which may hold UTF-8 text).

#include <cstdint>
#include <string_view>
#include <vector>

#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::frontend {

enum class Tok {
  Ident, Int,
  KwInput, KwWeight, KwLet, KwOutput,
  TypeName,  // i8, i16, i32; Token::value holds the width
  LParen, RParen, LBracket, RBracket, Comma, Semi, Colon, Equal, Backslash, Dot,
  Plus, Minus, Star, ShiftRight,
  End,
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text;  // points into the SourceFile
  SourceLoc loc;
  int64_t value = 0;  // Int: the value; TypeName: the width
};

/// The largest magnitude an integer literal may have: every DSL value fits in i32, and
/// -2147483648 is written as a negated literal.
inline constexpr int64_t kMaxLiteral = int64_t{1} << 31;

/// Splits `file` into tokens, ending with one Tok::End. Bad bytes (NUL, control
/// characters, non-ASCII outside comments, invalid UTF-8 in comments) and oversized
/// literals are reported to `diags` and skipped, so the parser always gets a stream.
std::vector<Token> lex(const SourceFile& file, DiagnosticEngine& diags);

/// "identifier", "';'", ... for parser messages.
std::string_view tokName(Tok t);

}  // namespace skeleshare::frontend
