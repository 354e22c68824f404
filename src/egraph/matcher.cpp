#include "skeleshare/egraph/matcher.h"

#include <algorithm>

#include "skeleshare/egraph/errors.h"

namespace skeleshare::egraph {

struct CompiledPattern::State {
  const EGraph* g = nullptr;
  std::vector<ClassId> regs;
  Subst subst;
  std::vector<uint32_t> trail;                             // slots bound, in order
  std::vector<std::pair<uint32_t, int64_t>> deferred;      // (expression, value) to check
  std::vector<Match>* out = nullptr;
  ClassId root = kNoClass;
  size_t limit = SIZE_MAX;
};

CompiledPattern::CompiledPattern(const Pattern& p, VarTable vars)
    : pattern_(p), vars_(std::move(vars)) {
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  rootIsVar_ = p.isVar();
  compile(p, 0, seen);
  classVarRegs_ = std::move(seen);

  // Every variable inside a compound expression must also be bound plainly.
  std::vector<uint32_t> plain, inExprs;
  for (const auto& [slot, reg] : classVarRegs_) plain.push_back(slot);
  auto scanInt = [&](uint32_t e) {
    if (pool_.intAt(e).kind == IntExpr::Kind::Var) plain.push_back(pool_.intAt(e).slot);
    else if (pool_.intAt(e).kind != IntExpr::Kind::Lit) pool_.varsOfInt(e, inExprs);
  };
  std::vector<uint32_t> typeStack;
  auto scanType = [&](uint32_t t) {
    typeStack.push_back(t);
    while (!typeStack.empty()) {
      const ExprPool::Ty& n = pool_.typeAt(typeStack.back());
      typeStack.pop_back();
      if (n.slot != ExprPool::kNone) plain.push_back(n.slot);
      if (n.length != ExprPool::kNone) scanInt(n.length);
      for (uint32_t k = 0; k < n.count; ++k) typeStack.push_back(pool_.sub(n, k));
    }
  };
  for (uint32_t e : paramExprs_) scanInt(e);
  for (const Instr& in : code_) {
    if (in.annot != ExprPool::kNone) scanType(in.annot);
    if (in.type != ExprPool::kNone) scanType(in.type);
  }
  for (uint32_t s : inExprs)
    if (std::find(plain.begin(), plain.end(), s) == plain.end())
      throw PatternError("pattern " + p.str() + ": variable " + vars_.name(s) +
                         " occurs only inside an expression, so matching cannot bind it");
}

void CompiledPattern::compile(const Pattern& p, uint32_t reg,
                              std::vector<std::pair<uint32_t, uint32_t>>& seen) {
  auto check = [&]() {
    Instr c{Instr::Kind::Check};
    c.reg = reg;
    c.type = pool_.addType(*p.type(), vars_);
    code_.push_back(c);
  };
  if (p.isVar()) {
    uint32_t slot = vars_.declare(p.name(), VarKind::Class);
    auto it = std::find_if(seen.begin(), seen.end(), [&](auto& e) { return e.first == slot; });
    if (it != seen.end()) {
      Instr cmp{Instr::Kind::Compare};
      cmp.reg = reg;
      cmp.other = it->second;
      code_.push_back(cmp);
    } else {
      seen.emplace_back(slot, reg);
    }
    if (p.type()) check();
    return;
  }
  // A constraint on the class's type is checked once per class, before its nodes.
  if (p.type()) check();
  Instr b{Instr::Kind::Bind};
  b.reg = reg;
  b.op = p.op();
  b.arity = static_cast<uint32_t>(p.children().size());
  b.out = numRegs_;
  numRegs_ += b.arity;
  b.paramsBegin = static_cast<uint32_t>(paramExprs_.size());
  b.numParams = static_cast<uint32_t>(p.params().size());
  for (const IntExpr& e : p.params()) paramExprs_.push_back(pool_.addInt(e, vars_));
  if (p.annot()) b.annot = pool_.addType(*p.annot(), vars_);
  code_.push_back(b);
  // Cheap filters first: the class-variable children, then the nested nodes.
  for (size_t i = 0; i < p.children().size(); ++i)
    if (p.children()[i].isVar()) compile(p.children()[i], b.out + static_cast<uint32_t>(i), seen);
  for (size_t i = 0; i < p.children().size(); ++i)
    if (!p.children()[i].isVar()) compile(p.children()[i], b.out + static_cast<uint32_t>(i), seen);
}

std::vector<Match> CompiledPattern::search(const EGraph& g) const {
  std::vector<Match> out;
  search(g, out);
  return out;
}

CompiledPattern::State CompiledPattern::startSearch(const EGraph& g, std::vector<Match>& out,
                                                   size_t substSlots, size_t limit) const {
  if (!g.clean()) throw EGraphError("e-matching needs a rebuilt e-graph (call rebuild() first)");
  State st;
  st.g = &g;
  st.regs.assign(numRegs_, kNoClass);
  st.subst = Subst(std::max(substSlots, vars_.size()));
  st.out = &out;
  st.limit = limit;
  return st;
}

void CompiledPattern::search(const EGraph& g, std::vector<Match>& out, size_t substSlots,
                             size_t limit) const {
  State st = startSearch(g, out, substSlots, limit);
  if (rootIsVar_) {
    for (ClassId c : g.classIds()) {
      if (out.size() >= limit) return;
      searchRoot(c, st);
    }
  } else {
    for (ClassId c : g.classesWithOp(pattern_.op())) {
      if (out.size() >= limit) return;
      searchRoot(c, st);
    }
  }
}

void CompiledPattern::searchClass(const EGraph& g, ClassId c, std::vector<Match>& out,
                                  size_t substSlots) const {
  State st = startSearch(g, out, substSlots, SIZE_MAX);
  searchRoot(g.find(c), st);
}

void CompiledPattern::searchRoot(ClassId c, State& st) const {
  size_t first = st.out->size();
  st.root = c;
  st.regs[0] = c;
  run(0, st);
  // Report identical substitutions of one root once (two nodes of a class can match the
  // same way when the pattern ignores what tells them apart).
  auto& out = *st.out;
  size_t n = out.size() - first;
  if (n < 2) return;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = first + i;
  auto key = [&](size_t i) -> const Subst& { return out[i].subst; };
  auto less = [&](size_t a, size_t b) {
    const Subst &x = key(a), &y = key(b);
    for (uint32_t s = 0; s < x.size(); ++s)
      if (x.raw(s) != y.raw(s)) return x.raw(s) < y.raw(s);
    return a < b;
  };
  std::sort(order.begin(), order.end(), less);
  std::vector<uint8_t> drop(n, 0);
  for (size_t k = 1; k < n; ++k)
    if (key(order[k]) == key(order[k - 1])) drop[order[k] - first] = 1;
  size_t w = first;
  for (size_t i = first; i < out.size(); ++i)
    if (!drop[i - first]) {
      if (w != i) out[w] = std::move(out[i]);
      ++w;
    }
  out.resize(w);
}

bool CompiledPattern::matchInt(uint32_t e, int64_t v, State& st) const {
  const ExprPool::Int& n = pool_.intAt(e);
  switch (n.kind) {
    case IntExpr::Kind::Lit: return n.value == v;
    case IntExpr::Kind::Var:
      if (st.subst.bound(n.slot)) return st.subst.integer(n.slot) == v;
      st.subst.setInt(n.slot, v);
      st.trail.push_back(n.slot);
      return true;
    default: {
      int64_t r = 0;
      switch (pool_.eval(e, st.subst, r)) {
        case EvalStatus::Ok: return r == v;
        case EvalStatus::Undefined: return false;
        case EvalStatus::Unbound: st.deferred.emplace_back(e, v); return true;
      }
      return false;
    }
  }
}

bool CompiledPattern::matchType(uint32_t t, const ir::Type* ty, State& st) const {
  const ExprPool::Ty& n = pool_.typeAt(t);
  auto bindType = [&]() {
    if (n.slot == ExprPool::kNone) return true;
    if (st.subst.bound(n.slot)) return st.subst.type(n.slot) == ty;
    st.subst.setType(n.slot, ty);
    st.trail.push_back(n.slot);
    return true;
  };
  switch (n.kind) {
    case TypePattern::Kind::Any: return bindType();
    case TypePattern::Kind::Scalar: return ty->isInt() && bindType();
    case TypePattern::Kind::Int: return ty->isInt() && ty->bits() == n.bits;
    case TypePattern::Kind::Array:
      return ty->isArray() && matchInt(n.length, ty->length(), st) &&
             matchType(pool_.sub(n, 0), ty->elem(), st);
    case TypePattern::Kind::Fun:
      return ty->isFun() && matchType(pool_.sub(n, 0), ty->param(), st) &&
             matchType(pool_.sub(n, 1), ty->result(), st);
    case TypePattern::Kind::Tuple:
      if (!ty->isTuple() || ty->elems().size() != n.count) return false;
      for (uint32_t k = 0; k < n.count; ++k)
        if (!matchType(pool_.sub(n, k), ty->elems()[k], st)) return false;
      return true;
  }
  return false;
}

void CompiledPattern::undo(State& st, size_t trailMark, size_t deferredMark) const {
  while (st.trail.size() > trailMark) {
    st.subst.unbind(st.trail.back());
    st.trail.pop_back();
  }
  st.deferred.resize(deferredMark);
}

void CompiledPattern::yield(State& st) const {
  for (const auto& [e, v] : st.deferred) {
    int64_t r = 0;
    if (pool_.eval(e, st.subst, r) != EvalStatus::Ok || r != v) return;
  }
  Match m;
  m.root = st.root;
  m.subst = st.subst;
  for (const auto& [slot, reg] : classVarRegs_) m.subst.setClass(slot, st.regs[reg]);
  st.out->push_back(std::move(m));
}

void CompiledPattern::run(size_t pc, State& st) const {
  if (st.out->size() >= st.limit) return;
  if (pc == code_.size()) {
    yield(st);
    return;
  }
  const Instr& in = code_[pc];
  const EGraph& g = *st.g;
  switch (in.kind) {
    case Instr::Kind::Compare:
      if (g.find(st.regs[in.reg]) == g.find(st.regs[in.other])) run(pc + 1, st);
      return;
    case Instr::Kind::Check: {
      size_t tm = st.trail.size(), dm = st.deferred.size();
      if (matchType(in.type, g.typeOf(st.regs[in.reg]), st)) run(pc + 1, st);
      undo(st, tm, dm);
      return;
    }
    case Instr::Kind::Bind: {
      const EClass& cls = g.eclass(st.regs[in.reg]);
      // Class nodes are sorted by operator: find the run of nodes with `in.op`.
      auto begin = std::lower_bound(cls.nodes.begin(), cls.nodes.end(), in.op,
                                    [&](NodeId id, ir::Op op) { return g.node(id).op() < op; });
      for (auto it = begin; it != cls.nodes.end(); ++it) {
        const ENode& n = g.node(*it);
        if (n.op() != in.op) break;
        if (n.numChildren() != in.arity) continue;
        size_t tm = st.trail.size(), dm = st.deferred.size();
        bool ok = true;
        auto params = n.params();
        for (uint32_t k = 0; ok && k < in.numParams; ++k)
          ok = matchInt(paramExprs_[in.paramsBegin + k], params[k], st);
        if (ok && in.annot != ExprPool::kNone)
          ok = n.annot() != nullptr && matchType(in.annot, n.annot(), st);
        if (ok) {
          auto kids = n.children();
          for (uint32_t k = 0; k < in.arity; ++k) st.regs[in.out + k] = kids[k];
          run(pc + 1, st);
        }
        undo(st, tm, dm);
        if (st.out->size() >= st.limit) return;
      }
      return;
    }
  }
}

std::string CompiledPattern::listing() const {
  std::string s;
  for (const Instr& in : code_) {
    switch (in.kind) {
      case Instr::Kind::Bind:
        s += "bind r" + std::to_string(in.reg) + " " + std::string(ir::opName(in.op)) + "/" +
             std::to_string(in.arity) + " -> r" + std::to_string(in.out) + "\n";
        break;
      case Instr::Kind::Compare:
        s += "compare r" + std::to_string(in.reg) + " r" + std::to_string(in.other) + "\n";
        break;
      case Instr::Kind::Check: s += "check r" + std::to_string(in.reg) + " type\n"; break;
    }
  }
  return s;
}

}  // namespace skeleshare::egraph
