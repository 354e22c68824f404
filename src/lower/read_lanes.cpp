#include "skeleshare/lower/read_lanes.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

namespace {

/// A shape of a read: its counters are the original ones in `order` (new counter k is old
/// counter order[k]); `widened` is the old stream counter that became the outermost
/// vector counter, or -1.
struct Shape {
  std::vector<size_t> order;
  int widened = -1;
};

AddrGen reshaped(const AddrGen& g, const Shape& s) {
  std::vector<Counter> counters;
  std::vector<Affine> values(g.counters.size(), Affine{0, std::vector<int64_t>(s.order.size(), 0)});
  for (size_t k = 0; k < s.order.size(); ++k) {
    counters.push_back(g.counters[s.order[k]]);
    if (static_cast<int>(s.order[k]) == s.widened) counters.back().kind = DimKind::Vector;
    values[s.order[k]].coef[k] = 1;
  }
  AddrGen out = g;
  out.substitute(std::move(counters), values);
  return out;
}

size_t streamCount(const std::vector<Counter>& c) {
  size_t ns = 0;
  while (ns < c.size() && c[ns].kind == DimKind::Stream) ++ns;
  return ns;
}

/// `s` with its vector counters ordered by decreasing address stride (a stride-1 counter
/// innermost, so that it forms runs), when that takes fewer runs; else `s`.
Shape orderLanes(const AddrGen& g, Shape s, int bytes, AccessCounter& counts) {
  const AddrGen shaped = reshaped(g, s);
  const auto linear = shaped.linear();
  if (!linear) return s;
  const size_t n = shaped.counters.size(), ns = streamCount(shaped.counters);
  if (n - ns < 2 || std::llabs(linear->strides[n - 1]) == 1) return s;
  std::vector<size_t> lanes(n - ns);
  for (size_t k = 0; k < lanes.size(); ++k) lanes[k] = ns + k;
  std::stable_sort(lanes.begin(), lanes.end(),
                   [&](size_t a, size_t b) { return std::llabs(linear->strides[a]) > std::llabs(linear->strides[b]); });
  Shape t = s;
  for (size_t k = 0; k < lanes.size(); ++k) t.order[ns + k] = s.order[lanes[k]];
  const int64_t width = shaped.valueType(8).vectorLanes();
  return counts.read(reshaped(g, t), bytes, width).runs < counts.read(shaped, bytes, width).runs ? t : s;
}

/// The innermost stream counter of more than one step, moved to the outermost vector
/// position; nullopt when there is none, the vector would be too wide, or the generator
/// is not linear.
std::optional<Shape> widen(const AddrGen& g) {
  const size_t ns = streamCount(g.counters);
  size_t k = ns;
  while (k > 0 && g.counters[k - 1].extent == 1) --k;
  if (k == 0) return std::nullopt;
  const size_t w = k - 1;
  int64_t lanes = g.counters[w].extent;
  for (size_t i = ns; i < g.counters.size(); ++i) lanes *= g.counters[i].extent;
  if (lanes > kMaxWidenedReadLanes) return std::nullopt;
  // Only linear generators (one radix per group): a convolution's flattened windows are
  // wide already, and walking their generators twice for every skeleton the extractor's
  // oracle lowers cost a fifth of TinyYolo's compile.
  if (!g.linear()) return std::nullopt;
  Shape s;
  for (size_t i = 0; i < ns; ++i)
    if (i != w) s.order.push_back(i);
  s.order.push_back(w);
  for (size_t i = ns; i < g.counters.size(); ++i) s.order.push_back(i);
  s.widened = static_cast<int>(w);
  return s;
}

/// Counters c and k of a linear generator merged into one, counter c over the C + K - 1
/// values of c + k, when every coordinate and mask sees them only as c + k; nullopt
/// otherwise.
std::optional<AddrGen> merged(const AddrGen& g, size_t c, size_t k) {
  if (!g.linear()) return std::nullopt;
  const size_t n = g.counters.size();
  // One radix per group: digit d is group d's value, so a form over digits has the
  // coefficient sum(a_d * coef_d) on a counter.
  auto sameOnBoth = [&](const Affine& overDigits) {
    int64_t onC = 0, onK = 0;
    for (size_t d = 0; d < overDigits.coef.size() && d < g.groups.size(); ++d) {
      onC += overDigits.coef[d] * g.groups[d].value.coef[c];
      onK += overDigits.coef[d] * g.groups[d].value.coef[k];
    }
    return onC == onK;
  };
  for (const Affine& a : g.coords)
    if (!sameOnBoth(a)) return std::nullopt;
  for (const Mask& m : g.masks)
    if (!sameOnBoth(m.expr)) return std::nullopt;
  std::vector<Counter> counters;
  std::vector<Affine> values(n, Affine{0, std::vector<int64_t>(n - 1, 0)});
  for (size_t i = 0; i < n; ++i) {
    if (i == k) continue;  // k = 0: c alone is c + k
    values[i].coef[counters.size()] = 1;
    counters.push_back(g.counters[i]);
    if (i == c) counters.back().extent += g.counters[k].extent - 1;
  }
  AddrGen out = g;
  out.substitute(std::move(counters), values);
  return out;
}

/// A linear generator whose two innermost counters are vector counters (c, then k) that
/// every coordinate and mask sees only as c + k, merged into one vector counter over the
/// C + K - 1 values of c + k: the windows of a row read as the row once (the lanes it
/// reads are contiguous, one run where the windows took one per tap), which Slide[K]
/// spreads back into the windows. nullopt when the generator does not slide.
std::optional<AddrGen> mergedWindows(const AddrGen& g) {
  const size_t n = g.counters.size();
  if (n - streamCount(g.counters) < 2) return std::nullopt;
  return merged(g, n - 2, n - 1);
}

/// A linear generator whose innermost stream counter of more than one step (r, with
/// only one-step stream counters inside it) and outermost vector counter (k, the taps of
/// a window over r) reach every coordinate and mask only as r + k: the stream of the
/// R + K - 1 values of r + k read once each, which SlideStm[r, K] turns back into the
/// windows (a line buffer). nullopt when it does not slide.
std::optional<std::pair<size_t, AddrGen>> mergedStreamWindows(const AddrGen& g) {
  const size_t ns = streamCount(g.counters);
  if (ns == 0 || ns == g.counters.size() || g.counters[ns].extent < 2) return std::nullopt;
  size_t r = ns;
  while (r > 0 && g.counters[r - 1].extent == 1) --r;
  if (r == 0) return std::nullopt;
  auto m = merged(g, r - 1, ns);
  if (!m) return std::nullopt;
  return std::make_pair(r - 1, std::move(*m));
}

/// A read that reads the elements of its innermost counters once, as a box: the
/// counters from `first` on (the vector counters and the innermost stream counters) span
/// a small region of the buffer per value of the outer ones, the same region moved. A
/// convolution's flattened windows along a tile row ([ky][kx][c] for 13 windows: 13 x 3
/// runs) lie in one box of rows ([3][15][3]: 3 runs), and so do a ParallelConv's windows
/// of a tile. `read` reads the box once per value of the outer counters; `select` takes
/// the original lanes out of it (result lane j, row-major over counters first..n-1, is
/// box lane select[j], or `fill` at -1: a lane masked whatever the outer counters are).
struct BoxRead {
  size_t first = 0;
  AddrGen read;
  std::vector<int64_t> select;
  int64_t fill = 0;
};

std::optional<BoxRead> boxRead(const AddrGen& g, size_t first) {
  const size_t n = g.counters.size(), nd = g.numDigits(), dims = g.space.size();
  // Every group is over the box's counters alone or the outer ones alone.
  std::vector<bool> inner(nd, false);
  for (size_t j = 0, d = 0; j < g.groups.size(); d += g.groups[j].radices.size(), ++j) {
    bool in = false, out = false;
    for (size_t c = 0; c < n; ++c)
      if (g.groups[j].value.coef[c] != 0) (c >= first ? in : out) = true;
    if (in && out) return std::nullopt;
    for (size_t k = 0; k < g.groups[j].radices.size(); ++k) inner[d + k] = in;
  }
  auto uses = [&](const Affine& a, bool in) {
    for (size_t d = 0; d < nd; ++d)
      if (a.coef[d] != 0 && inner[d] == in) return true;
    return false;
  };
  // A mask over inner digits alone is fixed per lane; one over both is a coordinate's bound.
  std::vector<int> boundOf(g.masks.size(), -1);
  for (size_t m = 0; m < g.masks.size(); ++m) {
    if (g.masks[m].fill != g.masks.front().fill) return std::nullopt;
    const Affine& e = g.masks[m].expr;
    if (!uses(e, true) || !uses(e, false)) continue;
    for (size_t i = 0; i < dims && boundOf[m] < 0; ++i)
      if (g.coords[i].coef == e.coef) boundOf[m] = static_cast<int>(i);
    if (boundOf[m] < 0) return std::nullopt;
  }
  BoxRead r;
  r.first = first;
  if (!g.masks.empty()) r.fill = g.masks.front().fill;
  int64_t lanes = 1;
  for (size_t c = first; c < n; ++c) lanes *= g.counters[c].extent;
  if (lanes > kMaxBoxLanes) return std::nullopt;
  // Each lane's inner part of every coordinate, and the box they span.
  std::vector<std::vector<int64_t>> part(static_cast<size_t>(lanes));
  std::vector<int64_t> lo(dims, INT64_MAX), hi(dims, INT64_MIN), ctr(n, 0);
  for (int64_t l = 0; l < lanes; ++l) {
    for (size_t c = n, rest = static_cast<size_t>(l); c-- > first;) {
      ctr[c] = static_cast<int64_t>(rest % static_cast<size_t>(g.counters[c].extent));
      rest /= static_cast<size_t>(g.counters[c].extent);
    }
    std::vector<int64_t> digits = g.digits(ctr);
    for (size_t d = 0; d < nd; ++d)
      if (!inner[d]) digits[d] = 0;
    bool masked = false;
    for (const Mask& m : g.masks)
      if (!uses(m.expr, false)) {
        const int64_t v = m.expr.eval(digits);
        masked = masked || v < m.lo || v >= m.hi;
      }
    if (masked) continue;
    std::vector<int64_t>& p = part[static_cast<size_t>(l)];
    for (size_t i = 0; i < dims; ++i) {
      p.push_back(g.coords[i].eval(digits) - g.coords[i].offset);
      lo[i] = std::min(lo[i], p.back());
      hi[i] = std::max(hi[i], p.back());
    }
  }
  if (lo.empty() || lo[0] > hi[0]) return std::nullopt;  // every lane masked
  std::vector<int64_t> extent(dims);
  int64_t box = 1;
  for (size_t i = 0; i < dims; ++i) box *= (extent[i] = hi[i] - lo[i] + 1);
  if (box > kMaxBoxLanes) return std::nullopt;
  for (const auto& p : part) {
    int64_t at = -1;
    if (!p.empty()) {
      at = 0;
      for (size_t i = 0; i < dims; ++i) at = at * extent[i] + p[i] - lo[i];
    }
    r.select.push_back(at);
  }

  // The read: the outer counters, then one vector counter over the box, one group whose
  // digits are the box's coordinates.
  AddrGen& h = r.read;
  h.space = g.space;
  h.counters.assign(g.counters.begin(), g.counters.begin() + static_cast<ptrdiff_t>(first));
  h.counters.push_back(Counter{box, DimKind::Vector});
  std::vector<size_t> newDigit(nd, 0);
  size_t digitsKept = 0;
  for (size_t j = 0, d = 0; j < g.groups.size(); d += g.groups[j].radices.size(), ++j) {
    if (inner[d]) continue;
    IndexGroup grp = g.groups[j];
    grp.value.coef.resize(first);
    grp.value.coef.push_back(0);
    for (size_t k = 0; k < grp.radices.size(); ++k) newDigit[d + k] = digitsKept++;
    h.groups.push_back(std::move(grp));
  }
  IndexGroup boxGroup{Affine{0, std::vector<int64_t>(first + 1, 0)}, extent};
  boxGroup.value.coef.back() = 1;
  h.groups.push_back(std::move(boxGroup));
  const size_t hd = digitsKept + dims;
  auto outerPart = [&](const Affine& a) {
    Affine o{a.offset, std::vector<int64_t>(hd, 0)};
    for (size_t d = 0; d < nd; ++d)
      if (!inner[d]) o.coef[newDigit[d]] = a.coef[d];
    return o;
  };
  for (size_t i = 0; i < dims; ++i) {
    Affine c = outerPart(g.coords[i]);
    c.offset += lo[i];
    c.coef[digitsKept + i] = 1;
    h.coords.push_back(std::move(c));
  }
  for (size_t m = 0; m < g.masks.size(); ++m) {
    const Mask& mask = g.masks[m];
    if (!uses(mask.expr, false)) continue;  // fixed per lane: in the selection
    if (boundOf[m] < 0) {
      h.masks.push_back(Mask{outerPart(mask.expr), mask.lo, mask.hi, mask.fill});
      continue;
    }
    Affine e = h.coords[static_cast<size_t>(boundOf[m])];
    e.offset += mask.expr.offset - g.coords[static_cast<size_t>(boundOf[m])].offset;
    h.masks.push_back(Mask{std::move(e), mask.lo, mask.hi, mask.fill});
  }
  if (!h.check().empty()) return std::nullopt;
  return r;
}

/// The widest box read of `g` that takes fewer runs and no more lines than `g`: its
/// box's counters the vector ones and as many of the innermost stream counters as fit.
std::optional<BoxRead> bestBoxRead(const AddrGen& g, int bytes, int64_t lanes, AccessCounter& counts) {
  const size_t ns = streamCount(g.counters);
  std::optional<BoxRead> best;
  for (size_t first = ns; first-- > 0;) {
    auto b = boxRead(g, first);
    if (!b) break;
    if (g.counters[first].extent > 1) best = std::move(b);
  }
  if (!best) return std::nullopt;
  const AccessCount each = counts.read(g, bytes, lanes);
  const AccessCount once = counts.read(best->read, bytes, best->read.counters.back().extent);
  if (once.runs >= each.runs || once.lines > each.lines) return std::nullopt;
  return best;
}

/// Inserts `node` at index `at` of the unit: operand indices >= at move up by one, and
/// the later users of node at - 1 read the new node instead.
void insertAfter(Unit& unit, uint32_t at, Node node) {
  for (Node& n : unit.nodes)
    for (uint32_t& o : n.operands)
      if (o >= at) ++o;
  for (size_t i = at; i < unit.nodes.size(); ++i)
    for (uint32_t& o : unit.nodes[i].operands)
      if (o == at - 1) o = at;
  if (unit.call)
    for (uint32_t& d : unit.call->datapath)
      if (d >= at) ++d;
  unit.nodes.insert(unit.nodes.begin() + at, std::move(node));
}

std::vector<uint32_t> usersOf(const Unit& unit, uint32_t i) {
  std::vector<uint32_t> users;
  for (uint32_t j = i + 1; j < unit.nodes.size(); ++j)
    for (uint32_t o : unit.nodes[j].operands)
      if (o == i) users.push_back(j);
  return users;
}

Node wiring(Prim p, uint32_t operand, std::vector<int64_t> params) {
  Node n;
  n.prim = p;
  n.operands = {operand};
  n.params = std::move(params);
  return n;
}

/// Inserts `chain` after node `at`, each node reading the one before it (the first reads
/// node `at`), with its type inferred. Returns the index of the last one.
uint32_t insertChain(const Program& prog, Unit& unit, uint32_t at, std::vector<Node> chain) {
  for (Node& n : chain) {
    n.operands = {at};
    ++at;
    insertAfter(unit, at, std::move(n));
    Node& placed = unit.nodes[at];
    placed.type = inferType(prog, unit, placed);
  }
  return at;
}

/// Appends after node `at` (and the Repeats that replay it alone) the nodes that turn the
/// reshaped read back into the value of the `original` counters: `windows` (the line
/// buffer and wires that spread merged windows back out), then the reordering and the
/// serialiser of `s`.
void restore(const Program& prog, Unit& unit, uint32_t at, const std::vector<Counter>& original, const Shape& s,
             std::vector<Node> windows) {
  const size_t ns = streamCount(original);
  // the read's vector counters, in the order the value had them (the widened one first)
  std::vector<size_t> logical;
  if (s.widened >= 0) logical.push_back(static_cast<size_t>(s.widened));
  for (size_t i = ns; i < original.size(); ++i) logical.push_back(i);
  const size_t readStreams = s.widened >= 0 ? ns - 1 : ns;
  std::vector<Node> chain = std::move(windows);
  std::vector<int64_t> perm;
  bool identity = true;
  for (size_t d = 0; d < logical.size(); ++d)
    for (size_t p = readStreams; p < s.order.size(); ++p)
      if (s.order[p] == logical[d]) {
        perm.push_back(static_cast<int64_t>(p - readStreams));
        identity = identity && perm.back() == static_cast<int64_t>(d);
      }
  if (!identity) chain.push_back(wiring(Prim::PermuteVec, 0, perm));
  if (s.widened >= 0) {
    chain.push_back(wiring(Prim::VecToStm, 0, {}));
    // The widened counter is now the innermost stream dimension; the ones of a single step
    // that were inside it go back inside it (joins and splits are renamings).
    const auto w = static_cast<int64_t>(s.widened);
    const auto inside = static_cast<int64_t>(ns) - 1 - w;
    for (int64_t k = 0; k < inside; ++k) chain.push_back(wiring(Prim::JoinStm, 0, {w}));
    for (int64_t k = 0; k < inside; ++k) chain.push_back(wiring(Prim::SplitStm, 0, {w, 1}));
  }
  insertChain(prog, unit, at, std::move(chain));
}

}  // namespace

