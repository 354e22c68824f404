#include "skeleshare/lower/zero_columns.h"

#include "skeleshare/support/int_math.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace skeleshare::lower {
namespace {

/// The group whose value is exactly counter `ctr` and that no other group shares it with.
std::optional<size_t> groupOfCounter(const AddrGen& g, size_t ctr) {
  std::optional<size_t> found;
  for (size_t i = 0; i < g.groups.size(); ++i) {
    const Affine& v = g.groups[i].value;
    if (ctr >= v.coef.size() || v.coef[ctr] == 0) continue;
    if (found) return std::nullopt;  // two groups use it
    if (v.offset != 0) return std::nullopt;
    for (size_t k = 0; k < v.coef.size(); ++k)
      if (v.coef[k] != (k == ctr ? 1 : 0)) return std::nullopt;
    found = i;
  }
  return found;
}

/// The first value of `digit` from which g reads 0 whatever its other digits are (the
/// radix when there is none): a mask sum(coef * digit) + offset in [lo, hi), every coef
/// >= 0 (digits are >= 0 in view form), leaves its range once coef(digit) * value >= hi -
/// offset. Only an operand whose masks all fill 0 can promise a 0: a mask of higher
/// priority with another fill would otherwise decide some elements.
int64_t zeroFrom(const AddrGen& g, size_t digit, int64_t radix) {
  int64_t from = radix;
  for (const Mask& m : g.masks) {
    if (m.fill != 0) return radix;
    if (digit >= m.expr.coef.size() || m.expr.coef[digit] <= 0) continue;
    if (std::any_of(m.expr.coef.begin(), m.expr.coef.end(), [](int64_t c) { return c < 0; })) continue;
    from = std::min(from, std::max<int64_t>(1, ceilDiv(m.hi - m.expr.offset, m.expr.coef[digit])));
  }
  return from;
}

}  // namespace

bool dropZeroColumns(AddrGen& a, AddrGen& b, size_t ctr) {
  if (ctr >= a.counters.size() || ctr >= b.counters.size()) return false;
  const auto ga = groupOfCounter(a, ctr), gb = groupOfCounter(b, ctr);
  if (!ga || !gb) return false;
  std::vector<int64_t>& ra = a.groups[*ga].radices;
  std::vector<int64_t>& rb = b.groups[*gb].radices;
  const int64_t extent = a.counters[ctr].extent;
  if (ra != rb || extent != b.counters[ctr].extent) return false;
  // The values each digit takes: its radix, but a flattened index padded at its end (a
  // PaddedMv of a window) runs its top digit past its radix, where a mask makes it padding.
  const int64_t inner = product(ra) / ra[0];
  std::vector<int64_t> range = ra;
  range[0] = ceilDiv(extent, inner);
  if (range[0] < ra[0]) return false;  // a cropped index: its last top digit is partial
  const size_t fa = a.firstDigit(*ga), fb = b.firstDigit(*gb);
  std::vector<int64_t> keep(ra.size());
  bool changed = false;
  for (size_t j = 0; j < ra.size(); ++j) {
    keep[j] = std::min({range[j], zeroFrom(a, fa + j, range[j]), zeroFrom(b, fb + j, range[j])});
    changed = changed || keep[j] < range[j];
  }
  // Positions past the named ones that no mask makes zero would be lost.
  if (!changed || (range[0] * inner != extent && keep[0] > ra[0])) return false;
  ra = rb = keep;
  a.counters[ctr].extent = b.counters[ctr].extent = product(keep);
  return true;
}

bool mergeIntoColumns(AddrGen& a, AddrGen& b, size_t loop, size_t col) {
  for (const AddrGen* g : {&a, &b}) {
    if (loop >= g->counters.size() || col >= g->counters.size() || loop == col) return false;
    const int64_t inner = g->counters[col].extent;
    bool seen = false;
    for (const IndexGroup& gr : g->groups) {
      const int64_t cl = gr.value.coef[loop], cc = gr.value.coef[col];
      if (cl != cc * inner) return false;
      seen = seen || cl != 0;
    }
    if (!seen) return false;
  }
  for (AddrGen* g : {&a, &b}) {
    g->counters[col].extent *= g->counters[loop].extent;
    g->counters[loop].extent = 1;
    for (IndexGroup& gr : g->groups) gr.value.coef[loop] = 0;
  }
  return true;
}

}  // namespace skeleshare::lower
