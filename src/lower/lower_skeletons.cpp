// Templates of the DSP skeletons: the ParallelDot unit, and the address-generator recipes
// that feed it for Mv, Mm, Conv, Conv1D_W and Conv1D_H (docs/lowering.md, "Templates").

#include <fmt/format.h>

#include "lower_impl.h"
#include "skeleshare/lower/zero_columns.h"
#include "skeleshare/support/int_math.h"

namespace skeleshare::lower::detail {

using ir::Op;

namespace {

void requireCtx(const View& a, const View& b, const char* what) {
  if (a.ctx != b.ctx) throw LowerError(fmt::format("{}: operands in different skeleton contexts", what));
  for (size_t i = 0; i < a.ctx; ++i)
    if (a.gen.counters[i].extent != b.gen.counters[i].extent)
      throw LowerError(fmt::format("{}: operands with different context extents", what));
}

// A flattened window [ky][kx][c] (column radices [r0][r1]...) read w columns a step:
// when its rows (r1 * ... columns, contiguous in memory) are not a multiple of w, a step
// may cut a row and read the end of one and the start of the next, two runs where one
// would do. Padding every row to a multiple of w (the digit r1 grows, its new values read
// 0) starts every step inside one row; done only when that takes no more steps. TinyYolo
// v2's second layer (3 rows of 48 columns, 64 a step): 5 runs a window, 3 after.
void alignRowsToSteps(AddrGen& a, AddrGen& b, size_t col, int64_t w) {
  if (!a.isClassicView() || !b.isClassicView()) return;
  const std::vector<int64_t>& r = a.groups[col].radices;
  if (r.size() < 2 || r != b.groups[col].radices) return;
  const int64_t n = a.counters[col].extent;
  if (n != b.counters[col].extent) return;
  int64_t inner = 1;
  for (size_t i = 2; i < r.size(); ++i) inner *= r[i];
  const int64_t row = r[1] * inner;
  if (row * r[0] != n || row % w == 0) return;  // a padded index, or rows already aligned
  const int64_t padded = ceilDiv(row, w) * w;
  if (padded % inner != 0 || r[0] * (padded / w) != ceilDiv(n, w)) return;
  a.padDigit(col, 1, padded / inner, 0);
  b.padDigit(col, 1, padded / inner, 0);
}

}  // namespace

// ParallelDot[P] / ParallelPartialDot[P, C] on a, b: ctx x M x N (docs/lowering.md,
// "Templates"). Counters: the context loops that are not summed (stream) and G = ceil(M/P)
// row groups (stream), the summed context loops (tile loops of TiledMv/TiledMmK/
// TiledConvICH: the accumulator runs over them), S chunks (stream, always present: the
// accumulation length), then vector lanes P (rows) x [C (partial chunks)] x q. For a dot
// q = K = min(N, 64); for a partial dot each of the C chunks (L = N/C elements) gets
// q = K/C lanes, so the multipliers are P*K as the cost model says (P*C*floor(K/C) when C
// does not divide K). Row m = g*P + lane, element n = chunk*L + s*q + k (or, when a merge
// sums the chunks at once, s*C*q + chunk*q + k: one contiguous run a step); rows past M and
// elements past the chunk (or past N) read 0 (masks). Mul[1], ReduceVec (adder trees), one ReduceStm
// (the accumulator) over the summed loops and chunks joined into one stream dimension.
//
// Reuse (reuse.cpp): b does not depend on the rows (its P lanes are a Broadcast, its G loop
// may be a Repeat), and a usually does not depend on some context loops (a convolution's
// weights on the output position). The row groups G go either inside the context loops
// (b is replayed per group: a block of S chunks; a is replayed over the positions: the
// whole matrix) or right inside the context loops a depends on (a is replayed over the
// others: a block of S chunks per group; b over the groups: every position's chunks):
// whichever replays more of them, then whichever needs fewer on-chip bits. Either way each operand crosses the memory port once
// per call when its blocks fit.
Stream Lowerer::dotTemplate(View a, View b, int64_t p, int64_t parts, bool merged, const std::string& name) {
  requireCtx(a, b, "ParallelDot");
  const size_t c = a.ctx;
  const size_t rank = a.gen.counters.size() - c;
  if (a.shape() != b.shape() || rank < 2 || rank > 3) throw LowerError(name + ": operands are not M x N matrices");
  const bool presplit = rank == 3;
  if (presplit && (parts == 0 || a.gen.counters[c + 1].extent != parts))
    throw LowerError(name + ": the columns are split in a way the template does not follow");
  const int64_t m = a.gen.counters[c].extent;
  auto columns = [&] {
    return presplit ? a.gen.counters[c + 1].extent * a.gen.counters[c + 2].extent : a.gen.counters[c + 1].extent;
  };
  const int64_t chunksC = std::max<int64_t>(parts, 1);
  // The lanes are set by the columns the operands' type has, zero ones included: every
  // call of a shared unit keeps its datapath, and the DSPs are the cost model's.
  const int64_t k = std::min(columns(), options().simdWidth);
  const int64_t q = std::max<int64_t>(1, k / chunksC);
  // Chunks that a merge sums at once may be any partition of the columns: interleaved
  // (step s, chunk j, lane k reads column s*C*q + j*q + k) a step reads C*q contiguous
  // columns, where chunk-major (j*len + s*q + k) it gathers C pieces of q, C runs a step.
  const bool interleaved = merged && parts > 0 && !presplit;
  // Columns that one operand reads as 0 (zero-padded channels, kernel taps) need no step
  // (zero_columns.h): the summed tiles past the real channels go, a tiling of the columns
  // merges back into them when that lets them shrink, and then a chunk of a presplit
  // partial dot shrinks inside itself, a dot or an interleaved merge over all its columns.
  // (Chunk-major chunks of a flat index would move.)
  for (size_t i = 0; i < c; ++i)
    if (summedAt(i)) dropZeroColumns(a.gen, b.gen, i);
  if (presplit) {
    dropZeroColumns(a.gen, b.gen, c + 2);
  } else if (parts == 0 || interleaved) {
    for (size_t i = 0; i < c; ++i) {
      if (!summedAt(i)) continue;
      AddrGen ma = a.gen, mb = b.gen;
      if (mergeIntoColumns(ma, mb, i, c + 1) && dropZeroColumns(ma, mb, c + 1)) {
        a.gen = std::move(ma);
        b.gen = std::move(mb);
      }
    }
    dropZeroColumns(a.gen, b.gen, c + 1);
    alignRowsToSteps(a.gen, b.gen, c + 1, chunksC * q);
  }
  const int64_t n = columns();
  if (!interleaved && n % chunksC != 0) throw LowerError(name + ": the chunk count does not divide N");
  const int64_t len = n / chunksC;
  const int64_t steps = interleaved ? ceilDiv(n, chunksC * q) : ceilDiv(len, q), groups = ceilDiv(m, p);

  // The counters for one placement of G: gOuter puts it right inside the non-summed
  // context loops that a depends on.
  struct Order {
    std::vector<Counter> ctr;
    std::vector<size_t> ctxCounter;  // context loop -> counter
    size_t gIdx = 0, sIdx = 0, laneIdx = 0, partIdx = 0, kIdx = 0;
    size_t nonSummed = 0, summed = 0;
  };
  auto order = [&](bool gOuter) {
    Order o;
    o.ctxCounter.resize(c);
    auto addCtx = [&](size_t i) {
      o.ctxCounter[i] = o.ctr.size();
      o.ctr.push_back({a.gen.counters[i].extent, DimKind::Stream});
    };
    for (size_t i = 0; i < c; ++i)
      if (!summedAt(i) && (!gOuter || a.gen.dependsOn(i))) addCtx(i);
    o.gIdx = o.ctr.size();
    o.ctr.push_back({groups, DimKind::Stream});
    for (size_t i = 0; i < c; ++i)
      if (!summedAt(i) && gOuter && !a.gen.dependsOn(i)) addCtx(i);
    o.nonSummed = o.ctr.size() - 1;
    for (size_t i = 0; i < c; ++i)
      if (summedAt(i)) addCtx(i);
    o.summed = o.ctr.size() - 1 - o.nonSummed;
    o.sIdx = o.ctr.size();
    o.ctr.push_back({steps, DimKind::Stream});
    o.laneIdx = o.ctr.size();
    o.ctr.push_back({p, DimKind::Vector});
    o.partIdx = o.ctr.size();
    if (parts > 0) o.ctr.push_back({chunksC, DimKind::Vector});
    o.kIdx = o.ctr.size();
    o.ctr.push_back({q, DimKind::Vector});
    return o;
  };

  // Guards: counter k of the view, now worth `value`, must stay below `extent` (rows past
  // M, elements past N or past their chunk read 0). In classic view form the group of k is
  // exactly k, and a mask on its top digit is the guard; when k shares its index with
  // another counter, a guard digit on k's value does it, and the groups that use k are
  // kept inside their radices (which check() needs to see the access stays in the buffer).
  auto guard = [&](AddrGen& g, bool classic, const std::vector<size_t>& users, size_t kk, const Affine& value,
                   int64_t extent) {
    if (classic) {
      g.guardGroup(kk, 0);
      return;
    }
    for (size_t grp : users) g.guardGroup(grp, 0);
    g.guardGroup(g.addGuardGroup(value, extent), 0);
  };
  // The operand's generator over the order's counters; `rows` guards the rows past M (not
  // needed for a b repeated over the rows: its value there is multiplied by a's 0).
  auto configure = [&](AddrGen g, const Order& o, bool rows) {
    const size_t nc = o.ctr.size();
    auto var = [&](size_t i, int64_t coef = 1) {
      Affine x{0, std::vector<int64_t>(nc, 0)};
      x.coef[i] = coef;
      return x;
    };
    std::vector<Affine> values;
    for (size_t i = 0; i < c; ++i) values.push_back(var(o.ctxCounter[i]));
    Affine row = var(o.gIdx, p);
    row.coef[o.laneIdx] = 1;
    Affine within = var(o.sIdx, q);  // index inside the chunk
    within.coef[o.kIdx] = 1;
    values.push_back(row);
    if (presplit) {
      values.push_back(var(o.partIdx));
      values.push_back(within);
    } else {
      Affine col = within;
      if (interleaved) {
        col.coef[o.sIdx] = chunksC * q;
        col.coef[o.partIdx] = q;
      } else if (parts > 0) {
        col.coef[o.partIdx] = len;
      }
      values.push_back(col);
    }
    const bool classic = g.isClassicView();
    std::vector<std::vector<size_t>> users;
    for (size_t kk = 0; kk < g.counters.size(); ++kk) users.push_back(g.groupsOf(kk));
    g.substitute(o.ctr, values);
    if (interleaved) {
      if (steps * chunksC * q > n) guard(g, classic, users[c + 1], c + 1, values[c + 1], n);  // past N
    } else if (steps * q > len) {
      if (presplit) {
        guard(g, classic, users[c + 2], c + 2, values[c + 2], len);
      } else {
        if (parts > 0) g.guardGroup(g.addGuardGroup(within, len), 0);  // past its chunk
        guard(g, classic, users[c + 1], c + 1, values[c + 1], n);       // past N
      }
    }
    if (rows && groups * p > m) guard(g, classic, users[c], c, values[c], m);
    return g;
  };

  const int bitsA = prog_.buffers.at(static_cast<size_t>(a.buffer)).bits;
  const int bitsB = prog_.buffers.at(static_cast<size_t>(b.buffer)).bits;
  // Units run one at a time, so each may use the on-chip memory for its replay buffers
  // (half of it: the rest is for the lines and vectors in flight).
  const int64_t budget = options().onChipBudgetBits / 2;
  struct Choice {
    Order o;
    AddrGen ga, gb;
    ReusePlan pa, pb;
  };
  auto choose = [&](bool gOuter) {
    Choice ch{order(gOuter), {}, {}, {}, {}};
    ch.ga = configure(a.gen, ch.o, true);
    ch.gb = configure(b.gen, ch.o, b.gen.dependsOn(c));
    ch.pa = planReuse(ch.ga, bitsA, budget);
    ch.pb = planReuse(ch.gb, bitsB, budget - ch.pa.bits);
    return ch;
  };
  // Moving G only changes anything when some non-summed context loop is one a does not
  // depend on; then the placement that replays more with fewer bits wins (the repeats
  // taken first, then the bits).
  // (LowerOptions::otherDotPlacement turns the choice around for this unit.)
  Choice inner = choose(false);
  Choice ch = inner;
  bool someIndependent = false;
  for (size_t i = 0; i < c; ++i) someIndependent = someIndependent || (!summedAt(i) && !a.gen.dependsOn(i));
  if (someIndependent) {
    Choice outer = choose(true);
    auto replayed = [](const Choice& x) { return x.pa.repeats.size() + x.pb.repeats.size(); };
    bool takeOuter = replayed(outer) > replayed(inner) ||
                     (replayed(outer) == replayed(inner) && outer.pa.bits + outer.pb.bits < inner.pa.bits + inner.pb.bits);
    if (options().otherDotPlacement && options().otherDotPlacement->count(unitCount())) takeOuter = !takeOuter;
    if (takeOuter) ch = std::move(outer);
  }
  const Order& o = ch.o;

  size_t u = newUnit(name);
  auto bld = builder(u);
  uint32_t ra = readWithReuse(bld, a.buffer, ch.ga, ch.pa);
  uint32_t rb = readWithReuse(bld, b.buffer, ch.gb, ch.pb);
  for (size_t j = 0; j < o.summed; ++j) {  // the accumulation: summed loops and chunks as one
    ra = bld.op(Prim::JoinStm, {ra}, {static_cast<int64_t>(o.nonSummed + 1)});
    rb = bld.op(Prim::JoinStm, {rb}, {static_cast<int64_t>(o.nonSummed + 1)});
  }
  // DSP multipliers, as many per block as the device packs for these operand widths
  const int64_t perBlock = options().productsPerBlock(bld.type(ra).bits, bld.type(rb).bits);
  uint32_t r = bld.op(Prim::Mul, {ra, rb}, perBlock > 1 ? std::vector<int64_t>{1, perBlock} : std::vector<int64_t>{1});
  r = bld.op(Prim::ReduceVec, {r}, {static_cast<int64_t>(ReduceKind::Add)});
  r = bld.op(Prim::ReduceStm, {r}, {static_cast<int64_t>(ReduceKind::Add)});

  // Layout: the result's counters are the order's non-summed stream counters (G among
  // them) and the lanes [P [, parts]]; they map to (context, m [, part]). A summed context
  // loop is a space dimension of extent 1 (coordinate 0) until its tiling skeleton drops
  // it; lanes past M are masked.
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
  for (size_t i = 0; i < c; ++i)
    if (!summedAt(i)) layout.groups.push_back({ovar(o.ctxCounter[i]), {a.gen.counters[i].extent}});
  Affine orow = ovar(o.nonSummed + 1);  // the first lane counter
  orow.coef[o.gIdx] = p;
  layout.groups.push_back({orow, {m}});
  if (parts > 0) layout.groups.push_back({ovar(o.nonSummed + 2), {chunksC}});
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
  const size_t rowDigit = next;
  layout.space.push_back(m);
  layout.coords.push_back(digit(rowDigit));
  if (parts > 0) {
    layout.space.push_back(chunksC);
    layout.coords.push_back(digit(rowDigit + 1));
  }
  if (groups * p > m) layout.guardGroup(rowDigit, 0);
  return Stream{u, r, layout, c, {}, 0};
}

Sym Lowerer::skeleton(const ir::Term* t, const Env& env) {
  const Op op = t->op();
  const std::string name(ir::opName(op));
  switch (op) {
    case Op::ParallelDot: {
      View a = asView(eval(t->child(0), env)), b = asView(eval(t->child(1), env));
      return dotTemplate(a, b, t->param(0), 0, false, name);
    }
    case Op::ParallelPartialDot: {
      View a = asView(eval(t->child(0), env)), b = asView(eval(t->child(1), env));
      return dotTemplate(a, b, t->param(0), t->param(1), t == mergedPartialDot_, name);
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
    case Op::Conv1DW:
    case Op::Conv1DH: {
      View img = asView(eval(t->child(0), env)), w = asView(eval(t->child(1), env));
      requireCtx(img, w, name.c_str());
      const size_t c = img.ctx;
      const int64_t k = w.gen.counters[c].extent;
      // f applied to the windows [A][B][K] of each of the A context positions: out[a] =
      // f(windows_a)(wgt), the weights repeated over a.
      auto perContext = [&](View windows) {
        windows.ctx = c + 1;
        w.gen.repeat(c, windows.gen.counters[c].extent);
        w.ctx = c + 1;
        Stream s = openStream(apply(apply(eval(t->child(2), env), windows), w));
        s.ctx = c;
        return s;
      };
      if (op == Op::Conv1DW) {  // out[h] = f(win_h)(wgt), win_h[x][k] = img[h][x+k]
        img.gen.slide(c + 1, k, 1);  // [H][OW][K]
        return perContext(img);
      }
      // Conv1D_H: out[y][w] = f(win_w)(wgt)[y], win_w[y][k] = img[y+k][w]
      img.gen.slide(c, k, 1);  // [OH][K][W]
      if (img.gen.counters[c].extent == img.gen.counters[c + 2].extent) {
        // A square result: f's matrix [OH][K] has the type of a row's windows [W][K], so
        // f may as well compute a row, out[y] = f(row_y)(wgt) with row_y[x][k] =
        // img[y+k][x]. The same products and sums, but a step's lanes are neighbours in a
        // row (one run per tap) instead of in a column (one line per lane and tap).
        img.gen.transpose(c + 1, c + 2);  // [OH][W][K]
        return perContext(img);
      }
      img.gen.permute(moveDim(img.gen.counters.size(), c + 2, c));  // [W][OH][K]
      Stream s = perContext(img);
      // The unit computes [W][OH]; the logical result is [OH][W].
      permuteSpace(s.layout, moveDim(s.layout.space.size(), c, c + 1));
      return s;
    }
    default: break;
  }
  return dataTransform(t, env);
}

}  // namespace skeleshare::lower::detail
