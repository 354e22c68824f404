#include "skeleshare/lower/addrgen.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "skeleshare/support/int_math.h"

namespace skeleshare::lower {
namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

[[noreturn]] void fail(const std::string& what) { throw std::logic_error("address generator: " + what); }

struct Range {
  int64_t lo, hi;  // inclusive
};

Range rangeOf(const Affine& a, const std::vector<Range>& vars) {
  Range r{a.offset, a.offset};
  for (size_t i = 0; i < a.coef.size(); ++i) {
    int64_t c = a.coef[i];
    if (c >= 0) { r.lo += c * vars[i].lo; r.hi += c * vars[i].hi; }
    else { r.lo += c * vars[i].hi; r.hi += c * vars[i].lo; }
  }
  return r;
}

}  // namespace

int64_t Affine::eval(std::span<const int64_t> vars) const {
  int64_t v = offset;
  for (size_t i = 0; i < coef.size(); ++i) v += coef[i] * vars[i];
  return v;
}

std::string Affine::str(char prefix) const {
  std::string s;
  for (size_t i = 0; i < coef.size(); ++i) {
    int64_t c = coef[i];
    if (c == 0) continue;
    if (s.empty()) s += c < 0 ? "-" : "";
    else s += c < 0 ? " - " : " + ";
    int64_t m = c < 0 ? -c : c;
    if (m != 1) s += fmt::format("{}*", m);
    s += fmt::format("{}{}", prefix, i);
  }
  if (s.empty()) return fmt::format("{}", offset);
  if (offset != 0) s += fmt::format(" {} {}", offset < 0 ? '-' : '+', offset < 0 ? -offset : offset);
  return s;
}

AddrGen AddrGen::identity(const std::vector<int64_t>& space) {
  AddrGen g;
  g.space = space;
  size_t n = space.size();
  for (size_t i = 0; i < n; ++i) {
    g.counters.push_back({space[i], DimKind::Stream});
    Affine v{0, std::vector<int64_t>(n, 0)};
    v.coef[i] = 1;
    g.groups.push_back({v, {space[i]}});
    g.coords.push_back(v);
  }
  return g;
}

size_t AddrGen::numDigits() const {
  size_t n = 0;
  for (const auto& gr : groups) n += gr.radices.size();
  return n;
}

size_t AddrGen::firstDigit(size_t g) const {
  size_t n = 0;
  for (size_t i = 0; i < g; ++i) n += groups[i].radices.size();
  return n;
}

std::vector<int64_t> AddrGen::digits(std::span<const int64_t> ctr) const {
  std::vector<int64_t> d;
  d.reserve(numDigits());
  for (const auto& gr : groups) {
    int64_t v = gr.value.eval(ctr);
    int64_t inner = 1;
    for (size_t i = 1; i < gr.radices.size(); ++i) inner *= gr.radices[i];
    d.push_back(floorDiv(v, inner));
    for (size_t i = 1; i < gr.radices.size(); ++i) {
      inner /= gr.radices[i];
      d.push_back(floorMod(floorDiv(v, inner), gr.radices[i]));
    }
  }
  return d;
}

Access AddrGen::at(std::span<const int64_t> ctr) const {
  auto d = digits(ctr);
  for (const auto& m : masks) {
    int64_t v = m.expr.eval(d);
    if (v < m.lo || v >= m.hi) return Access{false, 0, m.fill};
  }
  int64_t addr = 0;
  for (size_t i = 0; i < coords.size(); ++i) {
    int64_t c = coords[i].eval(d);
    if (c < 0 || c >= space[i])
      throw std::out_of_range(fmt::format("address generator: coordinate {} = {} outside [0, {})", i, c, space[i]));
    addr = addr * space[i] + c;
  }
  return Access{true, addr, 0};
}

