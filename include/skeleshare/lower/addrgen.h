#pragma once
// The affine address generator of the mid-level IR: the counters of a memory read or
// write and the address they produce (SHIR's lesson: reshaping folded into the memory
// access is an address pattern and costs no buffer).
//
//   counters   nested loops, outermost first, each a stream or a vector dimension; they are
//              the dimensions of the value read (or written)
//   groups     one index per group, affine in the counters: value = offset + sum(coef*ctr).
//              A group with radices [r0, r1, ..., rk] splits its value into k+1 digits in
//              mixed radix (d0 = value / (r1*...*rk), the others value / ... mod r_i); a
//              group with one radix has one digit, its value. Multi-radix groups are how a
//              flattened, non-contiguous window (ky, kx, c) is chunked into vector lanes.
//   coords     one per dimension of the addressed buffer, affine in the digits
//   masks      in priority order: the first mask whose digit expression leaves [lo, hi)
//              makes the element `fill` (a read) or suppresses it (a write). Padding is a
//              mask; so is the guard of a partly used vector lane.
//
// The address is the row-major offset of the coords. When every group has one radix the
// generator is the plain form base + sum(counter * stride) (`linear()`).
//
// The edits (pad, slide, permute, repeat, flatten, slice, split) keep the "view form":
// group i is exactly counter i (coefficient 1, offset 0), so a view's counters are the
// dimensions of the logical tensor it denotes. `regroup` leaves the view form: a template
// replaces the counters by its own loops and gives every group a value over them.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "skeleshare/lower/mtype.h"

namespace skeleshare::lower {

struct Affine {
  int64_t offset = 0;
  std::vector<int64_t> coef;
  int64_t eval(std::span<const int64_t> vars) const;
  bool operator==(const Affine&) const = default;
  /// "3 + 2*x0 - x2" over variables named `prefix`.
  std::string str(char prefix) const;
};

struct Counter {
  int64_t extent = 1;
  DimKind kind = DimKind::Stream;
  bool operator==(const Counter&) const = default;
};

struct IndexGroup {
  Affine value;                  // over counters
  std::vector<int64_t> radices;  // outermost first, at least one
  bool operator==(const IndexGroup&) const = default;
};

struct Mask {
  Affine expr;  // over digits
  int64_t lo = 0, hi = 0;
  int32_t fill = 0;
  bool operator==(const Mask&) const = default;
};

struct Access {
  bool valid = true;    // false: masked
  int64_t address = 0;  // row-major offset into the buffer (valid only)
  int32_t fill = 0;     // the masking mask's fill (masked only)
};

struct LinearForm {
  int64_t base = 0;
  std::vector<int64_t> strides;  // per counter
};

class AddrGen {
 public:
  std::vector<int64_t> space;  // shape of the addressed buffer
  std::vector<Counter> counters;
  std::vector<IndexGroup> groups;
  std::vector<Affine> coords;  // over digits, one per space dimension
  std::vector<Mask> masks;     // over digits, priority order

  bool operator==(const AddrGen&) const = default;

  /// The identity view of a buffer: one stream counter per dimension.
  static AddrGen identity(const std::vector<int64_t>& space);

  size_t numDigits() const;
  /// The first digit of group g.
  size_t firstDigit(size_t g) const;
  /// The digits for given counter values.
  std::vector<int64_t> digits(std::span<const int64_t> counterValues) const;
  Access at(std::span<const int64_t> counterValues) const;
  /// base + sum(counter*stride), when every group has one radix; nullopt otherwise.
  std::optional<LinearForm> linear() const;
  /// The type of the value read through this generator with elements of `bits`.
  MType valueType(int bits) const;
  /// True in view form: the classic one (see above) or the general one, where a logical
  /// index may be spread over several counters (a flattened index split where its radices
  /// do not break: its group's value is n*outer + inner), so counters are the logical
  /// dimensions and every group's value is linear in them. Edits keep it.
  bool isView() const;
  /// Group i is exactly counter i (one group per counter).
  bool isClassicView() const;
  /// Some coordinate uses a digit of group g (otherwise g is a guard).
  bool usedGroup(size_t g) const;
  /// The groups (not guards) whose value depends on `counter`.
  std::vector<size_t> groupsOf(size_t counter) const;
  /// Some coordinate or mask depends on `counter` (through a digit of a group whose value
  /// uses it). A counter it does not depend on has stride 0: every value of it accesses
  /// the same element, so the value read is the same for each (a repetition).
  bool dependsOn(size_t counter) const;
  /// Removes a counter the generator does not depend on (dependsOn is false), with the
  /// groups that only it used. Not a view edit: the result need not be in view form.
  void removeCounter(size_t counter);

