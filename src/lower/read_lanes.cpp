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
  for (Node& n : chain) {
    n.operands = {at};
    ++at;
    insertAfter(unit, at, std::move(n));
    Node& placed = unit.nodes[at];
    placed.type = inferType(prog, unit, placed);
  }
}

}  // namespace

size_t shapeReadLanes(Program& prog, AccessCounter& counts) {
  size_t changed = 0;
  for (Unit& unit : prog.units) {
    for (uint32_t i = 0; i < unit.nodes.size(); ++i) {
      Node& read = unit.nodes[i];
      if (read.prim != Prim::Read) continue;
      const int bytes = prog.buffers.at(static_cast<size_t>(read.buffer)).bits / 8;
      const AddrGen& g = read.addr;
      Shape plain;
      for (size_t k = 0; k < g.counters.size(); ++k) plain.order.push_back(k);
      Shape best = orderLanes(g, plain, bytes, counts);
      // Widening changes the stream a replay buffer would hold: only reads nothing replays.
      const auto users = usersOf(unit, i);
      const bool replayed = std::any_of(users.begin(), users.end(), [&](uint32_t u) { return unit.nodes[u].prim == Prim::Repeat; });
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
    for (Node& read : unit.nodes) {
      if (read.prim != Prim::Read) continue;
      const int bytes = prog.buffers.at(static_cast<size_t>(read.buffer)).bits / 8;
      // Only a read bound by its own lines: more lines than runs when it keeps one, or as
      // many lines as runs shorter than a line, two of which may share one (a 2 x 2 pool's
      // window rows of 32 bytes, two windows to a line); only such a read is walked for
      // every kept-line count. And kept lines must save at least an eighth of them. It
      // keeps the fewest lines that save seven eighths of what the most could (a window's
      // rows and their next), not the last few lines a larger register file would save.
      const AccessCount single = counts.read(read.addr, bytes, read.type.vectorLanes());
      const int64_t bytesRead = read.type.streamSteps() * read.type.vectorLanes() * bytes;
      if (single.lines < single.runs || (single.lines == single.runs && bytesRead >= single.runs * kLineBytes)) continue;
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
