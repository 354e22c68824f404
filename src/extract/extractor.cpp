#include "skeleshare/extract/extractor.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <z3++.h>

namespace skeleshare::extract {

using namespace cost;

const char* statusName(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::NoSolution: return "no_solution";
    case Status::TimeoutNoSolution: return "timeout_no_solution";
  }
  return "?";
}

const char* limitName(Limit s) {
  switch (s) {
    case Limit::None: return "none";
    case Limit::Effort: return "effort";
    case Limit::Timeout: return "timeout";
    case Limit::QueryCap: return "query_cap";
    case Limit::Solver: return "solver";
  }
  return "?";
}

namespace {

/// The SMT encoding of Section III-C with the cost model of Section IV-C.
class Encoding {
 public:
  Encoding(const Problem& p, const ExtractOptions& opts)
      : p_(p), opts_(opts), s_(ctx_), aBudget_(ctx_.bool_const("limit_dsp")), aConv_(ctx_.bool_const("limit_conv")) {
    z3::params params(ctx_);
    params.set("random_seed", 0u);
    s_.set(params);
    build();
  }

  z3::solver& solver() { return s_; }
  z3::context& ctx() { return ctx_; }
  const z3::expr& budgetLiteral() const { return aBudget_; }
  const z3::expr& convLiteral() const { return aConv_; }
  /// The design's time: the root's, plus, where every unit calls one shared instance and
  /// hands it over to the next (--overlap), the lead and the drain its callers' credits
  /// left out, once (the largest of each).
  const z3::expr& rootTime() const { return *objective_; }
  const z3::expr& totalDsps() const { return *dTotal_; }
  const z3::expr& totalConvUnits() const { return *uTotal_; }
  size_t bools() const { return bools_; }
  /// Z3 resource units spent so far in this context (deterministic).
  uint64_t rlimitCount() {
    z3::stats st = s_.statistics();
    for (unsigned i = 0; i < st.size(); ++i) {
      if (st.key(i) != "rlimit count") continue;
      return st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(st.double_value(i));
    }
    return 0;
  }
  size_t ints() const { return ints_; }

  /// A cycle among the chosen nodes (their dense node indices), or empty.
  std::vector<uint32_t> findCycle(const Selection& sel) const {
    const size_t nc = p_.classes().size();
    std::vector<uint8_t> state(nc, 0);
    struct Frame {
      uint32_t c;
      size_t kid;
    };
    std::vector<Frame> stack{{p_.root(), 0}};
    state[p_.root()] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      int32_t n = sel.chosen[f.c];
      const PNode& pn = p_.node(static_cast<uint32_t>(n));
      if (f.kid < pn.kids.size()) {
        uint32_t k = pn.kids[f.kid++];
        if (state[k] == 1) {
          std::vector<uint32_t> cycle;
          for (size_t i = stack.size(); i-- > 0;) {
            cycle.push_back(static_cast<uint32_t>(sel.chosen[stack[i].c]));
            if (stack[i].c == k) break;
          }
          return cycle;
        }
        if (state[k] == 0 && sel.chosen[k] >= 0) {
          state[k] = 1;
          stack.push_back({k, 0});
        }
        continue;
      }
      state[f.c] = 2;
      stack.pop_back();
    }
    return {};
  }

  /// Forbids selecting all the nodes of a cycle together (lazy acyclicity).
  void blockCycle(const std::vector<uint32_t>& cycle) {
    z3::expr_vector lits(ctx_);
    for (uint32_t n : cycle) lits.push_back(!selN_[n]);
    s_.add(z3::mk_or(lits));
    ++cuts_;
  }
  size_t cuts() const { return cuts_; }

  /// The design in the solver's current model.
  Selection selection() {
    z3::model m = s_.get_model();
    const size_t nc = p_.classes().size();
    Selection sel;
    sel.chosen.assign(nc, -1);
    sel.shared.assign(nc, 0);
    std::vector<uint32_t> stack{p_.root()};
    std::vector<uint8_t> seen(nc, 0);
    seen[p_.root()] = 1;
    while (!stack.empty()) {
      uint32_t c = stack.back();
      stack.pop_back();
      const PClass& pc = p_.cls(c);
      int32_t chosen = -1;
      for (uint32_t n : pc.nodes) {
        if (pc.free || pc.absorbed || m.eval(selN_[n], true).is_true()) {
          chosen = static_cast<int32_t>(n);
          break;
        }
      }
      sel.chosen[c] = chosen;
      if (pc.shareable) sel.shared[c] = m.eval(share_[c], true).is_true() ? 1 : 0;
      if (chosen < 0) continue;
      for (uint32_t k : p_.node(static_cast<uint32_t>(chosen)).kids)
        if (!seen[k]) {
          seen[k] = 1;
          stack.push_back(k);
        }
    }
    return sel;
  }

 private:
  z3::expr boolVar(const std::string& name) {
    ++bools_;
    return ctx_.bool_const(name.c_str());
  }
  z3::expr intVar(const std::string& name) {
    ++ints_;
    z3::expr v = ctx_.int_const(name.c_str());
    s_.add(v >= 0);
    return v;
  }
  z3::expr num(int64_t v) { return ctx_.int_val(v); }

