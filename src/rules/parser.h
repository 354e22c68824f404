#pragma once
// Parser of rule files: text -> FileAst. Internal to skeleshare_rules.

#include "ast.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::rules::detail {

/// Parses `file` (whose index among the loaded files is `fileIndex`), appending its
/// constants, templates and rules to `out`. Reports syntax errors to `diags` (one per
/// statement: after an error the parser skips to the next `;`). Returns false on error.
bool parseRuleFile(const SourceFile& file, size_t fileIndex, FileAst& out, DiagnosticEngine& diags);

}  // namespace skeleshare::rules::detail
