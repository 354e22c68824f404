#pragma once
// E-class analyses besides the type: the free De Bruijn indices of a class, and the
// global index of array dimensions present in the e-graph.
//
// Type analysis: make = ir::inferType on the children's class types (the same rule that
// types ir::Terms); merge = the types must be equal (a mismatch throws). Free indices:
// make = {i} for Var[i], the body's set shifted down by one (index 0 dropped) for Lam, the
// union of the children's sets otherwise; merge = union.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "skeleshare/egraph/enode.h"
#include "skeleshare/ir/context.h"
#include "skeleshare/ir/type.h"

namespace skeleshare::egraph {

/// A set of free De Bruijn indices: a bitset of indices 0..62 and one bit standing for
/// "some index >= 63" (kept conservatively under binders).
class FreeVars {
 public:
  static constexpr int kExact = 63;

  FreeVars() = default;
  static FreeVars var(int64_t index);
  /// The free indices of `\. body` given the body's: index 0 is bound, the rest shift down.
  FreeVars underBinder() const;
  FreeVars operator|(FreeVars o) const { return FreeVars(bits_ | o.bits_); }
  bool operator==(const FreeVars&) const = default;

  bool closed() const { return bits_ == 0; }
  /// True when `index` may be free (always true for indices >= 63 if the overflow bit is set).
  bool contains(int64_t index) const;
  /// One more than the largest free index (0 when closed); saturates at 64 on overflow.
  uint32_t bound() const;
  bool overflow() const { return (bits_ & kOverflowBit) != 0; }
  uint64_t bits() const { return bits_; }
  /// "{0, 2}", "{}" or "{0, >=63}".
  std::string str() const;

 private:
  static constexpr uint64_t kOverflowBit = uint64_t{1} << 63;
  explicit FreeVars(uint64_t b) : bits_(b) {}
  uint64_t bits_ = 0;
};

/// The type analysis's make: ir::inferType, memoised. The rule is a pure function of
/// (op, params, annotation, child types), and e-graphs create the same combination over and
/// over (every rewrite re-types its right-hand side), while inferType interns its result
/// type through string keys. Successful results of small keys are cached.
class TypeInference {
 public:
  explicit TypeInference(ir::Context& ctx) : ctx_(&ctx) {}
  /// The type, or null with `error` set.
  const ir::Type* infer(ir::Op op, std::span<const int64_t> params, const ir::Type* annot,
                        std::span<const ir::Type* const> kids, std::string& error);
  size_t cacheSize() const { return cache_.size(); }

 private:
  static constexpr size_t kMaxWords = 6;
  struct Key {
    ir::Op op{};
    uint8_t np = 0, nk = 0;
    const ir::Type* annot = nullptr;
    std::array<uint64_t, kMaxWords> words{};
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  ir::Context* ctx_;
  std::unordered_map<Key, const ir::Type*, KeyHash> cache_;
};

/// Appends every array length that occurs in `t` (arrays, function parameters and
/// results, tuple elements) to `out`, unsorted and with repetitions.
void collectDimensions(const ir::Type* t, std::vector<int64_t>& out);

}  // namespace skeleshare::egraph
