#include "skeleshare/frontend/summary.h"

#include "skeleshare/support/saturating.h"

namespace skeleshare::frontend {

namespace {

// Counts in a lambda body multiply by trip counts: they saturate rather than wrap, so that
// an absurd program cannot report a small number.
class Summarizer {
 public:
  Summarizer(const Program& prog, std::vector<LayerInfo>& out) : prog_(prog), out_(out) {}

  void walk(const Expr& e, const std::string& binding, uint64_t calls) {
    if (e.kind == ExprKind::Lambda) {
      walk(*e.body, binding, calls);
      return;
    }
    if (e.kind != ExprKind::Call) return;
    // The lambda of map/zip/reduce runs once per element of the outermost dimension.
    bool higher = e.builtin == Builtin::Map || e.builtin == Builtin::Zip || e.builtin == Builtin::Reduce;
    LayerInfo info;
    const BuiltinInfo& bi = builtinInfo(e.builtin);
    for (size_t i = 0; i < static_cast<size_t>(bi.valueArgs); ++i) {
      walk(*e.args[i], binding, calls);
      info.inputs.push_back(e.args[i]->type);
      info.weightBytes = saturatingAdd(info.weightBytes, weightBytes(*e.args[i]));
    }
    if (higher) walk(*e.args.back(), binding, saturatingMul(calls, static_cast<uint64_t>(e.args[0]->type.shape[0])));
    info.op = std::string(bi.name);
    info.binding = binding;
    info.loc = e.loc;
    info.dsp = bi.dsp;
    info.output = e.type;
    info.calls = calls;
    info.macs = saturatingMul(macsOf(e.builtin, info.inputs), calls);
    out_.push_back(std::move(info));
  }

 private:
  /// The bytes of a weight the argument names, else 0.
  uint64_t weightBytes(const Expr& arg) const {
    if (arg.kind != ExprKind::Name || arg.stmt < 0 || prog_.stmts.at(static_cast<size_t>(arg.stmt)).kind != StmtKind::Weight)
      return 0;
    uint64_t bytes = static_cast<uint64_t>((arg.type.bits + 7) / 8);
    for (int64_t d : arg.type.shape) bytes = saturatingMul(bytes, static_cast<uint64_t>(d));
    return bytes;
  }

  const Program& prog_;
  std::vector<LayerInfo>& out_;
};

}  // namespace

uint64_t macsOf(Builtin b, const std::vector<ValueType>& args) {
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  if (args.size() < 2) return 0;
  const auto& x = args[0].shape;
  const auto& w = args[1].shape;
  switch (b) {
    case Builtin::Conv: {
      if (x.size() != 3 || w.size() != 4) return 0;
      uint64_t oh = u(x[0] - w[1] + 1), ow = u(x[1] - w[1] + 1);
      return saturatingMul(saturatingMul(saturatingMul(oh, ow), u(w[0])), u(w[1] * w[2] * w[3]));
    }
    case Builtin::Mv:
      if (x.size() != 2) return 0;
      return saturatingMul(u(x[0]), u(x[1]));
    case Builtin::Mm:
      if (x.size() != 2 || w.size() != 2) return 0;
      return saturatingMul(saturatingMul(u(x[0]), u(w[0])), u(x[1]));
    case Builtin::Conv1DW:
      if (x.size() != 2 || w.size() != 1) return 0;
      return saturatingMul(saturatingMul(u(x[0]), u(x[1] - w[0] + 1)), u(w[0]));
    case Builtin::Conv1DH:
      if (x.size() != 2 || w.size() != 1) return 0;
      return saturatingMul(saturatingMul(u(x[0] - w[0] + 1), u(x[1])), u(w[0]));
    default: return 0;
  }
}

std::vector<LayerInfo> summarize(const Program& prog) {
  std::vector<LayerInfo> out;
  Summarizer s(prog, out);
  for (const Stmt& st : prog.stmts)
    if (st.live && st.value) s.walk(*st.value, st.name, 1);
  return out;
}

uint64_t totalMacs(const std::vector<LayerInfo>& layers) {
  uint64_t total = 0;
  for (const LayerInfo& l : layers) total = saturatingAdd(total, l.macs);
  return total;
}

}  // namespace skeleshare::frontend
