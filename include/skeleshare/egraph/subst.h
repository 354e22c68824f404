#pragma once
// Variables of a rule and their values: VarTable names the slots, Subst holds a value per
// slot (a class id, an integer or a type), Match is one result of a search.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skeleshare/egraph/ids.h"
#include "skeleshare/ir/type.h"

namespace skeleshare::egraph {

enum class VarKind : uint8_t { Class, Int, Type };

/// The variables of a rule (its left- and right-hand side and whatever its condition binds),
/// one slot each, numbered in order of first appearance.
class VarTable {
 public:
  /// The slot of `name`, declaring it with `kind` when new. Throws PatternError when the
  /// name is already declared with another kind.
  uint32_t declare(const std::string& name, VarKind kind);
  std::optional<uint32_t> find(std::string_view name) const;
  /// The slot of a declared variable of that kind; throws PatternError otherwise.
  uint32_t slot(std::string_view name, VarKind kind) const;
  uint32_t classSlot(std::string_view name) const { return slot(name, VarKind::Class); }
  uint32_t intSlot(std::string_view name) const { return slot(name, VarKind::Int); }
  uint32_t typeSlot(std::string_view name) const { return slot(name, VarKind::Type); }

  size_t size() const { return names_.size(); }
  const std::string& name(uint32_t slot) const { return names_[slot]; }
  VarKind kind(uint32_t slot) const { return kinds_[slot]; }

 private:
  std::vector<std::string> names_;
  std::vector<VarKind> kinds_;
};

/// Values of the slots of a VarTable. Reading an unbound slot throws std::logic_error.
/// Small substitutions (up to kInlineSlots slots) live inline: searches create one per
/// match, so they should not allocate.
class Subst {
 public:
  static constexpr size_t kInlineSlots = 5;

  Subst() = default;
  explicit Subst(size_t slots);
  Subst(const Subst& o) { copyFrom(o); }
  Subst(Subst&& o) noexcept { moveFrom(o); }
  Subst& operator=(const Subst& o) {
    if (this != &o) copyFrom(o);
    return *this;
  }
  Subst& operator=(Subst&& o) noexcept {
    if (this != &o) moveFrom(o);
    return *this;
  }
  ~Subst() = default;

  size_t size() const { return n_; }
  bool bound(uint32_t slot) const { return (data()[n_ + slot / 64] >> (slot % 64)) & 1; }

  ClassId cls(uint32_t slot) const { return static_cast<ClassId>(get(slot)); }
  int64_t integer(uint32_t slot) const { return static_cast<int64_t>(get(slot)); }
  const ir::Type* type(uint32_t slot) const { return reinterpret_cast<const ir::Type*>(get(slot)); }

  void setClass(uint32_t slot, ClassId c) { set(slot, c); }
  void setInt(uint32_t slot, int64_t v) { set(slot, static_cast<uint64_t>(v)); }
  void setType(uint32_t slot, const ir::Type* t) { set(slot, reinterpret_cast<uint64_t>(t)); }
  void unbind(uint32_t slot) {
    data()[slot] = 0;
    data()[n_ + slot / 64] &= ~(uint64_t{1} << (slot % 64));
  }
  /// The raw value of a slot (0 when unbound), for hashing and comparing.
  uint64_t raw(uint32_t slot) const { return data()[slot]; }

  bool operator==(const Subst& o) const;

  /// "{?x = e3, ?n = 64, ?T = i8[4]}" for the bound slots.
  std::string str(const VarTable& vars) const;

 private:
  static constexpr size_t kInlineWords = kInlineSlots + 1;
  size_t words() const { return n_ + (n_ + 63) / 64; }
  const uint64_t* data() const { return heap_ ? heap_.get() : inline_; }
  uint64_t* data() { return heap_ ? heap_.get() : inline_; }
  uint64_t get(uint32_t slot) const;
  void set(uint32_t slot, uint64_t v) {
    data()[slot] = v;
    data()[n_ + slot / 64] |= uint64_t{1} << (slot % 64);
  }
  void copyFrom(const Subst& o);
  void moveFrom(Subst& o) noexcept;

  size_t n_ = 0;
  uint64_t inline_[kInlineWords] = {};
  std::unique_ptr<uint64_t[]> heap_;  // n_ values, then the bound bits, when they do not fit inline
};

/// One match of a rule: the class the left-hand side matched and the bindings.
struct Match {
  ClassId root = kNoClass;
  Subst subst;
};

}  // namespace skeleshare::egraph
