#pragma once
// Internal to the lowering: symbolic values and the lowering state shared by lower.cpp
// (evaluator, element-wise fusion, buffers) and lower_skeletons.cpp (templates).

#include <optional>
#include <map>
#include <memory>
#include <variant>
#include <vector>

#include "skeleshare/ir/context.h"
#include "skeleshare/lower/lower.h"
#include "skeleshare/lower/mir.h"

namespace skeleshare::lower::detail {

/// A tensor readable from a buffer through a view (an address generator in view form whose
/// counters are the tensor's dimensions). The first `ctx` dimensions are the loops of the
/// enclosing skeletons (e.g. Conv's output position while lowering its function).
struct View {
  int buffer = -1;
  AddrGen gen;
  size_t ctx = 0;
  std::vector<int64_t> shape() const;
};

/// A value computed by node `node` of the open unit `unit`; `layout` maps the node's
/// elements (its counters) to the coordinates of the logical tensor (its space); masked
/// elements are padding lanes, dropped when written.
struct Stream {
  size_t unit = 0;
  uint32_t node = 0;
  AddrGen layout;
  size_t ctx = 0;
  /// Set by a Transpose of the computed value: its layout before it. A consumer that
  /// reads the value (asView) gets it written in that layout and reads it through a
  /// transposed view, as the cost model's oracle measures a read through a Transpose; a
  /// value written as it is (an output) keeps the transposed layout.
  std::optional<AddrGen> beforeTranspose;
  size_t transposedAt = 0;  // the transposed space dimensions: this one and the next
};

struct Scalar {
  int64_t value = 0;
  int bits = 32;
};

/// How a Read reuses what it reads (reuse.cpp): the vector counters its access does not
/// depend on are broadcast (their positions among the vector counters, outermost first),
/// and the runs of adjacent stream counters it does not depend on ([first, last) counter
/// positions, outermost first) are replayed from on-chip buffers of `bits` in all.
struct ReusePlan {
  std::vector<size_t> broadcast;
  std::vector<std::pair<size_t, size_t>> repeats;
  int64_t bits = 0;
};
/// The reuse of a read of `bits`-bit elements through `gen` whose replay buffers fit
/// `budgetBits` (runs decided innermost first; a run whose block does not fit is read again).
ReusePlan planReuse(const AddrGen& gen, int bits, int64_t budgetBits);
/// Adds the read with the plan's Repeat and Broadcast nodes (and SplitStm to restore a run
/// of several counters); the last node has the type of the plain read.
uint32_t readWithReuse(UnitBuilder& b, int buffer, AddrGen gen, const ReusePlan& plan);

struct Fun;
using Sym = std::variant<View, Stream, Scalar, std::shared_ptr<const Fun>>;
using Env = std::vector<Sym>;  // %0 is the back

struct Fun {
  const ir::Term* lam = nullptr;
  Env env;
  int let = -1;  // >= 0: (a partial application of) the let-bound shared function `let`
};

class Lowerer {
 public:
  Lowerer(ir::Context& ctx, const LowerOptions& opt) : ctx_(ctx), opt_(opt) {}
  Program run(const ir::Module& module);

  // ---- used by the templates ----
  Sym eval(const ir::Term* t, const Env& env);
  Sym apply(const Sym& fn, const Sym& arg);
  View asView(const Sym& s);
  size_t newUnit(const std::string& name);
  /// The units created so far: the index the next newUnit returns.
  size_t unitCount() const { return open_.size(); }
  UnitBuilder builder(size_t unit);
  /// Node `node` of unit `u` as the stream of the value it computes: its counters are the
  /// value's dimensions, in order (a unit of its own: a pool, a fold, a merge read back).
  Stream nodeStream(size_t u, uint32_t node, size_t ctx);
  /// ParallelDot[P] (parts = 0) or ParallelPartialDot[P, parts] on ctx x M x N views, or
  /// on ctx x M x parts x (N/parts) views (a partial dot whose chunks are pre-split).
  /// `merged`: a MergePartialSum sums the chunks at once, so which columns form a chunk is
  /// the template's choice (it interleaves them: each step reads K contiguous columns).
  Stream dotTemplate(View a, View b, int64_t p, int64_t parts, bool merged, const std::string& name);
  Sym skeleton(const ir::Term* t, const Env& env);
  Sym dataTransform(const ir::Term* t, const Env& env);
  Sym parallelConv(const ir::Term* t, const Env& env);
  Sym mergePartialSum(const ir::Term* t, const Env& env);
  /// Context loop `pos` is a summed tile loop (TiledMv, TiledMmK, TiledConvICH): the dot
  /// templates below it accumulate over it.
  bool summedAt(size_t pos) const { return pos < ctxSummed_.size() && ctxSummed_[pos]; }
  /// Marks context loop `pos` (and drops the marks of deeper loops) for the lifetime of the
  /// returned guard.
  struct CtxMark {
    Lowerer& l;
    size_t pos;
    ~CtxMark() { l.ctxSummed_.resize(pos); }
  };
  CtxMark markCtx(size_t pos, bool summed) {
    ctxSummed_.resize(pos, false);
    ctxSummed_.push_back(summed);
    return CtxMark{*this, pos};
  }
  /// Throws when an operator that is not a dot product would see a summed tile loop.
  void requireNoPendingSum(size_t ctx, const char* what) const;
  const LowerOptions& options() const { return opt_; }

