#pragma once
// The replay buffers' RAMs, shared between units (docs/hardware.md, "Replay buffers").
//
// Units run one at a time (the top's sequencer holds every other unit in reset), so a
// replay buffer (Repeat) holds data only while its unit runs, and the units' replay
// buffers can live in the same RAMs. Each RAM is a slot: one word width, as deep as the
// deepest buffer placed in it. A unit's buffers of one width go to that width's slots,
// deepest first, so that the k-th deepest buffer of width W of every unit shares slot
// (W, k) (a buffer that a shared instance reads first, so that the instance reads every
// call's operand from one RAM, without a multiplexer). A design's replay memory is then the sum over slots of width x depth, where
// one RAM per buffer made it the sum over buffers: full VGG-CIFAR's 54.8 Mbit become
// 9.5 Mbit.
//
// A Repeat inside a shared instance's datapath is built once with the instance and keeps
// a RAM of its own; every other Repeat is pooled.

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

/// What a Repeat node's replay buffer holds: `words` words (both banks) of `width` bits.
struct ReplayShape {
  int64_t width = 0;
  int64_t words = 0;
};
/// The buffer of a Repeat node (two banks of its block, ss_repeat's RAM).
ReplayShape replayShape(const Unit& unit, const Node& repeat);

/// The beats a Repeat's buffer can be written in (docs/hardware.md, "Replay buffers
/// written in beats"): its input is a Read that nothing else uses, and no run of that
/// Read crosses a boundary of B lanes, B the power of two at or above the elements it
/// moves per cycle (lower::readRunsStayInBlocks). Then the Read can deliver its vector of
/// L lanes as L / B vectors of B lanes with the same runs in the same cycles, and the
/// buffer writes one per cycle: the Read assembles B lanes, not L. L / B; 1 when the input
/// is anything else.
int64_t replayWriteBeats(const Program& prog, const Unit& unit, uint32_t repeat);

/// The Repeat whose data node n's is: n itself, or through splits and joins; nullopt when
/// there is none.
std::optional<uint32_t> replayedRepeat(const Unit& unit, uint32_t n);

struct ReplaySlot {
  int64_t width = 0;
  int64_t words = 0;                                 // the deepest buffer placed in it
  int64_t beats = 1;  // its write beats: the most of any user's; each user writes gcd(its own, this)
  std::vector<std::pair<size_t, uint32_t>> users;    // (unit, Repeat node), in schedule order
  int64_t bits() const { return width * words; }
};

struct ReplayPool {
  std::vector<ReplaySlot> slots;                     // in order of first use
  std::map<std::pair<size_t, uint32_t>, size_t> slotOf;  // (unit, Repeat node) -> slot
  std::map<std::pair<size_t, uint32_t>, int64_t> beatsOf;  // (unit, Repeat node) -> the beats it writes
  int64_t bits() const;
};

/// The slots of every Repeat outside the shared datapaths, as described above. A unit that
/// starts with the one before it (prog.startsWithPrevious: they run at once) shares slots
/// only with the units of its side, every other one from it: never with a unit beside it.
ReplayPool planReplayPool(const Program& prog);

}  // namespace skeleshare::lower