std::optional<LinearForm> AddrGen::linear() const {
  for (const auto& gr : groups)
    if (gr.radices.size() != 1) return std::nullopt;
  // digit i = group i's value; address = sum_d coord_d * rowStride_d.
  LinearForm f;
  f.strides.assign(counters.size(), 0);
  int64_t rowStride = 1;
  for (size_t d = coords.size(); d-- > 0;) {
    const auto& c = coords[d];
    f.base += c.offset * rowStride;
    for (size_t g = 0; g < c.coef.size(); ++g) {
      if (c.coef[g] == 0) continue;
      f.base += c.coef[g] * groups[g].value.offset * rowStride;
      for (size_t k = 0; k < counters.size(); ++k) f.strides[k] += c.coef[g] * groups[g].value.coef[k] * rowStride;
    }
    rowStride *= space[d];
  }
  return f;
}

MType AddrGen::valueType(int bits) const {
  MType t{bits, {}};
  for (const auto& c : counters) t.dims.push_back({c.extent, c.kind});
  return t;
}

bool AddrGen::isClassicView() const {
  if (groups.size() != counters.size()) return false;
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& v = groups[i].value;
    if (v.offset != 0 || v.coef.size() != counters.size()) return false;
    for (size_t k = 0; k < v.coef.size(); ++k)
      if (v.coef[k] != (k == i ? 1 : 0)) return false;
    // A padded flattened index has more positions than digits can name: the top digit
    // runs past its radix there, and a mask makes those positions padding.
    if (product(groups[i].radices) > counters[i].extent) return false;
    if (groups[i].radices.size() == 1 && groups[i].radices[0] != counters[i].extent) return false;
  }
  return true;
}

bool AddrGen::usedGroup(size_t g) const {
  size_t first = firstDigit(g), n = groups[g].radices.size();
  for (const auto& c : coords)
    for (size_t k = first; k < first + n; ++k)
      if (c.coef[k] != 0) return true;
  return false;
}

bool AddrGen::isView() const {
  if (isClassicView()) return true;
  // The general form: a logical index may be shared by several counters (a flattened index
  // split at a point that is not a radix boundary): its group's value is affine in them.
  std::vector<int> uses(counters.size(), 0);
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& v = groups[g].value;
    if (v.offset != 0 || v.coef.size() != counters.size()) return false;
    if (!usedGroup(g)) continue;  // a guard
    int64_t top = 0;
    for (size_t k = 0; k < v.coef.size(); ++k) {
      if (v.coef[k] < 0) return false;
      if (v.coef[k] != 0) ++uses[k];
      top += v.coef[k] * (counters[k].extent - 1);
    }
    if (product(groups[g].radices) > top + 1) return false;
  }
  return true;
}

// ---- edits -------------------------------------------------------------------------

namespace {

/// Applies `fn(Affine&)` to every digit-space affine form (coords and masks).
template <class Fn>
void forDigitForms(AddrGen& g, Fn fn) {
  for (auto& c : g.coords) fn(c);
  for (auto& m : g.masks) fn(m.expr);
}

void resetViewGroups(AddrGen& g) {
  size_t n = g.counters.size();
  for (size_t i = 0; i < n; ++i) {
    g.groups[i].value = Affine{0, std::vector<int64_t>(n, 0)};
    g.groups[i].value.coef[i] = 1;
  }
}

void requireView(const AddrGen& g, const char* what) {
  if (!g.isView()) fail(std::string(what) + " needs a generator in view form");
}

size_t singleDigit(const AddrGen& g, size_t d, const char* what) {
  if (!g.isClassicView()) fail(std::string(what) + " of a counter that shares its index with another");
  if (d >= g.counters.size()) fail(fmt::format("{}: no counter {}", what, d));
  if (g.groups[d].radices.size() != 1) fail(fmt::format("{}: counter {} is a flattened (multi-radix) index", what, d));
  return g.firstDigit(d);
}

}  // namespace

