#include "graph_translator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "skeleshare/frontend/builtins.h"

namespace skeleshare::onnximport::detail {

namespace {

std::string dslType(int bits, const std::vector<int64_t>& shape) {
  std::string s = fmt::format("i{}", bits);
  for (int64_t d : shape) s += fmt::format("[{}]", d);
  return s;
}

std::string shapeText(const std::vector<int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ",")); }

/// The DSL shape of an activation: [1, C, H, W] -> [H][W][C], [1, N] -> [N].
std::vector<int64_t> dslShape(const std::vector<int64_t>& dims) {
  if (dims.size() == 4) return {dims[2], dims[3], dims[1]};
  return {dims[1]};
}

std::string scaleText(int exp) { return fmt::format("2^{}", exp); }

bool isIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

GraphTranslator::GraphTranslator(const onnx::GraphProto& g, const ImportOptions& options)
    : graph_(g), options_(options) {
  // The graph outputs keep their names in the DSL; a node of the same name gets a suffix.
  for (const auto& o : g.output()) outputNames_[o.name()] = freshName(o.name());
  for (const auto& init : g.initializer())
    values_[init.name()] = Const{decodeTensor(init, fmt::format("initializer '{}'", init.name())), 0, false};
  for (const auto& in : g.input()) {
    if (values_.count(in.name())) continue;  // an initializer listed as an input (IR version < 4)
    std::vector<int64_t> dims = staticShape(in);
    int32_t elem = in.type().tensor_type().elem_type();
    if (dims.size() != 4 && dims.size() != 2)
      throw ImportError(fmt::format("graph input '{}': shape {} is neither an NCHW image [1,C,H,W] nor a vector [1,N]",
                                    in.name(), shapeText(dims)));
    if (dims[0] != 1)
      throw ImportError(fmt::format("graph input '{}': batch {} (only batch 1 is compiled)", in.name(), dims[0]));
    if (elem == onnx::TensorProto_DataType_FLOAT) {
      values_[in.name()] = FloatInput{in.name(), dims};
    } else if (elem == onnx::TensorProto_DataType_INT8) {
      Act a{freshName(in.name()), dims, 8, 0, false, false, {}};
      decls_.push_back(fmt::format("input {} : {};  // graph input '{}' {} (NCHW), int8", a.name, dslType(8, dslShape(dims)),
                                   in.name(), shapeText(dims)));
      values_[in.name()] = a;
    } else {
      throw ImportError(fmt::format("graph input '{}': element type {} (int8, or float followed by QuantizeLinear)",
                                    in.name(), dtypeName(elem)));
    }
  }
}

Imported GraphTranslator::run() {
  for (const auto& n : graph_.node()) {
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      throw ImportError(fmt::format("{}: operator domain '{}' is not supported (only the standard ONNX operators)",
                                    describe(n), n.domain()));
    if (op == "QuantizeLinear") quantize(n);
    else if (op == "DequantizeLinear") dequantize(n);
    else if (op == "Conv") conv(n);
    else if (op == "QLinearConv") qlinearConv(n);
    else if (op == "MatMul" || op == "Gemm") matmul(n);
    else if (op == "QLinearMatMul") qlinearMatmul(n);
    else if (op == "Relu") relu(n);
    else if (op == "MaxPool") maxpool(n);
    else if (op == "Pad") pad(n);
    else if (op == "Flatten" || op == "Reshape") flatten(n);
    else if (op == "Add") add(n);
    else if (op == "Constant") {
      Attributes(n).only({"value"});
      for (const auto& a : n.attribute())
        if (a.name() == "value") values_[n.output(0)] = Const{decodeTensor(a.t(), describe(n)), 0, false};
      if (!values_.count(n.output(0))) throw ImportError(describe(n) + ": only a 'value' tensor is supported");
    } else {
      throw ImportError(fmt::format(
          "{}: operator not supported (the importer reads QuantizeLinear, DequantizeLinear, Conv, QLinearConv, "
          "MatMul, Gemm, QLinearMatMul, Relu, MaxPool, Pad, Flatten, Reshape, Add and Constant)",
          describe(n)));
    }
  }
  std::vector<std::string> outputs;
  for (const auto& o : graph_.output()) {
    auto it = values_.find(o.name());
    if (it == values_.end()) throw ImportError(fmt::format("graph output '{}': no node computes it", o.name()));
    if (!std::holds_alternative<Act>(it->second))
      throw ImportError(fmt::format("graph output '{}': a constant or an unquantised input, not a computed tensor", o.name()));
    Act a = std::get<Act>(it->second);
    if (a.pendingRelu) a.name = emitLet(graph_.node(graph_.node_size() - 1), fmt::format("relu({})", a.name), "Relu");
    if (!a.flatOrder.empty())
      throw ImportError(fmt::format("graph output '{}': a flattened NCHW tensor, which the DSL orders HWC", o.name()));
    const std::string& name = outputNames_.at(o.name());
    std::string meaning = a.scaled ? fmt::format("'{}' = {} * {}{}", o.name(), name, scaleText(a.exp),
                                                 a.isImage() ? ", NCHW -> HWC" : "")
                                   : fmt::format("'{}'", o.name());
    outputs.push_back(fmt::format("output {} = {};  // graph output {}", name, a.name, meaning));
  }
  std::string text = "// Imported by `skeleshare import` from an ONNX model; see docs/onnx.md.\n"
                     "// Activations are H x W x C (the model's NCHW transposed), convolution weights\n"
                     "// OCH x KS x KS x ICH; every scale is a power of two, so each requant_even is the\n"
                     "// model's QuantizeLinear exactly.\n";
  for (const auto& r : out_.roundings) text += "// --round-scales: " + r + "\n";
  text += "\n";
  for (const auto& d : decls_) text += d + "\n";
  text += "\n";
  for (const auto& l : lets_) text += l + "\n";
  for (const auto& o : outputs) text += o + "\n";
  out_.program = std::move(text);
  return std::move(out_);
}

