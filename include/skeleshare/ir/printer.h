#pragma once
// The text form of the skeleton IR (docs/ir.md, "Text form"): the printer.
//
// Printing is deterministic and round-trips: parseModule(printModule(m)) rebuilds the
// same declarations and the very same hash-consed terms. Terms that the verifier would
// reject still print, with the offending annotation spelled out (e.g. a variable whose
// annotation disagrees with its binder prints as `%0:i16`), so the text shows the truth.

#include <string>

#include "skeleshare/ir/context.h"

namespace skeleshare::ir {

struct PrintOptions {
  /// A node whose one-line form would run past this column has its arguments broken
  /// onto separate lines, indented two spaces deeper than the line the node starts on.
  int width = 100;
  /// Print every input as `@name:type`, so that a lone term can be parsed back without
  /// declarations. Module printing ignores this (the declarations carry the types)
  /// except where an input's type disagrees with its declaration.
  bool annotateInputs = false;
};

/// One term; free variables carry their type (`%3:i8[4]`). No trailing newline.
std::string printTerm(const Context& ctx, const Term* term, const PrintOptions& opts = {});

/// A whole module: one declaration or output per statement, each ending in ";\n".
std::string printModule(const Context& ctx, const Module& module, const PrintOptions& opts = {});

}  // namespace skeleshare::ir
