// Type rules of the skeleton IR. Each rule mirrors the paper's type of the operator
// (Table I, Figs. 6, 7, 9, Section V-A); the comments give the rule in the paper's
// notation, with `->` for (curried) functions. Where the paper is silent or
// inconsistent, the choice is written in docs/ir.md.

#include <fmt/format.h>

#include "skeleshare/ir/context.h"
#include "skeleshare/ir/type_rules.h"

namespace skeleshare::ir {

namespace {

struct Fail {
  std::string msg;
};

[[noreturn]] void fail(std::string msg) { throw Fail{std::move(msg)}; }

std::string ts(const Type* t) { return t ? t->str() : "<none>"; }

class Rules {
 public:
  Rules(Context& ctx, Op op, std::span<const int64_t> params, const Type* annot,
        std::span<const Type* const> kids)
      : ctx_(ctx), op_(op), p_(params), annot_(annot), k_(kids) {}

  const Type* run();

 private:
  std::string name() const { return std::string(opName(op_)); }

  // --- helpers --------------------------------------------------------------------
  const Type* arr(int64_t n, const Type* e) {
    if (n < 1 || n > kMaxDim) fail(fmt::format("{}: dimension {} out of range", name(), n));
    const Type* t = ctx_.arrayType(n, e);
    checkSize(t);
    return t;
  }
  const Type* arr2(int64_t a, int64_t b, const Type* e) { return arr(a, arr(b, e)); }
  void checkSize(const Type* t) {
    int64_t n = 1;
    for (int64_t d : t->shape()) {
      if (n > kMaxElements / d) fail(fmt::format("{}: type {} has too many elements", name(), ts(t)));
      n *= d;
    }
  }
  /// The shape of `t` when it is an integer tensor of exactly `rank` dimensions.
  std::vector<int64_t> intTensor(const Type* t, int rank, const char* what) {
    if (!t->isIntTensor() || t->rank() != rank)
      fail(fmt::format("{}: {} must be an integer array of rank {}, got {}", name(), what, rank, ts(t)));
    return t->shape();
  }
  /// a -> b -> r
  void fun2(const Type* f, const Type*& a, const Type*& b, const Type*& r, const char* what) {
    if (!f->isFun() || !f->result()->isFun())
      fail(fmt::format("{}: {} must be a function of two arguments, got {}", name(), what, ts(f)));
    a = f->param();
    b = f->result()->param();
    r = f->result()->result();
  }
  void expectType(const Type* got, const Type* want, const char* what) {
    if (got != want)
      fail(fmt::format("{}: {} must have type {}, got {}", name(), what, ts(want), ts(got)));
  }
  /// The element of an array type `t` of outer length `n`.
  const Type* outer(const Type* t, int64_t n, const char* what) {
    if (!t->isArray() || t->length() != n)
      fail(fmt::format("{}: {} must be an array of {} elements, got {}", name(), what, n, ts(t)));
    return t->elem();
  }
  void summable(const Type* t, const char* what) {
    if (!t->isIntTensor() || t->scalar()->bits() != 32)
      fail(fmt::format("{}: {} is summed, so it must be an i32 array, got {}", name(), what, ts(t)));
  }
  const Type* wider(const Type* a, const Type* b) {
    return ctx_.intType(std::max(a->scalar()->bits(), b->scalar()->bits()));
  }
  const Type* withScalar(const Type* t, const Type* s) {
    return ctx_.tensorType(t->shape(), s);
  }
  int64_t divides(int64_t tile, int64_t whole, const char* what) {
    if (tile < 1 || whole % tile != 0)
      fail(fmt::format("{}: tile size {} does not divide {} {}", name(), tile, what, whole));
    return whole / tile;
  }
  void atLeast(int64_t padded, int64_t orig, const char* what) {
    if (padded < orig)
      fail(fmt::format("{}: padded {} {} is smaller than the original {}", name(), what, padded, orig));
  }
  int64_t param(size_t i, int64_t lo, int64_t hi) {
    int64_t v = p_[i];
    if (v < lo || v > hi)
      fail(fmt::format("{}: parameter {} = {} out of range [{}, {}]", name(), i, v, lo, hi));
    return v;
  }

