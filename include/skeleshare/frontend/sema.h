#pragma once
// Name resolution and shape/type checking of a parsed program.

#include "skeleshare/frontend/ast.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::frontend {

/// Resolves names and checks every statement, filling in the sema fields of the AST
/// (ast.h). Reports every error it finds (the engine may throw TooManyErrors) and
/// returns true when the program is correct. A checked program translates to a
/// well-typed skeleton-IR module: sema mirrors the IR type rules (src/ir/type_rules.cpp)
/// and the IR's shape limits (ir::kMaxDim, ir::kMaxElements).
bool check(Program& prog, const SourceFile& file, DiagnosticEngine& diags);

}  // namespace skeleshare::frontend
