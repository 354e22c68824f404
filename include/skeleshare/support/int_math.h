#pragma once
// Integer helpers that several stages need alike (counts of steps, lines, tiles).

#include <cstdint>
#include <vector>

namespace skeleshare {

/// ceil(a / b) for a >= 0 and b > 0.
constexpr int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The product of the values (1 for none): a mixed-radix index's extent.
inline int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

}  // namespace skeleshare
