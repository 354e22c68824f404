#pragma once
// The mid-level IR: a program of hardware units over named buffers, in the style of SHIR's
// primitives. A unit is a small dataflow graph (nodes in definition order, operands by
// index) that reads buffers through affine address generators, computes on streams and
// vectors, and writes one or more buffers. A program runs its units in order (the
// schedule); a buffer is off-chip memory or on-chip block RAM.
//
// Element-wise primitives (Mul, Add, Sub, Max, Min, ShiftRight, RoundShift, Saturate,
// Wrap) apply to every element of their operands (they are implicitly mapped over the
// stream and vector dimensions: MapStm/MapVec of the scalar operator); the operands have
// equal dimensions. Their hardware is one operator per vector lane.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "skeleshare/lower/addrgen.h"
#include "skeleshare/lower/mtype.h"

namespace skeleshare::lower {

enum class Prim : uint8_t {
  Read,        // [buffer] (keep), addr: the value read through addr (masked elements: the
               // fill); keep = the lines the read keeps (read_lanes.h; absent: 1)
  Write,       // [buffer], addr, (x): x's elements to the buffer (masked: not written); unit
  Const,       // [value, bits], dims in the node's type: a constant stream/vector
  Mul,         // [dsp (, k)] (a, b): i32 products; dsp = 1: DSP multipliers, k per DSP
               // block (default 1; the device's for the operand widths), 0: logic
  Add,         // (a, b): wrapped to the wider width
  Sub,         // (a, b)
  Max,         // (a, b)
  Min,         // (a, b)
  ShiftRight,  // [k] (a): arithmetic shift
  RoundShift,  // [k] (a): (a + 2^(k-1)) >> k, exact, i32 (k >= 1)
  RoundShiftEven,  // [k] (a): a / 2^k rounded half to even, exact, i32 (k >= 1)
  Saturate,    // [bits] (a): clamp to the signed range of bits
  Wrap,        // [bits] (a): keep the low bits
  ReduceVec,   // [kind] (a): reduce the innermost vector dimension (adder/max tree)
  ReduceStm,   // [kind] (a): reduce the innermost stream dimension (accumulator)
  SplitStm,    // [d, n] (a): stream dimension d of extent E becomes (E/n, n)
  JoinStm,     // [d] (a): stream dimensions d, d+1 merge
  SplitVec,    // [d, n] (a): vector dimension d becomes (E/n, n)
  JoinVec,     // [d] (a): vector dimensions d, d+1 merge
  StmToVec,    // (a): the innermost stream dimension becomes the outermost vector one
  VecToStm,    // (a): the outermost vector dimension becomes the innermost stream one
  Repeat,      // [n, d] (a): a new stream dimension of extent n before stream dimension d:
               // for each index of the d outer stream dimensions, the inner stream n times
               // (hardware: a replay buffer of the inner stream, on chip)
  Broadcast,   // [n, d] (a): a new vector dimension of extent n before vector dimension d
               // (0: outermost), every copy the operand's lanes (hardware: wires)
  PermuteVec,  // [p0, ..., pk-1] (a): vector dimension i of the result is the operand's
               // vector dimension p_i (hardware: wires; read_lanes.h)
  Slide,       // [k] (a): the innermost vector dimension (extent E) becomes (E - k + 1, k),
               // lane (c, j) the operand's lane c + j: the windows of a row read once
               // (hardware: wires; read_lanes.h)
  SlideStm,    // [d, k] (a): stream dimension d (extent E; the stream dimensions after it
               // of extent 1) becomes E - k + 1, with a new outermost vector dimension of
               // k: step (r, j) is the operand's step r + j (hardware: a line buffer of
               // k - 1 words; read_lanes.h)
  SelectLanes,  // [m, e_0, ..., e_m-1, fill, s_0, ..., s_L-1] (a): the vector dimensions
                // become (e_0, ..., e_m-1), L = their product; result lane j (row-major)
                // is the operand's flat lane s_j, or `fill` where s_j = -1 (hardware:
                // wires; the windows of a row of windows read once, read_lanes.h)
};

enum class ReduceKind : int64_t { Add = 0, Max = 1 };

std::string_view primName(Prim p);
struct Node;
/// The lines a Read keeps (ss_read's KEEP): its parameter, else 1.
int64_t keptLines(const Node& read);
/// Splits and joins change the type only: the same transfers and lanes in the same order
/// (in hardware, the same wires under another name).
inline bool reshapesOnly(Prim p) {
  return p == Prim::SplitStm || p == Prim::JoinStm || p == Prim::SplitVec || p == Prim::JoinVec;
}

struct Node {
  Prim prim = Prim::Read;
  std::vector<int64_t> params;
  std::vector<uint32_t> operands;  // indices of earlier nodes of the same unit
  int buffer = -1;                 // Read, Write
  AddrGen addr;                    // Read, Write
  MType type;                      // set by the builder (inferType)
};

/// A unit that is a call of a shared-function instance (docs/lowering.md, "Shared units").
/// The instance's hardware is the `datapath` nodes (multipliers, adder trees,
/// accumulators, element-wise stages of the shared function): built once, used by one
/// call at a time. Every other node of the unit (its Reads and Writes with their address
/// generators, wiring, stages the caller fused after the result) belongs to the call site.
struct Call {
  int instance = -1;               // index into Program::instances
  std::vector<uint32_t> datapath;  // node indices, ascending; never Read or Write
};

struct Unit {
  std::string name;
  std::vector<Node> nodes;
  std::optional<Call> call;  // set: this unit is a call of a shared instance
};

/// A shared-function unit: one hardware instance (a let-bound function of the extracted
/// design), called by the units whose Call names it. Its DSPs count once.
struct Instance {
  std::string name;         // e.g. "let1"
  std::string description;  // what it computes, e.g. "ParallelConv (i8[6][6][4] -> ...)"
};

enum class Memory : uint8_t { OffChip, OnChip };
enum class Role : uint8_t { Input, Weight, Intermediate, Output };

struct Buffer {
  std::string name;
  int bits = 8;
  std::vector<int64_t> shape;
  Memory memory = Memory::OffChip;
  Role role = Role::Intermediate;
  int64_t elements() const;
  int64_t sizeBits() const { return elements() * bits; }
};

struct Program {
  std::vector<Buffer> buffers;
  std::vector<Unit> units;  // the schedule: run in this order
  std::vector<Instance> instances;
  // Per unit (empty: none): it starts when the unit before it starts, and the two run at
  // the same time (lower/overlap.h, applyOverlap).
  std::vector<bool> startsWithPrevious;

