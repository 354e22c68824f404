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
  switch (t->op()) {
    case Op::TiledMv: {
      // sum_t f(mat[:, t*TN : (t+1)*TN])(vec[t*TN : (t+1)*TN])   (i32, wrapping)
      const int64_t tn = firstParamShape(fTerm)[1];
      Tensor acc = zeroTensor(t, t->type());
      for (int64_t i = 0; i < x.dim(1) / tn; ++i)
        addWrapped32(acc, apply2(f, slice(x, 1, i * tn, tn), slice(y, 0, i * tn, tn)).tensor());
      return acc;
    }
    case Op::TiledMvRows: {
      // rows t*TM ... of the result are f(mat[t*TM : (t+1)*TM])(vec)
      const int64_t tm = firstParamShape(fTerm)[0];
      Tensor out = zeroTensor(t, t->type());
      for (int64_t i = 0; i < x.dim(0) / tm; ++i) insertAt(out, 0, i * tm, apply2(f, slice(x, 0, i * tm, tm), k[1]).tensor());
      return out;
    }
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
    case Op::TiledMmW: {
      // out[:, t*TW : (t+1)*TW] = f(a)(b[t*TW : (t+1)*TW])
      const int64_t tw = secondParamShape(fTerm)[0];
      Tensor out = zeroTensor(t, t->type());
      for (int64_t i = 0; i < y.dim(0) / tw; ++i) insertAt(out, 1, i * tw, apply2(f, k[0], slice(y, 0, i * tw, tw)).tensor());
      return out;
    }
    case Op::TiledMmH: {
      // out[t*TH : (t+1)*TH] = f(a[t*TH : (t+1)*TH])(b)
      const int64_t th = firstParamShape(fTerm)[0];
      Tensor out = zeroTensor(t, t->type());
      for (int64_t i = 0; i < x.dim(0) / th; ++i) insertAt(out, 0, i * th, apply2(f, slice(x, 0, i * th, th), k[1]).tensor());
      return out;
    }
    case Op::TiledMmK: {
      // sum_t f(a[:, K-slice t])(b[:, K-slice t])
      const int64_t tk = firstParamShape(fTerm)[1];
      Tensor acc = zeroTensor(t, t->type());
      for (int64_t i = 0; i < x.dim(1) / tk; ++i)
        addWrapped32(acc, apply2(f, slice(x, 1, i * tk, tk), slice(y, 1, i * tk, tk)).tensor());
      return acc;
    }
    case Op::TiledConvHW: {
      // Input tiles of TH x TW overlapping by KS-1; tile (i, j) gives output rows
      // i*OTH ... and columns j*OTW ... with OTH = TH-KS+1, OTW = TW-KS+1.
      const auto tile = firstParamShape(fTerm);
      const int64_t ks = y.dim(1), th = tile[0], tw = tile[1], c = x.dim(2);
      const int64_t oth = th - ks + 1, otw = tw - ks + 1;
      const int64_t oh = x.dim(0) - ks + 1, ow = x.dim(1) - ks + 1;
      Tensor out = zeroTensor(t, t->type());
      for (int64_t i = 0; i < oh / oth; ++i)
        for (int64_t j = 0; j < ow / otw; ++j) {
          Tensor in = extractBlock(x, {i * oth, j * otw, 0}, {th, tw, c});
          Tensor r = apply2(f, in, k[1]).tensor();  // oth x otw x R'
          std::vector<int64_t> at(r.rank(), 0);
          at[0] = i * oth;
          at[1] = j * otw;
          insertBlock(out, at, r);
        }
      return out;
    }
    case Op::TiledConvICH: {
      // sum_t f(in[:, :, C-slice t])(wgt[:, :, :, C-slice t])
      const int64_t tc = firstParamShape(fTerm)[2];
      Tensor acc = zeroTensor(t, t->type());
      for (int64_t i = 0; i < x.dim(2) / tc; ++i)
        addWrapped32(acc, apply2(f, slice(x, 2, i * tc, tc), slice(y, 3, i * tc, tc)).tensor());
      return acc;
    }
    case Op::TiledConvOCH: {
      // out[:, :, O-slice t] = f(in)(wgt[O-slice t])
      const int64_t to = secondParamShape(fTerm)[0];
      Tensor out = zeroTensor(t, t->type());
      for (int64_t i = 0; i < y.dim(0) / to; ++i) insertAt(out, 2, i * to, apply2(f, k[0], slice(y, 0, i * to, to)).tensor());
      return out;
    }
    case Op::PaddedConvHW: {
      // f(in with zero rows/columns appended at the bottom/right)(wgt), cropped
      const auto tile = firstParamShape(fTerm);
      const int64_t ks = y.dim(1);
      Tensor r = apply2(f, padTo(x, {tile[0], tile[1], x.dim(2)}), k[1]).tensor();
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
