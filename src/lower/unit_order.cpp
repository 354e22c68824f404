#include "skeleshare/lower/unit_order.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <string>
#include <utility>

#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/timing.h"

namespace skeleshare::lower {

namespace {

std::set<int> buffersOf(const Unit& unit, Prim prim) {
  std::set<int> b;
  for (const Node& n : unit.nodes)
    if (n.prim == prim) b.insert(n.buffer);
  return b;
}

bool meets(const std::set<int>& a, const std::set<int>& b) {
  for (int x : a)
    if (b.count(x)) return true;
  return false;
}

/// "u<k>_rest" -> "u<position>_rest"; any other name stays.
std::string renamed(const std::string& name, size_t position) {
  size_t digits = 1;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  if (name.size() < 3 || name[0] != 'u' || digits == 1 || digits >= name.size() || name[digits] != '_') return name;
  return fmt::format("u{}{}", position, name.substr(digits));
}

}  // namespace

bool independentUnits(const Unit& a, const Unit& b) {
  const std::set<int> aw = buffersOf(a, Prim::Write), bw = buffersOf(b, Prim::Write);
  return !meets(aw, buffersOf(b, Prim::Read)) && !meets(bw, buffersOf(a, Prim::Read)) && !meets(aw, bw);
}

size_t orderUnitsForOverlap(Program& prog, int64_t onChipBudgetBits, const cost::MemorySystem& memory,
                            AccessCounter& counts) {
  applyOverlap(prog, onChipBudgetBits);
  int64_t best = estimateCycles(prog, memory, counts).total;
  size_t swaps = 0;
  // every swap lowers the estimate, so this ends; the bound is a guard
  const size_t maxSwaps = prog.units.size() * prog.units.size();
  for (bool gained = true; gained && swaps < maxSwaps;) {
    gained = false;
    for (size_t k = 0; k + 1 < prog.units.size() && !gained; ++k) {
      if (!independentUnits(prog.units[k], prog.units[k + 1])) continue;
      Program candidate = prog;
      std::swap(candidate.units[k], candidate.units[k + 1]);
      applyOverlap(candidate, onChipBudgetBits);
      if (!programFitsOnChip(candidate, onChipBudgetBits)) continue;
      const int64_t total = estimateCycles(candidate, memory, counts).total;
      if (total >= best) continue;
      prog = std::move(candidate);
      best = total;
      gained = true;
      ++swaps;
    }
  }
  if (swaps > 0)
    for (size_t u = 0; u < prog.units.size(); ++u) prog.units[u].name = renamed(prog.units[u].name, u);
  return swaps;
}

}  // namespace skeleshare::lower
