#include "skeleshare/lower/line_rams.h"

#include <algorithm>

#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

int64_t bufferLines(const Buffer& b) { return (b.sizeBits() + kLineBytes * 8 - 1) / (kLineBytes * 8); }

LineRamPlan planLineRams(const Program& prog) {
  // each buffer's span: the first and last unit that reads or writes it, a unit that
  // starts with the one before it counted from that one's start
  const size_t nb = prog.buffers.size();
  std::vector<int64_t> first(nb, -1), last(nb, -1);
  for (size_t u = 0; u < prog.units.size(); ++u)
    for (const Node& n : prog.units[u].nodes)
      if ((n.prim == Prim::Read || n.prim == Prim::Write) && n.buffer >= 0 && static_cast<size_t>(n.buffer) < nb) {
        const auto b = static_cast<size_t>(n.buffer);
        const auto from = static_cast<int64_t>(prog.firstShared(u));
        if (first[b] < 0 || from < first[b]) first[b] = from;
        last[b] = static_cast<int64_t>(u);
      }
  std::vector<int> order;
  for (size_t b = 0; b < nb; ++b)
    if (prog.buffers[b].memory == Memory::OnChip && first[b] >= 0) order.push_back(static_cast<int>(b));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)]; });

  LineRamPlan plan;
  plan.ramOf.assign(nb, -1);
  std::vector<int64_t> busyUntil;  // per RAM: the last unit of its latest buffer
  for (int b : order) {
    const auto bi = static_cast<size_t>(b);
    const int64_t need = bufferLines(prog.buffers[bi]);
    int best = -1;
    for (size_t r = 0; r < plan.rams.size(); ++r) {
      if (busyUntil[r] >= first[bi]) continue;
      if (best < 0) {
        best = static_cast<int>(r);
        continue;
      }
      const int64_t have = plan.rams[r].lines, bestHave = plan.rams[static_cast<size_t>(best)].lines;
      // the smallest RAM that holds the buffer, else the largest (it grows the least)
      const bool fits = have >= need, bestFits = bestHave >= need;
      if ((fits && (!bestFits || have < bestHave)) || (!fits && !bestFits && have > bestHave)) best = static_cast<int>(r);
    }
    if (best < 0) {
      best = static_cast<int>(plan.rams.size());
      plan.rams.push_back({});
      busyUntil.push_back(-1);
    }
    LineRam& ram = plan.rams[static_cast<size_t>(best)];
    ram.lines = std::max(ram.lines, need);
    ram.buffers.push_back(b);
    busyUntil[static_cast<size_t>(best)] = last[bi];
    plan.ramOf[bi] = best;
  }
  return plan;
}

}  // namespace skeleshare::lower
