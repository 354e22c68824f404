#pragma once
// Lowering an extracted design for a report: the program, its text form and the numbers
// `skeleshare compile --emit shir` puts in report.json (docs/lowering.md, "report.json").

#include <string>

#include "skeleshare/ir/context.h"
#include "skeleshare/lower/lower.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/timing.h"

namespace skeleshare::lower {

struct LoweredDesign {
  Program program;
  std::string text;          // printProgram
  Resources resources;       // programResources: DSPs once per shared instance
  CycleEstimate cycles;      // the cycle model on the lowered units (timing.h)
  size_t calls = 0;          // units that are calls of shared instances
};

/// Lowers `module` (throws LowerError) and measures it.
LoweredDesign lowerDesign(const ir::Module& module, ir::Context& ctx, const LowerOptions& options = {});

}  // namespace skeleshare::lower
