#include "skeleshare/egraph/subst.h"

#include <algorithm>
#include <stdexcept>

#include "skeleshare/egraph/errors.h"

namespace skeleshare::egraph {

namespace {
const char* kindName(VarKind k) {
  switch (k) {
    case VarKind::Class: return "class";
    case VarKind::Int: return "integer";
    case VarKind::Type: return "type";
  }
  return "?";
}
}  // namespace

uint32_t VarTable::declare(const std::string& name, VarKind kind) {
  if (auto s = find(name)) {
    if (kinds_[*s] != kind)
      throw PatternError("variable " + name + " used both as a " + kindName(kinds_[*s]) +
                         " variable and as a " + kindName(kind) + " variable");
    return *s;
  }
  names_.push_back(name);
  kinds_.push_back(kind);
  return static_cast<uint32_t>(names_.size() - 1);
}

std::optional<uint32_t> VarTable::find(std::string_view name) const {
  // Rules have a handful of variables: a linear scan beats a map.
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<uint32_t>(i);
  return std::nullopt;
}

uint32_t VarTable::slot(std::string_view name, VarKind kind) const {
  auto s = find(name);
  if (!s) throw PatternError("unknown variable " + std::string(name));
  if (kinds_[*s] != kind)
    throw PatternError("variable " + std::string(name) + " is a " + kindName(kinds_[*s]) +
                       " variable, not a " + kindName(kind) + " variable");
  return *s;
}

Subst::Subst(size_t slots) : n_(slots) {
  if (words() > kInlineWords) heap_ = std::make_unique<uint64_t[]>(words());
}

void Subst::copyFrom(const Subst& o) {
  if (o.words() > kInlineWords) {
    if (!heap_ || words() != o.words()) heap_ = std::make_unique<uint64_t[]>(o.words());
  } else {
    heap_.reset();
  }
  n_ = o.n_;
  std::copy(o.data(), o.data() + o.words(), data());
}

void Subst::moveFrom(Subst& o) noexcept {
  n_ = o.n_;
  heap_ = std::move(o.heap_);
  if (!heap_) std::copy(o.inline_, o.inline_ + kInlineWords, inline_);
  o.n_ = 0;
}

bool Subst::operator==(const Subst& o) const {
  return n_ == o.n_ && std::equal(data(), data() + words(), o.data());
}

uint64_t Subst::get(uint32_t slot) const {
  if (slot >= n_ || !bound(slot))
    throw std::logic_error("substitution: slot " + std::to_string(slot) + " is not bound");
  return data()[slot];
}

std::string Subst::str(const VarTable& vars) const {
  std::string s = "{";
  bool first = true;
  for (uint32_t i = 0; i < n_ && i < vars.size(); ++i) {
    if (!bound(i)) continue;
    s += (first ? "" : ", ") + vars.name(i) + " = ";
    first = false;
    switch (vars.kind(i)) {
      case VarKind::Class: s += "e" + std::to_string(cls(i)); break;
      case VarKind::Int: s += std::to_string(integer(i)); break;
      case VarKind::Type: s += type(i)->str(); break;
    }
  }
  return s + "}";
}

}  // namespace skeleshare::egraph