// ---- values ----------------------------------------------------------------------------

bool GraphTranslator::hasInput(const onnx::NodeProto& n, int input) const {
  return input < n.input_size() && !n.input(input).empty();
}

const Value& GraphTranslator::value(const onnx::NodeProto& n, int input) const {
  if (!hasInput(n, input)) throw ImportError(fmt::format("{}: input {} is missing", describe(n), input));
  auto it = values_.find(n.input(input));
  if (it == values_.end())
    throw ImportError(fmt::format("{}: input '{}' is not computed before the node (the graph is not in order)",
                                  describe(n), n.input(input)));
  return it->second;
}

Act GraphTranslator::act(const onnx::NodeProto& n, int input) {
  const Value& v = value(n, input);
  if (const auto* f = std::get_if<FloatInput>(&v))
    throw ImportError(fmt::format("{}: reads the float graph input '{}' directly; only a QuantizeLinear may "
                                  "(a float model is not supported: export it quantised, QDQ or QLinear)",
                                  describe(n), f->name));
  if (const auto* c = std::get_if<Const>(&v))
    throw ImportError(fmt::format("{}: input '{}' is a constant {} where an activation is expected", describe(n),
                                  n.input(input), c->t.isInteger() ? "integer tensor" : "float tensor"));
  Act a = std::get<Act>(v);
  if (a.pendingRelu) {
    a.name = emitLet(n, fmt::format("relu({})", a.name), "Relu");
    a.pendingRelu = false;
    values_[n.input(input)] = a;  // written once, whoever reads it next
  }
  return a;
}

const Const& GraphTranslator::constant(const onnx::NodeProto& n, int input, const char* what) const {
  const Value& v = value(n, input);
  if (!std::holds_alternative<Const>(v))
    throw ImportError(fmt::format("{}: {} '{}' is computed; the importer needs it constant", describe(n), what,
                                  n.input(input)));
  return std::get<Const>(v);
}

const Const& GraphTranslator::scaledWeight(const onnx::NodeProto& n, int input, const char* what) const {
  const Const& c = constant(n, input, what);
  if (!c.scaled)
    throw ImportError(fmt::format("{}: {} '{}' is a {} tensor that no DequantizeLinear reads; a float model is not "
                                  "supported (export it quantised, QDQ or QLinear)",
                                  describe(n), what, n.input(input), dtypeName(c.t.dtype)));
  return c;
}

void GraphTranslator::define(const onnx::NodeProto& n, Value v) {
  if (n.output_size() < 1 || n.output(0).empty()) throw ImportError(describe(n) + ": no output");
  values_[n.output(0)] = std::move(v);
}

// ---- scales and zero points -----------------------------------------------------------