  /// max over the time of the given classes (an auxiliary bounded from below).
  z3::expr maxOf(std::vector<uint32_t> kids) {
    std::vector<uint32_t> live;
    for (uint32_t k : kids)
      if (!p_.cls(k).free) live.push_back(k);
    std::sort(live.begin(), live.end());
    live.erase(std::unique(live.begin(), live.end()), live.end());
    if (live.empty()) return num(0);
    if (live.size() == 1) return t_[live[0]];
    auto it = maxMemo_.find(live);
    if (it != maxMemo_.end()) return it->second;
    z3::expr m = intVar(fmt::format("max{}", maxMemo_.size()));
    for (uint32_t k : live) s_.add(m >= t_[k]);
    maxMemo_.emplace(live, m);
    return m;
  }

  z3::expr affine(const PNode& pn, int d, const std::vector<z3::expr>& vars, int64_t constant,
                  const std::vector<CostExpr::Term>& linear) {
    z3::expr sum = num(constant);
    for (const CostExpr::Term& t : linear) {
      uint32_t k = pn.kids[t.child];
      if (p_.cls(k).free) continue;
      if (d == kDsp && !p_.cls(k).mayUseDsp) continue;
      if (d == kConvUnits && !p_.cls(k).mayUseConvUnit) continue;
      const z3::expr& v = t.compute ? c_[k] : vars[k];
      sum = sum + (t.coef == 1 ? v : num(t.coef) * v);
    }
    return sum;
  }

  /// Dimension d of the node's cost, or with `other` another expression of its time (d is
  /// kTime then): its compute time (`tag` "c") or its credited time ("x").
  z3::expr costExpr(const PNode& pn, int d, const std::vector<z3::expr>& vars, const CostExpr* other = nullptr,
                    const char* tag = "c") {
    const CostExpr& e = other ? *other : pn.cost.dim[d];
    z3::expr sum = affine(pn, d, vars, e.constant, e.linear);
    if (!e.floors.empty()) {
      // max(sum, ceil(floor_i / den_i)): an auxiliary above each (the objective keeps it tight)
      z3::expr m = intVar(fmt::format("floor_{}{}_{}", d, other ? tag : "", pn.id));
      s_.add(m >= sum);
      for (const CostExpr::Floor& f : e.floors) s_.add(num(f.den) * m >= affine(pn, d, vars, f.constant, f.linear));
      sum = m;
    }
    if (!e.maxOf.empty()) {
      std::vector<uint32_t> kids;
      for (uint32_t i : e.maxOf) kids.push_back(pn.kids[i]);
      if (d != kTime) {
        // Not produced by the cost model (D and U are sums), but keep the encoding exact.
        z3::expr m = intVar(fmt::format("max_{}_{}", d, pn.id));
        for (uint32_t k : kids) s_.add(m >= vars[k]);
        sum = sum + m;
      } else {
        sum = sum + maxOf(kids);
      }
    }
    for (uint32_t i : e.sumOf) {
      uint32_t k = pn.kids[i];
      if (!p_.cls(k).free) sum = sum + vars[k];
    }
    return sum.simplify();
  }

