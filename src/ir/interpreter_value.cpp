// Runtime values, environments and the checks that tie values to types.

#include <fmt/format.h>

#include "interpreter_impl.h"

namespace skeleshare::ir {

namespace {
const char* kindName(Value::Kind k) {
  switch (k) {
    case Value::Kind::Tensor: return "a tensor";
    case Value::Kind::Closure: return "a function";
    case Value::Kind::Tuple: return "a tuple";
  }
  return "?";
}
}  // namespace

Value::Value(Tensor t) : v_(std::make_shared<const Tensor>(std::move(t))) {}

Value Value::closure(const Term* lam, Env env) {
  Value v;
  v.v_ = std::make_shared<const Closure>(Closure{lam, std::move(env)});
  return v;
}

Value Value::tuple(std::vector<Value> elems) {
  Value v;
  v.v_ = std::make_shared<const std::vector<Value>>(std::move(elems));
  return v;
}

const Tensor& Value::tensor() const {
  if (!isTensor()) throw std::runtime_error(std::string("expected a tensor, got ") + kindName(kind()));
  return *std::get<0>(v_);
}

const Closure& Value::closure() const {
  if (!isClosure()) throw std::runtime_error(std::string("expected a function, got ") + kindName(kind()));
  return *std::get<1>(v_);
}

const std::vector<Value>& Value::elems() const {
  if (!isTuple()) throw std::runtime_error(std::string("expected a tuple, got ") + kindName(kind()));
  return *std::get<2>(v_);
}

std::string Value::describe() const {
  switch (kind()) {
    case Kind::Tensor: return tensor().describe();
    case Kind::Closure: return "<closure " + closure().lam->type()->str() + ">";
    case Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < elems().size(); ++i) s += (i ? ", " : "") + elems()[i].describe();
      return s + ")";
    }
  }
  return "?";
}

Env extend(const Env& env, Value v) { return std::make_shared<const EnvNode>(EnvNode{std::move(v), env}); }

const Value& lookup(const Env& env, int64_t index) {
  const EnvNode* n = env.get();
  for (int64_t i = 0; n && i < index; ++i) n = n->next.get();
  if (!n || index < 0) throw std::runtime_error(fmt::format("variable %{} is not bound", index));
  return n->value;
}

[[noreturn]] void evalError(const Term* t, const std::string& msg) {
  throw std::runtime_error(fmt::format("evaluating {}: {}", opName(t->op()), msg));
}

std::vector<int64_t> shapeOf(const Type* type) {
  std::vector<int64_t> s;
  for (const Type* t = type; t->isArray(); t = t->elem()) s.push_back(t->length());
  return s;
}

Tensor zeroTensor(const Term* where, const Type* type) {
  if (!type->isIntTensor())
    evalError(where, fmt::format("values of type {} (arrays of non-integers) are not supported by the "
                                 "interpreter", type->str()));
  return Tensor(type->scalar()->bits(), shapeOf(type));
}

namespace {
/// True when the tensor has exactly the width and shape of `type`.
bool tensorHasType(const Tensor& t, const Type* type) {
  const Type* ty = type;
  for (size_t d = 0; d < t.rank(); ++d) {
    if (!ty->isArray() || ty->length() != t.dim(d)) return false;
    ty = ty->elem();
  }
  return ty->isInt() && ty->bits() == t.bits();
}
}  // namespace

void checkValue(const Term* where, const Value& v, const Type* type) {
  bool ok = false;
  switch (v.kind()) {
    case Value::Kind::Tensor: ok = tensorHasType(v.tensor(), type); break;
    case Value::Kind::Closure: ok = type->isFun(); break;
    case Value::Kind::Tuple:
      ok = type->isTuple() && type->elems().size() == v.elems().size();
      for (size_t i = 0; ok && i < v.elems().size(); ++i) checkValue(where, v.elems()[i], type->elems()[i]);
      break;
  }
  if (!ok)
    throw std::logic_error(fmt::format("interpreter bug: {} produced {} for type {}", opName(where->op()),
                                       v.describe(), type->str()));
}

void checkTensorType(const Tensor& t, const Type* type, const std::string& what) {
  if (!type->isIntTensor())
    throw std::runtime_error(fmt::format("{}: declared type {} is not an integer tensor", what, type->str()));
  if (!tensorHasType(t, type))
    throw std::runtime_error(fmt::format("{}: expected {}, got {}", what, type->str(), t.describe()));
  const int bits = t.bits();
  const int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i] < lo || t[i] > hi)
      throw std::runtime_error(fmt::format("{}: element {} is {}, which does not fit i{}", what, i, t[i], bits));
}

void addWrapped32(Tensor& acc, const Tensor& x) {
  if (acc.shape() != x.shape())
    throw std::logic_error("interpreter bug: summing " + x.describe() + " into " + acc.describe());
  int32_t* a = acc.data();
  const int32_t* b = x.data();
  for (size_t i = 0; i < acc.size(); ++i)
    a[i] = static_cast<int32_t>(static_cast<uint32_t>(a[i]) + static_cast<uint32_t>(b[i]));
}

}  // namespace skeleshare::ir
