// Templates of the DSP skeletons: the ParallelDot unit, and the address-generator recipes
// that feed it for Mv, Mm, Conv, Conv1D_W and Conv1D_H (docs/lowering.md, "Templates").

#include <fmt/format.h>

#include "lower_impl.h"

namespace skeleshare::lower::detail {

using ir::Op;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void requireCtx(const View& a, const View& b, const char* what) {
  if (a.ctx != b.ctx) throw LowerError(fmt::format("{}: operands in different skeleton contexts", what));
  for (size_t i = 0; i < a.ctx; ++i)
    if (a.gen.counters[i].extent != b.gen.counters[i].extent)
      throw LowerError(fmt::format("{}: operands with different context extents", what));
}

std::vector<size_t> identityOrder(size_t n) {
  std::vector<size_t> o(n);
  for (size_t i = 0; i < n; ++i) o[i] = i;
  return o;
}

}  // namespace

// ParallelDot[P] / ParallelPartialDot[P, C] on a, b: ctx x M x N (docs/lowering.md,
// "Templates"). Counters: the context loops that are not summed (stream), G = ceil(M/P)
// row groups (stream), the summed context loops (tile loops of TiledMv/TiledMmK/
// TiledConvICH: the accumulator runs over them), S chunks (stream, always present: the
// accumulation length), then vector lanes P (rows) x [C (partial chunks)] x q. For a dot
// q = K = min(N, 64); for a partial dot each of the C chunks (L = N/C elements) gets
// q = K/C lanes, so the multipliers are P*K as the cost model says (P*C*floor(K/C) when C
// does not divide K). Row m = g*P + lane, element n = chunk*L + s*q + k; rows past M and
// elements past the chunk read 0 (masks). Mul[1], ReduceVec (adder trees), one ReduceStm
// (the accumulator) over the summed loops and chunks joined into one stream dimension.
Stream Lowerer::dotTemplate(View a, View b, int64_t p, int64_t parts, const std::string& name) {
  requireCtx(a, b, "ParallelDot");
  const size_t c = a.ctx;
  const size_t rank = a.gen.counters.size() - c;
  if (a.shape() != b.shape() || rank < 2 || rank > 3) throw LowerError(name + ": operands are not M x N matrices");
  const bool presplit = rank == 3;
  if (presplit && (parts == 0 || a.gen.counters[c + 1].extent != parts))
    throw LowerError(name + ": the columns are split in a way the template does not follow");
  const int64_t m = a.gen.counters[c].extent;
  const int64_t n = presplit ? a.gen.counters[c + 1].extent * a.gen.counters[c + 2].extent : a.gen.counters[c + 1].extent;
  const int64_t chunksC = std::max<int64_t>(parts, 1);
  if (n % chunksC != 0) throw LowerError(name + ": the chunk count does not divide N");
  const int64_t len = n / chunksC;
  const int64_t k = std::min(n, options().simdWidth);
  const int64_t q = std::max<int64_t>(1, k / chunksC);
  const int64_t steps = ceilDiv(len, q), groups = ceilDiv(m, p);

  std::vector<size_t> ctxCounter(c);
  std::vector<Counter> ctr;
  size_t nonSummed = 0, summed = 0;
  for (size_t i = 0; i < c; ++i)
    if (!summedAt(i)) { ctxCounter[i] = ctr.size(); ctr.push_back({a.gen.counters[i].extent, DimKind::Stream}); ++nonSummed; }
  const size_t gIdx = ctr.size();
  ctr.push_back({groups, DimKind::Stream});
  for (size_t i = 0; i < c; ++i)
    if (summedAt(i)) { ctxCounter[i] = ctr.size(); ctr.push_back({a.gen.counters[i].extent, DimKind::Stream}); ++summed; }
  const size_t sIdx = ctr.size();
  ctr.push_back({steps, DimKind::Stream});
  const size_t laneIdx = ctr.size();
  ctr.push_back({p, DimKind::Vector});
  const size_t partIdx = ctr.size();
  if (parts > 0) ctr.push_back({chunksC, DimKind::Vector});
  const size_t kIdx = ctr.size();
  ctr.push_back({q, DimKind::Vector});
  const size_t nc = ctr.size();

  auto var = [&](size_t i, int64_t coef = 1) {
    Affine x{0, std::vector<int64_t>(nc, 0)};
    x.coef[i] = coef;
    return x;
  };
  std::vector<Affine> values;
  for (size_t i = 0; i < c; ++i) values.push_back(var(ctxCounter[i]));
  Affine row = var(gIdx, p);
  row.coef[laneIdx] = 1;
  Affine within = var(sIdx, q);  // index inside the chunk
  within.coef[kIdx] = 1;
  values.push_back(row);
  if (presplit) {
    values.push_back(var(partIdx));
    values.push_back(within);
  } else {
    Affine col = within;
    if (parts > 0) col.coef[partIdx] = len;
    values.push_back(col);
  }
  // Guards: counter k of the view, now worth `value`, must stay below `extent` (rows past
  // M, elements past N or past their chunk read 0). In classic view form the group of k is
  // exactly k, and a mask on its top digit is the guard; when k shares its index with
  // another counter, a guard digit on k's value does it, and the groups that use k are
  // kept inside their radices (which check() needs to see the access stays in the buffer).
  auto guard = [&](AddrGen& g, bool classic, const std::vector<size_t>& users, size_t k, const Affine& value, int64_t extent) {
    if (classic) {
      g.guardGroup(k, 0);
      return;
    }
    for (size_t grp : users) g.guardGroup(grp, 0);
    g.guardGroup(g.addGuardGroup(value, extent), 0);
  };
  auto configure = [&](AddrGen g) {
    const bool classic = g.isClassicView();
    std::vector<std::vector<size_t>> users;
    for (size_t k = 0; k < g.counters.size(); ++k) users.push_back(g.groupsOf(k));
    g.substitute(ctr, values);
    if (steps * q > len) {
      if (presplit) {
        guard(g, classic, users[c + 2], c + 2, values[c + 2], len);
      } else {
        if (parts > 0) g.guardGroup(g.addGuardGroup(within, len), 0);  // past its chunk
        guard(g, classic, users[c + 1], c + 1, values[c + 1], n);       // past N
      }
    }
    if (groups * p > m) guard(g, classic, users[c], c, values[c], m);
    return g;
  };
  size_t u = newUnit(name);
  auto bld = builder(u);
  uint32_t ra = bld.read(a.buffer, configure(a.gen));
  uint32_t rb = bld.read(b.buffer, configure(b.gen));
  for (size_t j = 0; j < summed; ++j) {  // the accumulation: summed loops and chunks as one
    ra = bld.op(Prim::JoinStm, {ra}, {static_cast<int64_t>(nonSummed + 1)});
    rb = bld.op(Prim::JoinStm, {rb}, {static_cast<int64_t>(nonSummed + 1)});
  }
  uint32_t r = bld.op(Prim::Mul, {ra, rb}, {1});
  r = bld.op(Prim::ReduceVec, {r}, {static_cast<int64_t>(ReduceKind::Add)});
  r = bld.op(Prim::ReduceStm, {r}, {static_cast<int64_t>(ReduceKind::Add)});

  // Layout: (non-summed context, groups, lanes [, parts]) -> (context, m [, part]); a
  // summed context loop is a space dimension of extent 1 (coordinate 0) until its tiling
  // skeleton drops it; lanes past M are masked.
  std::vector<Counter> outCtr;
  for (const auto& d : bld.type(r).dims) outCtr.push_back({d.extent, d.kind});
  const size_t no = outCtr.size();
  auto ovar = [&](size_t i) {
    Affine x{0, std::vector<int64_t>(no, 0)};
    x.coef[i] = 1;
    return x;
  };
  AddrGen layout;
  layout.counters = outCtr;
  for (size_t i = 0; i < nonSummed; ++i) layout.groups.push_back({ovar(i), {outCtr[i].extent}});
  Affine orow = ovar(nonSummed + 1);
  orow.coef[nonSummed] = p;
  layout.groups.push_back({orow, {m}});
  if (parts > 0) layout.groups.push_back({ovar(nonSummed + 2), {chunksC}});
  const size_t digits = layout.groups.size();
  auto digit = [&](size_t i) {
    Affine x{0, std::vector<int64_t>(digits, 0)};
    x.coef[i] = 1;
    return x;
  };
  size_t next = 0;
  for (size_t i = 0; i < c; ++i) {
    if (summedAt(i)) {
      layout.space.push_back(1);
      layout.coords.push_back(Affine{0, std::vector<int64_t>(digits, 0)});
    } else {
      layout.space.push_back(a.gen.counters[i].extent);
      layout.coords.push_back(digit(next++));
    }
  }
  layout.space.push_back(m);
  layout.coords.push_back(digit(nonSummed));
  if (parts > 0) {
    layout.space.push_back(chunksC);
    layout.coords.push_back(digit(nonSummed + 1));
  }
  if (groups * p > m) layout.guardGroup(nonSummed, 0);
  return Stream{u, r, layout, c};
}

