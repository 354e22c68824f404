#include "skeleshare/egraph/analysis.h"

#include <bit>

namespace skeleshare::egraph {

FreeVars FreeVars::var(int64_t index) {
  if (index < 0 || index >= kExact) return FreeVars(kOverflowBit);
  return FreeVars(uint64_t{1} << index);
}

FreeVars FreeVars::underBinder() const {
  return FreeVars(((bits_ & ~kOverflowBit) >> 1) | (bits_ & kOverflowBit));
}

bool FreeVars::contains(int64_t index) const {
  if (index < 0) return false;
  if (index >= kExact) return overflow();
  return (bits_ >> index) & 1;
}

uint32_t FreeVars::bound() const {
  if (overflow()) return 64;
  return static_cast<uint32_t>(64 - std::countl_zero(bits_));
}

std::string FreeVars::str() const {
  std::string s = "{";
  bool first = true;
  for (int i = 0; i < kExact; ++i) {
    if (!((bits_ >> i) & 1)) continue;
    s += (first ? "" : ", ") + std::to_string(i);
    first = false;
  }
  if (overflow()) s += first ? ">=63" : ", >=63";
  return s + "}";
}

void collectDimensions(const ir::Type* t, std::vector<int64_t>& out) {
  if (!t) return;
  switch (t->kind()) {
    case ir::TypeKind::Int:
      return;
    case ir::TypeKind::Array:
      out.push_back(t->length());
      collectDimensions(t->elem(), out);
      return;
    case ir::TypeKind::Fun:
      collectDimensions(t->param(), out);
      collectDimensions(t->result(), out);
      return;
    case ir::TypeKind::Tuple:
      for (const ir::Type* e : t->elems()) collectDimensions(e, out);
      return;
  }
}

}  // namespace skeleshare::egraph
