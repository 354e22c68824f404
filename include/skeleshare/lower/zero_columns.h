#pragma once
// Dropping the columns of a dot product that are zero in one operand (docs/lowering.md,
// "Zero columns"). A convolution whose input channels are padded with zeros to the unit's
// width (PaddedConvICH: TinyYolo's 3 channels to 64) reads its window [KS][KS][C] as one
// flattened column index with a mask on the channel digit: positions past the c real
// channels read 0. Every product there is 0, so the sum is the same without them: the
// column index may enumerate [KS][KS][c] instead, and a step's lanes fill with real
// channels of the next kernel positions (a 3x3x3 window is one step of 64 lanes, not nine).
// The digits keep their meaning (the coordinates and the masks are unchanged); only their
// radices shrink, so the edit is exact for any operand layout. The same holds for a summed
// tile loop (a tiling of the padded channels: the tiles past the real ones are zero) and,
// once merged with the columns, for a tiling of the columns themselves.

#include <cstddef>

#include "skeleshare/lower/addrgen.h"

namespace skeleshare::lower {

/// Shrinks the radices of counter `ctr`'s index where one operand of a product reads 0
/// past some value of a digit: a mask of that operand, all of whose masks fill 0, whose
/// expression has no negative term, fires there whatever the other digits are. The counter
/// must be the whole of one group in each generator (its value exactly the counter), with
/// the same radices; a flattened index padded at its end (its top digit past its radix)
/// shrinks when a mask makes the padding zero, a cropped one never. Returns whether
/// anything changed; the counter's extent is then the product of its new radices, in both
/// generators.
bool dropZeroColumns(AddrGen& a, AddrGen& b, size_t ctr);

/// Merges counter `loop` into counter `col` (their extents multiply, `loop` keeps extent
/// 1) when every group of both generators sees the two only as ext(col) * loop + col: a
/// summed tile loop over a tiled index, whose sum is then one sum over the whole index.
/// Returns whether it merged.
bool mergeIntoColumns(AddrGen& a, AddrGen& b, size_t loop, size_t col);

}  // namespace skeleshare::lower
