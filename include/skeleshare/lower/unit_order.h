#pragma once
// The order of independent units, for units that start with the unit before them
// (lower/overlap.h). One unit at a time, the order of two units that share no buffer does
// not change the schedule's cycles; side by side it does. Self-attention computes
// q, k, scores = q k^T, v, out = scores v: `out` replays all of `v`, so with `v` just
// before it, `out` waits for `v` to end; with v before the scores, `out` streams behind
// the scores' rows and `v` is done long before.

#include <cstddef>
#include <cstdint>

#include "skeleshare/cost/cycle_model.h"
#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

class AccessCounter;

/// Whether two units may trade places in the schedule: neither writes a buffer that the
/// other reads or writes.
bool independentUnits(const Unit& a, const Unit& b);

/// Swaps neighbouring independent units while the schedule's estimate (estimateCycles,
/// with applyOverlap after each swap) falls and the design's RAMs fit `onChipBudgetBits`,
/// one swap at a time, the first that gains, from the front. Renames the moved units so
/// that `u<k>_` is their position. Leaves the program's overlap applied (applyOverlap).
/// Returns the swaps made.
size_t orderUnitsForOverlap(Program& prog, int64_t onChipBudgetBits, const cost::MemorySystem& memory,
                            AccessCounter& counts);

}  // namespace skeleshare::lower