  void build() {
    const size_t nc = p_.classes().size();
    const size_t nn = p_.nodes().size();
    z3::expr tt = ctx_.bool_val(true), ff = ctx_.bool_val(false), zero = num(0);
    selC_.assign(nc, tt);
    share_.assign(nc, ff);
    t_.assign(nc, zero);
    c_.assign(nc, zero);
    d_.assign(nc, zero);
    u_.assign(nc, zero);
    fd_.assign(nc, zero);
    fu_.assign(nc, zero);
    selN_.assign(nn, tt);
    std::vector<uint8_t> resolved(nc, 0);

    for (uint32_t c = 0; c < nc; ++c) {
      const PClass& pc = p_.cls(c);
      if (pc.free) {
        resolved[c] = 1;
        continue;
      }
      std::string id = std::to_string(pc.id);
      t_[c] = intVar("t" + id);
      // Every finite term of the class takes at least its least tree time. Valid for every
      // design, it also makes cycles whose time multiplies (pad up, then tile down) infeasible
      // instead of free, so the lazy cycle cuts are rarely needed.
      if (p_.minTime()[c] > 0) s_.add(t_[c] >= num(p_.minTime()[c]));
      // The compute time is the time unless a node has one of its own (Problem).
      c_[c] = t_[c];
      if (pc.hasCompute) {
        c_[c] = intVar("k" + id);
        if (p_.minCompute()[c] > 0) s_.add(c_[c] >= num(p_.minCompute()[c]));
      }
      if (pc.mayUseDsp) d_[c] = intVar("d" + id);
      if (pc.mayUseConvUnit) u_[c] = intVar("u" + id);
      if (pc.shareable) {
        share_[c] = boolVar("share" + id);
        if (pc.mayUseDsp) fd_[c] = intVar("fd" + id);
        if (pc.mayUseConvUnit) fu_[c] = intVar("fu" + id);
      }
      if (pc.absorbed) continue;
      resolved[c] = 1;
      selC_[c] = boolVar("c" + id);
      if (pc.nodes.size() == 1) {
        selN_[pc.nodes[0]] = selC_[c];
      } else {
        for (uint32_t n : pc.nodes) selN_[n] = boolVar("n" + std::to_string(p_.node(n).id));
      }
    }
    // An absorbed class is selected exactly when its single user is.
    for (uint32_t c = 0; c < nc; ++c) {
      std::vector<uint32_t> chain;
      uint32_t x = c;
      while (!resolved[x]) {
        chain.push_back(x);
        x = p_.node(p_.cls(x).parents[0]).cls;
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        uint32_t a = *it;
        selC_[a] = selN_[p_.cls(a).parents[0]];
        selN_[p_.cls(a).nodes[0]] = selC_[a];
        resolved[a] = 1;
      }
    }

    // Well-formedness.
    s_.add(selC_[p_.root()]);
    for (uint32_t c = 0; c < nc; ++c) {
      const PClass& pc = p_.cls(c);
      if (pc.free || pc.absorbed || pc.nodes.size() == 1) continue;
      z3::expr_vector any(ctx_);
      for (uint32_t n : pc.nodes) {
        any.push_back(selN_[n]);
        s_.add(z3::implies(selN_[n], selC_[c]));
      }
      s_.add(z3::implies(selC_[c], z3::mk_or(any)));
    }
    for (uint32_t n = 0; n < nn; ++n) {
      const PNode& pn = p_.node(n);
      std::vector<uint32_t> kids = pn.kids;
      std::sort(kids.begin(), kids.end());
      kids.erase(std::unique(kids.begin(), kids.end()), kids.end());
      const PClass& pc = p_.cls(pn.cls);
      for (uint32_t k : kids) {
        const PClass& kc = p_.cls(k);
        if (kc.free || kc.absorbed) continue;  // absorbed: selected with this very node
        s_.add(z3::implies(selN_[n], selC_[k]));
        if (!opts_.lazyAcyclicity && pc.scc >= 0 && kc.scc == pc.scc) {
          s_.add(z3::implies(selN_[n], label(pn.cls) < label(k)));
        }
      }
    }

    const std::vector<int64_t> callee = handovers();

    // Costs: lower bounds on the use / fixed cost variables.
    for (uint32_t n = 0; n < nn; ++n) {
      const PNode& pn = p_.node(n);
      uint32_t c = pn.cls;
      const PClass& pc = p_.cls(c);
      if (pc.free) continue;
      z3::expr et = costExpr(pn, kTime, t_);
      if (callee[n] >= 0) {
        // A caller of the instance every unit calls takes its credited time.
        const auto f = static_cast<uint32_t>(callee[n]);
        const NodeCost::Overlap& o = *pn.cost.overlap;
        z3::expr credited = *handover_ == num(callee[n] + 1) && share_[f];
        et = z3::ite(credited, costExpr(pn, kTime, t_, &o.exposed, "x"), et);
        s_.add(z3::implies(selN_[n] && credited,
                           lead_.at(f) >= num(o.lead) && drain_.at(f) >= num(handoverCredit(0, o.drain))));
      }
      // A class with compute times: every node bounds it, by its own or by its time.
      std::optional<z3::expr> ec;
      if (pc.hasCompute) ec = pn.cost.compute ? costExpr(pn, kTime, t_, &*pn.cost.compute) : et;
      std::optional<z3::expr> ed, eu;
      if (pc.mayUseDsp) ed = costExpr(pn, kDsp, d_);
      if (pc.mayUseConvUnit) eu = costExpr(pn, kConvUnits, u_);
      if (pc.absorbed) {
        s_.add(t_[c] >= et);
        if (ec) s_.add(c_[c] >= *ec);
        if (ed) s_.add(d_[c] >= *ed);
        if (eu) s_.add(u_[c] >= *eu);
      } else if (pc.shareable) {
        z3::expr inPlace = t_[c] >= et, shared = t_[c] >= et + num(p_.model().communicationCost());
        if (ec) {
          inPlace = inPlace && c_[c] >= *ec;
          shared = shared && c_[c] >= *ec + num(p_.model().communicationCost());
        }
        if (ed) {
          inPlace = inPlace && d_[c] >= *ed;
          shared = shared && fd_[c] >= *ed;
        }
        if (eu) {
          inPlace = inPlace && u_[c] >= *eu;
          shared = shared && fu_[c] >= *eu;
        }
        s_.add(z3::implies(selN_[n] && !share_[c], inPlace));
        s_.add(z3::implies(selN_[n] && share_[c], shared));
      } else {
        z3::expr inPlace = t_[c] >= et;
        if (ec) inPlace = inPlace && c_[c] >= *ec;
        if (ed) inPlace = inPlace && d_[c] >= *ed;
        if (eu) inPlace = inPlace && u_[c] >= *eu;
        s_.add(z3::implies(selN_[n], inPlace));
      }
    }

    // Single abstraction: a unit is shared only among skeletons of its own family.
    if (p_.options().singleAbstraction) {
      for (uint32_t c = 0; c < nc; ++c) {
        const PClass& pc = p_.cls(c);
        if (!pc.shareable) continue;
        for (uint32_t user : pc.parents) {
          Family f = familyOf(p_.node(user).op);
          if (f != Family::None && !pc.ownFamilies.count(f)) s_.add(!share_[c] || !selN_[user]);
        }
      }
    }

    // Limits (guarded, so that an infeasible problem can be diagnosed).
    z3::expr dSum = d_[p_.root()], uSum = u_[p_.root()];
    for (uint32_t c = 0; c < nc; ++c) {
      if (!p_.cls(c).shareable) continue;
      if (p_.cls(c).mayUseDsp) dSum = dSum + fd_[c];
      if (p_.cls(c).mayUseConvUnit) uSum = uSum + fu_[c];
    }
    dTotal_ = dSum;
    uTotal_ = uSum;
    z3::expr objective = t_[p_.root()];
    for (const auto& [f, lead] : lead_) objective = objective + lead + drain_.at(f);
    objective_ = objective;
    s_.add(z3::implies(aBudget_, dSum <= num(opts_.dspBudget)));
    s_.add(z3::implies(aConv_, uSum <= num(opts_.maxConvUnits)));
  }