  // ---- edits of a view (each throws std::logic_error when its precondition fails) ----
  /// Counter d grows by before + after; the new positions read `fill`.
  void pad(size_t d, int64_t before, int64_t after, int32_t fill);
  /// Counter d grows by before + after like pad, but the new positions read the buffer's
  /// own elements (no mask): for a caller whose new positions only ever meet zeros (a
  /// pairing's columns past the image, against zero taps). Done, and true, only in
  /// classic view form and where every new position stays inside the buffer (check());
  /// otherwise the generator is unchanged and the result is false.
  bool extend(size_t d, int64_t before, int64_t after);
  /// Counter d (one digit, extent E) runs backwards: index = E - 1 - counter.
  void reverse(size_t d);
  /// Counter d (extent E) becomes (windows, size): index = step*window + k.
  void slide(size_t d, int64_t size, int64_t step);
  /// New counter order: new counter i is old counter order[i].
  void permute(const std::vector<size_t>& order);
  void transpose(size_t a, size_t b);
  /// A new counter of extent n at position pos that no coordinate depends on (stride 0).
  void repeat(size_t pos, int64_t n);
  /// Counters d and d+1 merge into one (row-major); their digits are kept.
  void flatten(size_t d);
  /// Counter d keeps indices [start, start + len).
  void slice(size_t d, int64_t start, int64_t len);
  /// Counter d (one radix, extent E, n | E) becomes (E/n, n).
  void split(size_t d, int64_t n);
  /// Digit i > 0 of counter d's flattened index (a radix inside it) grows to `radix`; the
  /// new positions read `fill`. A window [ky][kx][c] padded at kx reads each window row at
  /// a fixed offset of the flat index (a dot's steps then start at its rows).
  void padDigit(size_t d, size_t i, int64_t radix, int32_t fill);
  /// Appends a group whose single digit no coordinate uses: used to guard a view read in
  /// the loop order of another stream (its invalid lanes).
  size_t addGuardGroup(Affine value, int64_t radix);
  /// Prepends a mask on the top digit of group g: value in [0, product of radices).
  void guardGroup(size_t g, int32_t fill);
  /// Replaces the counters; every group keeps its radices and gets a new value (over the
  /// new counters). Leaves view form.
  void regroup(std::vector<Counter> newCounters, std::vector<Affine> groupValues);
  /// Replaces the counters; counter k is worth counterValues[k] (over the new ones), and
  /// every group's value is rewritten accordingly. Leaves view form. In classic view form
  /// this is regroup with one value per group.
  void substitute(std::vector<Counter> newCounters, const std::vector<Affine>& counterValues);

  /// Empty if well formed; otherwise the first problem: sizes of the affine forms, radices,
  /// and any coordinate that may leave the buffer without a mask guarding exactly it.
  std::string check() const;
  /// One-line text form.
  std::string str() const;
};

/// Calls fn(counterValues, linearIndex) for every tuple of the counters' values, in
/// row-major order (the last counter fastest).
template <class Fn>
void forEachIndex(const std::vector<Counter>& counters, Fn fn) {
  std::vector<int64_t> idx(counters.size(), 0);
  int64_t total = 1;
  for (const auto& c : counters) total *= c.extent;
  for (int64_t lin = 0; lin < total; ++lin) {
    fn(std::span<const int64_t>(idx), lin);
    for (size_t d = counters.size(); d-- > 0;) {
      if (++idx[d] < counters[d].extent) break;
      idx[d] = 0;
    }
  }
}

}  // namespace skeleshare::lower