int GraphTranslator::scaleExponent(const onnx::NodeProto& n, int input) {
  const Const& c = constant(n, input, "scale");
  if (c.t.isInteger() || c.t.reals.empty())
    throw ImportError(fmt::format("{}: scale '{}' is not a float tensor", describe(n), n.input(input)));
  double s = c.t.reals[0];
  for (double o : c.t.reals)
    if (o != s) {
      auto [lo, hi] = std::minmax_element(c.t.reals.begin(), c.t.reals.end());
      throw ImportError(fmt::format("{}: per-channel scales of '{}' differ ({:g} .. {:g}); the DSL requantises a tensor "
                                    "with one shift",
                                    describe(n), n.input(input), *lo, *hi));
    }
  if (!(s > 0) || !std::isfinite(s))
    throw ImportError(fmt::format("{}: scale {} of '{}' is not a positive number", describe(n), s, n.input(input)));
  int e = 0;
  double m = std::frexp(s, &e);  // s = m * 2^e, m in [0.5, 1)
  if (m == 0.5) return e - 1;
  int nearest = static_cast<int>(std::lround(std::log2(s)));
  double p = std::ldexp(1.0, nearest);
  std::string what = fmt::format("scale {:g} of '{}' is not a power of two (the nearest, {} = {:g}, is off by {:.1f}%)", s,
                                 n.input(input), scaleText(nearest), p, std::abs(p - s) / s * 100);
  if (!options_.roundScales)
    throw ImportError(fmt::format("{}: {}; --round-scales accepts the nearest power of two", describe(n), what));
  std::string line = fmt::format("{}: {}: rounded", describe(n), what);
  if (std::find(out_.roundings.begin(), out_.roundings.end(), line) == out_.roundings.end()) out_.roundings.push_back(line);
  return nearest;
}

int GraphTranslator::zeroPointBits(const onnx::NodeProto& n, int input, bool forOutput) const {
  if (!hasInput(n, input)) {
    if (forOutput)
      throw ImportError(fmt::format("{}: no zero point, so the output is uint8; only int8 (symmetric) quantisation "
                                    "is supported",
                                    describe(n)));
    return 8;
  }
  const Const& zp = constant(n, input, "zero point");
  if (zp.t.dtype == onnx::TensorProto_DataType_UINT8)
    throw ImportError(fmt::format("{}: zero point '{}' is uint8; only int8 (symmetric) quantisation is supported",
                                  describe(n), n.input(input)));
  for (int64_t z : zp.t.ints)
    if (z != 0)
      throw ImportError(fmt::format("{}: zero point '{}' is {}, not 0; only symmetric quantisation is supported",
                                    describe(n), n.input(input), z));
  if (zp.t.dtype == onnx::TensorProto_DataType_INT8) return 8;
  if (zp.t.dtype == onnx::TensorProto_DataType_INT32) return 32;
  throw ImportError(fmt::format("{}: zero point '{}' has type {} (int8 or int32)", describe(n), n.input(input),
                                dtypeName(zp.t.dtype)));
}

// ---- DSL text --------------------------------------------------------------------------

std::string GraphTranslator::freshName(const std::string& wanted) {
  std::string base;
  for (char c : wanted) base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (base.empty() || !isIdentifierStart(base[0])) base = "t_" + base;
  static const std::set<std::string> reserved = {"input", "weight", "let", "output", "i8", "i16", "i32"};
  if (reserved.count(base) || frontend::builtinByName(base)) base += "_";
  std::string name = base;
  for (int k = 2; usedNames_.count(name); ++k) name = fmt::format("{}_{}", base, k);
  usedNames_.insert(name);
  return name;
}

std::string GraphTranslator::emitLet(const onnx::NodeProto& n, const std::string& expr, const std::string& note) {
  std::string name = freshName(n.name().empty() ? n.op_type() : n.name());
  lets_.push_back(fmt::format("let {} = {};  // {}{}", name, expr, describe(n), note.empty() ? "" : ", " + note));
  return name;
}

std::string GraphTranslator::weight(const onnx::NodeProto& n, const Const& c, const Tensor& values,
                                    const std::string& role) {
  std::string key = c.t.name + "\n" + role;
  if (auto it = weightNames_.find(key); it != weightNames_.end()) return it->second;
  std::string name = freshName(c.t.name.empty() ? n.name() + "_" + role : c.t.name);
  decls_.push_back(fmt::format("weight {} : {};  // '{}' of {} ({}{})", name, dslType(values.bits(), values.shape()),
                               c.t.name, describe(n), role, c.scaled ? ", scale " + scaleText(c.exp) : ""));
  out_.weights[name] = values;
  weightNames_[key] = name;
  return name;
}

