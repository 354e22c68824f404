// Tree-walking evaluation of a checked program. Values are shared, immutable tensors
// (scalars are rank-0 tensors), so referring to a let or a weight never copies it.

#include "skeleshare/frontend/evaluator.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "eval_kernels.h"

namespace skeleshare::frontend {

namespace {

using Value = std::shared_ptr<const Tensor>;

int64_t arithShr(int64_t x, int64_t k) { return x >> k; }  // arithmetic in C++20

class Evaluator {
 public:
  Evaluator(const Program& p, const std::map<std::string, Tensor>& in)
      : prog_(p), inputs_(in), values_(p.stmts.size()) {}

  std::map<std::string, Tensor> run() {
    bindInputs();
    std::map<std::string, Tensor> out;
    for (size_t i = 0; i < prog_.stmts.size(); ++i) {
      const Stmt& s = prog_.stmts[i];
      if (!s.value || !s.live) continue;
      values_[i] = eval(*s.value);
      if (s.kind == StmtKind::Output) out.emplace(s.name, *values_[i]);
    }
    return out;
  }

 private:
  void bindInputs() {
    for (const auto& [name, t] : inputs_) {
      bool known = false;
      for (const Stmt& s : prog_.stmts)
        known |= s.name == name && (s.kind == StmtKind::Input || s.kind == StmtKind::Weight);
      if (!known) throw std::runtime_error(fmt::format("evaluate: '{}' is not an input or weight of the program", name));
    }
    for (size_t i = 0; i < prog_.stmts.size(); ++i) {
      const Stmt& s = prog_.stmts[i];
      if (s.kind != StmtKind::Input && s.kind != StmtKind::Weight) continue;
      auto it = inputs_.find(s.name);
      if (it == inputs_.end())
        throw std::runtime_error(fmt::format("evaluate: missing value for {} '{}' ({})", stmtKindName(s.kind), s.name, s.type.str()));
      const Tensor& t = it->second;
      if (t.bits() != s.type.bits || t.shape() != s.type.shape)
        throw std::runtime_error(fmt::format("evaluate: {} '{}' is {}, expected {}", stmtKindName(s.kind), s.name,
                                             t.describe(), s.type.str()));
      for (size_t k = 0; k < t.size(); ++k)
        if (wrapTo(t[k], t.bits()) != t[k])
          throw std::runtime_error(fmt::format("evaluate: {} '{}' holds {} at element {}, which does not fit in i{}",
                                               stmtKindName(s.kind), s.name, t[k], k, t.bits()));
      values_[i] = std::make_shared<const Tensor>(t);
    }
  }

  static Value wrap(Tensor t) { return std::make_shared<const Tensor>(std::move(t)); }

  Value eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::IntLit: {
        Tensor t(e.type.bits, {});
        t[0] = static_cast<int32_t>(e.intValue);  // sema checked that it fits
        return wrap(std::move(t));
      }
      case ExprKind::Name:
        if (e.stmt >= 0) return values_[static_cast<size_t>(e.stmt)];
        return env_[env_.size() - 1 - static_cast<size_t>(e.varIndex)];
      case ExprKind::Call: return call(e);
      case ExprKind::TypeName:
      case ExprKind::Lambda: break;
    }
    throw std::logic_error("evaluate: unexpected expression (program not checked?)");
  }

  /// Evaluates a lambda body with its parameters bound (the last one innermost).
  Value apply(const Expr& lam, std::initializer_list<Value> args) {
    for (const Value& a : args) env_.push_back(a);
    Value r = eval(*lam.body);
    env_.resize(env_.size() - args.size());
    return r;
  }

