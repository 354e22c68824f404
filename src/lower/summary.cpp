#include "skeleshare/lower/summary.h"

#include "skeleshare/lower/printer.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"

namespace skeleshare::lower {

LoweredDesign lowerDesign(const ir::Module& module, ir::Context& ctx, const LowerOptions& options) {
  // One counter for the read passes and the estimate: the estimate walks the reads the
  // passes chose, which they have counted already.
  AccessCounter ownCounts;
  LowerOptions o = options;
  if (!o.accessCounter) o.accessCounter = &ownCounts;
  LoweredDesign d;
  d.program = lowerModule(module, ctx, o);
  d.text = printProgram(d.program);
  d.resources = programResources(d.program);
  d.cycles = estimateCycles(d.program, o.memory, *o.accessCounter);
  for (const auto& u : d.program.units) d.calls += u.call.has_value();
  return d;
}

}  // namespace skeleshare::lower
