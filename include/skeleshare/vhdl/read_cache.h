#pragma once
// How many 512-bit lines an ss_read caches, chosen from its access pattern.
//
// ss_read keeps CACHE_LINES lines, fully associative, replaced in turn (FIFO), and asks
// the memory arbiter for a line when a run's first accessed element is not cached. Too
// few lines and a read whose vectors gather from many lines (a convolution's weights:
// elements 32 bytes apart over 14 lines, reused by the next 16 vectors) misses on every
// line; each line costs registers (512 bits) and a tag compare. The emitter knows the
// address generator, so it replays the read's line sequence through the same FIFO cache
// at every candidate size and keeps the smallest that misses about as rarely as the
// largest (docs/hardware.md, "Memory system").

#include <cstdint>
#include <vector>

#include "skeleshare/lower/addrgen.h"

namespace skeleshare::vhdl {

/// The candidate cache sizes in lines, smallest first.
inline constexpr int64_t kMinCacheLines = 4;
inline constexpr int64_t kMaxCacheLines = 32;
/// Elements replayed at most (a prefix of longer reads: their loops repeat).
inline constexpr int64_t kCacheTraceElements = int64_t{1} << 20;

/// The lines touched by the accessed (unmasked) elements of `g`, in order, consecutive
/// repeats removed; element i of the buffer is at byte base + i * elemBytes. At most
/// `maxElements` elements are visited.
std::vector<int64_t> readLineSequence(const lower::AddrGen& g, int64_t base, int64_t elemBytes,
                                      int64_t maxElements = kCacheTraceElements);

/// Misses of a FIFO cache of `lines` lines (empty at the start) on `sequence`.
int64_t fifoMisses(const std::vector<int64_t>& sequence, int64_t lines);

/// The smallest power of two in [kMinCacheLines, kMaxCacheLines] whose misses on the
/// read's line sequence are at most 1/8 above those of kMaxCacheLines.
int64_t readCacheLines(const lower::AddrGen& g, int64_t base, int64_t elemBytes);

}  // namespace skeleshare::vhdl
