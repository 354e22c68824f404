#pragma once
// Rejecting early what no design can run: every input, weight and output of a program is a
// region of the design's external memory map (vhdl/memory_map.h), so when those alone need
// more than the design addresses, the program is refused before saturation, at the
// declaration of its largest tensor, instead of after extraction at VHDL emission.

#include <iosfwd>

#include "program_loader.h"

namespace skeleshare::tools {

/// True when the program's inputs, weights and outputs fit the memory map; otherwise
/// prints `file:line:col: error: ...` (a .dsl program) or `file: error: ...` to `err`.
bool interfaceFitsMemory(const LoadedProgram& program, std::ostream& err);

}  // namespace skeleshare::tools
