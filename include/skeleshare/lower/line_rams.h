#pragma once
// The on-chip buffers' RAMs, shared by buffers whose lives do not overlap (docs/hardware.md,
// "On-chip buffers").
//
// An intermediate kept on chip holds data from the first unit that accesses it (its
// writer) to the last (its last reader); units run one at a time, in schedule order. Two
// buffers whose spans of units do not overlap can therefore live in one RAM of lines
// (ss_line_ram), each from the RAM's first line. No unit accesses two buffers of one RAM,
// so every buffer a unit uses still has a line port of its own, as the cycle model
// assumes (UnitLoad::onChipLines). Full VGG-CIFAR's 18 intermediates need two RAMs
// instead of 18.

#include <cstdint>
#include <vector>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

struct LineRam {
  int64_t lines = 0;         // the largest of its buffers
  std::vector<int> buffers;  // program buffer indices, in order of their first unit
};

struct LineRamPlan {
  std::vector<LineRam> rams;
  std::vector<int> ramOf;  // per program buffer: its RAM, or -1 (off chip, or accessed by no unit)
};

/// The lines of a buffer in a line RAM (its bytes in whole 512-bit lines).
int64_t bufferLines(const Buffer& b);

/// The RAMs of the program's on-chip buffers: in order of their first unit, each buffer
/// goes to a RAM whose buffers' spans have all ended before it starts (the smallest one
/// that holds it, else the largest), or to a new RAM. A unit that starts with the one
/// before it (prog.startsWithPrevious) runs from that one's start: a buffer it uses shares
/// no RAM with one that the unit before it uses.
LineRamPlan planLineRams(const Program& prog);

}  // namespace skeleshare::lower
