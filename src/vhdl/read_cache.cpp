#include "skeleshare/vhdl/read_cache.h"

#include <algorithm>

#include "skeleshare/vhdl/memory_map.h"

namespace skeleshare::vhdl {

std::vector<int64_t> readLineSequence(const lower::AddrGen& g, int64_t base, int64_t elemBytes, int64_t maxElements) {
  std::vector<int64_t> seq;
  std::vector<int64_t> ctr(g.counters.size(), 0);
  for (int64_t n = 0; n < maxElements; ++n) {
    lower::Access a = g.at(ctr);
    if (a.valid) {
      int64_t line = (base + a.address * elemBytes) / kLineBytes;
      if (seq.empty() || seq.back() != line) seq.push_back(line);
    }
    // the next element: row-major, innermost counter first
    size_t k = ctr.size();
    while (k > 0 && ++ctr[k - 1] == g.counters[k - 1].extent) ctr[--k] = 0;
    if (k == 0) break;
  }
  return seq;
}

int64_t fifoMisses(const std::vector<int64_t>& sequence, int64_t lines) {
  std::vector<int64_t> tags;  // in insertion order, the oldest at `victim`
  size_t victim = 0;
  int64_t misses = 0;
  for (int64_t line : sequence) {
    if (std::find(tags.begin(), tags.end(), line) != tags.end()) continue;
    ++misses;
    if (static_cast<int64_t>(tags.size()) < lines) {
      tags.push_back(line);
    } else {
      tags[victim] = line;
      victim = (victim + 1) % tags.size();
    }
  }
  return misses;
}

int64_t readCacheLines(const lower::AddrGen& g, int64_t base, int64_t elemBytes) {
  std::vector<int64_t> seq = readLineSequence(g, base, elemBytes);
  int64_t best = fifoMisses(seq, kMaxCacheLines);
  for (int64_t lines = kMinCacheLines; lines < kMaxCacheLines; lines *= 2)
    if (fifoMisses(seq, lines) <= best + best / 8) return lines;
  return kMaxCacheLines;
}

}  // namespace skeleshare::vhdl
