#pragma once
// The cycle model of the generated hardware (docs/cost-model.md, "The hardware's cycles"). One
// formula gives the cycles of a unit; the extractor feeds it quantities derived from the
// skeletons' shapes (cost_model.cpp), the lowering the same quantities counted on the
// lowered program (lower/timing.h), and simulation confirms both.
//
// A unit is a pipeline of stages that overlap: every address generator takes one run per
// cycle, every other stage one transfer per cycle, and all lines of the unit's reads and
// writes cross the one memory port, which moves `linesPerKilocycle / 1000` lines per cycle
// on average (port = lines / that). The unit takes as long as its busiest stage or its
// memory traffic, whichever is longer, plus the time to fill and drain the pipeline; and
// when the two are close it takes longer than either, because a run then often waits for
// a line the port has not delivered yet (the prefetch cannot run ahead of a saturated
// port):
//
//   cycles = max(busiest, port, on-chip, 5/8 * (stalled + port)) + depth + latency
//
// where `on-chip` is the lines the unit moves through its busiest on-chip buffer: an
// intermediate kept in block RAM has a port of its own that moves a line every cycle, with
// no wait states (so it does not stall the stages the way the external port does).
//
// The last term is the linear upper envelope of the 3-norm of (busiest, port), which fits
// the units of VGG-small as simulated (docs/cost-model.md, "The hardware's cycles"); it stays a
// maximum of affine terms so that the extractor can encode it exactly. Only the stages a
// late line can stall count in it (`stalled`, the busiest of them): a replay buffer that
// plays each block at least twice loads the next block into its second bank while the
// stages after it play the current one, so a late line delays the block, not their steps.
// The read that fills it still waits for its lines. (VGG-CIFAR at a quarter of the DSPs,
// whose 512-channel layers stream 36,864 weight lines into such a buffer: simulated 61,548
// cycles a layer, where busiest is the datapath's 61,498 and 5/8 of its sum with the port
// 71,608; at half of them the read's 38,016 runs and the port's 52,843 cycles take 56,258
// simulated, 5/8 of their sum 56,787.)
//
// Units run one after another, `kUnitSwitch` cycles apart (the sequencer's handover).

#include <cstdint>

#include "skeleshare/cost/device.h"

