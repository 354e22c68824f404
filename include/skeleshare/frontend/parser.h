#pragma once
// The DSL's recursive-descent parser (grammar in docs/dsl.md).

#include "skeleshare/frontend/ast.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::frontend {

/// Parses `file`. Syntax errors are reported to `diags`; the parser recovers at the next
/// `;` or statement keyword, and a statement that failed keeps its name (when it got
/// that far) marked `broken`, so that sema can check the rest without cascading errors.
/// Throws TooManyErrors (from the engine) once its error limit is reached.
Program parse(const SourceFile& file, DiagnosticEngine& diags);

}  // namespace skeleshare::frontend