  Value call(const Expr& e) {
    namespace k = kernels;
    const auto& st = e.statics;
    const int bits = e.type.bits;
    auto arg = [&](size_t i) { return eval(*e.args[i]); };
    switch (e.builtin) {
      case Builtin::Conv: return wrap(k::conv(*arg(0), *arg(1)));
      case Builtin::Mv: return wrap(k::mv(*arg(0), *arg(1)));
      case Builtin::Mm: return wrap(k::mm(*arg(0), *arg(1)));
      case Builtin::Conv1DW: return wrap(k::conv1dW(*arg(0), *arg(1)));
      case Builtin::Conv1DH: return wrap(k::conv1dH(*arg(0), *arg(1)));
      case Builtin::Pad: return wrap(k::pad(*arg(0), st[0], st[1], st[2], st[3], static_cast<int32_t>(st[4])));
      case Builtin::MaxPool: return wrap(k::maxpool(*arg(0), st[0], st[1]));
      case Builtin::Relu: return wrap(k::unary(*arg(0), bits, [](int64_t x) { return x > 0 ? x : 0; }));
      case Builtin::LeakyRelu: {
        int64_t sh = st[0];
        return wrap(k::unary(*arg(0), bits, [sh](int64_t x) { return x >= 0 ? x : x >> sh; }));
      }
      case Builtin::Requant: {
        int64_t sh = st[0];
        return wrap(k::unary(*arg(0), 8, [sh](int64_t x) { return int64_t{saturateTo(roundShiftHalfUp(x, sh), 8)}; }));
      }
      case Builtin::RequantEven: {
        int64_t sh = st[0];
        return wrap(k::unary(*arg(0), 8, [sh](int64_t x) { return int64_t{saturateTo(roundShiftHalfEven(x, sh), 8)}; }));
      }
      case Builtin::Shr: {
        int64_t sh = st[0];
        return wrap(k::unary(*arg(0), bits, [sh](int64_t x) { return arithShr(x, sh); }));
      }
      case Builtin::Cast: return wrap(k::unary(*arg(0), bits, [](int64_t x) { return x; }));
      case Builtin::Bias: return wrap(k::bias(*arg(0), *arg(1), bits));
      case Builtin::Add: return wrap(k::binary(*arg(0), *arg(1), bits, [](int64_t a, int64_t b) { return a + b; }));
      case Builtin::Sub: return wrap(k::binary(*arg(0), *arg(1), bits, [](int64_t a, int64_t b) { return a - b; }));
      case Builtin::Mul: return wrap(k::binary(*arg(0), *arg(1), bits, [](int64_t a, int64_t b) { return a * b; }));
      case Builtin::Max:
        return wrap(k::binary(*arg(0), *arg(1), bits, [](int64_t a, int64_t b) { return a > b ? a : b; }));
      case Builtin::Min:
        return wrap(k::binary(*arg(0), *arg(1), bits, [](int64_t a, int64_t b) { return a < b ? a : b; }));
      case Builtin::Flatten: return wrap(k::flatten(*arg(0)));
      case Builtin::Transpose: return wrap(k::transpose(*arg(0)));
      case Builtin::Map: {
        Value x = arg(0);
        Tensor out(bits, e.type.shape);
        for (int64_t i = 0; i < x->dim(0); ++i)
          k::setSlice(out, i, *apply(*e.args[1], {wrap(k::slice(*x, i))}));
        return wrap(std::move(out));
      }
      case Builtin::Zip: {
        Value x = arg(0), y = arg(1);
        Tensor out(bits, e.type.shape);
        for (int64_t i = 0; i < x->dim(0); ++i)
          k::setSlice(out, i, *apply(*e.args[2], {wrap(k::slice(*x, i)), wrap(k::slice(*y, i))}));
        return wrap(std::move(out));
      }
      case Builtin::Reduce: {
        Value x = arg(0), acc = arg(1);
        for (int64_t i = 0; i < x->dim(0); ++i) acc = apply(*e.args[2], {acc, wrap(k::slice(*x, i))});
        return acc;
      }
    }
    throw std::logic_error(fmt::format("evaluate: unknown operator '{}'", e.name));
  }

  const Program& prog_;
  const std::map<std::string, Tensor>& inputs_;
  std::vector<Value> values_;  // per statement
  std::vector<Value> env_;     // lambda parameters, innermost last
};

}  // namespace

std::map<std::string, Tensor> evaluate(const Program& prog, const std::map<std::string, Tensor>& inputs) {
  return Evaluator(prog, inputs).run();
}

}  // namespace skeleshare::frontend
