#pragma once
// The text form of the skeleton IR (docs/ir.md, "Text form"): the parser.
//
// Every error is reported through the DiagnosticEngine as `file:line:col: error: ...`;
// the parser never throws (TooManyErrors from the engine is caught) and never recurses
// deeper than ParseOptions::maxDepth, so any byte string is safe to feed it.

#include <optional>
#include <vector>

#include "skeleshare/ir/context.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::ir {

struct ParseOptions {
  /// Deepest nesting of terms and types (each operator, lambda and parenthesis counts
  /// one level). Deeper input is an error, not a stack overflow.
  int maxDepth = 1000;
};

/// Parses `decl* output+`. Returns nullopt when anything was reported as an error.
std::optional<Module> parseModule(Context& ctx, const SourceFile& file, DiagnosticEngine& diags,
                                  const ParseOptions& opts = {});

/// What a lone term may refer to.
struct TermEnv {
  /// Inputs and weights that `@name` may name (with their types).
  std::vector<Decl> decls;
  /// Types of the free variables, innermost first: %k outside every lambda of the text
  /// has type freeVarTypes[k]. A free %k without an entry must be annotated (`%k:T`).
  std::vector<const Type*> freeVarTypes;
};

/// Parses one term (the whole file must be a single term). `@name:T` is accepted for a
/// name that `env` does not declare, so that printTerm with annotateInputs round-trips
/// without declarations. Returns null when anything was reported as an error.
const Term* parseTerm(Context& ctx, const SourceFile& file, DiagnosticEngine& diags,
                      const TermEnv& env = {}, const ParseOptions& opts = {});

}  // namespace skeleshare::ir
