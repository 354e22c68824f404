#include "skeleshare/egraph/pattern.h"

#include "skeleshare/egraph/errors.h"

namespace skeleshare::egraph {

// ---- IntExpr ---------------------------------------------------------------------

IntExpr IntExpr::var(std::string name) {
  if (name.empty()) throw PatternError("integer variable without a name");
  IntExpr e;
  e.kind_ = Kind::Var;
  e.name_ = std::move(name);
  return e;
}

IntExpr IntExpr::bin(Kind k, IntExpr a, IntExpr b) {
  IntExpr e;
  e.kind_ = k;
  e.args_ = std::make_shared<const std::pair<IntExpr, IntExpr>>(std::move(a), std::move(b));
  return e;
}

std::string IntExpr::str() const {
  auto operand = [](const IntExpr& e) {
    return e.isLit() || e.isVar() ? e.str() : "(" + e.str() + ")";
  };
  const char* sym = "";
  switch (kind_) {
    case Kind::Lit: return std::to_string(value_);
    case Kind::Var: return name_;
    case Kind::Add: sym = " + "; break;
    case Kind::Sub: sym = " - "; break;
    case Kind::Mul: sym = "*"; break;
    case Kind::Div: sym = "/"; break;
    case Kind::Mod: sym = " % "; break;
  }
  return operand(lhs()) + sym + operand(rhs());
}

// ---- TypePattern -----------------------------------------------------------------

TypePattern TypePattern::any(std::string var) {
  TypePattern t;
  t.kind_ = Kind::Any;
  t.var_ = std::move(var);
  return t;
}

TypePattern TypePattern::scalar(std::string var) {
  TypePattern t;
  t.kind_ = Kind::Scalar;
  t.var_ = std::move(var);
  return t;
}

TypePattern TypePattern::intType(int bits) {
  if (bits != 8 && bits != 16 && bits != 32)
    throw PatternError("integer type pattern of width " + std::to_string(bits));
  TypePattern t;
  t.kind_ = Kind::Int;
  t.bits_ = bits;
  return t;
}

TypePattern TypePattern::array(IntExpr length, TypePattern elem) {
  TypePattern t;
  t.kind_ = Kind::Array;
  t.length_ = std::move(length);
  t.subs_.push_back(std::move(elem));
  return t;
}

TypePattern TypePattern::tensor(TypePattern scalar, std::vector<IntExpr> dims) {
  TypePattern t = std::move(scalar);
  for (size_t i = dims.size(); i-- > 0;) t = array(std::move(dims[i]), std::move(t));
  return t;
}

TypePattern TypePattern::fun(TypePattern param, TypePattern result) {
  TypePattern t;
  t.kind_ = Kind::Fun;
  t.subs_.push_back(std::move(param));
  t.subs_.push_back(std::move(result));
  return t;
}

TypePattern TypePattern::fun2(TypePattern a, TypePattern b, TypePattern result) {
  return fun(std::move(a), fun(std::move(b), std::move(result)));
}

TypePattern TypePattern::tuple(std::vector<TypePattern> elems) {
  TypePattern t;
  t.kind_ = Kind::Tuple;
  t.subs_ = std::move(elems);
  return t;
}

TypePattern TypePattern::of(const ir::Type* t) {
  if (!t) throw PatternError("TypePattern::of(null)");
  switch (t->kind()) {
    case ir::TypeKind::Int: return intType(t->bits());
    case ir::TypeKind::Array: return array(t->length(), of(t->elem()));
    case ir::TypeKind::Fun: return fun(of(t->param()), of(t->result()));
    case ir::TypeKind::Tuple: {
      std::vector<TypePattern> es;
      for (const ir::Type* e : t->elems()) es.push_back(of(e));
      return tuple(std::move(es));
    }
  }
  throw PatternError("TypePattern::of: unknown type kind");
}

std::string TypePattern::str() const {
  switch (kind_) {
    case Kind::Any: return var_.empty() ? "_" : var_;
    case Kind::Scalar: return var_.empty() ? "int" : var_;
    case Kind::Int: return "i" + std::to_string(bits_);
    case Kind::Array: {
      // Print like ir::Type: the scalar first, then the dimensions outermost first.
      std::string dims;
      const TypePattern* t = this;
      for (; t->kind_ == Kind::Array; t = &t->subs_[0]) dims += "[" + t->length_->str() + "]";
      return t->str() + dims;
    }
    case Kind::Fun: return "(" + subs_[0].str() + " -> " + subs_[1].str() + ")";
    case Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < subs_.size(); ++i) s += (i ? ", " : "") + subs_[i].str();
      return s + (subs_.size() == 1 ? ",)" : ")");
    }
  }
  return "?";
}

