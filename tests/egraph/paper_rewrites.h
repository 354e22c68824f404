#pragma once
// Hand-written rewrites of the paper's running example, for tests that must not depend
// on the rule files (the e-graph's DOT test, the extractor's enumeration tests).

#include <string>
#include <vector>

#include "skeleshare/egraph/pattern.h"
#include "skeleshare/egraph/rewrite.h"

namespace skeleshare::paper_rewrites {

/// cMvF[?M, ?N] over scalars ?A, ?B, as a template.
inline egraph::Pattern cMvFTemplate(egraph::IntExpr m, egraph::IntExpr n, const std::string& a,
                                    const std::string& b) {
  using P = egraph::Pattern;
  using T = egraph::TypePattern;
  auto mat = T::tensor(T::scalar(a), {m, n});
  auto vec = T::tensor(T::scalar(b), {n});
  auto rep = T::tensor(T::scalar(b), {m, n});
  auto dot = P::lam2(mat, rep, P::node(ir::Op::ParallelDot, {P::var(1, mat), P::var(0, rep)}, {m}));
  return P::lam2(mat, vec, P::node(ir::Op::Mv, {P::var(1, mat), P::var(0, vec), dot}));
}

/// R-PAD-MV: Mv(?mat : ?A[?M][?N], ?vec : ?B[?N], ?f) -> PaddedMv(?mat, ?vec, cMvF[?M, ?PN])
/// for every dimension ?PN of the e-graph with ?N < ?PN.
inline egraph::PatternRewrite padMvRewrite(std::string group) {
  using P = egraph::Pattern;
  using T = egraph::TypePattern;
  using egraph::iv;
  egraph::PatternRewrite r(
      "R-PAD-MV",
      P::node(ir::Op::Mv, {P::cls("?mat", T::tensor(T::scalar("?A"), {iv("?M"), iv("?N")})),
                           P::cls("?vec", T::tensor(T::scalar("?B"), {iv("?N")})), P::cls("?f")}),
      P::node(ir::Op::PaddedMv, {P::cls("?mat"), P::cls("?vec"), cMvFTemplate(iv("?M"), iv("?PN"), "?A", "?B")}),
      {std::move(group)});
  uint32_t n = r.vars().intSlot("?N"), pn = r.vars().intSlot("?PN");
  r.expand([=](const egraph::EGraph& g, const egraph::Subst& s, std::vector<egraph::Subst>& out) {
    for (int64_t d : g.dimensions()) {
      if (d <= s.integer(n)) continue;
      egraph::Subst t = s;
      t.setInt(pn, d);
      out.push_back(std::move(t));
    }
  });
  return r;
}

}  // namespace skeleshare::paper_rewrites