  // Shapes shared by the convolution skeletons.
  struct ConvShape {
    int64_t h, w, c, o, ks;
    const Type* a;  // input scalar
    const Type* b;  // weight scalar
    int64_t oh() const { return h - ks + 1; }
    int64_t ow() const { return w - ks + 1; }
  };
  ConvShape convShape() {
    auto in = intTensor(k_[0], 3, "input");
    auto wg = intTensor(k_[1], 4, "weights");
    ConvShape s{in[0], in[1], in[2], wg[0], wg[1], k_[0]->scalar(), k_[1]->scalar()};
    if (wg[1] != wg[2]) fail(fmt::format("{}: kernel must be square, got {}x{}", name(), wg[1], wg[2]));
    if (wg[3] != s.c)
      fail(fmt::format("{}: weights expect {} input channels, input has {}", name(), wg[3], s.c));
    if (s.ks > s.h || s.ks > s.w)
      fail(fmt::format("{}: kernel size {} exceeds the input's {}x{}", name(), s.ks, s.h, s.w));
    return s;
  }
  const Type* inType(int64_t h, int64_t w, int64_t c, const Type* a) { return arr(h, arr2(w, c, a)); }
  const Type* wgtType(int64_t o, int64_t ks, int64_t c, const Type* b) {
    return arr(o, arr(ks, arr2(ks, c, b)));
  }
  /// The result of a conv function over an input of hh x ww: hh' x ww' x R; returns R.
  const Type* convResult(const Type* r, int64_t oh, int64_t ow) {
    return outer(outer(r, oh, "convolution result"), ow, "convolution result row");
  }

