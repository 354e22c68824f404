#include "skeleshare/lower/overlap_schedule.h"

#include <utility>

#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/reused_inputs.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/unit_order.h"

namespace skeleshare::lower {

int scheduleForOverlap(Program& prog, int64_t onChipBudgetBits, const cost::MemorySystem& memory,
                       AccessCounter& counts) {
  // `base` is the program in its lowered order with the copies kept so far; `best` is it
  // ordered and overlapped. A copy changes which orders are fast (self-attention's `out`
  // should follow the scores once `x` is kept), so each trial is ordered afresh.
  Program base = prog;
  Program best = base;
  orderUnitsForOverlap(best, onChipBudgetBits, memory, counts);
  int64_t bestCycles = estimateCycles(best, memory, counts).total;
  int kept = 0;
  // keepOnChip appends a buffer and leaves the others' numbers alone, so the candidates
  // found up front stay valid
  for (int buffer : reusedInputs(prog)) {
    Program withCopy = base;
    keepOnChip(withCopy, buffer);
    Program trial = withCopy;
    orderUnitsForOverlap(trial, onChipBudgetBits, memory, counts);
    if (!programFitsOnChip(trial, onChipBudgetBits)) continue;
    const int64_t cycles = estimateCycles(trial, memory, counts).total;
    if (cycles >= bestCycles) continue;
    base = std::move(withCopy);
    best = std::move(trial);
    bestCycles = cycles;
    ++kept;
  }
  prog = std::move(best);
  return kept;
}

}  // namespace skeleshare::lower