void AddrGen::pad(size_t d, int64_t before, int64_t after, int32_t fill) {
  requireView(*this, "pad");
  if (!isClassicView()) {
    // General form: positions past the end of counter d are masked by a guard on it; the
    // groups that use it are guarded too (their values leave their range there).
    if (d >= counters.size() || before != 0 || after < 0) fail("pad in the general form is at the end only");
    Affine v{0, std::vector<int64_t>(counters.size(), 0)};
    v.coef[d] = 1;
    std::vector<size_t> users;
    for (size_t g = 0; g < groups.size(); ++g)
      if (groups[g].value.coef[d] != 0) users.push_back(g);
    size_t guard = addGuardGroup(v, counters[d].extent);
    for (size_t g : users) guardGroup(g, fill);
    guardGroup(guard, fill);
    counters[d].extent += after;
    return;
  }
  if (d < counters.size() && groups[d].radices.size() > 1 && before == 0 && after >= 0) {
    // A flattened index padded at its end: the positions past it have a top digit past
    // its radix, and that is the mask.
    Mask m{Affine{0, std::vector<int64_t>(numDigits(), 0)}, 0, groups[d].radices[0], fill};
    m.expr.coef[firstDigit(d)] = 1;
    masks.insert(masks.begin(), m);
    counters[d].extent += after;
    return;
  }
  size_t col = singleDigit(*this, d, "pad");
  if (before < 0 || after < 0) fail("negative padding");
  int64_t old = counters[d].extent;
  forDigitForms(*this, [&](Affine& a) { a.offset -= a.coef[col] * before; });
  Mask m{Affine{-before, std::vector<int64_t>(numDigits(), 0)}, 0, old, fill};
  m.expr.coef[col] = 1;
  masks.insert(masks.begin(), m);
  counters[d].extent = old + before + after;
  groups[d].radices = {counters[d].extent};
}

bool AddrGen::extend(size_t d, int64_t before, int64_t after) {
  if (!isClassicView()) return false;
  AddrGen grown = *this;
  grown.pad(d, before, after, 0);
  grown.masks.erase(grown.masks.begin());  // in classic view form, pad puts its mask in front
  if (!grown.check().empty()) return false;
  *this = std::move(grown);
  return true;
}

void AddrGen::padDigit(size_t d, size_t i, int64_t radix, int32_t fill) {
  requireView(*this, "padDigit");
  if (!isClassicView() || d >= counters.size()) fail("padDigit of counters that share their indices with others");
  auto& r = groups[d].radices;
  if (i == 0 || i >= r.size() || radix < r[i]) fail("padDigit of the top digit or to a smaller radix");
  if (product(r) != counters[d].extent) fail("padDigit of a padded flattened index");
  // The digit keeps its meaning in the coordinates; its new values are masked.
  Mask m{Affine{0, std::vector<int64_t>(numDigits(), 0)}, 0, r[i], fill};
  m.expr.coef[firstDigit(d) + i] = 1;
  masks.insert(masks.begin(), m);
  r[i] = radix;
  counters[d].extent = product(r);
}

void AddrGen::reverse(size_t d) {
  size_t col = singleDigit(*this, d, "reverse");
  const int64_t last = counters[d].extent - 1;
  // index -> last - index in every coordinate and mask: the digits stay the counters
  forDigitForms(*this, [&](Affine& a) {
    a.offset += a.coef[col] * last;
    a.coef[col] = -a.coef[col];
  });
}

void AddrGen::slide(size_t d, int64_t size, int64_t step) {
  size_t col = singleDigit(*this, d, "slide");
  int64_t e = counters[d].extent;
  if (size < 1 || step < 1 || size > e) fail(fmt::format("slide of size {} step {} over {}", size, step, e));
  int64_t windows = (e - size) / step + 1;
  forDigitForms(*this, [&](Affine& a) {
    int64_t c = a.coef[col];
    a.coef[col] = c * step;
    a.coef.insert(a.coef.begin() + static_cast<ptrdiff_t>(col) + 1, c);
  });
  counters[d].extent = windows;
  counters.insert(counters.begin() + static_cast<ptrdiff_t>(d) + 1, Counter{size, counters[d].kind});
  groups[d].radices = {windows};
  groups.insert(groups.begin() + static_cast<ptrdiff_t>(d) + 1, IndexGroup{{}, {size}});
  resetViewGroups(*this);
}