  /// With --overlap: per node, its handover callee (Problem::handoverCallee); and the
  /// constraints that let the design take the credit of one class f only if every unit it
  /// selects calls f (`handover_` = f + 1; 0: no credit).
  std::vector<int64_t> handovers() {
    const size_t nn = p_.nodes().size();
    std::vector<int64_t> callee(nn, -1);
    for (uint32_t n = 0; n < nn; ++n)
      if (!p_.cls(p_.node(n).cls).free) callee[n] = p_.handoverCallee(n);
    if (std::all_of(callee.begin(), callee.end(), [](int64_t f) { return f < 0; })) return callee;
    handover_ = intVar("handover");
    const z3::expr none = *handover_ == num(0);
    for (uint32_t n = 0; n < nn; ++n) {
      const PNode& pn = p_.node(n);
      if (p_.cls(pn.cls).free || !pn.cost.startsUnit) continue;
      s_.add(z3::implies(selN_[n], callee[n] >= 0 ? none || *handover_ == num(callee[n] + 1) : none));
      if (callee[n] < 0) continue;
      const auto f = static_cast<uint32_t>(callee[n]);
      if (lead_.count(f)) continue;
      const std::string id = std::to_string(p_.cls(f).id);
      lead_.emplace(f, intVar("lead" + id));
      drain_.emplace(f, intVar("drain" + id));
      s_.add(lead_.at(f) >= 0 && drain_.at(f) >= 0);
    }
    return callee;
  }

  z3::expr label(uint32_t c) {
    auto it = labels_.find(c);
    if (it != labels_.end()) return it->second;
    z3::expr l = ctx_.int_const(fmt::format("label{}", p_.cls(c).id).c_str());
    ++ints_;
    labels_.emplace(c, l);
    return l;
  }

  const Problem& p_;
  const ExtractOptions& opts_;
  z3::context ctx_;
  z3::solver s_;
  z3::expr aBudget_, aConv_;
  std::vector<z3::expr> selC_, selN_, share_, t_, c_, d_, u_, fd_, fu_;
  std::optional<z3::expr> dTotal_, uTotal_, objective_, handover_;
  std::map<uint32_t, z3::expr> lead_, drain_;  // by callee class: the lead and drain charged once
  std::map<std::vector<uint32_t>, z3::expr> maxMemo_;
  std::map<uint32_t, z3::expr> labels_;
  size_t bools_ = 0, ints_ = 0, cuts_ = 0;
};

using Clock = std::chrono::steady_clock;

}  // namespace

namespace {

/// A part of the design space: the designs whose one hardware convolution unit lies in
/// class `unit` (kNoClass with `noUnit`: designs without one; with more units allowed, the
/// whole space). Built with the limits, so nodes that cannot fit are gone (problem.h).
struct Part {
  egraph::ClassId unit = egraph::kNoClass;
  bool noUnit = false;
  std::unique_ptr<Problem> problem;
  int64_t lowerBound = 0;  // proven: no design of this part is faster
  bool closed = false;     // no design of this part is faster than the best one
  bool searched = false;
  std::string name() const {
    if (noUnit) return "no convolution unit";
    if (unit == egraph::kNoClass) return "all designs";
    return fmt::format("convolution unit in e{}", unit);
  }
};

/// A design of `sub` as a selection over `full` (every node kept in a part is kept in the
/// whole problem: parts only drop more nodes).
std::optional<Selection> toFull(const Problem& full, const Problem& sub, const Selection& s) {
  Selection out;
  out.chosen.assign(full.classes().size(), -1);
  out.shared.assign(full.classes().size(), 0);
  for (uint32_t c = 0; c < sub.classes().size(); ++c) {
    if (c >= s.chosen.size() || s.chosen[c] < 0) continue;
    uint32_t fc = full.indexOf(sub.cls(c).id);
    if (fc == UINT32_MAX) return std::nullopt;
    egraph::NodeId id = sub.node(static_cast<uint32_t>(s.chosen[c])).id;
    for (uint32_t n : full.cls(fc).nodes)
      if (full.node(n).id == id) out.chosen[fc] = static_cast<int32_t>(n);
    if (out.chosen[fc] < 0) return std::nullopt;
    out.shared[fc] = s.shared[c];
  }
  return out;
}

}  // namespace

double gapPercent(int64_t time, int64_t lowerBound) {
  if (time <= 0) return 0.0;
  return 100.0 * static_cast<double>(time - std::min(time, lowerBound)) / static_cast<double>(time);
}

