#pragma once
// The schedule of units that start with the unit before them (lower/overlap.h): which
// reused inputs to keep on chip (lower/reused_inputs.h) and the order of independent units
// (lower/unit_order.h). Both choices are made by the one estimate (lower/timing.h), so
// that a copy is kept only where the schedule with it is estimated faster.

#include <cstdint>

#include "skeleshare/cost/cycle_model.h"
#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

class AccessCounter;

/// Keeps each reused input on chip where the ordered, overlapped schedule's estimate then
/// falls and the design's RAMs fit `onChipBudgetBits` (one input at a time, in buffer
/// order), orders the units (orderUnitsForOverlap) and applies the overlap. Returns the
/// inputs kept.
int scheduleForOverlap(Program& prog, int64_t onChipBudgetBits, const cost::MemorySystem& memory,
                       AccessCounter& counts);

}  // namespace skeleshare::lower