  int findBuffer(std::string_view name) const;
  /// The first unit whose run unit u's shares: u - 1 when it starts with it, else u.
  size_t firstShared(size_t u) const {
    return u > 0 && u < startsWithPrevious.size() && startsWithPrevious[u] ? u - 1 : u;
  }
};

/// A node that breaks a primitive's type rule.
class MirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The type rule of every primitive: the node's type from its parameters, address
/// generator and operand types. Throws MirError with the reason.
MType inferType(const Program& prog, const Unit& unit, const Node& node);

/// Why the calls of `instance` do not share one datapath (empty when they do): the
/// datapaths must have the same length and, node by node, the same primitive, parameters,
/// width, vector dimensions and wiring (an operand is the same datapath node, or the same
/// port: the k-th distinct outside operand). Stream extents may differ: they are the
/// call's iteration counts, driven by its own counters.
std::string checkInstanceCalls(const Program& prog, size_t instance);

/// The nodes outside a call's datapath that datapath nodes read, in order of first use:
/// the instance's ports (port k is the k-th; checkInstanceCalls). Empty for a plain unit.
std::vector<uint32_t> callOperands(const Unit& unit);

/// Appends nodes to a unit, typing each (throws MirError).
class UnitBuilder {
 public:
  UnitBuilder(const Program& prog, Unit& unit) : prog_(prog), unit_(unit) {}
  uint32_t read(int buffer, AddrGen addr);
  void write(int buffer, AddrGen addr, uint32_t x);
  uint32_t constant(int64_t value, int bits, std::vector<Dim> dims);
  uint32_t op(Prim p, std::vector<uint32_t> operands, std::vector<int64_t> params = {});
  const MType& type(uint32_t n) const { return unit_.nodes.at(n).type; }
  int bits(int buffer) const { return prog_.buffers.at(static_cast<size_t>(buffer)).bits; }

 private:
  uint32_t add(Node n);
  const Program& prog_;
  Unit& unit_;
};

}  // namespace skeleshare::lower
