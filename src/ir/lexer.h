#pragma once
// Private to src/ir: the tokens of the IR text form (docs/ir.md, "Text form").
// The lexer never fails hard: a byte it cannot use becomes an Error token that carries
// the message, and the parser reports it at the token's position.

#include <cstdint>
#include <string>
#include <string_view>

namespace skeleshare::ir::text {

enum class Tok : uint8_t {
  End,
  Error,   // text = the message
  Ident,   // text = the identifier
  String,  // text = the decoded contents of "..."
  Int,     // value (text = the spelling)
  Var,     // %N: value = N
  LParen, RParen, LBracket, RBracket, Comma, Colon, Semi, Equals, Dot, Backslash, At, Arrow,
};

struct Token {
  Tok kind = Tok::End;
  size_t offset = 0;  // byte offset of the first character
  std::string text;
  int64_t value = 0;
};

/// Describes a token kind for "expected X" messages, e.g. "')'".
std::string_view tokName(Tok t);

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}
  /// The next token; End forever once the text is exhausted.
  Token next();

 private:
  void skipSpaceAndComments();
  Token lexNumber(size_t start, bool negative);
  Token lexString(size_t start);

  std::string_view s_;
  size_t pos_ = 0;
};

/// True when `name` can be written without quotes: [A-Za-z_][A-Za-z0-9_]*.
bool isPlainIdent(std::string_view name);
/// `name` as the text form writes it: bare when plain, else a quoted, escaped string.
std::string quoteName(std::string_view name);

}  // namespace skeleshare::ir::text
