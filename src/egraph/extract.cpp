#include "skeleshare/egraph/extract.h"

#include <algorithm>

namespace skeleshare::egraph {

namespace {
constexpr uint64_t kSaturate = uint64_t{1} << 62;

const ir::Term* makeTerm(ir::Context& ctx, const ENode& n, std::span<const ir::Term* const> kids) {
  std::string error;
  const ir::Term* t = ctx.tryMake(n.op(), n.params(), n.annot(), kids, error);
  if (!t) throw EGraphError("extraction built an ill-typed term from " + n.str() + ": " + error);
  return t;
}
}  // namespace

SmallestExtractor::SmallestExtractor(const EGraph& g) : g_(g) {
  if (!g.clean()) throw EGraphError("extraction needs a rebuilt e-graph");
  size_t n = g.idCount();
  size_.assign(n, kInfinite);
  best_.assign(n, kNoClass);
  terms_.assign(n, nullptr);
  std::vector<ClassId> classes = g.classIds();
  // Bellman-Ford-style sweeps until no size decreases; sizes only decrease, and are
  // bounded below, so this terminates.
  for (bool changed = true; changed;) {
    changed = false;
    for (ClassId c : classes) {
      for (NodeId id : g.eclass(c).nodes) {
        uint64_t s = nodeSize(id);
        if (s < size_[c]) {
          size_[c] = s;
          changed = true;
        }
      }
    }
  }
  // The best node: the first one, in class order, of minimal size.
  for (ClassId c : classes) {
    if (size_[c] == kInfinite) continue;
    for (NodeId id : g.eclass(c).nodes)
      if (nodeSize(id) == size_[c]) {
        best_[c] = id;
        break;
      }
  }
}

uint64_t SmallestExtractor::nodeSize(NodeId id) const {
  uint64_t s = 1;
  for (ClassId k : g_.node(id).children()) {
    uint64_t ks = size_[g_.find(k)];
    if (ks == kInfinite) return kInfinite;
    s = std::min(kSaturate, s + ks);
  }
  return s;
}

const ir::Term* SmallestExtractor::extract(ClassId c) const {
  c = g_.find(c);
  if (terms_[c]) return terms_[c];
  NodeId id = best_[c];
  if (id == kNoClass) throw EGraphError("class e" + std::to_string(c) + " has no finite term");
  const ENode& n = g_.node(id);
  std::vector<const ir::Term*> kids;
  // Children have strictly smaller sizes, so the recursion terminates.
  for (ClassId k : n.children()) kids.push_back(extract(k));
  return terms_[c] = makeTerm(g_.context(), n, kids);
}

RandomExtractor::RandomExtractor(const EGraph& g, uint64_t seed, uint32_t maxDepth)
    : g_(g), smallest_(g), state_(seed), maxDepth_(maxDepth) {
  terms_.assign(g.idCount(), nullptr);
  chosen_.assign(g.idCount(), kNoClass);
  onStack_.assign(g.idCount(), 0);
}

uint64_t RandomExtractor::next() {
  // splitmix64: fully specified, so the same seed gives the same choices everywhere.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

const ir::Term* RandomExtractor::extract(ClassId c) { return build(g_.find(c), 0); }

const ir::Term* RandomExtractor::build(ClassId c, uint32_t depth) {
  if (terms_[c]) return terms_[c];
  if (depth >= maxDepth_) return terms_[c] = smallest_.extract(c);
  std::vector<NodeId> candidates;
  for (NodeId id : g_.eclass(c).nodes) {
    if (smallest_.nodeSize(id) == SmallestExtractor::kInfinite) continue;
    bool cycle = false;
    for (ClassId k : g_.node(id).children()) cycle = cycle || g_.find(k) == c || onStack_[g_.find(k)];
    if (!cycle) candidates.push_back(id);
  }
  if (candidates.empty()) return terms_[c] = smallest_.extract(c);
  NodeId pick = candidates[next() % candidates.size()];
  chosen_[c] = pick;
  onStack_[c] = 1;
  const ENode& n = g_.node(pick);
  std::vector<const ir::Term*> kids;
  for (ClassId k : n.children()) kids.push_back(build(g_.find(k), depth + 1));
  onStack_[c] = 0;
  return terms_[c] = makeTerm(g_.context(), n, kids);
}

}  // namespace skeleshare::egraph