size_t shapeReadLanes(Program& prog, AccessCounter& counts, bool boxReads) {
  size_t changed = 0;
  for (Unit& unit : prog.units) {
    for (uint32_t i = 0; i < unit.nodes.size(); ++i) {
      Node& read = unit.nodes[i];
      if (read.prim != Prim::Read) continue;
      const int bytes = prog.buffers.at(static_cast<size_t>(read.buffer)).bits / 8;
      const AddrGen& g = read.addr;
      // Widening changes the stream a replay buffer would hold: only reads nothing replays.
      const auto users = usersOf(unit, i);
      const bool replayed = std::any_of(users.begin(), users.end(), [&](uint32_t u) { return unit.nodes[u].prim == Prim::Repeat; });
      if (!g.linear()) {
        // Flattened windows: the other shapes below need one radix per group.
        auto box = replayed || !boxReads ? std::nullopt : bestBoxRead(g, bytes, read.type.vectorLanes(), counts);
        if (!box) continue;
        const MType before = read.type;
        const size_t ns = streamCount(g.counters);
        std::vector<Node> chain;
        std::vector<int64_t> params{static_cast<int64_t>(g.counters.size() - box->first)};
        for (size_t c = box->first; c < g.counters.size(); ++c) params.push_back(g.counters[c].extent);
        params.push_back(box->fill);
        params.insert(params.end(), box->select.begin(), box->select.end());
        chain.push_back(wiring(Prim::SelectLanes, 0, std::move(params)));
        for (size_t c = box->first; c < ns; ++c) chain.push_back(wiring(Prim::VecToStm, 0, {}));
        read.addr = std::move(box->read);
        read.type = inferType(prog, unit, read);
        const uint32_t last = insertChain(prog, unit, i, std::move(chain));
        if (unit.nodes[last].type != before)
          throw std::logic_error("shapeReadLanes: the box read does not restore its value's type");
        ++changed;
        continue;
      }
      Shape plain;
      for (size_t k = 0; k < g.counters.size(); ++k) plain.order.push_back(k);
      Shape best = orderLanes(g, plain, bytes, counts);
      if (auto wide = replayed ? std::nullopt : widen(g)) {
        Shape w = orderLanes(g, *wide, bytes, counts);
        const AddrGen narrowGen = reshaped(g, best), wideGen = reshaped(g, w);
        const AccessCount narrow = counts.read(narrowGen, bytes, narrowGen.valueType(8).vectorLanes());
        const AccessCount broad = counts.read(wideGen, bytes, wideGen.valueType(8).vectorLanes());
        if (broad.lines < narrow.lines && broad.runs <= narrow.runs) best = w;
      }
      // The windows of the shaped read, read as rows when that takes fewer runs: within a
      // vector (Slide) and across the stream (SlideStm, not under a replay buffer).
      const AddrGen shaped = reshaped(g, best);
      auto fewerRuns = [&](const AddrGen& a, const AddrGen& b) {
        return counts.read(a, bytes, a.valueType(8).vectorLanes()).runs < counts.read(b, bytes, b.valueType(8).vectorLanes()).runs;
      };
      std::optional<AddrGen> rows = mergedWindows(shaped);
      if (rows && !fewerRuns(*rows, shaped)) rows.reset();
      const AddrGen& inVector = rows ? *rows : shaped;
      auto lines = replayed ? std::nullopt : mergedStreamWindows(inVector);
      if (lines && !fewerRuns(lines->second, inVector)) lines.reset();
      if (best.order == plain.order && best.widened < 0 && !rows && !lines) continue;
      const std::vector<Counter> original = g.counters;
      const MType before = read.type;
      const int64_t taps = shaped.counters.back().extent;
      const int64_t lineTaps = inVector.counters[streamCount(inVector.counters)].extent;
      read.addr = lines ? lines->second : inVector;
      read.type = inferType(prog, unit, read);
      // A replay buffer of the read alone keeps the read's shape: the wiring follows it.
      uint32_t last = i;
      for (auto us = usersOf(unit, last); us.size() == 1 && unit.nodes[us[0]].prim == Prim::Repeat; us = usersOf(unit, last)) {
        last = us[0];
        unit.nodes[last].type = inferType(prog, unit, unit.nodes[last]);
      }
      std::vector<Node> windows;
      if (lines) windows.push_back(wiring(Prim::SlideStm, 0, {static_cast<int64_t>(lines->first), lineTaps}));
      if (rows) windows.push_back(wiring(Prim::Slide, 0, {taps}));
      const size_t sizeBefore = unit.nodes.size();
      restore(prog, unit, last, original, best, std::move(windows));
      const uint32_t end = last + static_cast<uint32_t>(unit.nodes.size() - sizeBefore);
      if (last == i && unit.nodes[end].type != before)
        throw std::logic_error("shapeReadLanes: the reshaped read does not restore its value's type");
      ++changed;
    }
  }
  return changed;
}

