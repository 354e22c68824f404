#pragma once
// Which units may start with the unit before them (the plan for units that run at the same
// time; docs/hardware.md, "Reading a buffer while it is written").
//
// The schedule runs the units in order, each once the one before it is finished. A unit
// may instead start when the unit before it starts: its reads fetch ahead and its replay
// buffers fill while the other computes, and where both call one shared instance it takes
// the instance when the other is finished. That is safe when:
//   - every buffer it reads that the unit before it writes has that write as its only
//     writer, and the write leaves each line final as it moves on (writeLinesRise): the
//     read is gated on the write's progress (ss_read GATED on ss_write's `wm`);
//   - it writes no buffer that the unit before it reads or writes.
// Two units at most run at once, always neighbours: a unit that starts with the one before
// it also waits for every unit before that one to finish, and any other unit waits for
// every unit before it. What two neighbours share otherwise (line RAMs, replay-pool RAMs)
// must not be used by both: planLineRams and planReplayPool follow the program's
// startsWithPrevious, which applyOverlap sets.

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

struct OverlapPlan {
  std::vector<bool> withPrevious;  // per unit: it starts when the unit before it starts
  // (unit, Read node) -> the Write node of the unit before it that the read waits on
  std::map<std::pair<size_t, uint32_t>, uint32_t> gatedOn;
};

/// Whether unit u may start with unit u - 1 (above), and the reads it then gates.
OverlapPlan planOverlap(const Program& prog);

/// Every unit that may start with the unit before it does (prog.startsWithPrevious), in
/// schedule order, as long as the design's M20K blocks (programResources) stay within
/// `onChipBudgetBits`.
void applyOverlap(Program& prog, int64_t onChipBudgetBits);

/// Whether unit u takes its shared instance from the unit before it stream by stream: both
/// call one instance, u starts with it, and the accumulations of the datapath (ReduceStm)
/// have the same lengths in both calls. Each of u's input ports then takes the instance once
/// the other call has fed that port all it has, and u's results follow the other call's
/// last result (the top counts the transfers), so u's inputs enter while the other call's
/// results drain.
bool handsOverStreams(const Program& prog, size_t u);

/// Whether the calls of a shared instance may interleave step by step: its datapath takes
/// one transfer from every port at once (one join reads them all, through wires only) and
/// gives one result per step (no accumulation longer than 1, no replay or line buffer), in
/// every call. Then the instance holds no state between steps, so the top can give each
/// step to a running call that has a whole step ready (two ready neighbours take turns)
/// and route the results back by the order the steps went in.
bool stepsInterleave(const Program& prog, size_t instance);

/// Whether unit u interleaves its steps with the unit before it on their shared instance:
/// handsOverStreams and stepsInterleave both hold.
bool interleavesSteps(const Program& prog, size_t u);

/// The reads of unit u that wait on the unit before it (Read node -> that unit's Write
/// node): none unless u starts with it.
std::map<uint32_t, uint32_t> gatedReads(const Program& prog, size_t u);

}  // namespace skeleshare::lower
