#pragma once
// The cycle model (cost/cycle_model.h) applied to a lowered program: every unit's load
// counted on its nodes: the runs of its reads and writes exactly as the templates form them
// (runs.h), the transfers of every other stage, the words its replay buffers play, the
// lines it moves over the memory port and its pipeline depth.

#include <cstdint>
#include <vector>

#include "skeleshare/cost/cycle_model.h"
#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

class AccessCounter;

/// The load of one unit (its reads' and writes' runs and lines counted through `counts`);
/// `memory`'s port paces the first block of a replay buffer filled from memory.
cost::UnitLoad unitLoad(const Program& prog, const Unit& unit, AccessCounter& counts, const cost::MemorySystem& memory);
/// Per node of the unit: whether a line the memory port delivers late can stall it (the
/// interference term's stages, cost/cycle_model.h): its off-chip reads and writes and
/// every stage they feed, except through a replay buffer that plays each block twice or
/// more (it takes the next block while it plays the current one).
std::vector<bool> stallingStages(const Program& prog, const Unit& unit);
/// The most cycles one of the unit's reads whose data no Repeat replays keeps busy: its runs, or
/// an on-chip buffer's lines where they are more (one a cycle).
int64_t freshReadRuns(const Program& prog, const Unit& unit, AccessCounter& counts);

/// The quantities cost::overlappedEnd takes of a unit with `load` and `cycles` alone, but
/// its start and, fed by its neighbour, its tail (fedTail): its lead, fill, steps through
/// its call's instance, drain, port and pipeline after its last line. The schedule's
/// estimate and the extractor's oracle both take them from here.
cost::OverlappingUnit overlapQuantities(const Unit& unit, const cost::UnitLoad& load, int64_t cycles,
                                        const cost::MemorySystem& memory);
/// After its last input: the unit's stages after the reads and the memory's latency.
int64_t drainCycles(const cost::UnitLoad& load, const cost::MemorySystem& memory);
/// Fed by its neighbour through `reads` (nodes of the unit that read what the neighbour
/// writes, each line once written): what is left of the unit after the neighbour's last
/// line (`cycles`), or nothing without such reads. Its share of work on one line of the
/// smallest such buffer (all of it for a buffer of one line) or a replayed read's blocks
/// from the one that holds the last line on (`lastLine`), then its pipeline and, for a
/// buffer off chip, the memory's latency (`after`).
struct FedTail {
  int64_t lines = 0;  // of the smallest buffer read; 0: not fed
  int64_t lastLine = 0, after = 0;
  int64_t cycles() const { return lines > 0 ? lastLine + after : 0; }
};
FedTail fedTail(const Program& prog, const Unit& unit, const std::vector<uint32_t>& reads, const cost::UnitLoad& load,
                const cost::MemorySystem& memory);

struct CycleEstimate {
  std::vector<cost::UnitLoad> loads;
  std::vector<int64_t> perUnit;  // cycles of each unit
  std::vector<int64_t> start, end;  // each unit's first and last cycle in the schedule
  int64_t total = 0;             // the schedule's: one after another, or side by side where a unit starts with the one before it
  int64_t oneAfterAnother = 0;   // the same units one after another (what the extractor's prediction models)
};
/// The units' loads counted through `counts` (the lowering's, whose read passes already
/// counted most of these reads), or through a counter of its own.
CycleEstimate estimateCycles(const Program& prog, const cost::MemorySystem& memory, AccessCounter& counts);
CycleEstimate estimateCycles(const Program& prog, const cost::MemorySystem& memory);

}  // namespace skeleshare::lower
