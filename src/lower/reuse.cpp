// Reads that repeat themselves (docs/lowering.md, "Reuse"). A Read whose address does not
// depend on a counter reads the same elements for every value of it: the vector counters
// it does not depend on become a Broadcast (wires: one lane read, copied), and
// runs of adjacent stream counters it does not depend on become a Repeat, a replay buffer
// on chip that holds the block read inside them and plays it again, when the block fits
// the on-chip budget. The data then crosses the memory port once instead of once per
// repetition: a convolution's weights once per call, not once per output position.

#include <fmt/format.h>

#include "lower_impl.h"

namespace skeleshare::lower::detail {

namespace {

size_t streamCounters(const AddrGen& g) {
  size_t n = 0;
  while (n < g.counters.size() && g.counters[n].kind == DimKind::Stream) ++n;
  return n;
}

}  // namespace

ReusePlan planReuse(const AddrGen& gen, int bits, int64_t budgetBits) {
  ReusePlan plan;
  const size_t ns = streamCounters(gen);
  // Vector counters the access does not depend on: copies of the lanes inside them.
  int64_t lanes = 1;
  for (size_t i = ns; i < gen.counters.size(); ++i) {
    if (!gen.dependsOn(i) && gen.counters[i].extent > 1) plan.broadcast.push_back(i - ns);
    else lanes *= gen.counters[i].extent;
  }
  // Runs of adjacent independent stream counters, decided innermost first: a run's block is
  // the read's stream inside it, without the inner runs already taken.
  std::vector<std::pair<size_t, size_t>> runs;  // [first, last) stream positions
  for (size_t i = 0; i < ns;) {
    if (gen.dependsOn(i)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < ns && !gen.dependsOn(j)) ++j;
    runs.push_back({i, j});
    i = j;
  }
  std::vector<bool> removed(ns, false);
  for (size_t r = runs.size(); r-- > 0;) {
    auto [first, last] = runs[r];
    int64_t repetitions = 1;
    for (size_t k = first; k < last; ++k) repetitions *= gen.counters[k].extent;
    if (repetitions == 1) continue;  // counters of extent 1 repeat nothing
    int64_t words = 1;
    for (size_t k = last; k < ns; ++k)
      if (!removed[k]) words *= gen.counters[k].extent;
    int64_t blockBits = 2 * words * lanes * bits;  // two banks (ss_repeat)
    if (blockBits > budgetBits - plan.bits) continue;
    plan.bits += blockBits;
    plan.repeats.insert(plan.repeats.begin(), {first, last});
    for (size_t k = first; k < last; ++k) removed[k] = true;
  }
  return plan;
}

uint32_t readWithReuse(UnitBuilder& b, int buffer, AddrGen gen, const ReusePlan& plan) {
  const MType want = gen.valueType(b.bits(buffer));
  const size_t ns = streamCounters(gen);
  // The counters the read keeps: every stream counter outside the repeats, the vector
  // counters inside the broadcast ones. Remove from the back so indices stay valid.
  std::vector<std::vector<int64_t>> runExtents;
  for (const auto& [first, last] : plan.repeats) {
    std::vector<int64_t> ext;
    for (size_t k = first; k < last; ++k) ext.push_back(gen.counters[k].extent);
    runExtents.push_back(ext);
  }
  std::vector<int64_t> copies;
  for (size_t v : plan.broadcast) copies.push_back(gen.counters[ns + v].extent);
  for (size_t k = plan.broadcast.size(); k-- > 0;) gen.removeCounter(ns + plan.broadcast[k]);
  for (size_t r = plan.repeats.size(); r-- > 0;)
    for (size_t k = plan.repeats[r].second; k-- > plan.repeats[r].first;) gen.removeCounter(k);
  uint32_t x = b.read(buffer, std::move(gen));
  // Outermost run first, at its final position: the stream dimensions before it are the
  // read's kept counters before it and the outer runs (each already split back).
  for (size_t r = 0; r < plan.repeats.size(); ++r) {
    const auto d = static_cast<int64_t>(plan.repeats[r].first);
    int64_t n = 1;
    for (int64_t e : runExtents[r]) n *= e;
    x = b.op(Prim::Repeat, {x}, {n, d});
    int64_t rest = n;
    for (size_t k = 0; k + 1 < runExtents[r].size(); ++k) {
      rest /= runExtents[r][k];
      x = b.op(Prim::SplitStm, {x}, {d + static_cast<int64_t>(k), rest});
    }
  }
  // outermost first: the positions before each are then as in the plain read
  for (size_t k = 0; k < plan.broadcast.size(); ++k)
    x = b.op(Prim::Broadcast, {x}, {copies[k], static_cast<int64_t>(plan.broadcast[k])});
  if (b.type(x) != want)
    throw std::logic_error(fmt::format("reuse: the replayed read is {}, the read was {}", b.type(x).str(), want.str()));
  return x;
}

}  // namespace skeleshare::lower::detail
