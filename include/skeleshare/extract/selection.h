#pragma once
// A design as a selection over an extraction problem: one node per used class and the
// set of shared classes; and its exact cost (the same formulas the solver encodes, here
// evaluated on concrete choices).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "skeleshare/extract/problem.h"

namespace skeleshare::extract {

struct Selection {
  /// By dense class index: the chosen dense node index, or -1 (class not used).
  std::vector<int32_t> chosen;
  /// By dense class index: 1 when the class is a shared unit.
  std::vector<uint8_t> shared;
};

struct Evaluation {
  bool valid = false;
  std::string error;  // why invalid: a cycle, a used class without a node, ...
  /// Totals: time = use_T(root); DSPs and conv units = use(root) + sum of fixed costs.
  /// With --overlap the time is the less of that and, where every unit calls one shared
  /// instance, the time with its callers' handover credits (cost::NodeCost::overlap).
  std::array<int64_t, cost::kDims> total{};
  /// The time with the units one after another: use_T(root).
  int64_t oneAfterAnother = 0;
  /// Classes used by the design, children before parents.
  std::vector<uint32_t> order;
  /// By class: copies of the class in the hardware (a class under a duplicated parent is
  /// duplicated; a shared unit's body exists once).
  std::vector<int64_t> instances;
  /// By class: number of uses (parent occurrences, times the parent's instances).
  std::vector<int64_t> uses;
  /// By class: use costs and in-place costs of the chosen node.
  std::vector<std::array<int64_t, cost::kDims>> use, inplace;
  /// By class: the compute time of a use (cost::NodeCost::compute; the use time when the
  /// chosen node has none).
  std::vector<int64_t> compute;
  int64_t time() const { return total[cost::kTime]; }
  int64_t dsps() const { return total[cost::kDsp]; }
  int64_t convUnits() const { return total[cost::kConvUnits]; }
};

/// Evaluates a selection. Classes outside the design are ignored (and reset to -1 / not
/// shared in `sel`). A shared class with at most one use is unshared first (never worse:
/// the same DSPs, COMMUNICATION_COST cycles less), and so is a class that may not be
/// shared (not shareable in `p`).
Evaluation evaluate(const Problem& p, Selection& sel);

/// Checks the design's limits; empty when it fits, otherwise what does not.
std::string checkLimits(const Evaluation& e, int64_t dspBudget, int64_t maxConvUnits);

}  // namespace skeleshare::extract
