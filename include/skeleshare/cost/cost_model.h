#pragma once
// The extractor's cost model (paper Section IV-C, Appendix A; docs/cost-model.md).
//
// Three dimensions: algorithmic time T (cycles), DSP blocks D, and hardware convolution
// units U. The in-place cost of an e-node in every dimension is an affine function of the
// use costs of its child classes:
//
//     cost(n) = constant + sum_i coef_i * use(child_i) + max_{j in maxOf} use(child_j)
//
// e.g. T(Conv(in, wgt, mvF)) = OH*OW * T(mvF) + max(T(in), T(wgt)). The extractor encodes
// exactly these expressions as linear inequalities; the evaluators below compute them on
// concrete selections and on let-bound terms (so the two can be cross-checked).
//
// Shared costs (Section IV-C): shared_T(n) = inplace_T(n) + COMMUNICATION_COST (5),
// shared_D(n) = 0, shared_U(n) = 0: a use of a shared unit pays the call overhead but
// allocates no DSPs and no convolution unit; the unit itself is paid once (fixed cost).

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "skeleshare/cost/cycle_model.h"
#include "skeleshare/cost/device.h"
#include "skeleshare/ir/context.h"

namespace skeleshare::cost {

enum Dim : int { kTime = 0, kDsp = 1, kConvUnits = 2 };
inline constexpr int kDims = 3;
inline constexpr const char* kDimNames[kDims] = {"time", "dsp", "conv_units"};

/// COMMUNICATION_COST of the paper: extra cycles per use of a shared unit (the paper's
/// model; the hardware model charges a call its unit's fill and drain instead, at the call
/// site, and nothing per use: CostModel::communicationCost).
inline constexpr int64_t kCommunicationCost = 5;

/// Costs saturate here, so that no evaluation overflows (a design this slow is absurd).
inline constexpr int64_t kCostCap = int64_t{1} << 60;
int64_t satAdd(int64_t a, int64_t b);
int64_t satMul(int64_t a, int64_t b);

/// One dimension of an e-node's in-place cost, as an affine/max function of its
/// children's use costs (children by position).
struct CostExpr {
  struct Term {
    uint32_t child;
    int64_t coef;
    /// Time only: the child's compute time (NodeCost::compute) rather than its use time.
    bool compute = false;
    bool operator==(const Term&) const = default;
  };
  /// A lower bound of the value before maxOf is added: ceil((constant + sum coef *
  /// use(child)) / den). The cycle model's memory port and its interference with the
  /// stages (cycle_model.h) are floors of a unit's time.
  struct Floor {
    int64_t constant = 0;
    std::vector<Term> linear;
    int64_t den = 1;
    bool operator==(const Floor&) const = default;
  };
  int64_t constant = 0;
  std::vector<Term> linear;      // added: coef * use(child)
  std::vector<uint32_t> maxOf;   // added: max of use(child) over these (0 if empty)
  std::vector<Floor> floors;     // the value before maxOf and sumOf is at least each of these
  std::vector<uint32_t> sumOf;   // added: use(child) for each (children that run before, one after another)
  bool operator==(const CostExpr&) const = default;