namespace {

/// The integer values of a constant as a DSL tensor of `bits` (checking they fit).
Tensor toTensor(const Const& c, int bits, std::vector<int64_t> shape, const std::string& where) {
  Tensor t(bits, std::move(shape));
  if (t.size() != c.t.ints.size()) throw ImportError(where + ": unexpected number of values");
  for (size_t i = 0; i < t.size(); ++i) {
    if (wrapTo(c.t.ints[i], bits) != c.t.ints[i])
      throw ImportError(fmt::format("{}: value {} of '{}' does not fit i{}", where, c.t.ints[i], c.t.name, bits));
    t[i] = static_cast<int32_t>(c.t.ints[i]);
  }
  return t;
}

int integerBits(const Const& c, const std::string& where) {
  switch (c.t.dtype) {
    case onnx::TensorProto_DataType_INT8: return 8;
    case onnx::TensorProto_DataType_INT32: return 32;
    default:
      throw ImportError(fmt::format("{}: '{}' has type {}; weights are int8 and biases int32", where, c.t.name,
                                    dtypeName(c.t.dtype)));
  }
}

}  // namespace

std::string GraphTranslator::requantExpr(const Act& x, int to, const onnx::NodeProto& n) const {
  int shift = to - x.exp;
  std::string e;
  if (shift >= 0) {
    if (shift > 31)
      throw ImportError(fmt::format("{}: requantises by 2^{}, more than the DSL's 31-bit shift", describe(n), shift));
    e = fmt::format("requant_even({}, {})", x.name, shift);
  } else {
    if (-shift > 24)
      throw ImportError(fmt::format("{}: scales up by 2^{}, which overflows 32 bits", describe(n), -shift));
    e = fmt::format("requant_even({} * {}, 0)", x.bits == 32 ? x.name : fmt::format("cast({}, i32)", x.name),
                    int64_t{1} << -shift);
  }
  // Relu commutes with the monotone requantisation when the zero point is 0, and after it
  // it is the form the benchmarks write: relu(requant(...)).
  return x.pendingRelu ? fmt::format("relu({})", e) : e;
}

Act GraphTranslator::writeAccumulator(const onnx::NodeProto& n, const std::string& expr, std::vector<int64_t> dims,
                                      int exp, const Const* bias, const std::string& what) {
  std::string e = expr;
  if (bias) {
    int64_t channels = dims[1];  // [1, C, H, W] and [1, N] alike
    if (bias->t.size() != static_cast<size_t>(channels))
      throw ImportError(fmt::format("{}: bias '{}' has {} values for {} channels", describe(n), bias->t.name,
                                    bias->t.size(), channels));
    Const b = *bias;
    if (b.exp < exp)
      throw ImportError(fmt::format("{}: bias scale {} is finer than the accumulator's {}", describe(n),
                                    scaleText(b.exp), scaleText(exp)));
    for (auto& v : b.t.ints) v *= int64_t{1} << (b.exp - exp);  // exact: the coarser bias on the accumulator's scale
    Tensor bt = toTensor(b, 32, {channels}, describe(n));
    e = fmt::format("bias({}, {})", e, weight(n, b, bt, "bias"));
  }
  Act a{emitLet(n, e, fmt::format("{}, scale {}", what, scaleText(exp))), std::move(dims), 32, exp, true, false, {}};
  return a;
}

Act GraphTranslator::requantiseTo(const onnx::NodeProto& n, Act x, int exp, int bits) {
  if (bits == 32) {
    if (exp != x.exp || x.bits != 32)
      throw ImportError(fmt::format("{}: quantises to int32 with a shift ({} -> {}); only an int32 output on the "
                                    "accumulator's own scale is supported",
                                    describe(n), scaleText(x.exp), scaleText(exp)));
    if (x.pendingRelu) x.name = emitLet(n, fmt::format("relu({})", x.name), "Relu");
    x.pendingRelu = false;
    return x;
  }
  if (exp == x.exp && x.bits == 8 && !x.pendingRelu) return x;  // already this int8 tensor
  Act q = x;
  q.name = emitLet(n, requantExpr(x, exp, n), fmt::format("scale {}", scaleText(exp)));
  q.bits = 8;
  q.exp = exp;
  q.pendingRelu = false;
  return q;
}

// ---- the operators ---------------------------------------------------------------------

