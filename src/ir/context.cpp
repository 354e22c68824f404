#include "skeleshare/ir/context.h"

#include <algorithm>
#include <functional>

namespace skeleshare::ir {

namespace {
inline size_t mix(size_t h, size_t v) {
  // boost::hash_combine with a 64-bit constant.
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
}  // namespace

Context::Context() {
  // Reserve symbol 0 so that a zero-initialised symbol parameter is never a real name.
  symbols_.push_back("");
  symbolIndex_.emplace("", 0);
}

size_t Context::TypeKeyHash::operator()(const TypeKey& k) const {
  size_t h = std::hash<int>()(static_cast<int>(k.kind));
  h = mix(h, std::hash<int64_t>()(k.a));
  h = mix(h, std::hash<int64_t>()(k.b));
  for (uint32_t e : k.elems) h = mix(h, e);
  return h;
}

const Type* Context::internType(Type t) {
  // Sub-types are already interned, so a type is identified by its own fields and the
  // ids of its sub-types; no string is built (this is on the e-graph's hot path).
  TypeKey key{t.kind_, 0, 0, {}};
  switch (t.kind_) {
    case TypeKind::Int: key.a = t.bits_; break;
    case TypeKind::Array: key.a = t.length_; key.b = t.a_->id(); break;
    case TypeKind::Fun: key.a = t.a_->id(); key.b = t.b_->id(); break;
    case TypeKind::Tuple:
      for (const Type* e : t.elems_) key.elems.push_back(e->id());
      break;
  }
  auto it = typeIndex_.find(key);
  if (it != typeIndex_.end()) return it->second;
  t.id_ = static_cast<uint32_t>(types_.size());
  types_.push_back(std::make_unique<Type>(std::move(t)));
  const Type* p = types_.back().get();
  typeIndex_.emplace(std::move(key), p);
  return p;
}

const Type* Context::intType(int bits) {
  if (bits != 8 && bits != 16 && bits != 32) throw TypeError("integer width must be 8, 16 or 32");
  Type t;
  t.kind_ = TypeKind::Int;
  t.bits_ = bits;
  return internType(std::move(t));
}

const Type* Context::arrayType(int64_t length, const Type* elem) {
  if (length < 1 || length > kMaxDim)
    throw TypeError("array length " + std::to_string(length) + " out of range [1, " +
                    std::to_string(kMaxDim) + "]");
  Type t;
  t.kind_ = TypeKind::Array;
  t.length_ = length;
  t.a_ = elem;
  return internType(std::move(t));
}

const Type* Context::tensorType(std::span<const int64_t> shape, const Type* scalar) {
  const Type* t = scalar;
  for (size_t i = shape.size(); i-- > 0;) t = arrayType(shape[i], t);
  return t;
}

const Type* Context::funType(const Type* param, const Type* result) {
  Type t;
  t.kind_ = TypeKind::Fun;
  t.a_ = param;
  t.b_ = result;
  return internType(std::move(t));
}

const Type* Context::funType2(const Type* a, const Type* b, const Type* r) {
  return funType(a, funType(b, r));
}

const Type* Context::tupleType(std::span<const Type* const> elems) {
  Type t;
  t.kind_ = TypeKind::Tuple;
  t.elems_.assign(elems.begin(), elems.end());
  return internType(std::move(t));
}

int64_t Context::symbol(std::string_view name) {
  auto it = symbolIndex_.find(std::string(name));
  if (it != symbolIndex_.end()) return it->second;
  int64_t id = static_cast<int64_t>(symbols_.size());
  symbols_.emplace_back(name);
  symbolIndex_.emplace(std::string(name), id);
  return id;
}

const Term* Context::tryMake(Op op, std::span<const int64_t> params, const Type* annot,
                             std::span<const Term* const> children, std::string& error) {
  const OpInfo& info = opInfo(op);
  if (static_cast<int>(params.size()) != info.numParams) {
    error = std::string(info.name) + " takes " + std::to_string(info.numParams) +
            " static parameter(s), got " + std::to_string(params.size());
    return nullptr;
  }
  if (info.arity >= 0 && static_cast<int>(children.size()) != info.arity) {
    error = std::string(info.name) + " takes " + std::to_string(info.arity) +
            " argument(s), got " + std::to_string(children.size());
    return nullptr;
  }
  size_t h = std::hash<int>()(static_cast<int>(op));
  for (int64_t p : params) h = mix(h, std::hash<int64_t>()(p));
  h = mix(h, std::hash<const void*>()(annot));
  for (const Term* c : children) h = mix(h, std::hash<const void*>()(c));

  auto [lo, hi] = termIndex_.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    const Term* t = it->second;
    if (t->op_ == op && t->annot_ == annot && std::equal(params.begin(), params.end(), t->params_.begin(), t->params_.end()) &&
        std::equal(children.begin(), children.end(), t->children_.begin(), t->children_.end()))
      return t;
  }

