#pragma once
// The hardware's load of one unit, for the extractor's cycle model (cost::LoadOracle;
// docs/cost-model.md, "The hardware's cycles"): the node that starts the unit is rebuilt
// in a context of its own, its data arguments as inputs of their types (through the view
// the lowering folds into the reads, when the argument is one: a Pad's masks, a
// Transpose's order) and its function argument as the canonical function of its type at
// full parallelism (a dot's or mvF's also at two steps a call, where the lowering replays
// the call's operands), lowered like any program, and its unit measured by the cycle model
// (lower/timing.h). Its operands that other units compute, and its result unless it is a
// program output, are placed on chip as the lowering places intermediates. The same code that
// estimates a lowered design thus tells the extractor what each skeleton costs in memory
// traffic and address-generator runs; nothing about the templates is written twice.

#include <map>
#include <optional>
#include <span>
#include <string>

#include "skeleshare/cost/cost_model.h"
#include "skeleshare/ir/context.h"
#include "skeleshare/lower/lower.h"
#include "skeleshare/lower/runs.h"

namespace skeleshare::driver {

class SkeletonLoads {
 public:
  /// `boxReads`: measure with the lowering's box reads (lower::LowerOptions::boxReads), as
  /// the design will be lowered.
  explicit SkeletonLoads(const cost::Device& device, bool boxReads = false);
  SkeletonLoads(const SkeletonLoads&) = delete;  // its lowering options point at its counter
  SkeletonLoads& operator=(const SkeletonLoads&) = delete;
  /// The load of the node (answers are cached by operator, parameters and types), or
  /// nothing for an operator it does not build or a node the lowering refuses.
  std::optional<cost::SkeletonLoad> operator()(ir::Op op, std::span<const int64_t> params,
                                               std::span<const cost::ChildShape> kids, const ir::Type* type,
                                               bool intermediate);
  /// An oracle for cost::CostModel::setLoadOracle that answers through `loads` (which must
  /// outlive the model).
  static cost::LoadOracle oracle(SkeletonLoads& loads);
  /// Also measure what a neighbour that calls the same shared instance can hide
  /// (SkeletonLoad::lead, drain and the fed tail): for --overlap only, as the fed tail walks
  /// the fed reads' generators.
  void measureOverlap(bool on) { overlap_ = on; }
  /// Skeletons measured (distinct questions) and the address-generator runs their reads and
  /// writes visited: the work of building the extraction problem's cycle model.
  size_t measured() const { return cache_.size(); }
  uint64_t walkedRuns() const { return counts_.walkedRuns(); }

 private:
  const ir::Type* local(const ir::Type* t);
  /// Keeps the named buffer on chip when it fits the intermediates' budget.
  void placeOnChip(lower::Program& prog, const std::string& buffer) const;
  /// The canonical function of the type at full parallelism, or (stepsPerCall 2, dots
  /// and mvFs only) with half the rows a step; null where there is none.
  const ir::Term* canonicalFunction(ir::Op op, const ir::Type* f, std::span<const cost::ChildShape> kids,
                                    int stepsPerCall = 1);
  /// \\acc. \\v. acc + v, or null when that is not of acc's type.
  const ir::Term* sumFold(const ir::Type* acc, const ir::Type* elem);
  /// \\x: e. a sum of x down to r (Reduce over its outer dimension, inside Maps), or null.
  const ir::Term* reductionFunction(const ir::Type* e, const ir::Type* r);
  /// At full parallelism, and (SkeletonLoad::stepsStallAtTwoSteps, fillPerStep) at two
  /// steps a call.
  std::optional<cost::SkeletonLoad> measure(ir::Op op, std::span<const int64_t> params,
                                            std::span<const cost::ChildShape> kids, const ir::Type* type,
                                            bool intermediate);
  std::optional<cost::SkeletonLoad> measureWith(ir::Op op, std::span<const int64_t> params,
                                                std::span<const cost::ChildShape> kids, const ir::Type* type,
                                                bool intermediate, int stepsPerCall);
  /// SkeletonLoad::lead, drain and the fed tail of the skeleton's unit `u` in `prog`.
  void measureHandover(const lower::Program& prog, const lower::Unit& u, std::span<const cost::ChildShape> kids,
                       cost::SkeletonLoad& l) const;
  ir::Context ctx_;
  lower::LowerOptions options_;
  lower::AccessCounter counts_;  // shared by every measurement and its read passes: layers read alike
  std::map<std::string, std::optional<cost::SkeletonLoad>> cache_;
  bool overlap_ = false;
};

}  // namespace skeleshare::driver