  Context& ctx_;
  Op op_;
  std::span<const int64_t> p_;
  const Type* annot_;
  std::span<const Type* const> k_;
};

const Type* Rules::run() {
  const Type *fa, *fb, *fr;
  switch (op_) {
    // ---- binders and leaves ------------------------------------------------------
    case Op::Var:
      if (!annot_) fail("Var: missing type");
      param(0, 0, 1 << 20);
      return annot_;
    case Op::Lam:
      if (!annot_) fail("Lam: missing parameter type");
      return ctx_.funType(annot_, k_[0]);
    case Op::App:
      if (!k_[0]->isFun()) fail(fmt::format("App: applying a non-function of type {}", ts(k_[0])));
      expectType(k_[1], k_[0]->param(), "argument");
      return k_[0]->result();
    case Op::Input:
      if (!annot_ || !annot_->isIntTensor()) fail("Input: must have an integer array type");
      if (p_[0] < 1) fail("Input: invalid symbol");
      return annot_;
    case Op::Const: {
      if (!annot_ || !annot_->isInt()) fail("Const: must have an integer type");
      int bits = annot_->bits();
      int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
      if (p_[0] < lo || p_[0] > hi)
        fail(fmt::format("Const: {} does not fit in {}", p_[0], ts(annot_)));
      return annot_;
    }
    case Op::Tuple:
      if (k_.empty()) fail("Tuple: needs at least one element");
      return ctx_.tupleType(k_);

    // ---- core --------------------------------------------------------------------
    case Op::ParallelDot:
    case Op::ParallelPartialDot: {
      // ParallelDot[P](a: M x N x int, b: M x N x int): M x i32
      // ParallelPartialDot[P, C](a, b): M x C x i32, the N of each row cut into C chunks
      auto a = intTensor(k_[0], 2, "left operand");
      auto b = intTensor(k_[1], 2, "right operand");
      if (a != b)
        fail(fmt::format("{}: operands must have the same shape, got {} and {}", name(), ts(k_[0]), ts(k_[1])));
      param(0, 1, a[0]);
      if (op_ == Op::ParallelDot) return arr(a[0], ctx_.intType(32));
      int64_t c = param(1, 1, a[1]);
      divides(c, a[1], "row length");
      return arr2(a[0], c, ctx_.intType(32));
    }
    case Op::Mv: {
      // Mv(mat: M x N x A, vec: N x B, dotF: M x N x A -> M x N x B -> M x R'): M x R'
      auto m = intTensor(k_[0], 2, "matrix");
      auto v = intTensor(k_[1], 1, "vector");
      if (m[1] != v[0])
        fail(fmt::format("Mv: matrix has {} columns, vector has {} elements", m[1], v[0]));
      fun2(k_[2], fa, fb, fr, "dot function");
      expectType(fa, k_[0], "dot function's first parameter");
      expectType(fb, arr2(m[0], m[1], k_[1]->scalar()), "dot function's second parameter");
      outer(fr, m[0], "dot function's result");
      return fr;
    }
    case Op::Mm: {
      // Mm(a: H x K x A, b: W x K x B, mvF: W x K x B -> K x A -> W x R'): H x W x R'
      auto a = intTensor(k_[0], 2, "left matrix");
      auto b = intTensor(k_[1], 2, "right matrix");
      if (a[1] != b[1]) fail(fmt::format("Mm: inner dimensions differ: {} and {}", a[1], b[1]));
      fun2(k_[2], fa, fb, fr, "mv function");
      expectType(fa, k_[1], "mv function's matrix parameter");
      expectType(fb, arr(a[1], k_[0]->scalar()), "mv function's vector parameter");
      outer(fr, b[0], "mv function's result");
      return arr(a[0], fr);
    }
    case Op::Conv: {
      // Conv(in: H x W x C, wgt: O x KS x KS x C, mvF: O x KS.KS.C -> KS.KS.C -> O x R')
      //   : (H-KS+1) x (W-KS+1) x O x R'
      ConvShape s = convShape();
      int64_t n = s.ks * s.ks * s.c;
      fun2(k_[2], fa, fb, fr, "mv function");
      expectType(fa, arr2(s.o, n, s.b), "mv function's matrix parameter");
      expectType(fb, arr(n, s.a), "mv function's vector parameter");
      outer(fr, s.o, "mv function's result");
      return arr2(s.oh(), s.ow(), fr);
    }
    case Op::Conv1DW:
    case Op::Conv1DH: {
      // Conv1D_W(img: H x W, wgt: K, mvF: (W-K+1) x K -> K -> (W-K+1) x R'): H x (W-K+1) x R'
      // Conv1D_H(img: H x W, wgt: K, mvF: (H-K+1) x K -> K -> (H-K+1) x R'): (H-K+1) x W x R'
      auto img = intTensor(k_[0], 2, "image");
      auto wg = intTensor(k_[1], 1, "weights");
      bool alongW = op_ == Op::Conv1DW;
      int64_t len = alongW ? img[1] : img[0];
      if (wg[0] > len)
        fail(fmt::format("{}: kernel of {} taps is longer than the image's {}", name(), wg[0], len));
      int64_t out = len - wg[0] + 1;
      fun2(k_[2], fa, fb, fr, "mv function");
      expectType(fa, arr2(out, wg[0], k_[0]->scalar()), "mv function's matrix parameter");
      expectType(fb, k_[1], "mv function's vector parameter");
      const Type* e = outer(fr, out, "mv function's result");
      return alongW ? arr(img[0], fr) : arr(out, arr(img[1], e));
    }

    // ---- data-transformed --------------------------------------------------------
    case Op::TiledMv:
    case Op::PaddedMv: {
      // TiledMv(mat: M x N, vec: N, mvF: M x TN -> TN -> M x R'): M x R'  (tiles summed)
      // PaddedMv(mat: M x N, vec: N, mvF: M x PN -> PN -> M x R'): M x R' (zero padding)
      auto m = intTensor(k_[0], 2, "matrix");
      auto v = intTensor(k_[1], 1, "vector");
      if (m[1] != v[0]) fail(fmt::format("{}: matrix has {} columns, vector has {} elements", name(), m[1], v[0]));
      fun2(k_[2], fa, fb, fr, "mv function");
      auto fm = intTensor(fa, 2, "mv function's matrix parameter");
      if (fm[0] != m[0]) fail(fmt::format("{}: mv function takes {} rows, matrix has {}", name(), fm[0], m[0]));
      expectType(fa, arr2(m[0], fm[1], k_[0]->scalar()), "mv function's matrix parameter");
      expectType(fb, arr(fm[1], k_[1]->scalar()), "mv function's vector parameter");
      outer(fr, m[0], "mv function's result");
      if (op_ == Op::TiledMv) {
        divides(fm[1], m[1], "columns");
        summable(fr, "mv function's result");
      } else {
        atLeast(fm[1], m[1], "columns");
      }
      return fr;
    }
    case Op::TiledMvRows:
    case Op::PaddedMvRows: {
      // TiledMvRows(mat: M x N, vec: N, mvF: TM x N -> N -> TM x R'): M x R'  (concatenated)
      // PaddedMvRows(mat: M x N, vec: N, mvF: PM x N -> N -> PM x R'): M x R' (cropped)
      auto m = intTensor(k_[0], 2, "matrix");
      auto v = intTensor(k_[1], 1, "vector");
      if (m[1] != v[0]) fail(fmt::format("{}: matrix has {} columns, vector has {} elements", name(), m[1], v[0]));
      fun2(k_[2], fa, fb, fr, "mv function");
      auto fm = intTensor(fa, 2, "mv function's matrix parameter");
      expectType(fa, arr2(fm[0], m[1], k_[0]->scalar()), "mv function's matrix parameter");
      expectType(fb, k_[1], "mv function's vector parameter");
      const Type* e = outer(fr, fm[0], "mv function's result");
      if (op_ == Op::TiledMvRows) divides(fm[0], m[0], "rows");
      else atLeast(fm[0], m[0], "rows");
      return arr(m[0], e);
    }
    case Op::TiledMmW:
    case Op::TiledMmH:
    case Op::TiledMmK: {
      // mmF: H' x K' -> W' x K' -> H' x W' x R', with the tiled dimension replaced.
      auto a = intTensor(k_[0], 2, "left matrix");
      auto b = intTensor(k_[1], 2, "right matrix");
      if (a[1] != b[1]) fail(fmt::format("{}: inner dimensions differ: {} and {}", name(), a[1], b[1]));
      fun2(k_[2], fa, fb, fr, "mm function");
      auto fA = intTensor(fa, 2, "mm function's first parameter");
      auto fB = intTensor(fb, 2, "mm function's second parameter");
      int64_t h = a[0], w = b[0], k = a[1];
      int64_t th = h, tw = w, tk = k;
      if (op_ == Op::TiledMmW) { tw = fB[0]; divides(tw, w, "width"); }
      if (op_ == Op::TiledMmH) { th = fA[0]; divides(th, h, "height"); }
      if (op_ == Op::TiledMmK) { tk = fA[1]; divides(tk, k, "inner dimension"); }
      expectType(fa, arr2(th, tk, k_[0]->scalar()), "mm function's first parameter");
      expectType(fb, arr2(tw, tk, k_[1]->scalar()), "mm function's second parameter");
      const Type* e = outer(outer(fr, th, "mm function's result"), tw, "mm function's result row");
      if (op_ == Op::TiledMmK) summable(fr, "mm function's result");
      return arr2(h, w, e);
    }
    case Op::TiledConvHW:
    case Op::PaddedConvHW: {
      // TiledConvHW(in, wgt, convF: TH x TW x C -> wgt -> (TH-KS+1) x (TW-KS+1) x R')
      //   input tiles overlap by KS-1; (H-KS+1) must be a multiple of (TH-KS+1).
      // PaddedConvHW(in, wgt, convF: PH x PW x C -> wgt -> (PH-KS+1) x (PW-KS+1) x R')
      //   zero rows/columns appended at the bottom/right; the result is cropped.
      ConvShape s = convShape();
      fun2(k_[2], fa, fb, fr, "conv function");
      auto fin = intTensor(fa, 3, "conv function's input parameter");
      expectType(fa, inType(fin[0], fin[1], s.c, s.a), "conv function's input parameter");
      expectType(fb, k_[1], "conv function's weight parameter");
      if (fin[0] < s.ks || fin[1] < s.ks)
        fail(fmt::format("{}: tile {}x{} is smaller than the kernel", name(), fin[0], fin[1]));
      const Type* r = convResult(fr, fin[0] - s.ks + 1, fin[1] - s.ks + 1);
      if (op_ == Op::TiledConvHW) {
        divides(fin[0] - s.ks + 1, s.oh(), "output height");
        divides(fin[1] - s.ks + 1, s.ow(), "output width");
      } else {
        atLeast(fin[0], s.h, "height");
        atLeast(fin[1], s.w, "width");
      }
      return arr2(s.oh(), s.ow(), r);
    }
    case Op::TiledConvICH:
    case Op::PaddedConvICH: {
      // convF: H x W x C' -> O x KS x KS x C' -> (H-KS+1) x (W-KS+1) x R'
      // TiledConvICH sums the per-tile results (C' divides C); PaddedConvICH pads with zeros.
      ConvShape s = convShape();
      fun2(k_[2], fa, fb, fr, "conv function");
      auto fin = intTensor(fa, 3, "conv function's input parameter");
      int64_t c2 = fin[2];
      expectType(fa, inType(s.h, s.w, c2, s.a), "conv function's input parameter");
      expectType(fb, wgtType(s.o, s.ks, c2, s.b), "conv function's weight parameter");
      convResult(fr, s.oh(), s.ow());
      if (op_ == Op::TiledConvICH) {
        divides(c2, s.c, "input channels");
        summable(fr, "conv function's result");
      } else {
        atLeast(c2, s.c, "input channels");
      }
      return fr;
    }
    case Op::TiledConvOCH:
    case Op::PaddedConvOCH: {
      // convF: in -> O' x KS x KS x C -> (H-KS+1) x (W-KS+1) x O' x R'
      // TiledConvOCH concatenates the channel tiles; PaddedConvOCH crops to O channels.
      ConvShape s = convShape();
      fun2(k_[2], fa, fb, fr, "conv function");
      expectType(fa, k_[0], "conv function's input parameter");
      auto fw = intTensor(fb, 4, "conv function's weight parameter");
      int64_t o2 = fw[0];
      expectType(fb, wgtType(o2, s.ks, s.c, s.b), "conv function's weight parameter");
      const Type* e = outer(convResult(fr, s.oh(), s.ow()), o2, "conv function's result pixel");
      if (op_ == Op::TiledConvOCH) divides(o2, s.o, "output channels");
      else atLeast(o2, s.o, "output channels");
      return arr2(s.oh(), s.ow(), arr(s.o, e));
    }
    case Op::PaddedConvKS: {
      // convF: PH x PW x C -> O x K x K x C -> (PH-K+1) x (PW-K+1) x R': the kernel padded
      // with zeros to K x K at its bottom/right, the input there to PH x PW (at least
      // K - KS more rows and columns, so every window keeps its products), the result
      // cropped to the (H-KS+1) x (W-KS+1) windows of the original.
      ConvShape s = convShape();
      fun2(k_[2], fa, fb, fr, "conv function");
      auto fw = intTensor(fb, 4, "conv function's weight parameter");
      auto fin = intTensor(fa, 3, "conv function's input parameter");
      int64_t k = fw[1];
      atLeast(k, s.ks, "kernel size");
      expectType(fb, wgtType(s.o, k, s.c, s.b), "conv function's weight parameter");
      atLeast(fin[0], s.h + k - s.ks, "height");
      atLeast(fin[1], s.w + k - s.ks, "width");
      expectType(fa, inType(fin[0], fin[1], s.c, s.a), "conv function's input parameter");
      const Type* r = convResult(fr, fin[0] - k + 1, fin[1] - k + 1);
      return arr2(s.oh(), s.ow(), r);
    }
    case Op::PairedConvW: {
      // PairedConvW(in, wgt, convF: TH x TW x 2C -> 2O x KS x KS x 2C -> (TH-KS+1) x (TW-KS+1) x 2O x R')
      //   : (H-KS+1) x (W-KS+1) x O x R'. The input's columns 2x and 2x+1 side by side as one
      //   of 2C channels ((KS-1)/2 zero pairs appended), the filters once for the even and
      //   once for the odd output column, and that paired convolution tiled as TiledConvHW
      //   tiles (docs/ir.md). W and W-KS+1 even, so KS is odd.
      ConvShape s = convShape();
      if (s.ks % 2 == 0 || s.w % 2 != 0)
        fail(fmt::format("{}: needs an odd kernel and an even width, got {} and {}", name(), s.ks, s.w));
      fun2(k_[2], fa, fb, fr, "conv function");
      auto fin = intTensor(fa, 3, "conv function's input parameter");
      expectType(fa, inType(fin[0], fin[1], 2 * s.c, s.a), "conv function's input parameter");
      expectType(fb, wgtType(2 * s.o, s.ks, 2 * s.c, s.b), "conv function's weight parameter");
      if (fin[0] < s.ks || fin[1] < s.ks)
        fail(fmt::format("{}: tile {}x{} is smaller than the kernel", name(), fin[0], fin[1]));
      divides(fin[0] - s.ks + 1, s.oh(), "output height");
      divides(fin[1] - s.ks + 1, s.ow() / 2, "paired output width");
      const Type* e =
          outer(convResult(fr, fin[0] - s.ks + 1, fin[1] - s.ks + 1), 2 * s.o, "conv function's result pixel");
      return arr2(s.oh(), s.ow(), arr(s.o, e));
    }
    case Op::TransposedConv1DW: {
      // TransposedConv1D_W(img: H x W, wgt: K, f: W x H -> K -> W x (H-K+1) x R')
      //   : (H-K+1) x W x R'   = transpose(f(transpose(img), wgt))
      auto img = intTensor(k_[0], 2, "image");
      auto wg = intTensor(k_[1], 1, "weights");
      if (wg[0] > img[0])
        fail(fmt::format("{}: kernel of {} taps is longer than the image's height {}", name(), wg[0], img[0]));
      fun2(k_[2], fa, fb, fr, "conv1d function");
      expectType(fa, arr2(img[1], img[0], k_[0]->scalar()), "conv1d function's image parameter");
      expectType(fb, k_[1], "conv1d function's weight parameter");
      int64_t oh = img[0] - wg[0] + 1;
      const Type* e = outer(outer(fr, img[1], "conv1d function's result"), oh, "conv1d function's result row");
      return arr2(oh, img[1], e);
    }

    // ---- partial computations ----------------------------------------------------
    case Op::MergePartialSum: {
      // MergePartialSum(x: ... x C x i32): ... x i32, summing the innermost dimension
      const Type* t = k_[0];
      if (!t->isIntTensor() || t->rank() < 2 || t->scalar()->bits() != 32)
        fail(fmt::format("MergePartialSum: expects an i32 array of rank >= 2, got {}", ts(t)));
      auto sh = t->shape();
      sh.pop_back();
      return ctx_.tensorType(sh, ctx_.intType(32));
    }
    case Op::ParallelConv: {
      // ParallelConv(in: H x W x C, wgt: O x KS x KS x C,
      //              mvF: O x G.KS.KS.C -> G.KS.KS.C -> O x G x R'): (H-KS+1) x (W-KS+1) x O x R'
      // G consecutive output positions (row-major) are computed by one mvF call.
      ConvShape s = convShape();
      int64_t n = s.ks * s.ks * s.c;
      fun2(k_[2], fa, fb, fr, "mv function");
      auto fm = intTensor(fa, 2, "mv function's matrix parameter");
      if (fm[0] != s.o) fail(fmt::format("ParallelConv: mv function takes {} rows, weights have {} output channels", fm[0], s.o));
      if (fm[1] % n != 0)
        fail(fmt::format("ParallelConv: mv function's {} columns are not a multiple of the window size {}", fm[1], n));
      int64_t g = fm[1] / n;
      expectType(fa, arr2(s.o, fm[1], s.b), "mv function's matrix parameter");
      expectType(fb, arr(fm[1], s.a), "mv function's vector parameter");
      const Type* e = outer(outer(fr, s.o, "mv function's result"), g, "mv function's result row");
      return arr2(s.oh(), s.ow(), arr(s.o, e));
    }

    // ---- operators without DSPs --------------------------------------------------
    case Op::Pad: {
      // Pad[top, bottom, left, right, fill](x: H x W x R): (H+top+bottom) x (W+left+right) x R
      const Type* t = k_[0];
      if (!t->isIntTensor() || t->rank() < 2)
        fail(fmt::format("Pad: expects an integer array of rank >= 2, got {}", ts(t)));
      for (size_t i = 0; i < 4; ++i) param(i, 0, kMaxDim);
      int bits = t->scalar()->bits();
      param(4, -(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1);
      return arr2(t->length() + p_[0] + p_[1], t->elem()->length() + p_[2] + p_[3], t->elem()->elem());
    }
    case Op::MaxPool: {
      // MaxPool[size, stride](x: H x W x R): ((H-size)/stride+1) x ((W-size)/stride+1) x R
      const Type* t = k_[0];
      if (!t->isIntTensor() || t->rank() < 2)
        fail(fmt::format("MaxPool: expects an integer array of rank >= 2, got {}", ts(t)));
      int64_t h = t->length(), w = t->elem()->length();
      int64_t size = param(0, 1, std::min(h, w));
      int64_t stride = param(1, 1, kMaxDim);
      return arr2((h - size) / stride + 1, (w - size) / stride + 1, t->elem()->elem());
    }
    case Op::Relu:
    case Op::LeakyRelu:
    case Op::ShiftRight:
    case Op::Requant:
    case Op::RequantEven:
    case Op::Cast: {
      const Type* t = k_[0];
      if (!t->isIntTensor()) fail(fmt::format("{}: expects an integer value, got {}", name(), ts(t)));
      if (op_ == Op::LeakyRelu || op_ == Op::ShiftRight || op_ == Op::Requant || op_ == Op::RequantEven) param(0, 0, 31);
      if (op_ == Op::Requant || op_ == Op::RequantEven) return withScalar(t, ctx_.intType(8));
      if (op_ == Op::Cast) {
        int64_t bits = p_[0];
        if (bits != 8 && bits != 16 && bits != 32) fail(fmt::format("Cast: width {} is not 8, 16 or 32", bits));
        return withScalar(t, ctx_.intType(static_cast<int>(bits)));
      }
      return t;
    }
    case Op::Bias: {
      // Bias(x: ... x C x A, b: C x B): ... x C x wider(A, B)
      const Type* x = k_[0];
      if (!x->isIntTensor() || x->rank() < 1) fail(fmt::format("Bias: expects an integer array, got {}", ts(x)));
      auto b = intTensor(k_[1], 1, "bias");
      int64_t c = x->shape().back();
      if (b[0] != c) fail(fmt::format("Bias: bias has {} elements, input has {} channels", b[0], c));
      return withScalar(x, wider(x, k_[1]));
    }
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Max:
    case Op::Min: {
      const Type *x = k_[0], *y = k_[1];
      if (!x->isIntTensor() || !y->isIntTensor() || x->shape() != y->shape())
        fail(fmt::format("{}: operands must be integer values of the same shape, got {} and {}", name(), ts(x), ts(y)));
      return withScalar(x, op_ == Op::Mul ? ctx_.intType(32) : wider(x, y));
    }
    case Op::Flatten: {
      const Type* t = k_[0];
      if (!t->isIntTensor() || t->rank() < 1) fail(fmt::format("Flatten: expects an integer array, got {}", ts(t)));
      int64_t n = 1;
      for (int64_t d : t->shape()) n *= d;  // bounded by checkSize of t
      return arr(n, t->scalar());
    }
    case Op::Transpose: {
      const Type* t = k_[0];
      if (!t->isArray() || !t->elem()->isArray())
        fail(fmt::format("Transpose: expects an array of rank >= 2, got {}", ts(t)));
      return arr2(t->elem()->length(), t->length(), t->elem()->elem());
    }
    case Op::Map: {
      // Map(x: N x E, f: E -> R): N x R
      const Type* x = k_[0];
      if (!x->isArray()) fail(fmt::format("Map: expects an array, got {}", ts(x)));
      if (!k_[1]->isFun()) fail(fmt::format("Map: expects a function, got {}", ts(k_[1])));
      expectType(k_[1]->param(), x->elem(), "function's parameter");
      return arr(x->length(), k_[1]->result());
    }
    case Op::ZipWith: {
      // ZipWith(x: N x E1, y: N x E2, f: E1 -> E2 -> R): N x R
      const Type *x = k_[0], *y = k_[1];
      if (!x->isArray() || !y->isArray() || x->length() != y->length())
        fail(fmt::format("ZipWith: expects two arrays of the same length, got {} and {}", ts(x), ts(y)));
      fun2(k_[2], fa, fb, fr, "function");
      expectType(fa, x->elem(), "function's first parameter");
      expectType(fb, y->elem(), "function's second parameter");
      return arr(x->length(), fr);
    }
    case Op::Reduce: {
      // Reduce(init: A, x: N x E, f: A -> E -> A): A
      const Type *init = k_[0], *x = k_[1];
      if (!x->isArray()) fail(fmt::format("Reduce: expects an array, got {}", ts(x)));
      fun2(k_[2], fa, fb, fr, "function");
      expectType(fa, init, "function's accumulator parameter");
      expectType(fb, x->elem(), "function's element parameter");
      expectType(fr, init, "function's result");
      return init;
    }
  }
  fail("unknown operator");
}

}  // namespace

TypeResult inferType(Context& ctx, Op op, std::span<const int64_t> params, const Type* annot,
                     std::span<const Type* const> children) {
  const OpInfo& info = opInfo(op);
  if (static_cast<int>(params.size()) != info.numParams)
    return TypeResult::failure(fmt::format("{}: expects {} parameter(s), got {}", info.name, info.numParams, params.size()));
  if (info.arity >= 0 && static_cast<int>(children.size()) != info.arity)
    return TypeResult::failure(fmt::format("{}: expects {} argument(s), got {}", info.name, info.arity, children.size()));
  for (const Type* c : children)
    if (!c) return TypeResult::failure(fmt::format("{}: untyped argument", info.name));
  try {
    return TypeResult::success(Rules(ctx, op, params, annot, children).run());
  } catch (const Fail& f) {
    return TypeResult::failure(f.msg);
  } catch (const TypeError& e) {
    return TypeResult::failure(e.what());
  }
}

}  // namespace skeleshare::ir