void GraphTranslator::quantize(const onnx::NodeProto& n) {
  Attributes(n).only({"axis"});
  int bits = zeroPointBits(n, 2, true);
  int exp = scaleExponent(n, 1);
  const Value& v = value(n, 0);
  if (const auto* f = std::get_if<FloatInput>(&v)) {
    if (bits != 8) throw ImportError(fmt::format("{}: quantises the graph input to int32 (int8 expected)", describe(n)));
    Act a{freshName(f->name), f->dims, 8, exp, true, false, {}};
    decls_.push_back(fmt::format("input {} : {};  // graph input '{}' {} (NCHW) quantised by {}, scale {}", a.name,
                                 dslType(8, dslShape(f->dims)), f->name, shapeText(f->dims), describe(n), scaleText(exp)));
    define(n, a);
    return;
  }
  if (std::holds_alternative<Const>(v))
    throw ImportError(fmt::format("{}: quantises the constant '{}' at run time; export the weights quantised",
                                  describe(n), n.input(0)));
  Act x = std::get<Act>(v);
  if (!x.scaled) throw ImportError(fmt::format("{}: input '{}' is an integer without a scale", describe(n), n.input(0)));
  define(n, requantiseTo(n, x, exp, bits));
}

void GraphTranslator::dequantize(const onnx::NodeProto& n) {
  Attributes(n).only({"axis"});
  zeroPointBits(n, 2, false);
  int exp = scaleExponent(n, 1);
  const Value& v = value(n, 0);
  if (const auto* c = std::get_if<Const>(&v)) {
    if (!c->t.isInteger())
      throw ImportError(fmt::format("{}: dequantises the float tensor '{}'", describe(n), n.input(0)));
    Const d = *c;
    d.exp = exp;
    d.scaled = true;
    define(n, d);
    return;
  }
  Act a = act(n, 0);
  a.exp = exp;  // the same integer, read on this scale (as ONNX does)
  a.scaled = true;
  define(n, a);
}

namespace {

/// ONNX Conv weights [O][C][kh][kw] -> the DSL's [O][kh][kw][C].
Tensor convWeights(const Const& w, const std::string& where) {
  const auto& d = w.t.dims;
  Tensor t(8, {d[0], d[2], d[3], d[1]});
  for (int64_t o = 0; o < d[0]; ++o)
    for (int64_t c = 0; c < d[1]; ++c)
      for (int64_t y = 0; y < d[2]; ++y)
        for (int64_t x = 0; x < d[3]; ++x) {
          int64_t v = w.t.ints[static_cast<size_t>(((o * d[1] + c) * d[2] + y) * d[3] + x)];
          if (v < -128 || v > 127) throw ImportError(fmt::format("{}: weight {} does not fit int8", where, v));
          t.at({o, y, x, c}) = static_cast<int32_t>(v);
        }
  return t;
}

struct ConvGeometry {
  int64_t top = 0, left = 0, bottom = 0, right = 0;
};

ConvGeometry convAttributes(const onnx::NodeProto& n, const std::vector<int64_t>& wdims) {
  Attributes a(n);
  a.only({"pads", "strides", "dilations", "group", "kernel_shape", "auto_pad"});
  if (a.text("auto_pad", "NOTSET") != "NOTSET")
    throw ImportError(describe(n) + ": auto_pad is not supported (write explicit pads)");
  for (int64_t s : a.integers("strides", {1, 1}))
    if (s != 1) throw ImportError(fmt::format("{}: stride {} (only stride 1 is supported)", describe(n), s));
  for (int64_t s : a.integers("dilations", {1, 1}))
    if (s != 1) throw ImportError(fmt::format("{}: dilation {} (only 1 is supported)", describe(n), s));
  if (a.integer("group", 1) != 1) throw ImportError(describe(n) + ": grouped convolution is not supported");
  if (wdims.size() != 4) throw ImportError(describe(n) + ": only 2-D convolutions are supported");
  if (wdims[2] != wdims[3])
    throw ImportError(fmt::format("{}: kernel {}x{} (the DSL's conv is square)", describe(n), wdims[2], wdims[3]));
  auto p = a.integers("pads", {0, 0, 0, 0});
  if (p.size() != 4) throw ImportError(describe(n) + ": pads must have 4 values");
  return {p[0], p[1], p[2], p[3]};
}

std::string padded(const std::string& x, const ConvGeometry& g) {
  if (g.top == 0 && g.left == 0 && g.bottom == 0 && g.right == 0) return x;
  if (g.top == g.left && g.top == g.bottom && g.top == g.right) return fmt::format("pad({}, {})", x, g.top);
  return fmt::format("pad({}, {}, {}, {}, {})", x, g.top, g.bottom, g.left, g.right);
}

}  // namespace

