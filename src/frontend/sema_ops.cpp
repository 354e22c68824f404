// Sema: the shape and type rule of every DSL operator. Each mirrors the IR type rule of
// the operator it translates to (src/ir/type_rules.cpp), with messages in DSL terms.

#include <algorithm>

#include "sema_impl.h"
#include "skeleshare/ir/type_rules.h"

namespace skeleshare::frontend::detail {

OptType Sema::checkCall(Expr& e) {
  std::optional<Builtin> b = builtinByName(e.name);
  if (!b) {
    bool isValue = globals_.count(e.name) != 0 ||
                   std::any_of(scope_.begin(), scope_.end(), [&](const auto& p) { return p.first == e.name; });
    return error(e.loc, isValue ? fmt::format("'{}' is a value, not an operator", e.name)
                                : fmt::format("unknown operator '{}'", e.name));
  }
  e.builtin = *b;
  const BuiltinInfo& info = builtinInfo(*b);
  int n = static_cast<int>(e.args.size());
  if (n < info.minArgs || n > info.maxArgs || (*b == Builtin::Pad && n != 2 && n != 5)) {
    std::string count = info.minArgs == info.maxArgs ? std::to_string(info.minArgs)
                        : *b == Builtin::Pad        ? "2 or 5"
                                                    : fmt::format("{} or {}", info.minArgs, info.maxArgs);
    return error(e.loc, fmt::format("{} expects {} argument{}, got {} (usage: {})", e.name, count,
                                    count == "1" ? "" : "s", n, info.signature));
  }
  for (size_t i = 0; i < e.namedArgs.size(); ++i) {
    const NamedArg& a = e.namedArgs[i];
    if (*b != Builtin::Pad || a.name != "fill")
      return error(a.loc, fmt::format("{}: unknown named argument '{}'", e.name, a.name));
    if (i > 0) return error(a.loc, fmt::format("{}: duplicate argument '{}'", e.name, a.name));
  }
  if (*b == Builtin::Map || *b == Builtin::Zip || *b == Builtin::Reduce) return checkHigherOrder(e, *b);
  if (info.elementwiseBinary) return checkElementwise(e, *b);

  // Every other operator: argument 0 (and 1 for two-tensor operators) is a value, the
  // rest are static parameters.
  std::vector<ValueType> v;
  bool ok = true;
  for (int i = 0; i < info.valueArgs; ++i) {
    OptType t = check(*e.args[static_cast<size_t>(i)]);
    if (t) v.push_back(*t);
    else ok = false;
  }
  if (!ok) return std::nullopt;
  if (info.dsp) return checkDsp(e, *b, v);

  const ValueType& x = v[0];
  const std::string op = label(e);
  switch (*b) {
    case Builtin::Pad: {
      if (!needRank(e, x, 2, true, "input", " (H x W x ...)")) return std::nullopt;
      std::vector<int64_t> amounts;
      static const char* kSides[] = {"top padding", "bottom padding", "left padding", "right padding"};
      for (size_t i = 1; i < e.args.size(); ++i) {
        auto p = staticInt(*e.args[i], op, n == 2 ? "padding" : kSides[i - 1], 0, ir::kMaxDim);
        if (!p) return std::nullopt;
        amounts.push_back(*p);
      }
      if (amounts.size() == 1) amounts.assign(4, amounts[0]);
      int64_t fill = 0;
      if (!e.namedArgs.empty()) {
        int64_t lo = -(int64_t{1} << (x.bits - 1)), hi = (int64_t{1} << (x.bits - 1)) - 1;
        Expr& f = *e.namedArgs[0].value;
        if (f.kind != ExprKind::IntLit)
          return error(f.loc, fmt::format("{}: fill must be an integer literal", op));
        if (f.intValue < lo || f.intValue > hi)
          return error(f.loc, fmt::format("{}: fill {} does not fit in i{}, the input's element type", op, f.intValue, x.bits));
        f.type = ValueType{x.bits, {}};
        fill = f.intValue;
      }
      e.statics = {amounts[0], amounts[1], amounts[2], amounts[3], fill};
      ValueType r = x;
      r.shape[0] += amounts[0] + amounts[1];
      r.shape[1] += amounts[2] + amounts[3];
      return result(e, r);
    }
    case Builtin::MaxPool: {
      if (!needRank(e, x, 2, true, "input", " (H x W x ...)")) return std::nullopt;
      int64_t h = x.shape[0], w = x.shape[1];
      auto size = staticInt(*e.args[1], op, "size", 1, ir::kMaxDim);
      if (!size) return std::nullopt;
      if (*size > std::min(h, w))
        return error(e.args[1]->loc, fmt::format("{}: window size {} exceeds the input's {}x{} (input {})", op, *size, h, w, x.str()));
      int64_t stride = *size;
      if (e.args.size() == 3) {
        auto s = staticInt(*e.args[2], op, "stride", 1, ir::kMaxDim);
        if (!s) return std::nullopt;
        stride = *s;
      }
      e.statics = {*size, stride};
      ValueType r = x;
      r.shape[0] = (h - *size) / stride + 1;
      r.shape[1] = (w - *size) / stride + 1;
      return result(e, r);
    }
    case Builtin::Relu: return result(e, x);
    case Builtin::LeakyRelu:
    case Builtin::Requant:
    case Builtin::RequantEven:
    case Builtin::Shr: {
      auto s = staticInt(*e.args[1], op, *b == Builtin::Shr ? "shift amount" : "shift", 0, 31);
      if (!s) return std::nullopt;
      e.statics = {*s};
      ValueType r = x;
      if (*b == Builtin::Requant || *b == Builtin::RequantEven) r.bits = 8;
      return result(e, r);
    }
    case Builtin::Cast: {
      const Expr& t = *e.args[1];
      if (t.kind != ExprKind::TypeName)
        return error(t.loc, fmt::format("{}: second argument must be a type (i8, i16 or i32)", op));
      e.statics = {t.intValue};
      ValueType r = x;
      r.bits = static_cast<int>(t.intValue);
      return result(e, r);
    }
    case Builtin::Bias: {
      const ValueType& bias = v[1];
      if (!needRank(e, x, 1, true, "input", "")) return std::nullopt;
      if (bias.rank() != 1)
        return error(e.args[1]->loc, fmt::format("{}: bias must be a rank-1 array, got {}", op, bias.str()));
      if (bias.shape[0] != x.shape.back())
        return error(e.loc, fmt::format("{}: bias has {} elements, input has {} channels (input {}, bias {})", op,
                                        bias.shape[0], x.shape.back(), x.str(), bias.str()));
      ValueType r = x;
      r.bits = std::max(x.bits, bias.bits);
      return result(e, r);
    }
    case Builtin::Flatten: {
      if (!needRank(e, x, 1, true, "input", "")) return std::nullopt;
      int64_t n = 1;
      for (int64_t d : x.shape) n *= d;  // bounded by the limits of x
      return result(e, ValueType{x.bits, {n}});
    }
    case Builtin::Transpose: {
      if (!needRank(e, x, 2, true, "input", "")) return std::nullopt;
      ValueType r = x;
      std::swap(r.shape[0], r.shape[1]);
      return result(e, r);
    }
    default: break;
  }
  return error(e.loc, fmt::format("internal error: operator '{}' has no checker", e.name));
}

OptType Sema::checkDsp(Expr& e, Builtin b, const std::vector<ValueType>& v) {
  const ValueType &x = v[0], &w = v[1];
  const std::string op = label(e);
  auto i32 = [](std::vector<int64_t> shape) { return ValueType{32, std::move(shape)}; };
  switch (b) {
    case Builtin::Conv: {
      if (!needRank(e, x, 3, false, "input", " (H x W x ICH)")) return std::nullopt;
      if (!needRank(e, w, 4, false, "weights", " (OCH x KS x KS x ICH)")) return std::nullopt;
      int64_t h = x.shape[0], wd = x.shape[1], ich = x.shape[2], och = w.shape[0], ks = w.shape[1];
      if (w.shape[2] != ks)
        return error(e.loc, fmt::format("{}: kernel must be square, got {}x{} (weights {})", op, ks, w.shape[2], w.str()));
      if (w.shape[3] != ich)
        return error(e.loc, fmt::format("{}: weight expects {} input channels, input has {} (weights {}, input {})",
                                        op, w.shape[3], ich, w.str(), x.str()));
      if (ks > h || ks > wd)
        return error(e.loc, fmt::format("{}: kernel size {} exceeds the input's {}x{} (input {})", op, ks, h, wd, x.str()));
      if (ks * ks * ich > ir::kMaxDim)
        return error(e.loc, fmt::format("{}: window of {}x{}x{} elements exceeds the dimension limit {}", op, ks, ks, ich, ir::kMaxDim));
      return result(e, i32({h - ks + 1, wd - ks + 1, och}));
    }
    case Builtin::Mv: {
      if (!needRank(e, x, 2, false, "matrix", " (M x N)")) return std::nullopt;
      if (!needRank(e, w, 1, false, "vector", "")) return std::nullopt;
      if (x.shape[1] != w.shape[0])
        return error(e.loc, fmt::format("{}: matrix has {} columns, vector has {} elements (matrix {}, vector {})", op,
                                        x.shape[1], w.shape[0], x.str(), w.str()));
      return result(e, i32({x.shape[0]}));
    }
    case Builtin::Mm: {
      if (!needRank(e, x, 2, false, "left operand", " (H x K)")) return std::nullopt;
      if (!needRank(e, w, 2, false, "right operand", " (W x K)")) return std::nullopt;
      if (x.shape[1] != w.shape[1])
        return error(e.loc, fmt::format("{}: inner dimensions differ: a is {}, b is {} (mm computes a * b^T)", op,
                                        x.str(), w.str()));
      return result(e, i32({x.shape[0], w.shape[0]}));
    }
    case Builtin::Conv1DW:
    case Builtin::Conv1DH: {
      if (!needRank(e, x, 2, false, "image", " (H x W)")) return std::nullopt;
      if (!needRank(e, w, 1, false, "weights", "")) return std::nullopt;
      bool alongW = b == Builtin::Conv1DW;
      int64_t len = alongW ? x.shape[1] : x.shape[0], k = w.shape[0];
      if (k > len)
        return error(e.loc, fmt::format("{}: kernel of {} taps is longer than the image's {} {} (image {})", op, k,
                                        alongW ? "width" : "height", len, x.str()));
      // The canonical function slides a (len-K+1) x K window matrix over the image.
      if ((len - k + 1) > ir::kMaxElements / k)
        return error(e.loc, fmt::format("{}: the {}x{} window matrix exceeds the element limit {}", op, len - k + 1, k,
                                        ir::kMaxElements));
      return result(e, alongW ? i32({x.shape[0], len - k + 1}) : i32({len - k + 1, x.shape[1]}));
    }
    default: break;
  }
  return error(e.loc, fmt::format("internal error: '{}' is not a DSP operator", e.name));
}

// add, sub, mul, max, min. A literal operand takes the other operand's element type
// (and is broadcast over it when that is an array); two literals are both i32.
OptType Sema::checkElementwise(Expr& e, Builtin b) {
  Expr &lhs = *e.args[0], &rhs = *e.args[1];
  OptType l = check(lhs), r = check(rhs);
  if (!l || !r) return std::nullopt;
  const std::string op = label(e);
  bool litL = lhs.kind == ExprKind::IntLit, litR = rhs.kind == ExprKind::IntLit;
  if (litL != litR) {
    Expr& lit = litL ? lhs : rhs;
    const ValueType& other = litL ? *r : *l;
    int64_t lo = -(int64_t{1} << (other.bits - 1)), hi = (int64_t{1} << (other.bits - 1)) - 1;
    if (lit.intValue < lo || lit.intValue > hi)
      return error(lit.loc, fmt::format("{}: literal {} does not fit in i{}, the element type of the other operand",
                                        op, lit.intValue, other.bits));
    lit.type = ValueType{other.bits, {}};
    if (!other.isScalar()) e.broadcastLiteral = litL ? 0 : 1;
    ValueType res = other;
    if (b == Builtin::Mul) res.bits = 32;
    return result(e, res);
  }
  if (l->shape != r->shape)
    return error(e.loc, fmt::format("{}: operands must have the same shape, got {} and {}", op, l->str(), r->str()));
  ValueType res = *l;
  res.bits = b == Builtin::Mul ? 32 : std::max(l->bits, r->bits);
  return result(e, res);
}

OptType Sema::checkHigherOrder(Expr& e, Builtin b) {
  const std::string op = label(e);
  Expr& lam = *e.args.back();
  const size_t nvals = static_cast<size_t>(builtinInfo(b).valueArgs);
  std::vector<ValueType> v;
  bool ok = true;
  for (size_t i = 0; i < nvals; ++i) {
    OptType t = check(*e.args[i]);
    if (t) v.push_back(*t);
    else ok = false;
  }
  if (!ok) return std::nullopt;
  if (lam.kind != ExprKind::Lambda)
    return error(lam.loc, fmt::format("{}: last argument must be a lambda (usage: {})", op, builtinInfo(b).signature));
  auto needArray = [&](size_t i) -> bool {
    if (!v[i].isScalar()) return true;
    error(e.args[i]->loc, fmt::format("{}: expects an array, got {}", op, v[i].str()));
    return false;
  };
  switch (b) {
    case Builtin::Map: {
      if (!needArray(0)) return std::nullopt;
      OptType body = checkLambda(lam, op, {v[0].elem()});
      if (!body) return std::nullopt;
      ValueType r{body->bits, {v[0].shape[0]}};
      r.shape.insert(r.shape.end(), body->shape.begin(), body->shape.end());
      return result(e, r);
    }
    case Builtin::Zip: {
      if (!needArray(0) || !needArray(1)) return std::nullopt;
      if (v[0].shape[0] != v[1].shape[0])
        return error(e.loc, fmt::format("{}: arrays have different lengths: {} and {}", op, v[0].str(), v[1].str()));
      OptType body = checkLambda(lam, op, {v[0].elem(), v[1].elem()});
      if (!body) return std::nullopt;
      ValueType r{body->bits, {v[0].shape[0]}};
      r.shape.insert(r.shape.end(), body->shape.begin(), body->shape.end());
      return result(e, r);
    }
    case Builtin::Reduce: {
      if (!needArray(0)) return std::nullopt;
      const ValueType& init = v[1];
      OptType body = checkLambda(lam, op, {init, v[0].elem()});
      if (!body) return std::nullopt;
      if (*body != init)
        return error(lam.loc, fmt::format("{}: the function returns {}, but the accumulator (init) has type {}", op,
                                          body->str(), init.str()));
      return result(e, init);
    }
    default: break;
  }
  return error(e.loc, fmt::format("internal error: '{}' is not higher-order", e.name));
}

}  // namespace skeleshare::frontend::detail