void AddrGen::permute(const std::vector<size_t>& order) {
  requireView(*this, "permute");
  if (!isClassicView()) {  // general form: the counters move, the groups and digits stay
    if (order.size() != counters.size()) fail("permutation of the wrong length");
    std::vector<Counter> nc;
    for (size_t o : order) nc.push_back(counters.at(o));
    for (auto& gr : groups) {
      std::vector<int64_t> c;
      for (size_t o : order) c.push_back(gr.value.coef[o]);
      gr.value.coef = std::move(c);
    }
    counters = std::move(nc);
    return;
  }
  size_t n = counters.size();
  std::vector<bool> seen(n, false);
  if (order.size() != n) fail("permutation of the wrong length");
  for (size_t o : order) {
    if (o >= n || seen[o]) fail("not a permutation");
    seen[o] = true;
  }
  std::vector<size_t> digitOrder;
  for (size_t o : order)
    for (size_t k = 0; k < groups[o].radices.size(); ++k) digitOrder.push_back(firstDigit(o) + k);
  forDigitForms(*this, [&](Affine& a) {
    std::vector<int64_t> c;
    for (size_t k : digitOrder) c.push_back(a.coef[k]);
    a.coef = std::move(c);
  });
  std::vector<Counter> nc;
  std::vector<IndexGroup> ng;
  for (size_t o : order) { nc.push_back(counters[o]); ng.push_back(groups[o]); }
  counters = std::move(nc);
  groups = std::move(ng);
  resetViewGroups(*this);
}