void GraphTranslator::conv(const onnx::NodeProto& n) {
  Act x = act(n, 0);
  const Const& w = scaledWeight(n, 1, "weight");
  const Const* b = hasInput(n, 2) ? &scaledWeight(n, 2, "bias") : nullptr;
  integerBits(w, describe(n));
  auto [expr, dims] = convolution(n, x, w);
  define(n, writeAccumulator(n, expr, dims, x.exp + w.exp, b, "i32"));
}

GraphTranslator::QLinearOperands GraphTranslator::qlinearOperands(const onnx::NodeProto& n) {
  // QLinearConv and QLinearMatMul both start x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp.
  QLinearOperands q{act(n, 0), constant(n, 3, "weight"), 0, 8};
  q.x.exp = scaleExponent(n, 1);  // the integer read on this scale, as ONNX does
  q.x.scaled = true;
  zeroPointBits(n, 2, false);
  q.w.exp = scaleExponent(n, 4);
  q.w.scaled = true;
  zeroPointBits(n, 5, false);
  q.yexp = scaleExponent(n, 6);
  q.ybits = zeroPointBits(n, 7, true);
  return q;
}

std::pair<std::string, std::vector<int64_t>> GraphTranslator::convolution(const onnx::NodeProto& n, const Act& x,
                                                                          const Const& w) {
  ConvGeometry g = convAttributes(n, w.t.dims);
  if (!x.isImage() || x.dims[1] != w.t.dims[1])
    throw ImportError(fmt::format("{}: input {} does not match weights {}", describe(n), shapeText(x.dims), shapeText(w.t.dims)));
  std::string wname = weight(n, w, convWeights(w, describe(n)), "weights");
  int64_t k = w.t.dims[2];
  return {fmt::format("conv({}, {})", padded(x.name, g), wname),
          {1, w.t.dims[0], x.dims[2] + g.top + g.bottom - k + 1, x.dims[3] + g.left + g.right - k + 1}};
}

void GraphTranslator::qlinearConv(const onnx::NodeProto& n) {
  auto [x, w, yexp, ybits] = qlinearOperands(n);
  std::optional<Const> b;
  if (hasInput(n, 8)) {
    b = constant(n, 8, "bias");
    b->exp = x.exp + w.exp;  // QLinearConv's bias is on the accumulator's scale
    b->scaled = true;
  }
  auto [expr, dims] = convolution(n, x, w);
  Act acc = writeAccumulator(n, expr, dims, x.exp + w.exp, b ? &*b : nullptr, "accumulator");
  define(n, requantiseTo(n, acc, yexp, ybits));
}

namespace {

/// Weights of a matrix product as the DSL's mv matrix [M][N]: `kn` says the ONNX matrix is
/// [N][M] (MatMul's B, Gemm's B without transB); `order` reorders the N columns (a
/// flattened NCHW input, whose DSL order is HWC).
Tensor mvMatrix(const Const& w, bool kn, const std::vector<int64_t>& order, const std::string& where) {
  if (w.t.dims.size() != 2) throw ImportError(where + ": the weight matrix must have rank 2");
  int64_t rows = kn ? w.t.dims[1] : w.t.dims[0], cols = kn ? w.t.dims[0] : w.t.dims[1];
  Tensor t(8, {rows, cols});
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t i = 0; i < cols; ++i) {
      int64_t src = order.empty() ? i : order[static_cast<size_t>(i)];
      int64_t v = w.t.ints[static_cast<size_t>(kn ? src * rows + m : m * cols + src)];
      if (v < -128 || v > 127) throw ImportError(fmt::format("{}: weight {} does not fit int8", where, v));
      t.at({m, i}) = static_cast<int32_t>(v);
    }
  return t;
}

}  // namespace

