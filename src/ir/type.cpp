#include "skeleshare/ir/type.h"

namespace skeleshare::ir {

std::vector<int64_t> Type::shape() const {
  std::vector<int64_t> s;
  for (const Type* t = this; t->isArray(); t = t->elem()) s.push_back(t->length());
  return s;
}

int Type::rank() const {
  int r = 0;
  for (const Type* t = this; t->isArray(); t = t->elem()) ++r;
  return r;
}

const Type* Type::scalar() const {
  const Type* t = this;
  while (t->isArray()) t = t->elem();
  return t;
}

bool Type::isIntTensor() const { return scalar()->isInt(); }

std::string Type::str() const {
  switch (kind_) {
    case TypeKind::Int:
      return "i" + std::to_string(bits_);
    case TypeKind::Array: {
      std::string s = scalar()->str();
      for (int64_t d : shape()) s += "[" + std::to_string(d) + "]";
      return s;
    }
    case TypeKind::Fun:
      return "(" + a_->str() + " -> " + b_->str() + ")";
    case TypeKind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < elems_.size(); ++i) s += (i ? ", " : "") + elems_[i]->str();
      if (elems_.size() == 1) s += ",";
      return s + ")";
    }
  }
  return "?";
}

}  // namespace skeleshare::ir
