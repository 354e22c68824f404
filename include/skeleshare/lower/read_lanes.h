#pragma once
// The lanes of reads (a pass after the lowering's templates, before buffer placement).
// A read moves one run of consecutive elements per cycle, consecutive in its counter
// order, and requests each run's memory line unless it keeps it (by default the last
// line; runs.h, and keepReadLines below). Two shapes of a vector cost more than they must:
//
// - Lanes in the wrong order. A height-wise 1D convolution's window is (column, tap), its
//   taps in three rows: no two consecutive lanes lie in one row, so a 16 x 3 window is 48
//   runs. Read as (tap, column) it is three runs of 16.
// - Vectors narrower than the lines they share. With 16 of a 64-wide row's columns per
//   vector, the four vectors of a row each request the window's three lines again: the
//   last line requested is never the next one needed. Read as one 4 x 16 x 3 vector and
//   sent on as four, each line is requested once per row.
//
// - Windows read one by one. A convolution's window [ky][kx][c] is a flattened index
//   (several radices, a few runs: one per window row); the windows along a row of outputs
//   overlap, so TinyYolo's first layer read every image byte 9 times, 3 runs a window.
//   A box read reads the innermost counters' region of the buffer once (the three rows
//   under 13 windows: 3 runs for 13 windows), and SelectLanes (wires) takes each window's
//   lanes out of it; VecToStm sends the windows on one a step, as before. Off by default
//   (LowerOptions::boxReads).
//
// This pass reads such a vector in the cheaper shape and restores the consumer's with
// wiring (PermuteVec) and a serialiser (VecToStm, whose buffer holds one wide vector). It
// keeps a shape only when the read then takes fewer runs (lanes) or fewer lines and no
// more runs (width), so no design gets slower; the cycle model counts the result
// (lower/timing.h), as it counts everything the lowering builds.

#include <cstddef>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

class AccessCounter;

/// The widest vector a read is widened to (elements).
inline constexpr int64_t kMaxWidenedReadLanes = 512;

/// The most lanes of a box read, and of the windows its SelectLanes spreads them into
/// (the VecToStm after it holds them all).
inline constexpr int64_t kMaxBoxLanes = 2048;

/// Reshapes the reads of every unit as above, counting the candidates' runs through
/// `counts`; box reads only where `boxReads`, and only for reads nothing replays, whose
/// box takes fewer runs and no more lines. Returns the number of reads changed.
size_t shapeReadLanes(Program& prog, AccessCounter& counts, bool boxReads = false);

/// The most lines a read keeps (ss_read's KEEP, registers of a line each).
inline constexpr int64_t kMaxKeptLines = 8;

/// Kept lines. A read requests a line unless it is among the last lines its runs used:
/// one by default. A convolution's flattened window reads a segment of each of its rows,
/// each in another line, so with one kept line every window requests all its rows' lines
/// again, though the window beside it used the same ones (TinyYolo's 3 x 3 x 3 windows:
/// 78 times the image). Keeping a line per row, and the next where a segment crosses
/// into it, requests each line about once per row of windows. This pass counts a read's
/// lines for each count up to kMaxKeptLines; where the most saving is at least an eighth
/// of the lines one kept line requests, it gives the read the fewest kept lines that save
/// seven eighths of that (a line register each: not for the last few lines). Returns the
/// number of reads changed. Run after the passes that change reads' generators.
size_t keepReadLines(Program& prog, AccessCounter& counts);

}  // namespace skeleshare::lower