void GraphTranslator::matmul(const onnx::NodeProto& n) {
  bool gemm = n.op_type() == "Gemm";
  bool kn = true;
  if (gemm) {
    Attributes a(n);
    a.only({"alpha", "beta", "transA", "transB"});
    for (const char* f : {"alpha", "beta"})
      for (const auto& attr : n.attribute())
        if (attr.name() == f && attr.f() != 1.0f)
          throw ImportError(fmt::format("{}: {} = {} (only 1)", describe(n), f, attr.f()));
    if (a.integer("transA", 0) != 0) throw ImportError(describe(n) + ": transA is not supported");
    kn = a.integer("transB", 0) == 0;
  } else {
    Attributes(n).only({});
  }
  Act x = act(n, 0);
  const Const& w = scaledWeight(n, 1, "weight");
  const Const* b = gemm && hasInput(n, 2) ? &scaledWeight(n, 2, "bias") : nullptr;
  if (x.dims.size() != 2)
    throw ImportError(fmt::format("{}: input {} is not a vector [1,N] (flatten it first)", describe(n), shapeText(x.dims)));
  int64_t inner = kn ? w.t.dims.at(0) : w.t.dims.at(1);
  if (inner != x.dims[1])
    throw ImportError(fmt::format("{}: input {} does not match weights {}", describe(n), shapeText(x.dims), shapeText(w.t.dims)));
  integerBits(w, describe(n));
  std::string wname = weight(n, w, mvMatrix(w, kn, x.flatOrder, describe(n)), x.flatOrder.empty() ? "weights" : "weights, columns in HWC order");
  int64_t m = kn ? w.t.dims[1] : w.t.dims[0];
  define(n, writeAccumulator(n, fmt::format("mv({}, {})", wname, x.name), {1, m}, x.exp + w.exp, b, "i32"));
}

void GraphTranslator::qlinearMatmul(const onnx::NodeProto& n) {
  Attributes(n).only({});
  auto [x, w, yexp, ybits] = qlinearOperands(n);
  if (x.dims.size() != 2 || w.t.dims.size() != 2 || w.t.dims[0] != x.dims[1])
    throw ImportError(fmt::format("{}: input {} does not match weights {}", describe(n), shapeText(x.dims), shapeText(w.t.dims)));
  std::string wname = weight(n, w, mvMatrix(w, true, x.flatOrder, describe(n)), "weights");
  Act acc = writeAccumulator(n, fmt::format("mv({}, {})", wname, x.name), {1, w.t.dims[1]}, x.exp + w.exp, nullptr,
                             "accumulator");
  define(n, requantiseTo(n, acc, yexp, ybits));
}

void GraphTranslator::relu(const onnx::NodeProto& n) {
  Attributes(n).only({});
  Act x = act(n, 0);
  x.pendingRelu = true;  // written with the next requantisation, or when something else reads it
  define(n, x);
}

void GraphTranslator::maxpool(const onnx::NodeProto& n) {
  Attributes a(n);
  a.only({"kernel_shape", "strides", "pads", "auto_pad", "ceil_mode", "dilations", "storage_order"});
  auto k = a.integers("kernel_shape", {});
  if (k.size() != 2 || k[0] != k[1]) throw ImportError(describe(n) + ": only square 2-D windows are supported");
  auto s = a.integers("strides", {1, 1});
  if (s.size() != 2 || s[0] != s[1]) throw ImportError(describe(n) + ": strides must be equal");
  for (int64_t p : a.integers("pads", {0, 0, 0, 0}))
    if (p != 0) throw ImportError(describe(n) + ": padding is not supported (pad with a Pad node)");
  if (a.text("auto_pad", "NOTSET") != "NOTSET" || a.integer("ceil_mode", 0) != 0)
    throw ImportError(describe(n) + ": auto_pad and ceil_mode are not supported");
  for (int64_t d : a.integers("dilations", {1, 1}))
    if (d != 1) throw ImportError(describe(n) + ": dilation is not supported");
  if (n.output_size() > 1 && !n.output(1).empty()) throw ImportError(describe(n) + ": the Indices output is not supported");
  Act x = act(n, 0);
  if (!x.isImage() || k[0] > std::min(x.dims[2], x.dims[3]))
    throw ImportError(fmt::format("{}: input {} does not fit the window", describe(n), shapeText(x.dims)));
  std::string expr = s[0] == k[0] ? fmt::format("maxpool({}, {})", x.name, k[0])
                                  : fmt::format("maxpool({}, {}, {})", x.name, k[0], s[0]);
  Act y = x;
  y.dims = {1, x.dims[1], (x.dims[2] - k[0]) / s[0] + 1, (x.dims[3] - k[0]) / s[0] + 1};
  y.name = emitLet(n, expr, "");
  define(n, y);
}

