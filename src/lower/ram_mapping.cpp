#include "skeleshare/lower/ram_mapping.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <tuple>

#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

namespace {

struct Shape {
  int64_t abits;  // 2^abits words
  int64_t dbits;  // of dbits bits
};

// The shapes of yosys's share/intel_alm/common/bram_m20k.txt (its variants, in order) and
// lutram_mlab.txt, both with "min efficiency 5".
constexpr std::array<Shape, 10> kM20kShapes{{{14, 1},
                                             {13, 2},
                                             {12, 4},
                                             {12, 5},
                                             {11, 8},
                                             {11, 10},
                                             {10, 16},
                                             {10, 20},
                                             {9, 32},
                                             {9, 40}}};
constexpr Shape kMlabShape{5, 1};
constexpr int64_t kMinEfficiency = 5;

struct Fit {
  int64_t cells = 0;
  int64_t acells = 0;
  int64_t efficiency = 0;  // whole percent, as memory_bram rounds it
};

Fit fit(Shape s, int64_t width, int64_t words) {
  const int64_t depth = int64_t{1} << s.abits;
  Fit f;
  f.acells = (words + depth - 1) / depth;
  f.cells = (width + s.dbits - 1) / s.dbits * f.acells;
  f.efficiency = 100 * width * words / (f.cells * s.dbits * depth);
  return f;
}

}  // namespace

RamCells mapRam(int64_t width, int64_t words) {
  RamCells r;
  if (width <= 0 || words <= 0) return r;
  // memory_bram keeps the accepted variant of the highest (efficiency, -cells, -acells);
  // between full ties (its hash order decides) the count is the same
  bool found = false;
  Fit best;
  for (const Shape& s : kM20kShapes) {
    const Fit f = fit(s, width, words);
    if (f.efficiency < kMinEfficiency) continue;
    if (!found || std::tuple(f.efficiency, -f.cells, -f.acells) > std::tuple(best.efficiency, -best.cells, -best.acells)) best = f;
    found = true;
  }
  if (found) {
    r.m20k = best.cells;
    return r;
  }
  const Fit mlab = fit(kMlabShape, width, words);
  if (mlab.efficiency >= kMinEfficiency) r.mlab = mlab.cells;
  else r.flipFlops = width * words;
  return r;
}

int64_t replayRamSliceWidth(int64_t width, int64_t words) {
  if (width <= 0 || words <= 0) return std::max<int64_t>(width, 1);
  const int64_t slices = (width * words + kMaxMemoryBits - 1) / kMaxMemoryBits;
  return (width + slices - 1) / slices;
}

RamCells mapReplayRam(int64_t width, int64_t words, int64_t beats) {
  if (beats < 1 || width % beats != 0) throw std::invalid_argument("mapReplayRam: beats must divide the width");
  const int64_t beat = width / beats;
  const int64_t slice = replayRamSliceWidth(beat, words);
  RamCells r;
  for (int64_t b = 0; b < beats; ++b)
    for (int64_t lo = 0; lo < beat; lo += slice) r += mapRam(std::min(slice, beat - lo), words);
  return r;
}

RamCells mapArbiterFifo(int64_t ports) {
  int64_t bits = 1;
  while ((int64_t{1} << bits) < ports) ++bits;
  return mapRam(bits, kArbiterPendingReads);
}

RamCells mapLineRam(int64_t lines) {
  RamCells byte = mapRam(8, lines);
  return {byte.m20k * kLineBytes, byte.mlab * kLineBytes, byte.flipFlops * kLineBytes};
}

}  // namespace skeleshare::lower