ExtractResult extractDesign(const Problem& p, const ExtractOptions& opts) {
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const bool timed = opts.timeoutSeconds > 0 && std::isfinite(opts.timeoutSeconds);
  auto timeUp = [&] { return timed && elapsed() >= opts.timeoutSeconds; };
  auto remainingMs = [&]() -> unsigned {
    if (!timed) return 4294967295u;  // Z3: no timeout
    double r = opts.timeoutSeconds - elapsed();
    return r <= 0 ? 1u : static_cast<unsigned>(std::min(r * 1000.0, 4.0e9));
  };
  ExtractResult r;
  constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();
  uint64_t z3Done = 0, z3Current = 0;  // resource units of finished contexts / the current one
  auto spent = [&] { return r.greedySteps / kGreedyStepsPerEffort + z3Done + z3Current; };
  auto effortLeft = [&]() -> uint64_t {
    if (opts.effort == 0) return kUnlimited;
    return opts.effort > spent() ? opts.effort - spent() : 0;
  };
  // What stopped the search, in words; deterministic unless it was the timeout.
  auto limitText = [&]() -> std::string {
    switch (r.stoppedBy) {
      case Limit::Effort: return fmt::format("effort limit of {} reached", opts.effort);
      case Limit::Timeout: return fmt::format("timeout after {:.1f} s", elapsed());
      case Limit::QueryCap: return fmt::format("query cap of {} reached", opts.maxQueries);
      case Limit::Solver: return "the solver's per-query limit was reached";
      case Limit::None: break;
    }
    return "search incomplete";
  };
  auto say = [&](const std::string& line) {
    if (opts.progress) opts.progress(fmt::format("[{:7.2f}s] [effort {:>11}] {}", elapsed(), spent(), line));
  };
  auto finish = [&](const std::string& message) {
    r.message = message;
    if (r.lowerBound >= kCostCap) r.lowerBound = 0;  // no part: no design to bound
    r.seconds = elapsed();
    r.effortSpent = spent();
    say(message);
    return r;
  };

  if (p.loweringExcludedAll()) {
    r.status = Status::NoSolution;
    r.lowerBound = 0;
    return finish(fmt::format(
        "no design the lowering can build: every form of the program in the e-graph has a node the lowering "
        "refuses ({} refused)",
        p.stats().unlowerableNodes));
  }
  // The parts: with at most one convolution unit, one per class that can hold it and one
  // without any (docs/extraction.md, "Splitting by the convolution unit"); otherwise one.
  std::vector<Part> parts;
  {
    ProblemOptions base = p.options();
    base.dspLimit = opts.dspBudget;
    base.convUnitLimit = opts.maxConvUnits;
    auto add = [&](egraph::ClassId unit, bool noUnit) {
      Part part;
      part.unit = unit;
      part.noUnit = noUnit;
      ProblemOptions o = base;
      o.onlyConvClass = unit;
      if (noUnit) o.convUnitLimit = 0;
      part.problem = std::make_unique<Problem>(p.egraph(), p.model(), p.egraph().find(p.cls(p.root()).id), o);
      if (!part.problem->feasible()) return;
      part.lowerBound = timeLowerBound(*part.problem, noUnit ? 0 : opts.maxConvUnits);
      if (part.lowerBound >= kCostCap) return;
      parts.push_back(std::move(part));
    };
    if (opts.maxConvUnits <= 1) {
      add(egraph::kNoClass, true);
      if (opts.maxConvUnits == 1)
        for (uint32_t c = 0; c < p.classes().size(); ++c) {
          bool hasConv = false;
          for (uint32_t n : p.cls(c).nodes) hasConv |= isConvUnit(p.node(n).op);
          if (hasConv) add(p.cls(c).id, false);
        }
    } else {
      add(egraph::kNoClass, false);
    }
    std::stable_sort(parts.begin(), parts.end(),
                     [](const Part& a, const Part& b) { return a.lowerBound < b.lowerBound; });
  }
  r.lowerBound = parts.empty() ? kCostCap : parts.front().lowerBound;
  r.parts = parts.size();

  bool have = false;
  auto gapText = [&]() -> std::string {
    if (!have) return "";
    return fmt::format(", lower bound {}, gap {:.1f}%", r.lowerBound, gapPercent(r.evaluation.time(), r.lowerBound));
  };
  auto accept = [&](Selection sel, const char* source) {
    Evaluation e = evaluate(p, sel);
    if (!checkLimits(e, opts.dspBudget, opts.maxConvUnits).empty()) return false;
    if (have && e.time() >= r.evaluation.time()) return false;
    have = true;
    r.selection = std::move(sel);
    r.evaluation = std::move(e);
    r.secondsToBest = elapsed();
    r.improvements.push_back({r.secondsToBest, spent(), r.evaluation.time(), r.evaluation.dsps(), source});
    say(fmt::format("{}: {} cycles, {} DSPs{}", source, r.evaluation.time(), r.evaluation.dsps(), gapText()));
    return true;
  };
  // The proven lower bound: the least over the parts not yet closed (and the best design).
  auto updateLowerBound = [&] {
    int64_t lb = have ? r.evaluation.time() : kCostCap;
    for (const Part& part : parts)
      if (!part.closed) lb = std::min(lb, part.lowerBound);
    r.lowerBound = std::max(r.lowerBound, lb);
  };

  say(fmt::format("problem: {}", p.stats().str()));
  say(fmt::format("{} part{} within the limits, least lower bound {} cycles", parts.size(),
                  parts.size() == 1 ? "" : "s", parts.empty() ? 0 : parts.front().lowerBound));

  if (opts.greedyWarmStart && !parts.empty()) {
    GreedyLimits gl;
    if (opts.effort > 0) gl.maxSteps = std::max<uint64_t>(1, opts.effort / 10) * kGreedyStepsPerEffort;
    if (timed) gl.maxSeconds = std::max(1.0, opts.timeoutSeconds / 10);
    GreedyResult g = greedyExtract(p, opts.dspBudget, opts.maxConvUnits, gl);
    r.greedySteps = g.steps;
    if (g.candidates < g.totalCandidates)
      say(fmt::format("greedy: stopped by its {} share after {} of {} candidates", g.stepsExhausted ? "effort" : "time",
                      g.candidates, g.totalCandidates));
    r.greedyFound = g.found;
    if (g.found) {
      r.greedyTime = g.evaluation.time();
      r.greedyDsps = g.evaluation.dsps();
      accept(std::move(g.selection), "greedy");
    } else {
      say(fmt::format("greedy: nothing within the limits ({} candidates)", g.candidates));
    }
  }

  // One query on `enc`; a model whose chosen nodes form a cycle gets that cycle forbidden and
  // the query is repeated (lazy acyclicity), so a sat answer always has an acyclic design.
  // `rlimit` 0 = only the effort left. An unknown answer caused by a global limit sets
  // `r.stoppedBy`; one caused by the query's own `rlimit` leaves it None.
  std::optional<Selection> model;
  auto check = [&](Encoding& enc, const std::vector<z3::expr>& assumptions, uint64_t rlimit) {
    z3::solver& s = enc.solver();
    z3::expr_vector a(enc.ctx());
    for (const auto& e : assumptions) a.push_back(e);
    for (;;) {
      model.reset();
      // Z3 also spends resource units outside check() (simplifying the encoding's
      // assertions, no limit applies there): count them before sizing this query's share.
      z3Current = enc.rlimitCount();
      if (timeUp()) r.stoppedBy = Limit::Timeout;
      else if (effortLeft() == 0) r.stoppedBy = Limit::Effort;
      else if (opts.maxQueries > 0 && r.queries >= opts.maxQueries) r.stoppedBy = Limit::QueryCap;
      if (r.stoppedBy != Limit::None) return z3::unknown;
      uint64_t left = effortLeft();
      uint64_t limit = rlimit == 0 ? left : std::min(rlimit, left);
      bool byEffort = limit == left;
      constexpr uint64_t kMaxRlimit = 4'000'000'000u;  // Z3's rlimit parameter is 32-bit
      z3::params params(enc.ctx());
      params.set("timeout", remainingMs());
      // Z3's rlimit is relative to the units already spent: this query may spend `limit`.
      params.set("rlimit", limit == kUnlimited ? 0u : static_cast<unsigned>(std::min(limit, kMaxRlimit)));
      s.set(params);
      ++r.queries;
      z3::check_result res = s.check(a);
      z3Current = enc.rlimitCount();
      if (res == z3::unknown) {
        if (timeUp()) r.stoppedBy = Limit::Timeout;
        else if (byEffort && limit != kUnlimited) r.stoppedBy = limit > kMaxRlimit ? Limit::Solver : Limit::Effort;
        else if (rlimit == 0) r.stoppedBy = Limit::Solver;
      }
      if (res != z3::sat) return res;
      Selection sel = enc.selection();
      std::vector<uint32_t> cycle = enc.findCycle(sel);
      if (cycle.empty()) {
        model = std::move(sel);
        return res;
      }
      enc.blockCycle(cycle);
    }
  };
  auto queryLimit = [&](bool final) -> uint64_t {
    if (opts.queryRlimit == 0) return 0;
    return final ? opts.queryRlimit * kFinalQueryFactor : opts.queryRlimit;
  };

  // The least `quantity` (design dimension `dim`) under the assumptions, by bisection over
  // [lo, hi], each query within `rlimit` (0: what is left). A sat answer's model may be below
  // the bound asked for, and tightens hi to its value. Returns {lo, hi}: exact when they
  // meet; otherwise an undecided query stopped the search and lo is a lower bound.
  auto bisectLeast = [&](Encoding& enc, const z3::expr& quantity, int dim, const std::vector<z3::expr>& assume,
                         int64_t lo, int64_t hi, uint64_t rlimit) -> std::pair<int64_t, int64_t> {
    z3::solver& s = enc.solver();
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      s.push();
      s.add(quantity <= enc.ctx().int_val(mid));
      z3::check_result q = check(enc, assume, rlimit);
      if (q == z3::sat) hi = std::min(mid, evaluate(p, *model).total[dim]);
      s.pop();
      if (q == z3::unsat) lo = mid + 1;
      else if (q != z3::sat) break;
    }
    return {lo, hi};
  };

  // Which limit cannot be met, when no part has a design. First without a solver: the
  // convolution-unit limit alone on the whole problem (limit pruning), then split by the
  // unit's class; otherwise by minimising the DSPs resp. units with Z3 over the other
  // limit alone (exact numbers).
  auto unitText = [&] {
    return fmt::format("at most {} convolution unit{}", opts.maxConvUnits, opts.maxConvUnits == 1 ? "" : "s");
  };
  // The exact diagnosis: Z3 on the whole problem with each limit behind an assumption.
  auto diagnoseWithSolver = [&]() -> std::string {
    z3Done += z3Current;
    z3Current = 0;
    Encoding enc(p, opts);
    // {the least value (a lower bound when not exact), exact}
    auto minimise = [&](const z3::expr& quantity, int dim, const std::vector<z3::expr>& assume,
                        int64_t hi) -> std::pair<int64_t, bool> {
      auto [lo, least] = bisectLeast(enc, quantity, dim, assume, 0, hi, 0);
      return {lo >= least ? least : lo, lo >= least};
    };
    auto designValue = [&](int dim) {
      Selection sel = *model;
      Evaluation e = evaluate(p, sel);
      return e.valid ? e.total[dim] : kCostCap;
    };
    std::string dspPart, convPart;
    bool dspOk = false, convOk = false;
    z3::check_result convRes = check(enc, {enc.convLiteral()}, 0);
    if (convRes == z3::sat) {
      convOk = true;
      auto [need, exact] = minimise(enc.totalDsps(), kDsp, {enc.convLiteral()}, designValue(kDsp));
      dspPart = fmt::format("no design fits {} DSPs: the smallest design{} needs {}{}", opts.dspBudget,
                            opts.maxConvUnits >= 0 ? fmt::format(" with at most {} convolution unit{}", opts.maxConvUnits,
                                                                 opts.maxConvUnits == 1 ? "" : "s")
                                                   : "",
                            exact ? "" : "at least ", need);
    }
    if (check(enc, {enc.budgetLiteral()}, 0) == z3::sat) dspOk = true;
    if (!convOk) {
      z3::check_result anyRes = convRes == z3::unsat ? check(enc, {}, 0) : z3::unknown;
      if (anyRes == z3::sat) {
        int64_t unitsHi = designValue(kConvUnits), dspHi = designValue(kDsp);
        auto [units, exactU] = minimise(enc.totalConvUnits(), kConvUnits, {}, unitsHi);
        auto [need, exactD] = minimise(enc.totalDsps(), kDsp, {}, dspHi);
        convPart = fmt::format(
            "no design has at most {} convolution unit{}: the fewest possible is {}{} (the convolutions cannot "
            "all use one shared unit); without that limit the smallest design needs {}{} DSPs",
            opts.maxConvUnits, opts.maxConvUnits == 1 ? "" : "s", exactU ? "" : "at least ", units,
            exactD ? "" : "at least ", need);
      } else if (anyRes == z3::unsat) {
        convPart = "the e-graph has no well-formed design";
      } else {
        convPart = fmt::format(
            "no design fits all the limits, and which one fails is undetermined: {} during the diagnosis",
            limitText());
      }
    }
    std::string message = !convOk ? convPart : dspPart;
    if (convOk && dspOk) message += " (each limit can be met alone, not both)";
    z3Done += z3Current;
    z3Current = 0;
    return message;
  };
  // What would work when the unit limit cannot be met (the structure already proved it):
  // a design without that limit gives an upper bound on the units, a bisection from
  // `atLeast` (each query within the per-query limit, so that the diagnosis cannot take
  // the whole effort) narrows it. "; the fewest possible is N (try --max-conv-units N)", or
  // a range, or nothing when the solver finds no design in time.
  auto fewestUnitsText = [&](int64_t atLeast) -> std::string {
    z3Done += z3Current;
    z3Current = 0;
    Encoding enc(p, opts);
    const std::vector<z3::expr> budget{enc.budgetLiteral()};  // a suggestion must fit the DSPs
    if (check(enc, budget, queryLimit(false)) != z3::sat) return "";
    auto [lo, hi] = bisectLeast(enc, enc.totalConvUnits(), kConvUnits, budget, atLeast,
                                evaluate(p, *model).total[kConvUnits], queryLimit(false));
    z3Done += z3Current;
    z3Current = 0;
    r.stoppedBy = Limit::None;  // the search itself was complete: no design fits the limit
    if (lo >= hi) return fmt::format("; the fewest possible is {} (try --max-conv-units {})", hi, hi);
    return fmt::format("; the fewest possible is between {} and {} (--max-conv-units {} has a design within the budget)",
                       lo, hi, hi);
  };
  auto diagnose = [&]() -> std::string {
    ProblemOptions base = p.options();
    const egraph::ClassId root = p.egraph().find(p.cls(p.root()).id);
    ProblemOptions convOnly = base;
    convOnly.convUnitLimit = opts.maxConvUnits;
    Problem pc(p.egraph(), p.model(), root, convOnly);
    if (!pc.feasible())
      return fmt::format("no design has {}: the fewest possible is {}{}", unitText(),
                         base.sharing ? "at least " : "", pc.rootMinConvUnits());
    bool someUnitPlacement = opts.maxConvUnits != 1;
    if (!someUnitPlacement) {
      for (const Part& part : parts) someUnitPlacement |= part.problem != nullptr;
      ProblemOptions o = convOnly;
      o.convUnitLimit = 0;
      someUnitPlacement |= Problem(p.egraph(), p.model(), root, o).feasible();
      for (uint32_t c = 0; c < p.classes().size() && !someUnitPlacement; ++c) {
        bool hasConv = false;
        for (uint32_t n : p.cls(c).nodes) hasConv |= isConvUnit(p.node(n).op);
        if (!hasConv) continue;
        o = convOnly;
        o.onlyConvClass = p.cls(c).id;
        Problem q(p.egraph(), p.model(), root, o);
        someUnitPlacement = q.feasible() && timeLowerBound(q, 1) < kCostCap;
      }
    }
    if (!someUnitPlacement) {
      std::string why = fmt::format(
          "no design has {}: no single convolution function of the e-graph can serve every convolution of the "
          "program",
          unitText());
      return why + fewestUnitsText(opts.maxConvUnits + 1);
    }
    return diagnoseWithSolver();
  };

  // Search each part in the order of its lower bound; a part whose bound reaches the best
  // design is closed without a query.
  for (Part& part : parts) {
    if (r.stoppedBy != Limit::None) break;
    if (have && part.lowerBound >= r.evaluation.time()) {
      part.closed = true;
      continue;
    }
    part.searched = true;
    const Problem& sub = *part.problem;
    z3Done += z3Current;
    z3Current = 0;
    Encoding enc(sub, opts);
    r.encodedBools = std::max(r.encodedBools, enc.bools());
    r.encodedInts = std::max(r.encodedInts, enc.ints());
    say(fmt::format("part: {} (lower bound {} cycles; {} nodes, {} classes, {} Boolean / {} integer variables)",
                    part.name(), part.lowerBound, sub.stats().nodes, sub.stats().classes, enc.bools(), enc.ints()));
    z3::solver& s = enc.solver();
    z3::context& ctx = enc.ctx();
    const std::vector<z3::expr> limits{enc.budgetLiteral(), enc.convLiteral()};
    auto acceptModel = [&](const char* what) {
      std::optional<Selection> full = toFull(p, sub, *model);
      if (!full) throw std::logic_error("a part's design is not a design of the whole problem");
      if (!accept(std::move(*full), what))
        throw std::logic_error(
            "the solver's design does not fit the limits or is not better than the best one after exact evaluation");
    };
    if (!have) {
      z3::check_result res = check(enc, limits, queryLimit(true));
      if (res == z3::sat) {
        acceptModel("solver");
      } else {
        if (res == z3::unsat) part.closed = true;
        else if (r.stoppedBy == Limit::None) r.stoppedBy = Limit::Solver;
        continue;
      }
    }
    s.add(enc.budgetLiteral());
    s.add(enc.convLiteral());
    s.add(enc.rootTime() >= ctx.int_val(part.lowerBound));
    // Within 1% of the best design, bisection would spend its queries on a few cycles:
    // ask for anything better at once.
    auto nearBest = [&] { return (r.evaluation.time() - part.lowerBound) * 100 < r.evaluation.time(); };
    double frac = nearBest() ? 0 : 0.5;
    int64_t boundAdded = -1;
    while (part.lowerBound < r.evaluation.time()) {
      int64_t hi = r.evaluation.time();
      if (boundAdded != hi) {
        s.add(enc.rootTime() <= ctx.int_val(hi - 1));
        boundAdded = hi;
      }
      int64_t span = hi - 1 - part.lowerBound;
      int64_t q = hi - 1 - static_cast<int64_t>(std::floor(static_cast<double>(span) * frac));
      bool last = q >= hi - 1;
      s.push();
      s.add(enc.rootTime() <= ctx.int_val(q));
      z3::check_result res = check(enc, {}, queryLimit(last));
      std::optional<Selection> found = model;
      s.pop();
      if (res == z3::sat) {
        model = std::move(found);
        acceptModel("solver");
        frac = nearBest() ? 0 : 0.5;
      } else if (res == z3::unsat) {
        part.lowerBound = q + 1;
        s.add(enc.rootTime() >= ctx.int_val(part.lowerBound));
        updateLowerBound();
        say(fmt::format("{}: no design within {} cycles{}", part.name(), q, gapText()));
      } else {
        if (last || r.stoppedBy != Limit::None) {
          say(fmt::format("{}: query for <= {} cycles inconclusive{}; leaving it open", part.name(), q,
                          r.stoppedBy != Limit::None ? " (" + limitText() + ")" : ""));
          break;
        }
        frac /= 4;
        if (frac < 1e-9) frac = 0;
      }
    }
    r.cycleCuts += enc.cuts();
    if (have && part.lowerBound >= r.evaluation.time()) part.closed = true;
    updateLowerBound();
  }
  z3Done += z3Current;
  z3Current = 0;
  bool allClosed = true;
  for (const Part& part : parts) allClosed &= part.closed;

  if (!have) {
    if (!allClosed) {
      r.status = Status::TimeoutNoSolution;
      if (r.stoppedBy == Limit::None) r.stoppedBy = Limit::Solver;
      return finish(fmt::format(
          "no design found: {} (the solver neither found one nor proved that none fits)", limitText()));
    }
    r.status = Status::NoSolution;
    r.stoppedBy = Limit::None;
    return finish(diagnose());
  }

  r.status = Status::Ok;
  r.optimal = allClosed;
  if (r.optimal) {
    r.lowerBound = r.evaluation.time();
    r.stoppedBy = Limit::None;
  } else if (r.stoppedBy == Limit::None) {
    r.stoppedBy = Limit::Solver;
  }
  size_t open = 0;
  for (const Part& part : parts) open += part.closed ? 0 : 1;
  std::string message =
      r.optimal ? "proven optimal"
                : fmt::format("{}: best design not proven optimal (lower bound {} cycles; {} of {} parts open)",
                              limitText(), r.lowerBound, open, parts.size());
  finish(message);
  say(fmt::format("done: {} cycles, {} DSPs, {}", r.evaluation.time(), r.evaluation.dsps(), r.message));
  return r;
}

}  // namespace skeleshare::extract
