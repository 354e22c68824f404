// Templates of the DSP skeletons: the ParallelDot unit, and the address-generator recipes
// that feed it for Mv, Mm, Conv, Conv1D_W and Conv1D_H (docs/lowering.md, "Templates").

#include <fmt/format.h>

#include "lower_impl.h"

namespace skeleshare::lower::detail {

using ir::Op;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Affine unitAffine(size_t n, size_t i) {
  Affine a{0, std::vector<int64_t>(n, 0)};
  a.coef[i] = 1;
  return a;
}

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

// ParallelDot[P] on a: ctx x M x N, b: ctx x M x N. Counters: the context loops (stream),
// G = ceil(M/P) row groups (stream), C = ceil(N/K) chunks (stream, when C > 1), P lanes
// and K = min(N, simd) elements (vector). Row m = g*P + lane, element n = chunk*K + k;
// rows past M and elements past N read 0 (masks). P*K DSP multipliers, an adder tree per
// lane, an accumulator over the chunks.
Stream Lowerer::dotTemplate(View a, View b, int64_t p, const std::string& name) {
  requireCtx(a, b, "ParallelDot");
  const size_t c = a.ctx;
  if (a.gen.counters.size() != c + 2 || a.shape() != b.shape()) throw LowerError("ParallelDot: operands are not M x N matrices");
  const int64_t m = a.gen.counters[c].extent, n = a.gen.counters[c + 1].extent;
  const int64_t k = std::min(n, options().simdWidth), chunks = ceilDiv(n, k), groups = ceilDiv(m, p);
  std::vector<Counter> ctr;
  for (size_t i = 0; i < c; ++i) ctr.push_back({a.gen.counters[i].extent, DimKind::Stream});
  const size_t gIdx = ctr.size();
  ctr.push_back({groups, DimKind::Stream});
  const size_t chunkIdx = ctr.size();
  if (chunks > 1) ctr.push_back({chunks, DimKind::Stream});
  const size_t laneIdx = ctr.size();
  ctr.push_back({p, DimKind::Vector});
  const size_t kIdx = ctr.size();
  ctr.push_back({k, DimKind::Vector});
  const size_t nc = ctr.size();

  std::vector<Affine> values;
  for (size_t i = 0; i < c; ++i) values.push_back(unitAffine(nc, i));
  Affine row{0, std::vector<int64_t>(nc, 0)};
  row.coef[gIdx] = p;
  row.coef[laneIdx] = 1;
  Affine col{0, std::vector<int64_t>(nc, 0)};
  if (chunks > 1) col.coef[chunkIdx] = k;
  col.coef[kIdx] = 1;
  values.push_back(row);
  values.push_back(col);

  auto configure = [&](AddrGen g) {
    g.regroup(ctr, values);
    if (chunks * k > n) g.guardGroup(c + 1, 0);
    if (groups * p > m) g.guardGroup(c, 0);
    return g;
  };
  size_t u = newUnit(name);
  auto bld = builder(u);
  uint32_t ra = bld.read(a.buffer, configure(a.gen));
  uint32_t rb = bld.read(b.buffer, configure(b.gen));
  uint32_t r = bld.op(Prim::Mul, {ra, rb}, {1});
  r = bld.op(Prim::ReduceVec, {r}, {static_cast<int64_t>(ReduceKind::Add)});
  if (chunks > 1) r = bld.op(Prim::ReduceStm, {r}, {static_cast<int64_t>(ReduceKind::Add)});

  // Layout: the node's counters (context, groups, lanes) -> (context, m), lanes past M masked.
  std::vector<Counter> outCtr;
  for (const auto& d : bld.type(r).dims) outCtr.push_back({d.extent, d.kind});
  const size_t no = outCtr.size();
  AddrGen layout;
  layout.counters = outCtr;
  for (size_t i = 0; i < c; ++i) {
    layout.space.push_back(outCtr[i].extent);
    layout.groups.push_back({unitAffine(no, i), {outCtr[i].extent}});
  }
  Affine orow{0, std::vector<int64_t>(no, 0)};
  orow.coef[c] = p;
  orow.coef[c + 1] = 1;
  layout.space.push_back(m);
  layout.groups.push_back({orow, {m}});
  for (size_t i = 0; i <= c; ++i) layout.coords.push_back(unitAffine(c + 1, i));
  if (groups * p > m) layout.guardGroup(c, 0);
  return Stream{u, r, layout, c};
}

Sym Lowerer::skeleton(const ir::Term* t, const Env& env) {
  const Op op = t->op();
  const std::string name(ir::opName(op));
  switch (op) {
    case Op::ParallelDot: {
      View a = asView(eval(t->child(0), env)), b = asView(eval(t->child(1), env));
      return dotTemplate(a, b, t->param(0), name);
    }
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
  throw LowerError(fmt::format("skeleton {} is not lowered yet", name));
}

}  // namespace skeleshare::lower::detail