  std::vector<const Type*> childTypes;
  childTypes.reserve(children.size());
  for (const Term* c : children) childTypes.push_back(c->type());
  TypeResult tr = inferType(*this, op, params, annot, childTypes);
  if (!tr.ok()) {
    error = std::move(tr.error);
    return nullptr;
  }

  Term& t = terms_.emplace_back();
  t.op_ = op;
  t.type_ = tr.type;
  t.annot_ = annot;
  t.params_.assign(params.begin(), params.end());
  t.children_.assign(children.begin(), children.end());
  t.hash_ = h;
  t.id_ = static_cast<uint32_t>(terms_.size() - 1);
  uint32_t fb = 0;
  uint64_t size = 1;
  constexpr uint64_t kSat = uint64_t{1} << 62;
  for (const Term* c : children) {
    fb = std::max(fb, c->freeBound());
    size = std::min(kSat, size + c->treeSize());
  }
  if (op == Op::Var) fb = static_cast<uint32_t>(params[0] + 1);
  if (op == Op::Lam) fb = fb > 0 ? fb - 1 : 0;
  t.freeBound_ = fb;
  t.treeSize_ = size;
  termIndex_.emplace(h, &t);
  return &t;
}

const Term* Context::make(Op op, std::span<const int64_t> params, const Type* annot,
                          std::span<const Term* const> children) {
  std::string error;
  const Term* t = tryMake(op, params, annot, children, error);
  if (!t) throw TypeError(error);
  return t;
}

const Term* Context::var(int64_t index, const Type* type) {
  int64_t p[] = {index};
  return make(Op::Var, p, type, {});
}

const Term* Context::lam(const Type* paramType, const Term* body) {
  const Term* c[] = {body};
  return make(Op::Lam, {}, paramType, c);
}

const Term* Context::lam2(const Type* a, const Type* b, const Term* body) {
  return lam(a, lam(b, body));
}

const Term* Context::app(const Term* fn, const Term* arg) {
  const Term* c[] = {fn, arg};
  return make(Op::App, {}, nullptr, c);
}

const Term* Context::input(std::string_view name, const Type* type) {
  int64_t p[] = {symbol(name)};
  return make(Op::Input, p, type, {});
}

const Term* Context::constant(int64_t value, const Type* intType) {
  int64_t p[] = {value};
  return make(Op::Const, p, intType, {});
}

const Term* Context::op(Op o, std::initializer_list<const Term*> children,
                        std::initializer_list<int64_t> params) {
  return make(o, std::span<const int64_t>(params.begin(), params.size()), nullptr,
              std::span<const Term* const>(children.begin(), children.size()));
}

const Term* Context::op(Op o, std::span<const Term* const> children,
                        std::span<const int64_t> params) {
  return make(o, params, nullptr, children);
}

const Decl* Module::findDecl(std::string_view name) const {
  for (const Decl& d : decls)
    if (d.name == name) return &d;
  return nullptr;
}

const Term* Module::root(Context& ctx) const {
  if (outputs.size() == 1) return outputs[0].term;
  std::vector<const Term*> terms;
  for (const Output& o : outputs) terms.push_back(o.term);
  return ctx.op(Op::Tuple, terms);
}

}  // namespace skeleshare::ir