// ---- Pattern -----------------------------------------------------------------------

Pattern Pattern::cls(std::string var) {
  if (var.empty()) throw PatternError("class variable without a name");
  Pattern p;
  p.kind_ = Kind::ClassVar;
  p.var_ = std::move(var);
  return p;
}

Pattern Pattern::cls(std::string var, TypePattern type) {
  Pattern p = cls(std::move(var));
  p.type_ = std::move(type);
  return p;
}

Pattern Pattern::node(ir::Op op, std::vector<Pattern> children, std::vector<IntExpr> params,
                      std::optional<TypePattern> annot) {
  const ir::OpInfo& info = ir::opInfo(op);
  if (static_cast<int>(params.size()) != info.numParams)
    throw PatternError(std::string(info.name) + " pattern needs " + std::to_string(info.numParams) +
                       " parameter(s), got " + std::to_string(params.size()));
  if (info.arity >= 0 && static_cast<int>(children.size()) != info.arity)
    throw PatternError(std::string(info.name) + " pattern needs " + std::to_string(info.arity) +
                       " child(ren), got " + std::to_string(children.size()));
  Pattern p;
  p.kind_ = Kind::Node;
  p.op_ = op;
  p.children_ = std::move(children);
  p.params_ = std::move(params);
  p.annot_ = std::move(annot);
  return p;
}

Pattern Pattern::var(IntExpr index, TypePattern type) {
  return node(ir::Op::Var, {}, {std::move(index)}, std::move(type));
}

Pattern Pattern::lam(TypePattern paramType, Pattern body) {
  return node(ir::Op::Lam, {std::move(body)}, {}, std::move(paramType));
}

Pattern Pattern::lam2(TypePattern a, TypePattern b, Pattern body) {
  return lam(std::move(a), lam(std::move(b), std::move(body)));
}

Pattern Pattern::input(IntExpr symbol, TypePattern type) {
  return node(ir::Op::Input, {}, {std::move(symbol)}, std::move(type));
}

Pattern Pattern::constant(IntExpr value, TypePattern type) {
  return node(ir::Op::Const, {}, {std::move(value)}, std::move(type));
}

Pattern Pattern::typed(TypePattern type) const {
  Pattern p = *this;
  p.type_ = std::move(type);
  return p;
}

std::string Pattern::str() const {
  std::string s;
  if (kind_ == Kind::ClassVar) {
    s = var_;
  } else if (op_ == ir::Op::Lam) {
    s = "\\" + (annot_ ? annot_->str() : std::string("_")) + ". " + children_[0].str();
  } else if (op_ == ir::Op::Var) {
    s = "%" + params_[0].str() + (annot_ ? " : " + annot_->str() : "");
  } else {
    s = std::string(ir::opName(op_));
    if (!params_.empty()) {
      s += '[';
      for (size_t i = 0; i < params_.size(); ++i) s += (i ? ", " : "") + params_[i].str();
      s += ']';
    }
    if (!children_.empty()) {
      s += '(';
      for (size_t i = 0; i < children_.size(); ++i) s += (i ? ", " : "") + children_[i].str();
      s += ')';
    }
    if (annot_) s += " : " + annot_->str();
  }
  if (type_) s = (kind_ == Kind::ClassVar ? s : "(" + s + ")") + " : " + type_->str();
  return s;
}

}  // namespace skeleshare::egraph