  /// The value given the use costs of the children (saturating) and, for the time
  /// dimension, their compute times (empty: equal to their use times).
  int64_t evaluate(std::span<const int64_t> childUse, std::span<const int64_t> childCompute = {}) const;
  /// The value of one floor.
  static int64_t evaluate(const Floor& f, std::span<const int64_t> childUse,
                          std::span<const int64_t> childCompute = {});
  /// "5 + 1024*c2 + max(c0, c1)", for documentation and tests; floors as "max(..., (a + b*c2) / 8)";
  /// a child's compute time as "C(c2)".
  std::string str() const;
};

struct NodeCost {
  std::array<CostExpr, kDims> dim;
  /// The node's compute time, when it differs from its time: the time without the floor of
  /// the windows a convolution reads afresh on every call (SkeletonLoad::freshRuns). A
  /// caller that replays its function's input to every call (TiledConvOCH: the same
  /// windows for every tile of filters) charges calls * compute(f) and, once, time(f);
  /// every other caller charges calls * time(f). Empty: the compute time is the time.
  std::optional<CostExpr> compute;
  /// The compute time given the children's use and compute times and the node's time.
  int64_t computeTime(std::span<const int64_t> childUse, std::span<const int64_t> childCompute, int64_t time) const {
    return compute ? compute->evaluate(childUse, childCompute) : time;
  }
  /// False when the load oracle (the lowering) refuses the node: no design may contain it,
  /// so the extractor never picks what the lowering cannot build.
  bool lowerable = true;
  /// The node starts a unit of the hardware (a skeleton over data, a max-pool, a reducing
  /// map): set with a load oracle.
  bool startsUnit = false;
  /// With --overlap, a unit-starting skeleton whose function child (child 2) may be a
  /// shared instance: what its time becomes when every unit of the design calls that one
  /// instance, so that each unit hands it over to the next (docs/cost-model.md, "The
  /// extractor with --overlap"). `exposed` is the node's time less its lead and its drain
  /// and switch (cost::handoverCredit), but no less than its steps or, fed by the unit that
  /// computes an operand, its fed tail; the largest lead and drain of the design's callers
  /// are charged once for the design (the first unit's lead, the last one's drain).
  struct Overlap {
    int64_t lead = 0;
    int64_t drain = 0;
    CostExpr exposed;
    bool operator==(const Overlap&) const = default;
  };
  std::optional<Overlap> overlap;
  static constexpr uint32_t kFunctionChild = 2;
};

/// The skeleton family of an operator, for --single-abstraction (docs/extraction.md):
/// the abstraction level at which a function argument is used.
enum class Family { None, Conv, Mv, Mm, Conv1D, Dot };
Family familyOf(ir::Op op);
const char* familyName(Family f);

/// True for the operators that are a hardware convolution unit (Conv, ParallelConv): the
/// U dimension counts them. The data-transformed wrappers (TiledConv*, PaddedConv*) feed a
/// unit rather than being one, and 1D convolutions are not limited (docs/cost-model.md).
bool isConvUnit(ir::Op op);
/// True for ParallelDot and ParallelPartialDot, the only operators with DSPs of their own.
bool usesDspsItself(ir::Op op);

/// The hardware's load for one skeleton, as the lowering builds it on plain buffers of its
/// operands' types (the cycle model's quantities; driver/skeleton_load.h computes it):
/// the datapath's steps there and the unit's load.
struct SkeletonLoad {
  int64_t steps = 0;
  UnitLoad load;
  /// The runs of its busiest read whose data the unit does not replay: what every call
  /// reads afresh whatever unit it is in. (A replayed operand, a convolution's weights, is
  /// read once per block, and a tiling around the call may keep that block for all tiles.)
  int64_t freshRuns = 0;
  /// A line the port delivers late can stall the datapath's steps (lower::stallingStages):
  /// an operand comes from memory other than through a replay buffer that plays each block
  /// twice or more. Then the steps count in the interference term (cycle_model.h).
  bool stepsStall = true;
  /// Measured with a function of two steps a call (half the rows a step): whether the
  /// steps stall then. The lowering replays the call's operand vector once a call takes two
  /// steps or more, so a dot's steps that stall at one step a call often do not at two.
  bool stepsStallAtTwoSteps = true;
  /// And how many cycles longer its replay buffer's first block takes per step a call
  /// beyond the first (at most replayFill): a read that passes over all its lines once per
  /// step, as a transposed operand's does, fills the buffer once per step.
  int64_t fillPerStep = 0;
  /// What a neighbour calling the same shared instance can hide (cost::overlappedEnd, with
  /// --overlap): the unit's lead before its first step, its drain after its last, and, fed
  /// by the unit that computes an operand, what is left after that unit's last line: its
  /// work on one line of the smallest buffer it reads (`fedLines` lines: its busiest stage
  /// over them, which grows with the function's steps), then `fedAfter` (its pipeline).
  int64_t lead = 0;
  int64_t drain = 0;
  int64_t fedTail = 0;
  int64_t fedLines = 0;
  int64_t fedAfter = 0;
  /// The lowering refuses the node (it would refuse it in any design, e.g. a ParallelConv
  /// whose windows per call neither divide nor are a multiple of its output columns).
  bool refused = false;
};
/// A child of a node as the oracle sees it: its type, and when it is a view the lowering
/// folds into the unit's reads (Pad, Transpose, Flatten of another value), that view: the
/// masks and orders it makes are part of the unit's memory traffic.
struct ChildShape {
  const ir::Type* type = nullptr;
  ir::Op view = ir::Op::Var;          // Var: no view
  std::vector<int64_t> viewParams;
  const ir::Type* viewOf = nullptr;   // the type of the view's operand
  /// The data (the view's operand, for a view) is an intermediate that another unit
  /// computes, not a program input or weight: the lowering keeps it on chip when it fits.
  bool computed = false;
};
/// Pad, Transpose and Flatten: views the lowering folds into the reads of their consumer.
bool isFoldedView(ir::Op op);
/// A program input or weight, or a constant: data no unit computes (ChildShape::computed).
bool isProgramData(ir::Op op);
/// An operator that starts no unit of its own: element-wise and reshaping operators and
/// tuples (no function child; not a max-pool, a leaf or a binder). What such a node
/// computes is written by its operands' unit, so when it is a program output, so are they
/// (their unit writes it to memory, not on chip).
bool passesItsOutputOn(ir::Op op, bool hasFunctionChild);

/// Answers the load of a unit-starting node (operator, parameters, children, type, and
/// whether its result is an intermediate: false for a program output), or nothing when it
/// cannot tell.
using LoadOracle = std::function<std::optional<SkeletonLoad>(ir::Op, std::span<const int64_t>,
                                                             std::span<const ChildShape>, const ir::Type*, bool)>;

class CostModel {
 public:
  explicit CostModel(Device device) : device_(std::move(device)) {}
  const Device& device() const { return device_; }