void AddrGen::transpose(size_t a, size_t b) {
  std::vector<size_t> order(counters.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (a >= order.size() || b >= order.size()) fail("transpose of a missing counter");
  std::swap(order[a], order[b]);
  permute(order);
}

void AddrGen::repeat(size_t pos, int64_t n) {
  requireView(*this, "repeat");
  if (pos > counters.size() || n < 1) fail("bad repeat");
  if (!isClassicView()) {  // general form: a counter no group uses
    counters.insert(counters.begin() + static_cast<ptrdiff_t>(pos), Counter{n, DimKind::Stream});
    for (auto& gr : groups) gr.value.coef.insert(gr.value.coef.begin() + static_cast<ptrdiff_t>(pos), 0);
    return;
  }
  size_t col = pos == counters.size() ? numDigits() : firstDigit(pos);
  forDigitForms(*this, [&](Affine& a) { a.coef.insert(a.coef.begin() + static_cast<ptrdiff_t>(col), 0); });
  counters.insert(counters.begin() + static_cast<ptrdiff_t>(pos), Counter{n, DimKind::Stream});
  groups.insert(groups.begin() + static_cast<ptrdiff_t>(pos), IndexGroup{{}, {n}});
  resetViewGroups(*this);
}

void AddrGen::flatten(size_t d) {
  requireView(*this, "flatten");
  if (!isClassicView()) fail("flatten of counters that share their indices with others");
  if (d + 1 >= counters.size()) fail("flatten of the last counter");
  if (product(groups[d + 1].radices) != counters[d + 1].extent) fail("flatten over a padded flattened index");
  counters[d].extent *= counters[d + 1].extent;
  auto& r = groups[d].radices;
  r.insert(r.end(), groups[d + 1].radices.begin(), groups[d + 1].radices.end());
  counters.erase(counters.begin() + static_cast<ptrdiff_t>(d) + 1);
  groups.erase(groups.begin() + static_cast<ptrdiff_t>(d) + 1);
  resetViewGroups(*this);
}

void AddrGen::slice(size_t d, int64_t start, int64_t len) {
  size_t col = singleDigit(*this, d, "slice");
  if (start < 0 || len < 1 || start + len > counters[d].extent) fail("slice out of range");
  forDigitForms(*this, [&](Affine& a) { a.offset += a.coef[col] * start; });
  counters[d].extent = len;
  groups[d].radices = {len};
}

void AddrGen::split(size_t d, int64_t n) {
  requireView(*this, "split");
  if (d >= counters.size() || n < 1 || counters[d].extent % n != 0) fail("bad split");
  if (n == 1 && isClassicView()) {
    // A split by 1 (a tiling by tiles of one, e.g. TiledMv of a one-channel window): a new
    // counter of extent 1 after d, its own digit, always 0. (The radix-boundary split below
    // would give it no radix at all.)
    size_t col = firstDigit(d) + groups[d].radices.size();
    forDigitForms(*this, [&](Affine& a) { a.coef.insert(a.coef.begin() + static_cast<ptrdiff_t>(col), 0); });
    counters.insert(counters.begin() + static_cast<ptrdiff_t>(d) + 1, Counter{1, counters[d].kind});
    groups.insert(groups.begin() + static_cast<ptrdiff_t>(d) + 1, IndexGroup{{}, {1}});
    resetViewGroups(*this);
    return;
  }
  if (!isClassicView() || (groups[d].radices.size() > 1 && product(groups[d].radices) != counters[d].extent) ||
      (groups[d].radices.size() > 1 && product(groups[d].radices) == counters[d].extent &&
                           [&] {
                             int64_t inner = 1;
                             for (size_t i = groups[d].radices.size(); i-- > 1 && inner < n;) inner *= groups[d].radices[i];
                             return inner != n;
                           }())) {
    // General form: counter d becomes (E/n, n); every group using it sees n*outer + inner.
    counters[d].extent /= n;
    counters.insert(counters.begin() + static_cast<ptrdiff_t>(d) + 1, Counter{n, counters[d].kind});
    for (auto& gr : groups) {
      int64_t c = gr.value.coef[d];
      gr.value.coef[d] = c * n;
      gr.value.coef.insert(gr.value.coef.begin() + static_cast<ptrdiff_t>(d) + 1, c);
    }
    return;
  }
  if (groups[d].radices.size() > 1) {
    // A flattened index splits at a radix boundary: its digits are kept, in two groups.
    auto& r = groups[d].radices;
    if (product(r) != counters[d].extent) fail("split of a padded flattened index");
    int64_t inner = 1;
    size_t at = r.size();
    while (at > 1 && inner < n) inner *= r[--at];
    if (inner != n) fail(fmt::format("split of a flattened index by {}, not a product of its inner radices", n));
    IndexGroup low{{}, std::vector<int64_t>(r.begin() + static_cast<ptrdiff_t>(at), r.end())};
    r.erase(r.begin() + static_cast<ptrdiff_t>(at), r.end());
    counters[d].extent /= n;
    counters.insert(counters.begin() + static_cast<ptrdiff_t>(d) + 1, Counter{n, counters[d].kind});
    groups.insert(groups.begin() + static_cast<ptrdiff_t>(d) + 1, low);
    resetViewGroups(*this);
    return;
  }
  size_t col = singleDigit(*this, d, "split");
  int64_t e = counters[d].extent;
  if (n < 1 || e % n != 0) fail(fmt::format("split of {} by {}", e, n));
  forDigitForms(*this, [&](Affine& a) {
    int64_t c = a.coef[col];
    a.coef[col] = c * n;
    a.coef.insert(a.coef.begin() + static_cast<ptrdiff_t>(col) + 1, c);
  });
  counters[d].extent = e / n;
  counters.insert(counters.begin() + static_cast<ptrdiff_t>(d) + 1, Counter{n, counters[d].kind});
  groups[d].radices = {e / n};
  groups.insert(groups.begin() + static_cast<ptrdiff_t>(d) + 1, IndexGroup{{}, {n}});
  resetViewGroups(*this);
}

size_t AddrGen::addGuardGroup(Affine value, int64_t radix) {
  if (value.coef.size() != counters.size()) fail("guard value over the wrong counters");
  groups.push_back({std::move(value), {radix}});
  forDigitForms(*this, [&](Affine& a) { a.coef.push_back(0); });
  return groups.size() - 1;
}

void AddrGen::guardGroup(size_t g, int32_t fill) {
  if (g >= groups.size()) fail("guard of a missing group");
  Mask m{Affine{0, std::vector<int64_t>(numDigits(), 0)}, 0, groups[g].radices[0], fill};
  m.expr.coef[firstDigit(g)] = 1;
  masks.insert(masks.begin(), m);
}

void AddrGen::substitute(std::vector<Counter> newCounters, const std::vector<Affine>& counterValues) {
  if (counterValues.size() != counters.size()) fail("substitute needs one value per counter");
  for (const auto& v : counterValues)
    if (v.coef.size() != newCounters.size()) fail("substitute value over the wrong counters");
  for (auto& gr : groups) {
    Affine r{gr.value.offset, std::vector<int64_t>(newCounters.size(), 0)};
    for (size_t k = 0; k < gr.value.coef.size(); ++k) {
      int64_t c = gr.value.coef[k];
      if (c == 0) continue;
      r.offset += c * counterValues[k].offset;
      for (size_t j = 0; j < r.coef.size(); ++j) r.coef[j] += c * counterValues[k].coef[j];
    }
    gr.value = std::move(r);
  }
  counters = std::move(newCounters);
}

std::vector<size_t> AddrGen::groupsOf(size_t counter) const {
  std::vector<size_t> out;
  for (size_t g = 0; g < groups.size(); ++g)
    if (counter < groups[g].value.coef.size() && groups[g].value.coef[counter] != 0 && usedGroup(g)) out.push_back(g);
  return out;
}

bool AddrGen::dependsOn(size_t counter) const {
  for (size_t g = 0; g < groups.size(); ++g) {
    if (counter >= groups[g].value.coef.size() || groups[g].value.coef[counter] == 0) continue;
    size_t first = firstDigit(g), n = groups[g].radices.size();
    for (size_t k = first; k < first + n; ++k) {
      for (const auto& c : coords)
        if (c.coef[k] != 0) return true;
      for (const auto& m : masks)
        if (m.expr.coef[k] != 0) return true;
    }
  }
  return false;
}

void AddrGen::removeCounter(size_t counter) {
  if (counter >= counters.size()) fail("removeCounter: no such counter");
  if (dependsOn(counter)) fail("removeCounter: the access depends on the counter");
  // Groups whose value uses the counter have no digit in any form (dependsOn): drop them
  // with their digit columns; the others lose the counter's (zero) coefficient.
  for (size_t g = groups.size(); g-- > 0;) {
    if (groups[g].value.coef[counter] == 0) continue;
    size_t first = firstDigit(g), n = groups[g].radices.size();
    forDigitForms(*this, [&](Affine& a) {
      a.coef.erase(a.coef.begin() + static_cast<ptrdiff_t>(first), a.coef.begin() + static_cast<ptrdiff_t>(first + n));
    });
    groups.erase(groups.begin() + static_cast<ptrdiff_t>(g));
  }
  for (auto& gr : groups) gr.value.coef.erase(gr.value.coef.begin() + static_cast<ptrdiff_t>(counter));
  counters.erase(counters.begin() + static_cast<ptrdiff_t>(counter));
}

void AddrGen::regroup(std::vector<Counter> newCounters, std::vector<Affine> values) {
  if (values.size() != groups.size()) fail("regroup needs one value per group");
  for (auto& v : values)
    if (v.coef.size() != newCounters.size()) fail("regroup value over the wrong counters");
  counters = std::move(newCounters);
  for (size_t i = 0; i < groups.size(); ++i) groups[i].value = std::move(values[i]);
}

// ---- checking and text ---------------------------------------------------------------

std::string AddrGen::check() const {
  for (const auto& c : counters)
    if (c.extent < 1) return "a counter has a non-positive extent";
  bool seenVector = false;
  for (const auto& c : counters) {
    if (c.kind == DimKind::Vector) seenVector = true;
    else if (seenVector) return "a stream counter inside a vector counter";
  }
  for (int64_t s : space)
    if (s < 1) return "the addressed buffer has a non-positive extent";
  size_t nd = numDigits();
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].value.coef.size() != counters.size()) return fmt::format("group {} is over the wrong counters", g);
    if (groups[g].radices.empty()) return fmt::format("group {} has no radix", g);
    for (int64_t r : groups[g].radices)
      if (r < 1) return fmt::format("group {} has a non-positive radix", g);
  }
  if (coords.size() != space.size()) return "one coordinate per buffer dimension is needed";
  for (const auto& c : coords)
    if (c.coef.size() != nd) return "a coordinate is over the wrong digits";
  for (const auto& m : masks)
    if (m.expr.coef.size() != nd) return "a mask is over the wrong digits";
  // Ranges: counters -> group values -> digits, narrowed by single-digit masks.
  std::vector<Range> ctr;
  for (const auto& c : counters) ctr.push_back({0, c.extent - 1});
  std::vector<Range> dig;
  for (const auto& gr : groups) {
    Range v = rangeOf(gr.value, ctr);
    int64_t inner = 1;
    for (size_t i = 1; i < gr.radices.size(); ++i) inner *= gr.radices[i];
    dig.push_back({floorDiv(v.lo, inner), floorDiv(v.hi, inner)});
    for (size_t i = 1; i < gr.radices.size(); ++i) dig.push_back({0, gr.radices[i] - 1});
  }
  for (const auto& m : masks) {
    size_t nz = 0, at = 0;
    for (size_t i = 0; i < nd; ++i)
      if (m.expr.coef[i] != 0) { ++nz; at = i; }
    if (nz == 1 && m.expr.coef[at] == 1) {
      dig[at].lo = std::max(dig[at].lo, m.lo - m.expr.offset);
      dig[at].hi = std::min(dig[at].hi, m.hi - 1 - m.expr.offset);
    }
  }
  // A single-digit group whose value is another's plus further terms ranges over that
  // one's (masked) range plus the rest's. Groups of one value are one digit, so a mask on
  // either narrows both (a cropped layout composed into an operand's read guards the crop
  // with a group of its own, whose value is the very counter a coordinate uses); a crop
  // inside a tile gives a coordinate of tile + lane, guarded by the lane alone.
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].radices.size() != 1) continue;
    for (size_t h = 0; h < groups.size(); ++h) {
      if (h == g || groups[h].radices.size() != 1) continue;
      const Affine& vg = groups[g].value;
      const Affine& vh = groups[h].value;
      bool part = true;
      for (size_t k = 0; k < vh.coef.size() && part; ++k) part = vh.coef[k] == 0 || vh.coef[k] == vg.coef[k];
      if (!part) continue;
      Affine rest = vg;
      rest.offset -= vh.offset;
      for (size_t k = 0; k < rest.coef.size(); ++k) rest.coef[k] -= vh.coef[k];
      const Range r = rangeOf(rest, ctr), b = dig[firstDigit(h)];
      Range& a = dig[firstDigit(g)];
      a = Range{std::max(a.lo, r.lo + b.lo), std::min(a.hi, r.hi + b.hi)};
    }
  }
  // For coordinates no single mask guards. Masks over the same expression (a pad of a
  // pad) guard their intersection: a coordinate is decomposed once per expression, so it
  // must see the tightest range.
  std::vector<Mask> tightest;
  for (const auto& m : masks) {
    auto same = std::find_if(tightest.begin(), tightest.end(), [&](const Mask& t) { return t.expr == m.expr; });
    if (same == tightest.end()) {
      tightest.push_back(m);
    } else {
      same->lo = std::max(same->lo, m.lo);
      same->hi = std::min(same->hi, m.hi);
    }
  }
  std::vector<const Mask*> byWidth;  // wider masks first: they cover sums of digits
  for (const auto& m : tightest) byWidth.push_back(&m);
  auto width = [](const Mask* m) { return std::count_if(m->expr.coef.begin(), m->expr.coef.end(), [](int64_t c) { return c != 0; }); };
  std::stable_sort(byWidth.begin(), byWidth.end(), [&](const Mask* x, const Mask* y) { return width(x) > width(y); });
  for (size_t d = 0; d < coords.size(); ++d) {
    Range r = rangeOf(coords[d], dig);
    if (r.lo >= 0 && r.hi < space[d]) continue;
    bool guarded = std::any_of(masks.begin(), masks.end(), [&](const Mask& m) {
      return m.expr == coords[d] && m.lo >= 0 && m.hi <= space[d];
    });
    if (!guarded) {  // coordinate = offset + sum of alpha * (masked expressions) + rest
      Affine rest = coords[d];
      Range acc{rest.offset, rest.offset};
      rest.offset = 0;
      for (const Mask* mp : byWidth) {
        const Mask& m = *mp;
        size_t first = nd;
        for (size_t i = 0; i < nd && first == nd; ++i)
          if (m.expr.coef[i] != 0) first = i;
        if (first == nd || rest.coef[first] % m.expr.coef[first] != 0) continue;
        int64_t alpha = rest.coef[first] / m.expr.coef[first];
        bool fits = alpha != 0;
        for (size_t i = 0; i < nd && fits; ++i) fits = rest.coef[i] == 0 || m.expr.coef[i] == 0 || rest.coef[i] == alpha * m.expr.coef[i];
        for (size_t i = 0; i < nd && fits; ++i) fits = m.expr.coef[i] == 0 || rest.coef[i] == alpha * m.expr.coef[i];
        if (!fits) continue;
        for (size_t i = 0; i < nd; ++i) rest.coef[i] -= alpha * m.expr.coef[i];
        int64_t lo = m.lo - m.expr.offset, hi = m.hi - 1 - m.expr.offset;
        acc.lo += alpha > 0 ? alpha * lo : alpha * hi;
        acc.hi += alpha > 0 ? alpha * hi : alpha * lo;
      }
      Range tail = rangeOf(rest, dig);
      guarded = acc.lo + tail.lo >= 0 && acc.hi + tail.hi < space[d];
    }
    if (!guarded)
      return fmt::format("coordinate {} ({}) ranges over [{}, {}], outside [0, {}), and no mask guards it", d,
                         coords[d].str('d'), r.lo, r.hi, space[d]);
  }
  return "";
}

