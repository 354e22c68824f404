#pragma once
// Lowering of a skeleton-IR module to the mid-level IR (docs/lowering.md).
//
// Each DSP skeleton becomes one unit through its template (ParallelDot[P]: P lanes of
// min(N, 64) DSP multipliers, adder trees, an accumulator over ceil(N/64) chunks); the
// data movement around it (Pad, the sliding windows of Conv/Conv1D, the repeated vector of
// Mv, Mm's rows, Transpose, Flatten) becomes the configuration of the units' address
// generators, never a buffer; element-wise operators (Requant, Relu, LeakyRelu, Bias, Add,
// ...) are appended to their producer's unit; the result of a unit is written to a buffer
// when a later unit reads it or it is an output. MaxPool is its own unit (a window read
// and a max accumulator). Units run in the order their results were first needed.

#include <optional>
#include <set>
#include <stdexcept>

#include "skeleshare/cost/cycle_model.h"
#include "skeleshare/ir/context.h"
#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

class AccessCounter;

/// A construct the lowering does not handle (yet), or an ill-formed input.
class LowerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LowerOptions {
  int64_t simdWidth = 64;                       // the cost model's per-dot SIMD cap
  int64_t onChipBudgetBits = int64_t{2713} * 20480;  // the paper's board: 2713 M20K blocks
  cost::MemorySystem memory;                    // for the cycle estimate (the device's)
  std::vector<cost::DspMode> dspModes;          // products per DSP block (none: one)
  /// Where the read passes keep the runs and lines they count (runs.h), so that a caller
  /// that lowers many programs and then times them (the extractor's oracle, lowerDesign)
  /// walks each generator once. Null: a counter of this lowering's own.
  AccessCounter* accessCounter = nullptr;
  /// Box reads (read_lanes.h): a read's innermost counters read once as a box of the
  /// buffer. Off by default: the extractor's oracle measures a skeleton alone or with a
  /// canonical function, and a box it finds there is often not the one the design's
  /// loops allow (docs/lowering.md, "Box reads"), so the one cycle model would disagree
  /// with the lowered design.
  bool boxReads = false;
  // Units that may start with the unit before them do, where their RAMs fit the device
  // (lower/overlap.h, applyOverlap). Off by default: the extractor's prediction still
  // runs the units one after another (the lowering's estimate follows the overlap).
  bool overlap = false;
  /// Dot units, by the order the lowering creates them (`u<k>_` before the overlap
  /// schedule reorders them), that take the dot template's other placement of the row
  /// groups, where it has two (docs/lowering.md, "Reuse"): with the groups outside the
  /// positions the matrix operand does not depend on, a group's block of the matrix stays
  /// while the positions pass, and the first step needs one group's block, not all of it.
  /// Unset, lowerModule chooses them by the estimate with `overlap` (docs/lowering.md,
  /// "The dot placement of calls that interleave") and takes none without it.
  std::optional<std::set<size_t>> otherDotPlacement;
  /// Products of these operand widths one DSP block computes (at least 1).
  int64_t productsPerBlock(int aBits, int bBits) const;
};

/// The options for a device: its SIMD width, on-chip memory and memory port; box reads
/// when `boxReads`.
LowerOptions lowerOptions(const cost::Device& device, bool boxReads = false);

/// Lowers every output of a module (closed, without App). Inputs and weights become
/// off-chip buffers named as declared, outputs off-chip buffers named as the outputs.
/// Throws LowerError for what is not supported; the result verifies (lower/verifier.h).
Program lowerModule(const ir::Module& module, ir::Context& ctx, const LowerOptions& options = {});

}  // namespace skeleshare::lower
