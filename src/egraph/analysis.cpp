#include "skeleshare/egraph/analysis.h"

#include <bit>

#include "skeleshare/ir/type_rules.h"

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

size_t TypeInference::KeyHash::operator()(const Key& k) const {
  uint64_t h = static_cast<uint64_t>(k.op) | (uint64_t{k.np} << 8) | (uint64_t{k.nk} << 16);
  h ^= (k.annot ? k.annot->id() + 1 : 0) * 0x9e3779b97f4a7c15ULL;
  for (uint64_t w : k.words) {
    h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
  }
  return static_cast<size_t>(h ^ (h >> 29));
}

const ir::Type* TypeInference::infer(ir::Op op, std::span<const int64_t> params,
                                     const ir::Type* annot, std::span<const ir::Type* const> kids,
                                     std::string& error) {
  bool cacheable = params.size() + kids.size() <= kMaxWords;
  Key key;
  if (cacheable) {
    key.op = op;
    key.np = static_cast<uint8_t>(params.size());
    key.nk = static_cast<uint8_t>(kids.size());
    key.annot = annot;
    size_t w = 0;
    for (int64_t p : params) key.words[w++] = static_cast<uint64_t>(p);
    // Types are hash-consed: their ids identify them.
    for (const ir::Type* t : kids) key.words[w++] = t ? t->id() : UINT64_MAX;
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  ir::TypeResult tr = ir::inferType(*ctx_, op, params, annot, kids);
  if (!tr.ok()) {
    error = std::move(tr.error);
    return nullptr;
  }
  if (cacheable) cache_.emplace(key, tr.type);
  return tr.type;
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