size_t keepReadLines(Program& prog, AccessCounter& counts) {
  size_t changed = 0;
  for (Unit& unit : prog.units)
    for (size_t at = 0; at < unit.nodes.size(); ++at) {
      Node& read = unit.nodes[at];
      if (read.prim != Prim::Read) continue;
      const int bytes = prog.buffers.at(static_cast<size_t>(read.buffer)).bits / 8;
      // Only a read bound by its own lines: more lines than runs when it keeps one, or as
      // many lines as runs shorter than a line, two of which may share one (a 2 x 2 pool's
      // window rows of 32 bytes, two windows to a line); only such a read is walked for
      // every kept-line count. A box read (a SelectLanes takes its lanes) counts from half
      // as many lines as runs: its unit's writes share the port (TinyYolo's paired first
      // layer reads boxes in 59,904 runs and 46,725 lines, 17,910 keeping 5, in a unit of
      // 93,331 lines for 86,815 steps). Other reads with fewer lines than runs stay as
      // they were: on vgg_cifar_small at 64 DSPs keeping lines for them mispriced a first
      // layer (11,693 cycles predicted, 14,928 estimated). And kept lines must save at
      // least an eighth of them. It keeps the fewest lines that save seven eighths of what
      // the most could (a window's rows and their next), not the last few lines a larger
      // register file would save.
      const AccessCount single = counts.read(read.addr, bytes, read.type.vectorLanes());
      const int64_t bytesRead = read.type.streamSteps() * read.type.vectorLanes() * bytes;
      const bool box = std::any_of(unit.nodes.begin(), unit.nodes.end(), [&](const Node& n) {
        return n.prim == Prim::SelectLanes && !n.operands.empty() && n.operands[0] == at;
      });
      if ((box ? 2 * single.lines : single.lines) < single.runs ||
          (single.lines == single.runs && bytesRead >= single.runs * kLineBytes))
        continue;
      const std::vector<int64_t>& lines = counts.readLines(read.addr, bytes, read.type.vectorLanes(), kMaxKeptLines).lines;
      const int64_t one = lines.front(), least = *std::min_element(lines.begin(), lines.end());
      if ((one - least) * 8 < one) continue;
      const auto fewest = std::find_if(lines.begin(), lines.end(), [&](int64_t l) { return (l - least) * 8 <= one - least; });
      read.params = {static_cast<int64_t>(fewest - lines.begin()) + 1};
      ++changed;
    }
  return changed;
}

}  // namespace skeleshare::lower
