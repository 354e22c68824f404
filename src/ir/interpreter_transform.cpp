// Tiled, padded and transposed skeletons (docs/ir.md): they only move data and delegate
// the computation to their function argument. Tile and pad sizes are read from the type
// of the function argument, as the type rules do.

#include <fmt/format.h>

#include "interpreter_impl.h"

namespace skeleshare::ir {

namespace {

/// Shapes of the two parameters of the curried function argument `f` (a -> b -> r).
std::vector<int64_t> firstParamShape(const Term* f) { return shapeOf(f->type()->param()); }
std::vector<int64_t> secondParamShape(const Term* f) { return shapeOf(f->type()->result()->param()); }

/// The slice [begin, begin+len) of `t` along `axis`, all other dimensions whole.
Tensor slice(const Tensor& t, size_t axis, int64_t begin, int64_t len) {
  std::vector<int64_t> b(t.rank(), 0), s = t.shape();
  b[axis] = begin;
  s[axis] = len;
  return extractBlock(t, b, s);
}

/// `t` with zeros appended along `axis` up to `len`.
Tensor padAxis(const Tensor& t, size_t axis, int64_t len) {
  std::vector<int64_t> s = t.shape();
  s[axis] = len;
  return padTo(t, s);
}

/// Stores `r` into `out` at `begin` along `axis` (0 elsewhere).
void insertAt(Tensor& out, size_t axis, int64_t begin, const Tensor& r) {
  std::vector<int64_t> b(out.rank(), 0);
  b[axis] = begin;
  insertBlock(out, b, r);
}

}  // namespace

Value Interpreter::Impl::evalTransform(const Term* t, const std::vector<Value>& k) {
  const Term* fTerm = t->child(2);
  const Value& f = k[2];
  const Tensor &x = k[0].tensor(), &y = k[1].tensor();
  // Tiling along one axis of each operand, the tile results summed (i32, wrapping):
  // sum_i f(x[axis ax, tile i])(y[axis ay, tile i]).
  auto sumOverTiles = [&](size_t ax, size_t ay, int64_t tile) -> Value {
    Tensor acc = zeroTensor(t, t->type());
    for (int64_t i = 0; i < x.dim(ax) / tile; ++i)
      addWrapped32(acc, apply2(f, slice(x, ax, i * tile, tile), slice(y, ay, i * tile, tile)).tensor());
    return acc;
  };
  // Tiling along one axis of one operand (0 = the first, 1 = the second), the tile
  // results concatenated along `outAxis` of the result.
  auto concatOverTiles = [&](int operand, size_t axis, int64_t tile, size_t outAxis) -> Value {
    const Tensor& split = operand == 0 ? x : y;
    Tensor out = zeroTensor(t, t->type());
    for (int64_t i = 0; i < split.dim(axis) / tile; ++i) {
      Value part(slice(split, axis, i * tile, tile));
      const Value& a = operand == 0 ? part : k[0];
      const Value& b = operand == 0 ? k[1] : part;
      insertAt(out, outAxis, i * tile, apply2(f, a, b).tensor());
    }
    return out;
  };
  // TiledConvHW's tiles of `in`: input tiles of TH x TW overlapping by KS-1; tile (i, j)
  // gives output rows i*OTH ... and columns j*OTW ... of `out`, OTH = TH-KS+1, OTW = TW-KS+1.
  auto convTiles = [&](const Tensor& in, const Value& wgt, Tensor& out) {
    const auto tile = firstParamShape(fTerm);
    const int64_t ks = y.dim(1), th = tile[0], tw = tile[1], c = in.dim(2);
    const int64_t oth = th - ks + 1, otw = tw - ks + 1;
    const int64_t oh = in.dim(0) - ks + 1, ow = in.dim(1) - ks + 1;
    for (int64_t i = 0; i < oh / oth; ++i)
      for (int64_t j = 0; j < ow / otw; ++j) {
        Tensor part = extractBlock(in, {i * oth, j * otw, 0}, {th, tw, c});
        Tensor r = apply2(f, part, wgt).tensor();  // oth x otw x R'
        std::vector<int64_t> at(r.rank(), 0);
        at[0] = i * oth;
        at[1] = j * otw;
        insertBlock(out, at, r);
      }
  };
  switch (t->op()) {
    case Op::TiledMv:
      // sum_t f(mat[:, t*TN : (t+1)*TN])(vec[t*TN : (t+1)*TN])   (i32, wrapping)
      return sumOverTiles(1, 0, firstParamShape(fTerm)[1]);
    case Op::TiledMvRows:
      // rows t*TM ... of the result are f(mat[t*TM : (t+1)*TM])(vec)
      return concatOverTiles(0, 0, firstParamShape(fTerm)[0], 0);
    case Op::PaddedMv: {
      // f(mat with zero columns to PN)(vec with zeros to PN)
      const int64_t pn = firstParamShape(fTerm)[1];
      return apply2(f, padAxis(x, 1, pn), padAxis(y, 0, pn));
    }
    case Op::PaddedMvRows: {
      // first M rows of f(mat with zero rows to PM)(vec)
      const int64_t pm = firstParamShape(fTerm)[0];
      return slice(apply2(f, padAxis(x, 0, pm), k[1]).tensor(), 0, 0, x.dim(0));
    }
    case Op::TiledMmW:
      // out[:, t*TW : (t+1)*TW] = f(a)(b[t*TW : (t+1)*TW])
      return concatOverTiles(1, 0, secondParamShape(fTerm)[0], 1);
    case Op::TiledMmH:
      // out[t*TH : (t+1)*TH] = f(a[t*TH : (t+1)*TH])(b)
      return concatOverTiles(0, 0, firstParamShape(fTerm)[0], 0);
    case Op::TiledMmK:
      // sum_t f(a[:, K-slice t])(b[:, K-slice t])
      return sumOverTiles(1, 1, firstParamShape(fTerm)[1]);
    case Op::TiledConvHW: {
      Tensor out = zeroTensor(t, t->type());
      convTiles(x, k[1], out);
      return out;
    }
    case Op::PairedConvW: {
      // out[y][2x+e][o] = paired[y][x][e*O + o], where `paired` is the tiled convolution of
      // in' (columns 2x and 2x+1 side by side, zero pairs appended) with
      // wgt'[e*O + o][ky][j][d*C + c] = wgt[o][ky][2j+d-e][c] (0 outside the kernel)
      const int64_t ch = x.dim(2), o = y.dim(0), ks = y.dim(1), pw = x.dim(1) / 2 + (ks - 1) / 2;
      const Tensor in = reshaped(padTo(x, {x.dim(0), 2 * pw, ch}), {x.dim(0), pw, 2 * ch});
      Tensor wgt(y.bits(), secondParamShape(fTerm));
      for (int64_t e = 0; e < 2; ++e)
        for (int64_t q = 0; q < o; ++q)
          for (int64_t ky = 0; ky < ks; ++ky)
            for (int64_t j = 0; j < ks; ++j)
              for (int64_t d = 0; d < 2; ++d) {
                const int64_t kx = 2 * j + d - e;
                if (kx < 0 || kx >= ks) continue;
                for (int64_t c = 0; c < ch; ++c) wgt.at({e * o + q, ky, j, d * ch + c}) = y.at({q, ky, kx, c});
              }
      std::vector<int64_t> shape = shapeOf(t->type());
      shape[1] /= 2;
      shape[2] *= 2;
      Tensor paired(t->type()->scalar()->bits(), shape);
      convTiles(in, Value(std::move(wgt)), paired);
      return reshaped(paired, shapeOf(t->type()));
    }
    case Op::TiledConvICH:
      // sum_t f(in[:, :, C-slice t])(wgt[:, :, :, C-slice t])
      return sumOverTiles(2, 3, firstParamShape(fTerm)[2]);
    case Op::TiledConvOCH:
      // out[:, :, O-slice t] = f(in)(wgt[O-slice t])
      return concatOverTiles(1, 0, secondParamShape(fTerm)[0], 2);
    case Op::PaddedConvHW:
    case Op::PaddedConvKS: {
      // f(in with zero rows/columns appended at the bottom/right)(wgt), cropped; for
      // PaddedConvKS the kernel gets zero taps to the function's K x K too (PaddedConvHW's
      // function has the layer's own kernel, so its weights pass as they are)
      const auto tile = firstParamShape(fTerm), wt = secondParamShape(fTerm);
      const int64_t ks = y.dim(1);
      const Value wgt = wt == y.shape() ? k[1] : Value(padTo(y, wt));
      Tensor r = apply2(f, padTo(x, {tile[0], tile[1], x.dim(2)}), wgt).tensor();
      std::vector<int64_t> shape = r.shape();
      shape[0] = x.dim(0) - ks + 1;
      shape[1] = x.dim(1) - ks + 1;
      return extractBlock(r, std::vector<int64_t>(r.rank(), 0), shape);
    }
    case Op::PaddedConvICH: {
      // f(in with zero channels to PC)(wgt with zero input channels to PC)
      const int64_t pc = firstParamShape(fTerm)[2];
      return apply2(f, padAxis(x, 2, pc), padAxis(y, 3, pc));
    }
    case Op::PaddedConvOCH: {
      // f(in)(wgt with zero output channels to PO), first O channels kept
      const int64_t po = secondParamShape(fTerm)[0];
      return slice(apply2(f, k[0], padAxis(y, 0, po)).tensor(), 2, 0, y.dim(0));
    }
    case Op::TransposedConv1DW:
      // transpose(f(transpose(img))(wgt))
      return transposeOuter(apply2(f, transposeOuter(x), k[1]).tensor());
    default: evalError(t, "not a data-transformed skeleton");
  }
}

}  // namespace skeleshare::ir