Sym Lowerer::skeleton(const ir::Term* t, const Env& env) {
  const Op op = t->op();
  const std::string name(ir::opName(op));
  switch (op) {
    case Op::ParallelDot: {
      View a = asView(eval(t->child(0), env)), b = asView(eval(t->child(1), env));
      return dotTemplate(a, b, t->param(0), 0, name);
    }
    case Op::ParallelPartialDot: {
      View a = asView(eval(t->child(0), env)), b = asView(eval(t->child(1), env));
      return dotTemplate(a, b, t->param(0), t->param(1), name);
    }
    case Op::ParallelConv: return parallelConv(t, env);
    case Op::Mv: {  // f(mat)(repeat_M(vec))
      View mat = asView(eval(t->child(0), env)), vec = asView(eval(t->child(1), env));
      requireCtx(mat, vec, "Mv");
      vec.gen.repeat(vec.ctx, mat.gen.counters[mat.ctx].extent);
      Sym f = eval(t->child(2), env);
      return apply(apply(f, mat), vec);
    }
    case Op::Mm: {  // out[h] = f(b)(a[h]): a's rows become a context loop, b is repeated
      View a = asView(eval(t->child(0), env)), b = asView(eval(t->child(1), env));
      requireCtx(a, b, "Mm");
      b.gen.repeat(b.ctx, a.gen.counters[a.ctx].extent);
      ++a.ctx;
      ++b.ctx;
      Sym r = apply(apply(eval(t->child(2), env), b), a);
      Stream s = openStream(r);
      --s.ctx;
      return s;
    }
    case Op::Conv: {  // out[y][x] = f(W2)(window(y, x))
      View in = asView(eval(t->child(0), env)), w = asView(eval(t->child(1), env));
      requireCtx(in, w, "Conv");
      const size_t c = in.ctx;
      const int64_t ks = w.gen.counters[c + 1].extent;
      in.gen.slide(c, ks, 1);      // [OH][KS][W][C]
      in.gen.slide(c + 2, ks, 1);  // [OH][KS][OW][KS][C]
      in.gen.transpose(c + 1, c + 2);
      in.gen.flatten(c + 2);
      in.gen.flatten(c + 2);  // [OH][OW][KS*KS*C]
      in.ctx = c + 2;
      w.gen.flatten(c + 1);
      w.gen.flatten(c + 1);  // [O][KS*KS*C]
      w.gen.repeat(c, in.gen.counters[c].extent);
      w.gen.repeat(c + 1, in.gen.counters[c + 1].extent);
      w.ctx = c + 2;
      Sym r = apply(apply(eval(t->child(2), env), w), in);
      Stream s = openStream(r);
      s.ctx = c;
      return s;
    }
    case Op::Conv1DW: {  // out[h] = f(win_h)(wgt), win_h[x][k] = img[h][x+k]
      View img = asView(eval(t->child(0), env)), w = asView(eval(t->child(1), env));
      requireCtx(img, w, "Conv1D_W");
      const size_t c = img.ctx;
      const int64_t k = w.gen.counters[c].extent;
      img.gen.slide(c + 1, k, 1);  // [H][OW][K]
      img.ctx = c + 1;
      w.gen.repeat(c, img.gen.counters[c].extent);
      w.ctx = c + 1;
      Stream s = openStream(apply(apply(eval(t->child(2), env), img), w));
      s.ctx = c;
      return s;
    }
    case Op::Conv1DH: {  // out[y][w] = f(win_w)(wgt)[y], win_w[y][k] = img[y+k][w]
      View img = asView(eval(t->child(0), env)), w = asView(eval(t->child(1), env));
      requireCtx(img, w, "Conv1D_H");
      const size_t c = img.ctx;
      const int64_t k = w.gen.counters[c].extent;
      img.gen.slide(c, k, 1);  // [OH][K][W]
      auto order = identityOrder(img.gen.counters.size());
      order[c] = c + 2;
      order[c + 1] = c;
      order[c + 2] = c + 1;
      img.gen.permute(order);  // [W][OH][K]
      img.ctx = c + 1;
      w.gen.repeat(c, img.gen.counters[c].extent);
      w.ctx = c + 1;
      Stream s = openStream(apply(apply(eval(t->child(2), env), img), w));
      // The unit computes [W][OH]; the logical result is [OH][W].
      auto sorder = identityOrder(s.layout.space.size());
      std::swap(sorder[c], sorder[c + 1]);
      permuteSpace(s.layout, sorder);
      s.ctx = c;
      return s;
    }
    default: break;
  }
  return dataTransform(t, env);
}

}  // namespace skeleshare::lower::detail
