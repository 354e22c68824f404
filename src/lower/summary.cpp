#include "skeleshare/lower/summary.h"

#include "skeleshare/lower/printer.h"

namespace skeleshare::lower {

LoweredDesign lowerDesign(const ir::Module& module, ir::Context& ctx, const LowerOptions& options) {
  LoweredDesign d;
  d.program = lowerModule(module, ctx, options);
  d.text = printProgram(d.program);
  d.resources = programResources(d.program);
  d.cycles = estimateCycles(d.program, options.memory);
  for (const auto& u : d.program.units) d.calls += u.call.has_value();
  return d;
}

}  // namespace skeleshare::lower
