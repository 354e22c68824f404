#pragma once
// The DSL frontend's entry points: parse and check a source file, list its declarations.
// Translation, summary and evaluation have their own headers (translate.h, summary.h,
// evaluator.h); this header includes them all for convenience.

#include <optional>
#include <string>
#include <vector>

#include "skeleshare/frontend/ast.h"
#include "skeleshare/frontend/evaluator.h"
#include "skeleshare/frontend/summary.h"
#include "skeleshare/frontend/translate.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::frontend {

/// Lexes, parses and checks `file`. Returns the checked program, or nullopt after
/// reporting at least one error to `diags` (also when the engine's error limit stops
/// the run). Never throws on bad input.
std::optional<Program> parseAndCheck(const SourceFile& file, DiagnosticEngine& diags);

/// An input or weight of a program, so that a driver can generate or load values.
struct DeclInfo {
  enum class Kind { Input, Weight };
  std::string name;
  Kind kind = Kind::Input;
  int bits = 8;
  std::vector<int64_t> shape;
  SourceLoc loc;
};

/// The inputs and weights of a checked program, in source order.
std::vector<DeclInfo> declarations(const Program& prog);

}  // namespace skeleshare::frontend
