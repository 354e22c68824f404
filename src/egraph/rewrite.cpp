#include "skeleshare/egraph/rewrite.h"

#include <algorithm>

namespace skeleshare::egraph {

bool Rewrite::inGroup(std::string_view group) const {
  return std::find(groups_.begin(), groups_.end(), group) != groups_.end();
}

VarTable PatternRewrite::extend(const CompiledPattern& lhs, const Pattern& rhs) {
  VarTable vars = lhs.vars();
  CompiledTemplate probe(rhs, vars);  // declares the right-hand side's own variables
  return vars;
}

PatternRewrite::PatternRewrite(std::string name, const Pattern& lhs, const Pattern& rhs,
                               std::vector<std::string> groups)
    : Rewrite(std::move(name), std::move(groups)),
      lhs_(lhs),
      vars_(extend(lhs_, rhs)),
      rhs_(rhs, vars_) {}

PatternRewrite& PatternRewrite::when(Condition c) {
  conditions_.push_back(std::move(c));
  return *this;
}

PatternRewrite& PatternRewrite::expand(Expander e) {
  expanders_.push_back(std::move(e));
  return *this;
}

void PatternRewrite::search(const EGraph& g, std::vector<Match>& out) const {
  size_t first = out.size();
  lhs_.search(g, out, vars_.size());
  if (conditions_.empty() && expanders_.empty()) return;
  std::vector<Match> found(std::make_move_iterator(out.begin() + static_cast<std::ptrdiff_t>(first)),
                           std::make_move_iterator(out.end()));
  out.resize(first);
  std::vector<Subst> cur, next;
  for (Match& m : found) {
    bool ok = true;
    for (const Condition& c : conditions_)
      if (!(ok = c(g, m.subst))) break;
    if (!ok) continue;
    if (expanders_.empty()) {
      out.push_back(std::move(m));
      continue;
    }
    cur.clear();
    cur.push_back(std::move(m.subst));
    for (const Expander& e : expanders_) {
      next.clear();
      for (const Subst& s : cur) e(g, s, next);
      std::swap(cur, next);
    }
    for (Subst& s : cur) out.push_back(Match{m.root, std::move(s)});
  }
}

bool PatternRewrite::apply(EGraph& g, const Match& m) const {
  size_t ids = g.idCount();
  ClassId id = rhs_.instantiate(g, m.subst);
  if (id == kNoClass) return g.idCount() != ids;
  bool merged = g.merge(m.root, id);
  return merged || g.idCount() != ids;
}

}  // namespace skeleshare::egraph
