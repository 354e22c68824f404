// Data-transformed and partial skeletons (docs/lowering.md, "Data transforms"): tiling,
// padding and transposition around a skeleton's function are edits of the operands' address
// generators and of the result's layout, never buffers. A concatenated tile loop (TiledMvRows,
// TiledMm{W,H}, TiledConvOCH/HW) is a new context loop whose index is merged back into the
// result's coordinates; a summed one (TiledMv, TiledMmK, TiledConvICH) is a context loop the
// dot template accumulates over; a pad is a mask on the read, a crop a mask on the write.

#include <fmt/format.h>

#include <utility>

#include "lower_impl.h"
#include "skeleshare/support/int_math.h"

namespace skeleshare::lower::detail {

using ir::Op;

namespace {

/// The first and second parameter types of a curried function f: A -> B -> R.
const ir::Type* firstParam(const ir::Term* f) { return f->type()->param(); }
const ir::Type* secondParam(const ir::Term* f) { return f->type()->result()->param(); }

/// Forms over digits: inserts digit `after + 1` so that old digit `after` = top * inner + low.
void splitDigit(AddrGen& g, size_t j, int64_t inner) {
  auto edit = [&](Affine& a) {
    int64_t c = a.coef[j];
    a.coef[j] = c * inner;
    a.coef.insert(a.coef.begin() + static_cast<ptrdiff_t>(j) + 1, c);
  };
  for (auto& c : g.coords) edit(c);
  for (auto& m : g.masks) edit(m.expr);
}

}  // namespace

void splitSpace(AddrGen& layout, size_t d, int64_t inner) {
  const Affine& coord = layout.coords.at(d);
  size_t j = coord.coef.size();
  for (size_t i = 0; i < coord.coef.size(); ++i)
    if (coord.coef[i] != 0) {
      if (j != coord.coef.size() || coord.coef[i] != 1) throw LowerError("split of a layout dimension that is not one digit");
      j = i;
    }
  if (j == coord.coef.size() || coord.offset != 0) throw LowerError("split of a layout dimension that is not one digit");
  size_t g = 0;
  while (g + 1 < layout.groups.size() && layout.firstDigit(g + 1) <= j) ++g;
  if (layout.groups[g].radices.size() != 1 || layout.firstDigit(g) != j || layout.space[d] % inner != 0)
    throw LowerError("split of a layout dimension that is a flattened index");
  int64_t e = layout.space[d];
  layout.groups[g].radices = {e / inner, inner};
  splitDigit(layout, j, inner);
  Affine top{0, std::vector<int64_t>(layout.coords[d].coef.size(), 0)}, low = top;
  top.coef[j] = 1;
  low.coef[j + 1] = 1;
  layout.coords[d] = top;
  layout.coords.insert(layout.coords.begin() + static_cast<ptrdiff_t>(d) + 1, low);
  layout.space[d] = e / inner;
  layout.space.insert(layout.space.begin() + static_cast<ptrdiff_t>(d) + 1, inner);
}

void cropSpace(AddrGen& layout, size_t d, int64_t len) {
  if (len < 1 || len > layout.space.at(d)) throw LowerError("crop out of range");
  if (len == layout.space[d]) return;
  layout.masks.insert(layout.masks.begin(), Mask{layout.coords[d], 0, len, 0});
  layout.space[d] = len;
}

void dropSpace(AddrGen& layout, size_t d) {
  const Affine& c = layout.coords.at(d);
  bool zero = c.offset == 0 && layout.space[d] == 1;
  for (int64_t x : c.coef) zero = zero && x == 0;
  if (!zero) throw LowerError("a summed tiling whose function is not a dot product");
  layout.coords.erase(layout.coords.begin() + static_cast<ptrdiff_t>(d));
  layout.space.erase(layout.space.begin() + static_cast<ptrdiff_t>(d));
}

Sym Lowerer::dataTransform(const ir::Term* t, const Env& env) {
  const Op op = t->op();
  const std::string name(ir::opName(op));
  if (t->numChildren() != 3) throw LowerError(fmt::format("skeleton {} is not lowered", name));
  View x = asView(eval(t->child(0), env)), y = asView(eval(t->child(1), env));
  if (x.ctx != y.ctx) throw LowerError(name + ": operands in different skeleton contexts");
  const size_t c = x.ctx;
  const ir::Term* fTerm = t->child(2);
  Sym f = eval(fTerm, env);
  const auto a = firstParam(fTerm)->shape(), b = secondParam(fTerm)->shape();
  auto ext = [](const View& v, size_t i) { return v.gen.counters.at(i).extent; };
  // Runs f on the tiles with the tile loop(s) at context position c.
  auto call = [&](size_t loops, bool summed) {
    x.ctx = y.ctx = c + loops;
    auto mark = markCtx(c, summed);
    if (loops == 2) {
      auto mark2 = markCtx(c + 1, summed);
      Stream s = openStream(apply(apply(f, x), y));
      return s;
    }
    return openStream(apply(apply(f, x), y));
  };
  auto finish = [&](Stream s) {
    s.ctx = c;
    return s;
  };
  // TiledConvHW's tiles: tile (i, j) = f(in[i*OTH : i*OTH+TH][j*OTW : j*OTW+TW])(wgt)
  auto convTiles = [&] {
    int64_t th = a[0], tw = a[1], ks = ext(y, c + 1);
    int64_t oth = th - ks + 1, otw = tw - ks + 1;
    x.gen.slide(c, th, oth);
    x.gen.slide(c + 2, tw, otw);
    x.gen.transpose(c + 1, c + 2);  // [nI][nJ][TH][TW][C]
    y.gen.repeat(c, ext(x, c));
    y.gen.repeat(c + 1, ext(x, c + 1));
    Stream s = call(2, false);  // [nI][nJ][OTH][OTW][O]
    permuteSpace(s.layout, moveDim(c + 5, c + 1, c + 2));  // [nI][OTH][nJ][OTW][O]
    flattenSpace(s.layout, c);
    flattenSpace(s.layout, c + 1);
    return s;
  };
  switch (op) {
    case Op::TiledConvOCH: {  // out[:, :, O-slice t] = f(in)(wgt[O-slice t])
      int64_t to = b[0], nt = ext(y, c) / to;
      y.gen.split(c, to);
      x.gen.repeat(c, nt);
      Stream s = call(1, false);  // [t][OH][OW][TO]
      permuteSpace(s.layout, moveDim(c + 4, c, c + 2));
      flattenSpace(s.layout, c + 2);
      return finish(s);
    }
    case Op::TiledConvICH: {  // sum_t f(in[:, :, C-slice t])(wgt[:, :, :, C-slice t])
      int64_t tc = a[2];
      x.gen.split(c + 2, tc);
      x.gen.permute(moveDim(c + 4, c + 2, c));
      y.gen.split(c + 3, tc);
      y.gen.permute(moveDim(c + 5, c + 3, c));
      Stream s = call(1, true);
      dropSpace(s.layout, c);
      return finish(s);
    }
    case Op::TiledConvHW:
      return finish(convTiles());
    case Op::PairedConvW: {  // out[y][2x+e][o] = TiledConvHW(in', wgt', f)[y][x][e*O + o] (docs/ir.md)
      // in': columns 2x and 2x+1 as one of 2C channels, after (KS-1)/2 zero pairs: a view
      const int64_t o = ext(y, c), ks = ext(y, c + 1);
      // Those zero columns only ever meet zero weights (a tap past the last column has
      // 2j + d - e >= KS). Where the buffer has the columns (or an outer mask guards them),
      // reading them unmasked changes no sum and keeps the windows' masks the coordinates'
      // bounds that a box read needs.
      if (!x.gen.extend(c + 1, 0, ks - 1)) x.gen.pad(c + 1, 0, ks - 1, 0);
      x.gen.split(c + 1, 2);
      x.gen.flatten(c + 2);  // [H][W/2 + (KS-1)/2][2C]
      // wgt'[e*O + o][ky][j][d*C + c] = wgt[o][ky][2j + d - e][c]: kx padded by one in
      // front, two windows of 2KS taps (the second one tap later) read backwards, so that
      // window e starts e taps early; then the taps pair up like the input's columns
      y.gen.pad(c + 2, 1, ks, 0);
      y.gen.slide(c + 2, 2 * ks, 1);  // [O][KS][2][2KS][C]
      y.gen.reverse(c + 2);
      y.gen.split(c + 3, 2);
      y.gen.flatten(c + 4);                    // [O][KS][e][KS][2C]
      y.gen.permute(moveDim(c + 5, c + 2, c));  // [e][O][KS][KS][2C]
      y.gen.flatten(c);
      Stream s = convTiles();  // [OH][OW/2][2O]
      splitSpace(s.layout, c + 2, o);
      flattenSpace(s.layout, c + 1);  // [OH][OW][O]
      return finish(s);
    }
    case Op::PaddedConvHW:
    case Op::PaddedConvKS: {  // f(in padded bottom/right to PH x PW)(wgt, zero taps to K x K), cropped
      int64_t h = ext(x, c), w = ext(x, c + 1), ks = ext(y, c + 1), d = b[1] - ks;  // d = 0 for HW
      if (a[0] > h) x.gen.pad(c, 0, a[0] - h, 0);
      if (a[1] > w) x.gen.pad(c + 1, 0, a[1] - w, 0);
      if (d > 0) {
        y.gen.pad(c + 1, 0, d, 0);
        y.gen.pad(c + 2, 0, d, 0);
      }
      Stream s = call(0, false);
      cropSpace(s.layout, c, h - ks + 1);
      cropSpace(s.layout, c + 1, w - ks + 1);
      return finish(s);
    }
    case Op::PaddedConvICH: {  // zero input channels to PC in both operands
      int64_t ch = ext(x, c + 2);
      if (a[2] > ch) {
        // Channels that are a pair of columns' (PairedConvW's [2][C]) are padded per column,
        // so that the index stays a whole product of radices, which the window's flatten
        // needs. Both operands alike: the dot sums the same columns in another order.
        const auto& rx = x.gen.groups.at(c + 2).radices;
        if (rx.size() == 2 && rx == y.gen.groups.at(c + 3).radices && a[2] % rx[0] == 0 && rx[0] * rx[1] == ch) {
          const int64_t perColumn = a[2] / rx[0];
          x.gen.padDigit(c + 2, 1, perColumn, 0);
          y.gen.padDigit(c + 3, 1, perColumn, 0);
        } else {
          x.gen.pad(c + 2, 0, a[2] - ch, 0);
          y.gen.pad(c + 3, 0, a[2] - ch, 0);
        }
      }
      return finish(call(0, false));
    }
    case Op::PaddedConvOCH: {  // zero filters to PO, the first O channels kept
      int64_t o = ext(y, c);
      if (b[0] > o) y.gen.pad(c, 0, b[0] - o, 0);
      Stream s = call(0, false);
      cropSpace(s.layout, c + 2, o);
      return finish(s);
    }
    case Op::TiledMv: {  // sum_t f(mat[:, N-slice t])(vec[N-slice t])
      int64_t tn = a[1];
      x.gen.split(c + 1, tn);
      x.gen.transpose(c, c + 1);  // [t][M][TN]
      y.gen.split(c, tn);          // [t][TN]
      Stream s = call(1, true);
      dropSpace(s.layout, c);
      return finish(s);
    }
    case Op::TiledMvRows: {  // rows t*TM... = f(mat[M-slice t])(vec)
      int64_t tm = a[0], nt = ext(x, c) / tm;
      x.gen.split(c, tm);
      y.gen.repeat(c, nt);
      Stream s = call(1, false);
      flattenSpace(s.layout, c);
      return finish(s);
    }
    case Op::PaddedMv: {  // columns (and the vector) padded with zeros to PN
      int64_t nn = ext(x, c + 1);
      if (a[1] > nn) {
        x.gen.pad(c + 1, 0, a[1] - nn, 0);
        y.gen.pad(c, 0, a[1] - nn, 0);
      }
      return finish(call(0, false));
    }
    case Op::PaddedMvRows: {  // rows padded to PM, the first M results kept
      int64_t mm = ext(x, c);
      if (a[0] > mm) x.gen.pad(c, 0, a[0] - mm, 0);
      Stream s = call(0, false);
      cropSpace(s.layout, c, mm);
      return finish(s);
    }
    case Op::TiledMmW: {  // out[:, W-slice t] = f(a)(b[W-slice t])
      int64_t tw = b[0], nt = ext(y, c) / tw;
      y.gen.split(c, tw);
      x.gen.repeat(c, nt);
      Stream s = call(1, false);  // [t][H][TW]
      permuteSpace(s.layout, moveDim(c + 3, c, c + 1));
      flattenSpace(s.layout, c + 1);
      return finish(s);
    }
    case Op::TiledMmH: {  // out[H-slice t] = f(a[H-slice t])(b)
      int64_t th = a[0], nt = ext(x, c) / th;
      x.gen.split(c, th);
      y.gen.repeat(c, nt);
      Stream s = call(1, false);
      flattenSpace(s.layout, c);
      return finish(s);
    }
    case Op::TiledMmK: {  // sum_t f(a[:, K-slice t])(b[:, K-slice t])
      int64_t tk = a[1];
      x.gen.split(c + 1, tk);
      x.gen.transpose(c, c + 1);
      y.gen.split(c + 1, tk);
      y.gen.transpose(c, c + 1);
      Stream s = call(1, true);
      dropSpace(s.layout, c);
      return finish(s);
    }
    case Op::TransposedConv1DW: {  // transpose(f(transpose(img))(wgt))
      x.gen.transpose(c, c + 1);
      Stream s = call(0, false);
      permuteSpace(s.layout, moveDim(c + 2, c, c + 1));
      return finish(s);
    }
    default: break;
  }
  throw LowerError(fmt::format("skeleton {} is not lowered", name));
}

// ParallelConv(in, wgt, f), G windows per call: output positions p = y*OW + x in groups of
// G. The window of position g*G + j is read straight from the input (a slide, no im2col
// buffer) as a [NG][G][KS*KS*C] view; W2 is repeated G times. The position loop is split
// so that it stays affine: G | OW (a group is part of a row) or OW | G (a group is whole
// rows; the rows are padded to a multiple of G/OW with zero windows, cropped on write).
Sym Lowerer::parallelConv(const ir::Term* t, const Env& env) {
  View in = asView(eval(t->child(0), env)), w = asView(eval(t->child(1), env));
  if (in.ctx != w.ctx) throw LowerError("ParallelConv: operands in different skeleton contexts");
  const size_t c = in.ctx;
  const int64_t ks = w.gen.counters[c + 1].extent, ch = w.gen.counters[c + 3].extent, n = ks * ks * ch;
  const int64_t cols = firstParam(t->child(2))->shape().at(1), g = cols / n;
  const int64_t oh = in.gen.counters[c].extent - ks + 1, ow = in.gen.counters[c + 1].extent - ks + 1;
  in.gen.slide(c, ks, 1);
  in.gen.slide(c + 2, ks, 1);
  in.gen.transpose(c + 1, c + 2);
  in.gen.flatten(c + 2);
  in.gen.flatten(c + 2);  // [OH][OW][n]
  int64_t ohPadded = oh;
  const bool partRow = ow % g == 0;
  if (partRow) {
    in.gen.split(c + 1, g);  // [OH][OW/G][G][n]
    in.gen.flatten(c);       // [NG][G][n]
  } else if (g % ow == 0) {
    int64_t rows = g / ow;
    ohPadded = ceilDiv(oh, rows) * rows;
    if (ohPadded > oh) in.gen.pad(c, 0, ohPadded - oh, 0);
    in.gen.split(c, rows);  // [NG][G/OW][OW][n]
    in.gen.flatten(c + 1);  // [NG][G][n]
  } else {
    throw LowerError(fmt::format("ParallelConv: {} windows per call neither divide nor are a multiple of the {} output columns", g, ow));
  }
  const int64_t ng = in.gen.counters[c].extent;
  w.gen.flatten(c + 1);
  w.gen.flatten(c + 1);  // [O][n]
  w.gen.repeat(c + 1, g);
  w.gen.repeat(c, ng);  // [NG][O][G][n]
  in.ctx = w.ctx = c + 1;
  Stream s = openStream(apply(apply(eval(t->child(2), env), w), in));  // [NG][O][G]
  permuteSpace(s.layout, moveDim(c + 3, c + 1, c + 2));               // [NG][G][O]
  if (partRow) {
    splitSpace(s.layout, c, ow / g);  // [OH][OW/G][G][O]
    flattenSpace(s.layout, c + 1);
  } else {
    splitSpace(s.layout, c + 1, ow);  // [NG][G/OW][OW][O]
    flattenSpace(s.layout, c);
    cropSpace(s.layout, c, oh);
  }
  s.ctx = c;
  return s;
}

// MergePartialSum(x): the sum over x's innermost dimension. When that dimension is the
// innermost vector lane of x's unit (a partial dot's chunks), an adder tree is appended to
// the unit; otherwise x is read back with that dimension as vector lanes.
Sym Lowerer::mergePartialSum(const ir::Term* t, const Env& env) {
  // The partial dot this merge sums directly (rules/partial.rules' two forms) may choose
  // which columns make a chunk.
  const ir::Term* dot = t->child(0);
  if (dot->op() == Op::Mv && dot->child(2)->op() == Op::Lam && dot->child(2)->body()->op() == Op::Lam)
    dot = dot->child(2)->body()->body();
  const ir::Term* saved = std::exchange(mergedPartialDot_, dot->op() == Op::ParallelPartialDot ? dot : nullptr);
  Sym x = eval(t->child(0), env);
  mergedPartialDot_ = saved;
  if (auto* st = std::get_if<Stream>(&x); st && !closed_.at(st->unit)) {
    Stream s = *st;
    const MType& ty = open_.at(s.unit).nodes.at(s.node).type;
    const size_t lastCtr = s.layout.counters.size() - 1, lastDim = s.layout.space.size() - 1;
    // the innermost counter is a vector lane that is exactly the last coordinate
    bool fusable = !ty.dims.empty() && ty.dims.back().kind == DimKind::Vector;
    size_t gLast = s.layout.groups.size();
    for (size_t g = 0; fusable && g < s.layout.groups.size(); ++g) {
      const auto& grp = s.layout.groups[g];
      bool usesLast = grp.value.coef[lastCtr] != 0;
      if (usesLast) {
        bool only = grp.radices.size() == 1 && grp.value.coef[lastCtr] == 1 && grp.value.offset == 0;
        for (size_t k = 0; k < lastCtr; ++k) only = only && grp.value.coef[k] == 0;
        if (!only || gLast != s.layout.groups.size()) fusable = false;
        gLast = g;
      }
    }
    if (fusable && gLast < s.layout.groups.size()) {
      size_t dg = s.layout.firstDigit(gLast);
      const Affine& last = s.layout.coords[lastDim];
      bool exact = last.offset == 0;
      for (size_t k = 0; k < last.coef.size(); ++k) exact = exact && last.coef[k] == (k == dg ? 1 : 0);
      for (size_t d = 0; d < lastDim; ++d) exact = exact && s.layout.coords[d].coef[dg] == 0;
      for (const auto& m : s.layout.masks) exact = exact && m.expr.coef[dg] == 0;
      if (exact) {  // linear: inside a summed tiling too
        s.node = builder(s.unit).op(Prim::ReduceVec, {s.node}, {static_cast<int64_t>(ReduceKind::Add)});
        AddrGen& l = s.layout;
        l.counters.pop_back();
        l.groups.erase(l.groups.begin() + static_cast<ptrdiff_t>(gLast));
        for (auto& grp : l.groups) grp.value.coef.pop_back();
        auto dropDigit = [&](Affine& a) { a.coef.erase(a.coef.begin() + static_cast<ptrdiff_t>(dg)); };
        l.coords.pop_back();
        l.space.pop_back();
        for (auto& co : l.coords) dropDigit(co);
        for (auto& m : l.masks) dropDigit(m.expr);
        return s;
      }
    }
  }
  View v = asView(x);
  requireNoPendingSum(v.ctx, "MergePartialSum");
  size_t u = newUnit("MergePartialSum");
  AddrGen g = v.gen;
  g.counters.back().kind = DimKind::Vector;
  auto b = builder(u);
  uint32_t r = b.op(Prim::ReduceVec, {b.read(v.buffer, g)}, {static_cast<int64_t>(ReduceKind::Add)});
  return nodeStream(u, r, v.ctx);
}

}  // namespace skeleshare::lower::detail