std::string AddrGen::str() const {
  std::string s = "ctr[";
  for (size_t i = 0; i < counters.size(); ++i)
    s += fmt::format("{}{}{}", i ? " " : "", counters[i].kind == DimKind::Stream ? 's' : 'v', counters[i].extent);
  s += "]";
  if (auto lf = linear()) {
    s += fmt::format(" addr={}", lf->base);
    for (size_t k = 0; k < lf->strides.size(); ++k)
      if (lf->strides[k] != 0) s += fmt::format(" + {}*c{}", lf->strides[k], k);
  }
  s += " grp[";
  for (size_t g = 0; g < groups.size(); ++g) {
    s += fmt::format("{}{}:", g ? "; " : "", groups[g].value.str('c'));
    for (size_t i = 0; i < groups[g].radices.size(); ++i) s += fmt::format("{}{}", i ? "x" : "", groups[g].radices[i]);
  }
  s += "] crd[";
  for (size_t d = 0; d < coords.size(); ++d) s += fmt::format("{}{}", d ? ", " : "", coords[d].str('d'));
  s += "] in [";
  for (size_t d = 0; d < space.size(); ++d) s += fmt::format("{}{}", d ? "][" : "", space[d]);
  s += "]";
  for (const auto& m : masks) s += fmt::format(" mask({} in [{}, {}) else {})", m.expr.str('d'), m.lo, m.hi, m.fill);
  return s;
}

}  // namespace skeleshare::lower