 private:
  Sym evalUncached(const ir::Term* t, const Env& env);
  Sym elementwise(const ir::Term* t, const Env& env);
  Sym binary(Prim p, std::vector<int64_t> params, const Sym& a, const Sym& b);
  Sym unary(const Sym& x, const std::vector<std::pair<Prim, int64_t>>& chain);
  Sym reshape(const ir::Term* t, const Env& env);
  Sym maxPool(const ir::Term* t, const Env& env);
  Sym zipWith(const ir::Term* t, const Env& env);
  Sym reduce(const ir::Term* t, const Env& env);
  Stream toStream(const View& v, const std::string& name);
  Stream openStream(const Sym& s);
  uint32_t operandIn(const Stream& base, const Sym& other);
  View materialize(const Stream& s, const std::string& name, Role role);
  void countUses(const ir::Term* root);
  Sym let(const ir::Term* t, const Env& env);
  /// Makes the units created since `firstUnit` (and not already calls of a nested let)
  /// calls of `let`'s instances: the k-th such unit of a call is a call of part k.
  void markCalls(int let, size_t firstUnit);
  Unit& unitAt(size_t openIndex);

  ir::Context& ctx_;
  LowerOptions opt_;
  Program prog_;
  std::vector<Unit> open_;
  std::vector<bool> closed_;
  std::map<const ir::Term*, int> uses_;
  /// Values computed once and read by every use: a term used more than once, keyed by
  /// the let-bound shared functions its free variables name (empty for a closed term).
  /// The key holds the functions themselves, so that an address is never reused.
  using MemoKey = std::pair<const ir::Term*, std::vector<std::shared_ptr<const Fun>>>;
  std::map<MemoKey, View> memo_;
  /// The memo key of `t` in `env`, or nullopt when a free variable is not a shared
  /// function (a lambda parameter, whose value differs between applications).
  std::optional<MemoKey> memoKey(const ir::Term* t, const Env& env) const;
  int tmpCount_ = 0;
  std::vector<bool> ctxSummed_;
  const ir::Term* mergedPartialDot_ = nullptr;  // the partial dot whose chunks the enclosing merge sums
  std::vector<size_t> placed_;                  // open unit -> index in prog_.units (if closed)
  std::vector<const ir::Term*> lets_;           // let id -> the bound value
  std::map<std::pair<int, size_t>, int> instanceOf_;  // (let, part) -> instance
};

/// `gen` (view form, counters = the logical tensor) read in the element order of `layout`.
AddrGen compose(const AddrGen& gen, const AddrGen& layout);
/// The layout of a node whose counters are exactly the logical tensor's dimensions.
AddrGen identityLayout(const std::vector<Counter>& counters);
/// The order of n dimensions that moves dimension `from` to position `to` (the others keep
/// their order; moving d to d + 1 swaps the two).
std::vector<size_t> moveDim(size_t n, size_t from, size_t to);
/// Reorders the space dimensions (coordinates) of a layout: new dim i is old order[i].
void permuteSpace(AddrGen& layout, const std::vector<size_t>& order);
/// Merges space dimensions d and d+1 of a layout (row-major).
void flattenSpace(AddrGen& layout, size_t d);
/// Splits space dimension d (extent E = a * inner, its coordinate one digit of a one-radix
/// group) into (a, inner): the group gets the radices [a, inner].
void splitSpace(AddrGen& layout, size_t d, int64_t inner);
/// Keeps indices [0, len) of space dimension d: the rest is masked (a cropped write).
void cropSpace(AddrGen& layout, size_t d, int64_t len);
/// Removes space dimension d, which must have extent 1 and coordinate 0 (a summed loop).
void dropSpace(AddrGen& layout, size_t d);

}  // namespace skeleshare::lower::detail
