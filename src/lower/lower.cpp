// The lowering driver: the symbolic evaluator of skeleton terms, element-wise fusion into
// the producer's unit, buffers and the schedule. Templates: lower_skeletons.cpp.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lower_impl.h"
#include "skeleshare/lower/instance_broadcasts.h"
#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/overlap_schedule.h"
#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/read_lanes.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/verifier.h"

namespace skeleshare::lower {
namespace detail {

using ir::Op;

std::vector<int64_t> View::shape() const {
  std::vector<int64_t> s;
  for (const auto& c : gen.counters) s.push_back(c.extent);
  return s;
}

AddrGen identityLayout(const std::vector<Counter>& counters) {
  std::vector<int64_t> space;
  for (const auto& c : counters) space.push_back(c.extent);
  AddrGen g = AddrGen::identity(space);
  g.counters = counters;
  return g;
}

AddrGen compose(const AddrGen& gen, const AddrGen& layout) {
  if (!gen.isView()) throw std::logic_error("compose: the read is not a view");
  std::vector<int64_t> logical;
  for (const auto& c : gen.counters) logical.push_back(c.extent);
  if (logical != layout.space)
    throw LowerError(fmt::format("element-wise operands of different shapes ({} elements vs {})", logical.size(), layout.space.size()));
  bool layoutSingle = true, genSingle = true;
  for (const auto& g : layout.groups) layoutSingle = layoutSingle && g.radices.size() == 1;
  for (const auto& g : gen.groups) genSingle = genSingle && g.radices.size() == 1;
  genSingle = genSingle && gen.isClassicView();
  if (!layoutSingle) {
    // The layout splits an index into digits (a flattened position): substitute the
    // layout's coordinates (over its digits) for the view's indices, which are its digits.
    if (!genSingle) throw LowerError("an element-wise operand read in the order of a flattened, split index");
    auto subst = [&](const Affine& overGen) {
      Affine r{overGen.offset, std::vector<int64_t>(layout.numDigits(), 0)};
      for (size_t i = 0; i < overGen.coef.size(); ++i) {
        const Affine& li = layout.coords[i];
        r.offset += overGen.coef[i] * li.offset;
        for (size_t k = 0; k < li.coef.size(); ++k) r.coef[k] += overGen.coef[i] * li.coef[k];
      }
      return r;
    };
    AddrGen out;
    out.space = gen.space;
    out.counters = layout.counters;
    out.groups = layout.groups;
    for (const auto& co : gen.coords) out.coords.push_back(subst(co));
    for (const auto& m : layout.masks) out.masks.push_back(Mask{m.expr, m.lo, m.hi, 0});
    for (const auto& m : gen.masks) out.masks.push_back(Mask{subst(m.expr), m.lo, m.hi, m.fill});
    return out;
  }
  size_t nc = layout.counters.size();
  // layout digit j = layout group j's value (affine over the counters)
  auto overCounters = [&](const Affine& overDigits) {
    Affine r{overDigits.offset, std::vector<int64_t>(nc, 0)};
    for (size_t j = 0; j < overDigits.coef.size(); ++j) {
      int64_t c = overDigits.coef[j];
      if (c == 0) continue;
      const Affine& v = layout.groups[j].value;
      r.offset += c * v.offset;
      for (size_t k = 0; k < nc; ++k) r.coef[k] += c * v.coef[k];
    }
    return r;
  };
  AddrGen out = gen;
  std::vector<Affine> values;
  for (const auto& coord : layout.coords) values.push_back(overCounters(coord));
  out.substitute(layout.counters, values);
  for (size_t m = layout.masks.size(); m-- > 0;) {
    const Mask& lm = layout.masks[m];
    size_t g = out.addGuardGroup(overCounters(lm.expr), std::max<int64_t>(1, lm.hi));
    Mask mk{Affine{0, std::vector<int64_t>(out.numDigits(), 0)}, lm.lo, lm.hi, 0};
    mk.expr.coef[out.firstDigit(g)] = 1;
    out.masks.insert(out.masks.begin(), mk);
  }
  return out;
}

void permuteSpace(AddrGen& layout, const std::vector<size_t>& order) {
  std::vector<Affine> c;
  std::vector<int64_t> s;
  for (size_t o : order) { c.push_back(layout.coords.at(o)); s.push_back(layout.space.at(o)); }
  layout.coords = std::move(c);
  layout.space = std::move(s);
}

std::vector<size_t> moveDim(size_t n, size_t from, size_t to) {
  std::vector<size_t> rest;
  for (size_t i = 0; i < n; ++i)
    if (i != from) rest.push_back(i);
  rest.insert(rest.begin() + static_cast<ptrdiff_t>(to), from);
  return rest;
}

void flattenSpace(AddrGen& layout, size_t d) {
  int64_t inner = layout.space.at(d + 1);
  Affine merged = layout.coords[d];
  merged.offset = merged.offset * inner + layout.coords[d + 1].offset;
  for (size_t j = 0; j < merged.coef.size(); ++j) merged.coef[j] = merged.coef[j] * inner + layout.coords[d + 1].coef[j];
  layout.coords[d] = merged;
  layout.coords.erase(layout.coords.begin() + static_cast<ptrdiff_t>(d) + 1);
  layout.space[d] *= inner;
  layout.space.erase(layout.space.begin() + static_cast<ptrdiff_t>(d) + 1);
}

// ---- units and buffers ---------------------------------------------------------------

size_t Lowerer::newUnit(const std::string& name) {
  open_.push_back(Unit{fmt::format("u{}_{}", open_.size(), name), {}, std::nullopt});
  closed_.push_back(false);
  return open_.size() - 1;
}

UnitBuilder Lowerer::builder(size_t unit) {
  if (closed_.at(unit)) throw std::logic_error("lowering: append to a closed unit");
  return UnitBuilder(prog_, open_[unit]);
}

View Lowerer::materialize(const Stream& s, const std::string& name, Role role) {
  const MType& t = open_.at(s.unit).nodes.at(s.node).type;
  Buffer b{name, t.bits, s.layout.space, Memory::OffChip, role};
  prog_.buffers.push_back(b);
  int id = static_cast<int>(prog_.buffers.size() - 1);
  requireNoPendingSum(s.ctx, "a value stored to a buffer");
  builder(s.unit).write(id, s.layout, s.node);
  closed_[s.unit] = true;
  placed_.resize(open_.size(), 0);
  placed_[s.unit] = prog_.units.size();
  prog_.units.push_back(std::move(open_[s.unit]));
  View v{id, AddrGen::identity(b.shape), s.ctx};
  return v;
}

View Lowerer::asView(const Sym& s) {
  if (auto* v = std::get_if<View>(&s)) return *v;
  if (auto* st = std::get_if<Stream>(&s)) {
    // A transposed value is written as it was computed and read transposed: a transposed
    // write puts every lane of a row in another line (one line per element), where the
    // read's lanes can be put in memory order (read_lanes.h).
    Stream written = *st;
    bool transposed = false;
    if (st->beforeTranspose) {
      AddrGen expect = *st->beforeTranspose;
      permuteSpace(expect, moveDim(expect.space.size(), st->transposedAt, st->transposedAt + 1));
      transposed = expect == st->layout;  // not edited since
      if (transposed) written.layout = *st->beforeTranspose;
    }
    View v = materialize(written, fmt::format("t{}", tmpCount_++), Role::Intermediate);
    if (transposed) v.gen.transpose(st->transposedAt, st->transposedAt + 1);
    return v;
  }
  throw LowerError("a function or scalar where a tensor is needed");
}

void Lowerer::requireNoPendingSum(size_t ctx, const char* what) const {
  for (size_t i = 0; i < ctx; ++i)
    if (summedAt(i))
      throw LowerError(fmt::format("{} inside a summed tiling (TiledMv, TiledMmK, TiledConvICH) is not lowered: "
                                   "only dot products accumulate over the tiles",
                                   what));
}

Unit& Lowerer::unitAt(size_t openIndex) {
  return closed_.at(openIndex) ? prog_.units.at(placed_.at(openIndex)) : open_.at(openIndex);
}

Stream Lowerer::toStream(const View& v, const std::string& name) {
  requireNoPendingSum(v.ctx, "a copy");
  size_t u = newUnit(name);
  AddrGen g = v.gen;
  if (!g.counters.empty()) g.counters.back().kind = DimKind::Vector;
  uint32_t n = builder(u).read(v.buffer, g);
  return Stream{u, n, identityLayout(g.counters), v.ctx, {}, 0};
}

Stream Lowerer::nodeStream(size_t u, uint32_t node, size_t ctx) {
  std::vector<Counter> out;
  for (const auto& d : builder(u).type(node).dims) out.push_back({d.extent, d.kind});
  return Stream{u, node, identityLayout(out), ctx, {}, 0};
}

Stream Lowerer::openStream(const Sym& s) {
  if (auto* st = std::get_if<Stream>(&s)) return *st;
  if (auto* v = std::get_if<View>(&s)) return toStream(*v, "ew");
  throw LowerError("an element-wise operator on a function or on two scalars");
}

uint32_t Lowerer::operandIn(const Stream& base, const Sym& other) {
  const MType& t = open_.at(base.unit).nodes.at(base.node).type;
  if (auto* sc = std::get_if<Scalar>(&other)) return builder(base.unit).constant(sc->value, sc->bits, t.dims);
  if (auto* st = std::get_if<Stream>(&other)) {
    if (st->unit == base.unit && st->layout == base.layout) return st->node;
  }
  View v = asView(other);
  return builder(base.unit).read(v.buffer, compose(v.gen, base.layout));
}

// ---- element-wise ----------------------------------------------------------------------

Sym Lowerer::unary(const Sym& x, const std::vector<std::pair<Prim, int64_t>>& chain) {
  if (auto* sc = std::get_if<Scalar>(&x)) {
    (void)sc;
    throw LowerError("an element-wise operator on a lone scalar constant");
  }
  Stream s = openStream(x);
  requireNoPendingSum(s.ctx, "an element-wise operator");
  for (const auto& [p, k] : chain) {
    auto b = builder(s.unit);
    if (p == Prim::Max) {  // Max with a constant: k is the constant
      uint32_t c = b.constant(k, b.type(s.node).bits, b.type(s.node).dims);
      s.node = b.op(Prim::Max, {s.node, c});
    } else if (p == Prim::Add) {  // Max(x, x >> k): LeakyRelu
      uint32_t sh = b.op(Prim::ShiftRight, {s.node}, {k});
      s.node = b.op(Prim::Max, {s.node, sh});
    } else {
      s.node = b.op(p, {s.node}, {k});
    }
  }
  return s;
}

Sym Lowerer::binary(Prim p, std::vector<int64_t> params, const Sym& a, const Sym& b) {
  bool aStream = std::holds_alternative<Stream>(a), bStream = std::holds_alternative<Stream>(b);
  bool aScalar = std::holds_alternative<Scalar>(a);
  // The base is a's stream, else b's, else a new stream reading a (or b if a is a scalar).
  bool baseIsA = aStream || (!bStream && !aScalar);
  Stream base = openStream(baseIsA ? a : b);
  requireNoPendingSum(base.ctx, "an element-wise operator");
  uint32_t other = operandIn(base, baseIsA ? b : a);
  uint32_t l = baseIsA ? base.node : other, r = baseIsA ? other : base.node;
  base.node = builder(base.unit).op(p, {l, r}, std::move(params));
  return base;
}

Sym Lowerer::elementwise(const ir::Term* t, const Env& env) {
  switch (t->op()) {
    case Op::Relu: return unary(eval(t->child(0), env), {{Prim::Max, 0}});
    case Op::LeakyRelu: return unary(eval(t->child(0), env), {{Prim::Add, t->param(0)}});
    case Op::ShiftRight: return unary(eval(t->child(0), env), {{Prim::ShiftRight, t->param(0)}});
    case Op::Cast: return unary(eval(t->child(0), env), {{Prim::Wrap, t->param(0)}});
    case Op::Requant: {
      int64_t s = t->param(0);
      if (s == 0) return unary(eval(t->child(0), env), {{Prim::Saturate, 8}});
      return unary(eval(t->child(0), env), {{Prim::RoundShift, s}, {Prim::Saturate, 8}});
    }
    case Op::RequantEven: {
      int64_t s = t->param(0);
      if (s == 0) return unary(eval(t->child(0), env), {{Prim::Saturate, 8}});
      return unary(eval(t->child(0), env), {{Prim::RoundShiftEven, s}, {Prim::Saturate, 8}});
    }
    case Op::Add: return binary(Prim::Add, {}, eval(t->child(0), env), eval(t->child(1), env));
    case Op::Sub: return binary(Prim::Sub, {}, eval(t->child(0), env), eval(t->child(1), env));
    case Op::Max: return binary(Prim::Max, {}, eval(t->child(0), env), eval(t->child(1), env));
    case Op::Min: return binary(Prim::Min, {}, eval(t->child(0), env), eval(t->child(1), env));
    case Op::Mul: return binary(Prim::Mul, {0}, eval(t->child(0), env), eval(t->child(1), env));  // logic multiplier
    case Op::Bias: {
      Sym x = eval(t->child(0), env);
      View b = asView(eval(t->child(1), env));
      // b[c] repeated over every position of x: stride-0 counters in front.
      const ir::Type* xt = t->child(0)->type();
      size_t lead = static_cast<size_t>(xt->rank()) - 1;
      auto shape = xt->shape();
      size_t ctxDims = std::holds_alternative<Stream>(x) ? std::get<Stream>(x).ctx
                       : std::holds_alternative<View>(x) ? std::get<View>(x).ctx : 0;
      if (b.ctx != 0 || ctxDims != 0) throw LowerError("Bias inside a skeleton's function is not lowered");
      for (size_t i = 0; i < lead; ++i) b.gen.repeat(i, shape[i]);
      return binary(Prim::Add, {}, x, b);
    }
    default: break;
  }
  throw LowerError(fmt::format("element-wise operator {} is not lowered", ir::opName(t->op())));
}

// ---- reshaping -------------------------------------------------------------------------

Sym Lowerer::reshape(const ir::Term* t, const Env& env) {
  Sym x = eval(t->child(0), env);
  if (t->op() == Op::Pad) {
    View v = asView(x);
    size_t c = v.ctx;
    int32_t fill = static_cast<int32_t>(t->param(4));
    if (t->param(0) != 0 || t->param(1) != 0) v.gen.pad(c, t->param(0), t->param(1), fill);
    if (t->param(2) != 0 || t->param(3) != 0) v.gen.pad(c + 1, t->param(2), t->param(3), fill);
    return v;
  }
  if (auto* st = std::get_if<Stream>(&x)) {  // a computed value: edit its layout, no buffer
    Stream s = *st;
    size_t c = s.ctx;
    if (t->op() == Op::Transpose) {
      s.beforeTranspose = s.layout;
      s.transposedAt = c;
      permuteSpace(s.layout, moveDim(s.layout.space.size(), c, c + 1));
    } else {
      while (s.layout.space.size() > c + 1) flattenSpace(s.layout, c);
    }
    return s;
  }
  View v = asView(x);
  size_t c = v.ctx;
  if (t->op() == Op::Transpose) v.gen.transpose(c, c + 1);
  else
    while (v.gen.counters.size() > c + 1) v.gen.flatten(c);
  return v;
}

Sym Lowerer::maxPool(const ir::Term* t, const Env& env) {
  View v = asView(eval(t->child(0), env));
  size_t c = v.ctx;
  requireNoPendingSum(c, "MaxPool");
  int64_t size = t->param(0), step = t->param(1);
  AddrGen g = v.gen;
  g.slide(c, size, step);      // [OH][size][W] ...
  g.slide(c + 2, size, step);  // [OH][size][OW][size] ...
  // A window's columns are lanes beside its elements' (the innermost vector dimension, a
  // max tree) and its rows are steps (an accumulator): a row of the window is one step,
  // the columns and their elements together in memory (one run where each column took
  // one), so a window takes `size` steps, not size * size.
  //
  // Windows side by side: a pool has no multipliers, so its steps, not its lanes, are what
  // it costs. K adjacent windows of an output row are lanes of one step when their rows
  // together fit a line (K = 1 where one window's row already fills it).
  int64_t rowBytes = size * ((prog_.buffers.at(static_cast<size_t>(v.buffer)).bits + 7) / 8);
  for (size_t i = c + 4; i < g.counters.size(); ++i) rowBytes *= g.counters[i].extent;
  const int64_t windows = g.counters[c + 2].extent;
  int64_t k = 1;
  for (int64_t d = 2; d <= windows && d * rowBytes <= kLineBytes; ++d)
    if (windows % d == 0) k = d;
  std::vector<size_t> order;
  for (size_t i = 0; i < c; ++i) order.push_back(i);
  for (size_t i : {c, c + 2, c + 1}) order.push_back(i);
  for (size_t i = c + 4; i < g.counters.size(); ++i) order.push_back(i);
  order.push_back(c + 3);
  g.permute(order);  // [OH][OW][size] rest [size]
  if (k > 1) {
    g.split(c + 1, k);          // [OH][OW/K][K][size] rest [size]
    g.transpose(c + 2, c + 3);  // [OH][OW/K][size] [K] rest [size]
  }
  for (size_t i = c + 3; i < g.counters.size(); ++i) g.counters[i].kind = DimKind::Vector;
  size_t u = newUnit("MaxPool");
  auto b = builder(u);
  uint32_t r = b.read(v.buffer, g);
  r = b.op(Prim::ReduceVec, {r}, {static_cast<int64_t>(ReduceKind::Max)});
  r = b.op(Prim::ReduceStm, {r}, {static_cast<int64_t>(ReduceKind::Max)});
  Stream out = nodeStream(u, r, c);            // [OH][OW/K] of [K] rest
  if (k > 1) flattenSpace(out.layout, c + 1);  // the value: [OH][OW] rest
  return out;
}

namespace {

/// A context loop more (+1) or less (-1) on a tensor value; functions and scalars as they are.
Sym withCtx(Sym x, int delta) {
  if (auto* v = std::get_if<View>(&x)) v->ctx = static_cast<size_t>(static_cast<int64_t>(v->ctx) + delta);
  else if (auto* st = std::get_if<Stream>(&x)) st->ctx = static_cast<size_t>(static_cast<int64_t>(st->ctx) + delta);
  return x;
}

}  // namespace

// ZipWith(x, y, f): like Map, a context loop over the outer dimension of both; f's body
// is element-wise on the two rows (binary() fuses it into the stream of one of them).
Sym Lowerer::zipWith(const ir::Term* t, const Env& env) {
  Sym x = withCtx(eval(t->child(0), env), 1), y = withCtx(eval(t->child(1), env), 1);
  Sym r = apply(apply(eval(t->child(2), env), x), y);
  if (!std::holds_alternative<View>(r) && !std::holds_alternative<Stream>(r))
    throw LowerError("ZipWith whose function returns no tensor");
  return withCtx(r, -1);
}

// Reduce(init, x, \acc v. acc + v) (or Max, either operand order): a fold over x's outer
// dimension by an associative, commutative operator is a reduction, whatever the order:
// x is read with that dimension as the innermost stream (its inner dimensions before it,
// the last as vector lanes, as MaxPool reads its windows) into an accumulator
// (ReduceStm), and init joins the result. Other folds are not lowered.
Sym Lowerer::reduce(const ir::Term* t, const Env& env) {
  const ir::Term* f = t->child(2);
  const ir::Term* body = f->op() == Op::Lam && f->body()->op() == Op::Lam ? f->body()->body() : nullptr;
  auto isVar = [](const ir::Term* x, int64_t i) {
    while (x->op() == Op::Cast) x = x->child(0);  // a widening of the element
    return x->op() == Op::Var && x->varIndex() == i;
  };
  const bool foldsAccAndElement =
      body && body->numChildren() == 2 && ((isVar(body->child(0), 1) && isVar(body->child(1), 0)) ||
                                           (isVar(body->child(0), 0) && isVar(body->child(1), 1)));
  if (!foldsAccAndElement || (body->op() != Op::Add && body->op() != Op::Max))
    throw LowerError("Reduce is lowered for \\acc v. acc + v and max(acc, v) only");
  const bool sum = body->op() == Op::Add;
  const int bits = t->type()->scalar()->bits();
  View v = asView(eval(t->child(1), env));
  const size_t c = v.ctx;
  requireNoPendingSum(c, "Reduce");
  AddrGen g = v.gen;
  const size_t rank = g.counters.size();
  if (rank <= c) throw LowerError("Reduce over a scalar");
  // [ctx][N][rest] -> [ctx][rest...][N][last of rest]: N the innermost stream dimension
  std::vector<size_t> order;
  for (size_t i = 0; i < c; ++i) order.push_back(i);
  const bool lanes = rank > c + 1;
  for (size_t i = c + 1; i + (lanes ? 1 : 0) < rank; ++i) order.push_back(i);
  order.push_back(c);
  if (lanes) order.push_back(rank - 1);
  g.permute(order);
  for (auto& k : g.counters) k.kind = DimKind::Stream;
  if (lanes) g.counters.back().kind = DimKind::Vector;
  size_t u = newUnit("Reduce");
  auto b = builder(u);
  uint32_t r = b.read(v.buffer, g);
  r = b.op(Prim::ReduceStm, {r}, {static_cast<int64_t>(sum ? ReduceKind::Add : ReduceKind::Max)});
  if (b.type(r).bits != bits) r = b.op(Prim::Wrap, {r}, {bits});
  Sym result = nodeStream(u, r, c);
  Sym init = eval(t->child(0), env);
  // the operator's identity needs no operator
  if (auto* sc = std::get_if<Scalar>(&init); sc && sum && sc->value == 0) return result;
  return binary(sum ? Prim::Add : Prim::Max, {}, result, init);
}

// ---- the evaluator -----------------------------------------------------------------------

Sym Lowerer::apply(const Sym& fn, const Sym& arg) {
  auto* f = std::get_if<std::shared_ptr<const Fun>>(&fn);
  if (!f) throw LowerError("application of a value that is not a function");
  Env env = (*f)->env;
  env.push_back(arg);
  const ir::Term* body = (*f)->lam->body();
  const int let = (*f)->let;
  if (let < 0) return eval(body, env);
  // A shared function: a partial application is still the instance; the full application
  // is a call, and the units it creates are calls of the let's instance(s).
  if (body->op() == Op::Lam) return std::make_shared<const Fun>(Fun{body, std::move(env), let});
  size_t first = open_.size();
  Sym r = eval(body, env);
  markCalls(let, first);
  return r;
}

// App(\T. body, value): the extractor's let. A function value is the shared unit: every
// application of it (a use in the body) is a call of one instance.
Sym Lowerer::let(const ir::Term* t, const Env& env) {
  const ir::Term* lam = t->child(0);
  if (lam->op() != Op::Lam) return apply(eval(lam, env), eval(t->child(1), env));  // a use: f(x)
  Sym value = eval(t->child(1), env);
  if (auto* f = std::get_if<std::shared_ptr<const Fun>>(&value)) {
    Fun shared = **f;
    shared.let = static_cast<int>(lets_.size());
    lets_.push_back(t->child(1));
    value = std::make_shared<const Fun>(std::move(shared));
  }
  return apply(std::make_shared<const Fun>(Fun{lam, env, -1}), value);
}

void Lowerer::markCalls(int let, size_t firstUnit) {
  size_t part = 0;
  for (size_t u = firstUnit; u < open_.size(); ++u) {
    Unit& unit = unitAt(u);
    if (unit.call) continue;  // a call of a let used inside this one
    auto key = std::make_pair(let, part++);
    auto it = instanceOf_.find(key);
    if (it == instanceOf_.end()) {
      const ir::Term* v = lets_.at(static_cast<size_t>(let));
      const ir::Term* body = v;
      while (body->op() == Op::Lam) body = body->body();
      std::string name = fmt::format("let{}{}", let + 1, key.second == 0 ? "" : fmt::format("_{}", key.second + 1));
      prog_.instances.push_back(Instance{name, fmt::format("{} {}", ir::opName(body->op()), v->type()->str())});
      it = instanceOf_.emplace(key, static_cast<int>(prog_.instances.size() - 1)).first;
    }
    Call call{it->second, {}};
    for (size_t i = 0; i < unit.nodes.size(); ++i) {
      switch (unit.nodes[i].prim) {
        case Prim::Read:
        case Prim::Write:
        case Prim::SplitStm:
        case Prim::JoinStm:
        case Prim::SplitVec:
        case Prim::JoinVec:
        case Prim::StmToVec:
        case Prim::VecToStm:
        case Prim::Repeat:
        case Prim::Broadcast:
        case Prim::PermuteVec:
        case Prim::Slide:
        case Prim::SelectLanes:
        case Prim::SlideStm: break;  // the call's memory access, replay buffers and wiring
        default: call.datapath.push_back(static_cast<uint32_t>(i));
      }
    }
    unit.call = std::move(call);
  }
}

std::optional<Lowerer::MemoKey> Lowerer::memoKey(const ir::Term* t, const Env& env) const {
  MemoKey key{t, {}};
  for (uint32_t i = 0; i < t->freeBound(); ++i) {
    if (i >= env.size()) return std::nullopt;
    const auto* f = std::get_if<std::shared_ptr<const Fun>>(&env[env.size() - 1 - i]);
    if (!f || (*f)->let < 0) return std::nullopt;
    key.second.push_back(*f);
  }
  return key;
}

Sym Lowerer::eval(const ir::Term* t, const Env& env) {
  // A value used twice is computed once, also inside a design's let body, where it names
  // the shared unit (a residual connection reads a layer's output twice: without this the
  // layer was computed again for its second reader).
  std::optional<MemoKey> key;
  auto uses = uses_.find(t);
  if (t->type()->isIntTensor() && uses != uses_.end() && uses->second > 1) key = memoKey(t, env);
  if (key) {
    auto it = memo_.find(*key);
    if (it != memo_.end()) return it->second;
  }
  Sym s = evalUncached(t, env);
  if (key) {
    View v = asView(s);
    memo_[*key] = v;
    return v;
  }
  return s;
}

Sym Lowerer::evalUncached(const ir::Term* t, const Env& env) {
  switch (t->op()) {
    case Op::Var: {
      auto i = static_cast<size_t>(t->varIndex());
      if (i >= env.size()) throw LowerError("free variable");
      return env[env.size() - 1 - i];
    }
    case Op::Lam: return std::make_shared<const Fun>(Fun{t, env});
    case Op::Input: {
      int b = prog_.findBuffer(ctx_.symbolName(t->param(0)));
      if (b < 0) throw LowerError("undeclared input");
      return View{b, AddrGen::identity(prog_.buffers[static_cast<size_t>(b)].shape), 0};
    }
    case Op::Const: return Scalar{t->param(0), t->type()->bits()};
    case Op::App: return let(t, env);
    case Op::MergePartialSum: return mergePartialSum(t, env);
    case Op::Tuple: throw LowerError("Tuple below a module output");
    case Op::Map: {  // a new context loop over the outer dimension of x
      Sym r = apply(eval(t->child(1), env), withCtx(eval(t->child(0), env), 1));
      if (!std::holds_alternative<View>(r) && !std::holds_alternative<Stream>(r))
        throw LowerError("Map whose function returns no tensor");
      return withCtx(r, -1);
    }
    case Op::Pad:
    case Op::Transpose:
    case Op::Flatten: return reshape(t, env);
    case Op::MaxPool: return maxPool(t, env);
    case Op::ZipWith: return zipWith(t, env);
    case Op::Reduce: return reduce(t, env);
    default: break;
  }
  if (ir::isSkeleton(t->op())) return skeleton(t, env);
  return elementwise(t, env);
}

void Lowerer::countUses(const ir::Term* root) {
  std::set<const ir::Term*> seen;
  std::vector<const ir::Term*> stack{root};
  while (!stack.empty()) {
    const ir::Term* t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    for (const ir::Term* c : t->children()) {
      ++uses_[c];
      stack.push_back(c);
    }
  }
}

Program Lowerer::run(const ir::Module& module) {
  for (const auto& d : module.decls)
    prog_.buffers.push_back(Buffer{d.name, d.type->scalar()->bits(), d.type->shape(), Memory::OffChip,
                                   d.kind == ir::Decl::Kind::Input ? Role::Input : Role::Weight});
  for (const auto& o : module.outputs) countUses(o.term);
  for (const auto& o : module.outputs) ++uses_[o.term];
  for (const auto& o : module.outputs) {
    if (!o.term->closed()) throw LowerError(fmt::format("output '{}' is not closed", o.name));
    if (prog_.findBuffer(o.name) >= 0) throw LowerError(fmt::format("output '{}' has the name of an input", o.name));
    Sym s = eval(o.term, {});
    Stream st = std::holds_alternative<Stream>(s) ? std::get<Stream>(s) : toStream(asView(s), "copy");
    if (closed_.at(st.unit)) st = toStream(asView(s), "copy");
    materialize(st, o.name, Role::Output);
  }
  for (size_t u = 0; u < open_.size(); ++u)
    if (!closed_[u]) throw std::logic_error(fmt::format("lowering: unit {} never written", open_[u].name));
  AccessCounter ownCounts;
  AccessCounter& counts = opt_.accessCounter ? *opt_.accessCounter : ownCounts;
  shapeReadLanes(prog_, counts, opt_.boxReads);
  absorbBroadcasts(prog_);
  keepReadLines(prog_, counts);
  placeBuffers(prog_, opt_.onChipBudgetBits);
  if (opt_.overlap) scheduleForOverlap(prog_, opt_.onChipBudgetBits, opt_.memory, counts);
  auto problems = verify(prog_);
  if (!problems.empty()) throw std::logic_error("lowering produced an ill-formed program: " + problems.front());
  return std::move(prog_);
}

}  // namespace detail

int64_t LowerOptions::productsPerBlock(int aBits, int bBits) const {
  cost::Device d;
  d.dspModes = dspModes;
  return std::max<int64_t>(1, d.productsPerBlock(aBits, bBits));
}

LowerOptions lowerOptions(const cost::Device& device, bool boxReads) {
  LowerOptions o;
  o.boxReads = boxReads;
  o.dspModes = device.dspModes;
  o.simdWidth = device.simdWidth();
  o.onChipBudgetBits = device.m20kBlocks * kM20kBits;
  o.memory = cost::memorySystem(device);
  return o;
}

namespace {

Program lowerOnce(const ir::Module& module, ir::Context& ctx, const LowerOptions& options) {
  detail::Lowerer l(ctx, options);
  try {
    return l.run(module);
  } catch (const MirError& e) {
    throw LowerError(std::string("not lowered (an access pattern or construct the lowering cannot express): ") + e.what());
  } catch (const std::logic_error& e) {
    throw LowerError(std::string("not lowered (an access pattern or construct the lowering cannot express): ") + e.what());
  }
}

bool someCallsInterleave(const Program& prog) {
  for (size_t u = 0; u < prog.units.size(); ++u)
    if (interleavesSteps(prog, u)) return true;
  return false;
}

}  // namespace

// With the overlap, a unit whose calls interleave with its neighbour's can start once the
// first group's block of its matrix is in, if its dot takes the other placement: self-
// attention's key projection then steps beside the query's after 32 of its weights' 64
// lines (docs/lowering.md). Each unit's other placement is tried in turn, and kept where
// the estimate falls. Only designs whose calls interleave are searched: one more lowering
// per unit is cheap for them (milliseconds), and the placement's gain was measured there.
Program lowerModule(const ir::Module& module, ir::Context& ctx, const LowerOptions& options) {
  Program best = lowerOnce(module, ctx, options);
  if (!options.overlap || options.otherDotPlacement || !someCallsInterleave(best)) return best;
  AccessCounter ownCounts;
  AccessCounter& counts = options.accessCounter ? *options.accessCounter : ownCounts;
  int64_t bestCycles = estimateCycles(best, options.memory, counts).total;
  LowerOptions trial = options;
  trial.otherDotPlacement.emplace();
  const size_t units = best.units.size();
  for (size_t u = 0; u < units; ++u) {
    trial.otherDotPlacement->insert(u);
    Program p = lowerOnce(module, ctx, trial);
    const int64_t cycles = estimateCycles(p, options.memory, counts).total;
    if (cycles < bestCycles) {
      best = std::move(p);
      bestCycles = cycles;
    } else {
      trial.otherDotPlacement->erase(u);
    }
  }
  return best;
}

}  // namespace skeleshare::lower