namespace skeleshare::cost {

/// The memory port as the device describes it.
struct MemorySystem {
  int64_t linesPerKilocycle = 1000;  // sustained 512-bit lines per 1,000 cycles (integers: exact, deterministic)
  int64_t latency = 0;               // cycles from a read request to its data
};
MemorySystem memorySystem(const Device& device);

/// What one unit does, in the quantities the formula needs.
struct UnitLoad {
  int64_t busiest = 0;  // cycles of the busiest stage (runs, transfers or replayed words)
  int64_t lines = 0;    // lines its reads and writes move over the external memory port
  int64_t depth = 0;    // registered stages along its longest path, memory access included
  int64_t onChipLines = 0;  // lines through its busiest on-chip buffer's port (one per cycle)
  /// Cycles a replay buffer waits for its first block beyond what the block's first pass
  /// covers: the unit's datapath runs that much longer than its steps. `busiest` includes
  /// it; the extractor, which counts the steps of the function it chooses, adds it.
  int64_t replayFill = 0;
  /// Cycles of the busiest stage that a late line from the port can stall (lower::
  /// stallingStages): the interference term's. Stages behind a replay buffer that plays
  /// each block twice or more take their data from the buffer, not from the port.
  int64_t stalled = 0;
};

/// The cycles of one unit, from the sequencer starting it to the memory accepting its
/// last write.
int64_t unitCycles(const UnitLoad& load, const MemorySystem& memory);

/// The unit before one that starts with it (lower/overlap.h), as that one sees it.
struct Neighbour {
  int64_t end = 0;            // its end
  bool feeds = false;         // the unit reads what it writes, each line once written
  bool sharesInstance = false;  // both call one shared instance, the neighbour first
  // With sharesInstance: how long before its end the neighbour lets the instance go. 0:
  // at its end; handed over stream by stream, once its last input is in (its drain).
  int64_t drain = 0;
  // With sharesInstance: the two calls interleave step by step (lower::interleavesSteps),
  // and the instance, one step a cycle, has taken the neighbour's steps by `stepsTaken`
  // at the earliest (the gaps its inputs leave go to the unit).
  bool interleaves = false;
  int64_t stepsTaken = 0;
  // When the memory port has moved the neighbour's lines at the earliest (portDone): the
  // arbiter serves the neighbour first, so the unit's lines follow.
  int64_t portDone = 0;
};

/// The unit that starts beside its neighbour, in the quantities overlappedEnd needs.
struct OverlappingUnit {
  int64_t start = 0;
  int64_t cycles = 0;  // its time alone (unitCycles)
  // the part of `cycles` before its datapath takes its first input (its replay fill, its
  // reads' stages, the memory's latency), which runs while the neighbour does
  int64_t lead = 0;
  // the part of the lead that waits for its replay buffers' first block (UnitLoad::
  // replayFill): those lines come over the port after the neighbour's. Without one, its
  // first operands are its ports' first requests, which the arbiter serves at once.
  int64_t fill = 0;
  int64_t tail = 0;   // fed by the neighbour: what is left after the neighbour's last line
  int64_t steps = 0;  // its steps through the shared instance
  int64_t drain = 0;  // after its last step: its stages after the reads, the memory's latency
  int64_t port = 0;   // cycles the memory port takes to move its lines (portCycles)
  int64_t portTail = 0;  // after its last line over the port: its pipeline, the latency
  // its busiest stage that a late line can stall (UnitLoad::stalled): it waits while the
  // arbiter serves the neighbour's lines
  int64_t stalled = 0;
};

/// The earliest cycle by which a call's instance, one step a cycle, has taken the call's
/// steps: its first input is ready `lead` after its start, and `fill` after the port has
/// moved the neighbour's lines; with a neighbour it interleaves with, the neighbour's
/// steps go first.
int64_t stepsTaken(const OverlappingUnit& unit, const Neighbour& prev);

/// The earliest cycle by which the memory port has moved the unit's lines, after the
/// neighbour's (prev.portDone; 0 without a neighbour).
int64_t portDone(const OverlappingUnit& unit, const Neighbour& prev);

/// The end of a unit that starts beside its neighbour, the latest of:
/// - its start plus its cycles;
/// - fed by the neighbour: the neighbour's end plus `tail` (its last read waits for the
///   neighbour's last line);
/// - sharing its instance: the rest of it after the neighbour's hold on the instance,
///   its lead hidden; interleaving with it, its steps follow the neighbour's (stepsTaken)
///   and it ends `drain` after its last, or its time alone after its lead after the
///   neighbour's last step, whichever is later;
/// - `portTail` after the port has moved its lines, after the neighbour's (portDone);
/// - its stalled stages' busy cycles plus `portTail` after the port has moved the
///   neighbour's lines: a stage that waits on lines gets none while the arbiter serves
///   the neighbour, whose lines go first.
int64_t overlappedEnd(const OverlappingUnit& unit, const Neighbour& prev);

/// What a unit with `lead` saves beside a neighbour that calls the same shared instance
/// and lets it go `neighbourDrain` before its end, against starting after it: the
/// overlappedEnd of a unit long enough to hide both (lead + neighbourDrain + kUnitSwitch).
/// The extractor credits it to every caller of an instance that all units call.
int64_t handoverCredit(int64_t lead, int64_t neighbourDrain);

/// Cycles the port takes to move `lines` lines.
int64_t portCycles(int64_t lines, const MemorySystem& memory);

/// Cycles `multipliers` (at least one) take for `macs` multiply-accumulates, one each a
/// cycle: the compute bound. Saturates at the largest int64_t.
int64_t computeCycles(uint64_t macs, int64_t multipliers);

/// The fewest cycles one layer can take when layers run one after another (as the units
/// do): its MACs over the multipliers, or its weights' lines over the port (every weight
/// byte is read at least once), whichever is longer. Summed over a program's layers it
/// bounds every design with those multipliers (docs/cost-model.md, "Bounds").
int64_t layerBoundCycles(uint64_t macs, uint64_t weightBytes, int64_t multipliers, int64_t lineBytes,
                         const MemorySystem& memory);

/// Cycles between one unit's end and the next one's start.
inline constexpr int64_t kUnitSwitch = 1;
/// The interference of a saturated port with the stages it feeds: 5/8 of their sum.
inline constexpr int64_t kInterferenceNum = 5, kInterferenceDen = 8;

}  // namespace skeleshare::cost