  /// With an oracle the time dimension is the hardware's cycle model (docs/cost-model.md,
  /// "The hardware's cycles"): every unit pays its fill and drain, and the skeletons that
  /// read memory are no faster than their memory traffic and address generators allow.
  /// Without one it is the paper's model (Fig. 14): compute alone.
  void setLoadOracle(LoadOracle oracle) { oracle_ = std::move(oracle); }
  bool hardwareModel() const { return static_cast<bool>(oracle_); }
  /// With the hardware's model: price the units that start beside the unit before them and
  /// hand their shared instance over to it (NodeCost::overlap; the lowering's --overlap).
  void setOverlap(bool overlap) { overlap_ = overlap; }
  bool overlap() const { return overlap_ && hardwareModel(); }
  /// Cycles a use of a shared unit adds: the paper's COMMUNICATION_COST in its model, 0 in
  /// the hardware's (a call pays its unit's fill and drain at its call site).
  int64_t communicationCost() const { return hardwareModel() ? 0 : kCommunicationCost; }

  /// In-place cost of a node given its operator, parameters, the types of its children and
  /// its own type; `childIsVar` says which children are bound variables (empty: none), so
  /// that a skeleton over real data starts a unit. Throws std::invalid_argument when the
  /// shapes are not those the operator's type rule produces (a node that could not have
  /// been built).
  /// `intermediate` says that the node's value is not a program output (so the lowering
  /// may keep it on chip).
  NodeCost nodeCost(ir::Op op, std::span<const int64_t> params, std::span<const ir::Type* const> childTypes,
                    const ir::Type* type, std::span<const bool> childIsVar = {},
                    std::span<const ChildShape> children = {}, bool intermediate = false) const;
  NodeCost nodeCost(const ir::Term* term, bool intermediate = false) const;

 private:
  /// The hardware terms of a node whose compute time is already in `c`.
  void addHardware(NodeCost& c, ir::Op op, std::span<const int64_t> params, std::span<const ir::Type* const> kids,
                   const ir::Type* type, std::span<const bool> childIsVar, std::span<const ChildShape> children,
                   bool intermediate) const;
  Device device_;
  LoadOracle oracle_;
  bool overlap_ = false;
};

/// Cost of a closed term read as a design: App(Lam(T, body), value) is a `let` binding a
/// shared unit (its in-place cost is paid once as a fixed cost; every use of the bound
/// variable costs shared_T = inplace_T + 5 and no DSPs or conv units); everything else is
/// in place (a sub-term used twice is paid twice: the term is a tree). This is how the
/// extractor's predictions are checked against the outlined design.
struct DesignCost {
  std::array<int64_t, kDims> use{};    // use cost of the root
  std::array<int64_t, kDims> fixed{};  // sum of the shared units' in-place costs
  int64_t total(int d) const { return d == kTime ? use[kTime] : satAdd(use[d], fixed[d]); }
  size_t sharedUnits = 0;
  /// The time with the units one after another; use[kTime] is less with --overlap where
  /// every unit calls one shared unit and hands it over to the next (NodeCost::overlap).
  int64_t oneAfterAnother = 0;
};
DesignCost designCost(const CostModel& model, const ir::Term* term);

}  // namespace skeleshare::cost
