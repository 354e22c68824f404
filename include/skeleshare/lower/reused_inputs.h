#pragma once
// Inputs that several units read, kept on chip after the first unit reads them.
//
// Where an off-chip input or weight is read by more than one unit, and the first of them
// reads it once, every line in rising order, unmasked, that unit can also write what it
// reads into an on-chip copy, and the later units read the copy: the memory port then
// moves the buffer once. Self-attention's three projections each read all of x.
//
// Whether to keep one is the schedule's choice (lower/overlap_schedule.h): a later unit
// that reads the copy beside the first one follows the first one's pace, which can be
// slower than the port.

#include <vector>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

/// The off-chip inputs and weights that keepOnChip can keep, in buffer order.
std::vector<int> reusedInputs(const Program& prog);

/// The first unit that reads `buffer` (one of reusedInputs) also writes it to a new
/// on-chip buffer `<name>_kept`, and every later read of `buffer` reads that instead.
void keepOnChip(Program& prog, int buffer);

}  // namespace skeleshare::lower