void GraphTranslator::pad(const onnx::NodeProto& n) {
  Attributes a(n);
  a.only({"mode", "pads", "value"});
  if (a.text("mode", "constant") != "constant") throw ImportError(describe(n) + ": only constant padding is supported");
  Act x = act(n, 0);
  std::vector<int64_t> p;
  double fill = 0;
  if (hasInput(n, 1)) {  // opset >= 11: pads and the value are inputs
    const Const& pc = constant(n, 1, "pads");
    p = pc.t.ints;
    if (hasInput(n, 2)) {
      const Const& v = constant(n, 2, "constant value");
      fill = v.t.isInteger() ? static_cast<double>(v.t.ints.at(0)) : v.t.reals.at(0);
      if (!v.t.isInteger()) fill = std::ldexp(fill, -x.exp);  // a float value on x's integer scale
    }
  } else {
    p = a.integers("pads", {});
  }
  if (!x.isImage() || p.size() != 8)
    throw ImportError(fmt::format("{}: only NCHW images padded on H and W are supported", describe(n)));
  if (p[0] || p[1] || p[4] || p[5]) throw ImportError(describe(n) + ": padding of the batch or the channels is not supported");
  for (int64_t v : p)
    if (v < 0) throw ImportError(describe(n) + ": negative padding (cropping) is not supported");
  if (fill != std::floor(fill) || wrapTo(static_cast<int64_t>(fill), x.bits) != fill)
    throw ImportError(fmt::format("{}: the pad value is not an i{} integer on the input's scale", describe(n), x.bits));
  ConvGeometry g{p[2], p[3], p[6], p[7]};
  std::string expr = padded(x.name, g);
  if (fill != 0) expr = fmt::format("pad({}, {}, {}, {}, {}, fill={})", x.name, g.top, g.bottom, g.left, g.right,
                                    static_cast<int64_t>(fill));
  Act y = x;
  y.dims = {1, x.dims[1], x.dims[2] + g.top + g.bottom, x.dims[3] + g.left + g.right};
  y.name = expr == x.name ? x.name : emitLet(n, expr, "");
  define(n, y);
}

void GraphTranslator::flatten(const onnx::NodeProto& n) {
  Act x = act(n, 0);
  int64_t total = 1;
  for (int64_t d : x.dims) total *= d;
  if (n.op_type() == "Flatten") {
    Attributes(n).only({"axis"});
    if (Attributes(n).integer("axis", 1) != 1) throw ImportError(describe(n) + ": only axis 1 is supported");
  } else {
    Attributes(n).only({"allowzero"});
    const Const& shape = constant(n, 1, "shape");
    const auto& s = shape.t.ints;
    if (!(s.size() == 2 && s[0] == 1 && (s[1] == -1 || s[1] == total)))
      throw ImportError(fmt::format("{}: only a reshape to [1, -1] (a flatten) is supported", describe(n)));
  }
  if (!x.isImage()) {  // a vector stays what it is
    define(n, x);
    return;
  }
  Act y = x;
  int64_t c = x.dims[1], h = x.dims[2], w = x.dims[3];
  y.dims = {1, total};
  y.flatOrder.resize(static_cast<size_t>(total));
  for (int64_t i = 0; i < h; ++i)      // DSL order: (i * w + j) * c + k
    for (int64_t j = 0; j < w; ++j)
      for (int64_t k = 0; k < c; ++k) y.flatOrder[static_cast<size_t>((i * w + j) * c + k)] = (k * h + i) * w + j;
  bool identity = true;
  for (size_t i = 0; i < y.flatOrder.size(); ++i) identity = identity && y.flatOrder[i] == static_cast<int64_t>(i);
  if (identity) y.flatOrder.clear();
  y.name = emitLet(n, fmt::format("flatten({})", x.name), identity ? "" : "HWC order");
  define(n, y);
}

void GraphTranslator::add(const onnx::NodeProto& n) {
  Attributes(n).only({});
  Act a = act(n, 0), b = act(n, 1);
  if (a.dims != b.dims || !a.flatOrder.empty() || !b.flatOrder.empty())
    throw ImportError(fmt::format("{}: operands {} and {} differ (no broadcasting)", describe(n), shapeText(a.dims), shapeText(b.dims)));
  if (!a.scaled || !b.scaled) throw ImportError(describe(n) + ": adds integers without a scale");
  int exp = std::min(a.exp, b.exp);
  auto term = [&](const Act& v) {
    std::string wide = v.bits == 32 ? v.name : fmt::format("cast({}, i32)", v.name);  // no wrap in the sum
    if (v.exp - exp > 24) throw ImportError(fmt::format("{}: operand scales differ by more than 2^24", describe(n)));
    return v.exp == exp ? wide : fmt::format("{} * {}", wide, int64_t{1} << (v.exp - exp));
  };
  Act y = a;
  y.bits = 32;
  y.exp = exp;
  y.name = emitLet(n, fmt::format("{} + {}", term(a), term(b)), fmt::format("i32, scale {}", scaleText(exp)));
  define(n, y);
}

}  // namespace skeleshare::onnximport::detail
