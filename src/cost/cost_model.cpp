#include "skeleshare/cost/cost_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "skeleshare/support/int_math.h"

namespace skeleshare::cost {

using ir::Op;
using ir::Type;

int64_t satAdd(int64_t a, int64_t b) {
  int64_t r = a + b;  // both in [0, kCostCap], no overflow
  return r > kCostCap ? kCostCap : r;
}

int64_t satMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > kCostCap / b) return kCostCap;
  return std::min(a * b, kCostCap);
}

namespace {

int64_t childValue(const CostExpr::Term& t, std::span<const int64_t> childUse, std::span<const int64_t> childCompute) {
  return t.compute && !childCompute.empty() ? childCompute[t.child] : childUse[t.child];
}

}  // namespace

int64_t CostExpr::evaluate(const Floor& f, std::span<const int64_t> childUse, std::span<const int64_t> childCompute) {
  int64_t v = f.constant;
  for (const Term& t : f.linear) v = satAdd(v, satMul(t.coef, childValue(t, childUse, childCompute)));
  return (v + f.den - 1) / f.den;
}

int64_t CostExpr::evaluate(std::span<const int64_t> childUse, std::span<const int64_t> childCompute) const {
  int64_t v = constant;
  for (const Term& t : linear) v = satAdd(v, satMul(t.coef, childValue(t, childUse, childCompute)));
  for (const Floor& f : floors) v = std::max(v, evaluate(f, childUse, childCompute));
  int64_t m = 0;
  for (uint32_t c : maxOf) m = std::max(m, childUse[c]);
  for (uint32_t c : sumOf) v = satAdd(v, childUse[c]);
  return satAdd(v, m);
}

std::string CostExpr::str() const {
  auto affine = [](int64_t k, const std::vector<Term>& ts) {
    std::string s = std::to_string(k);
    for (const Term& t : ts) {
      const std::string c = t.compute ? fmt::format("C(c{})", t.child) : fmt::format("c{}", t.child);
      s += t.coef == 1 ? " + " + c : fmt::format(" + {}*{}", t.coef, c);
    }
    return s;
  };
  std::string s = affine(constant, linear);
  if (!floors.empty()) {
    s = "max(" + s;
    for (const Floor& f : floors)
      s += f.den == 1 ? ", " + affine(f.constant, f.linear) : fmt::format(", ({}) / {}", affine(f.constant, f.linear), f.den);
    s += ")";
  }
  if (!maxOf.empty()) {
    s += " + max(";
    for (size_t i = 0; i < maxOf.size(); ++i) s += fmt::format("{}c{}", i ? ", " : "", maxOf[i]);
    s += ")";
  }
  for (uint32_t c : sumOf) s += fmt::format(" + c{}", c);
  return s;
}

Family familyOf(Op op) {
  switch (op) {
    case Op::Conv:
    case Op::TiledConvHW:
    case Op::TiledConvICH:
    case Op::TiledConvOCH:
    case Op::PaddedConvHW:
    case Op::PaddedConvICH:
    case Op::PaddedConvOCH:
    case Op::PaddedConvKS:
    case Op::PairedConvW:
    case Op::ParallelConv:
      return Family::Conv;
    case Op::Mv:
    case Op::TiledMv:
    case Op::TiledMvRows:
    case Op::PaddedMv:
    case Op::PaddedMvRows:
      return Family::Mv;
    case Op::Mm:
    case Op::TiledMmW:
    case Op::TiledMmH:
    case Op::TiledMmK:
      return Family::Mm;
    case Op::Conv1DW:
    case Op::Conv1DH:
    case Op::TransposedConv1DW:
      return Family::Conv1D;
    case Op::ParallelDot:
    case Op::ParallelPartialDot:
      return Family::Dot;
    default:
      return Family::None;
  }
}

const char* familyName(Family f) {
  switch (f) {
    case Family::Conv: return "conv";
    case Family::Mv: return "mv";
    case Family::Mm: return "mm";
    case Family::Conv1D: return "conv1d";
    case Family::Dot: return "dot";
    case Family::None: break;
  }
  return "none";
}

bool isConvUnit(Op op) { return op == Op::Conv || op == Op::ParallelConv; }
bool usesDspsItself(Op op) { return op == Op::ParallelDot || op == Op::ParallelPartialDot; }

namespace {

[[noreturn]] void bad(Op op, const std::string& why) {
  throw std::invalid_argument(fmt::format("cost of {}: {}", ir::opName(op), why));
}

std::vector<int64_t> shapeOf(Op op, const Type* t, int minRank, const char* what) {
  if (!t || !t->isIntTensor() || t->rank() < minRank)
    bad(op, fmt::format("{} must be an integer array of rank >= {}", what, minRank));
  return t->shape();
}

/// The two parameter types of a curried function type a -> b -> r.
std::pair<const Type*, const Type*> params2(Op op, const Type* f) {
  if (!f || !f->isFun() || !f->result()->isFun()) bad(op, "function argument must take two parameters");
  return {f->param(), f->result()->param()};
}

/// The steps of a dot over `padded` columns, `real` of them not padding, once the lowering
/// drops the zero ones (lower/zero_columns.h): its lanes stay min(padded, simd), so the
/// steps go from ceil(padded / lanes) to ceil(real / lanes). As the fraction num / den.
std::pair<int64_t, int64_t> realColumnSteps(int64_t real, int64_t padded, int64_t simd) {
  const int64_t lanes = std::min(padded, simd);
  return {ceilDiv(real, lanes), ceilDiv(padded, lanes)};
}

int64_t exactDiv(Op op, int64_t a, int64_t b, const char* what) {
  if (b <= 0 || a % b != 0) bad(op, fmt::format("{}: {} is not a multiple of {}", what, a, b));
  return a / b;
}

}  // namespace

NodeCost CostModel::nodeCost(Op op, std::span<const int64_t> params, std::span<const Type* const> kids,
                             const Type* type, std::span<const bool> childIsVar,
                             std::span<const ChildShape> children, bool intermediate) const {
  NodeCost c;
  const uint32_t n = static_cast<uint32_t>(kids.size());
  // D and U: the sum of the children (plus the node's own DSPs / unit).
  for (uint32_t i = 0; i < n; ++i) {
    c.dim[kDsp].linear.push_back({i, 1});
    c.dim[kConvUnits].linear.push_back({i, 1});
  }
  if (isConvUnit(op)) c.dim[kConvUnits].constant = 1;
  CostExpr& t = c.dim[kTime];
  const int64_t simd = device_.simdWidth();
  if (simd <= 0) bad(op, "the device has no SIMD width (host_line_bits)");

  // "calls * T(f) + max(T(data children))" for skeletons whose last child is a function.
  auto skeleton = [&](int64_t calls) {
    if (n != 3) bad(op, "expects three children");
    if (calls <= 0) bad(op, "non-positive number of calls");
    t.linear.push_back({2, calls});
    t.maxOf = {0, 1};
  };
  // A zero padding of the columns a dot sums (input channels, kernel taps, a matrix's
  // columns): f's steps shrink to the real columns' share, ceil(share * T(f)).
  auto paddedColumns = [&](int64_t real, int64_t padded) {
    skeleton(1);
    const auto [num, den] = realColumnSteps(real, padded, simd);
    if (num >= den) return;
    t.linear.clear();
    t.floors.push_back({0, {{2, num}}, den});
  };

  switch (op) {
    case Op::Var:
    case Op::Input:
    case Op::Const:
      break;
    case Op::Lam:
      t.linear.push_back({0, 1});  // T(\x. e) = T(e)
      break;
    case Op::App:
      // Only in let-bound designs; designCost treats App(Lam, v) as a let. Otherwise:
      // the function's time after its argument is ready.
      t.linear.push_back({0, 1});
      t.maxOf = {1};
      break;
    case Op::Tuple:
      for (uint32_t i = 0; i < n; ++i) t.linear.push_back({i, 1});  // outputs one after another
      break;
    case Op::ParallelDot:
    case Op::ParallelPartialDot: {
      auto a = shapeOf(op, kids[0], 2, "left operand");
      int64_t m = a[0], len = a[1];
      if (params.empty() || params[0] < 1) bad(op, "P must be positive");
      int64_t p = params[0];
      // ceil(M/P) * ceil(N/64): the paper's M*N / (P * min(N, 64)) whenever P divides M
      // and N <= 64 or 64 divides N; otherwise the passes the hardware really takes.
      t.constant = satMul(ceilDiv(m, p), ceilDiv(len, simd));
      t.maxOf = {0, 1};
      // DSP blocks: the P * min(N, 64) multipliers, as many per block as the device packs
      c.dim[kDsp].constant = device_.dspBlocksFor(satMul(p, std::min(len, simd)), kids[0]->scalar()->bits(),
                                                  kids[1]->scalar()->bits());
      break;
    }
    case Op::Mv:
    case Op::PaddedMvRows:
    case Op::PaddedConvHW:
    case Op::PaddedConvOCH:
    case Op::TransposedConv1DW:
      skeleton(1);
      break;
    case Op::PaddedMv: {
      auto m = shapeOf(op, kids[0], 2, "matrix");
      auto fm = shapeOf(op, params2(op, kids[2]).first, 2, "mv function's matrix");
      paddedColumns(m[1], fm[1]);
      break;
    }
    case Op::PaddedConvICH: {
      auto w = shapeOf(op, kids[1], 4, "weights");
      auto fin = shapeOf(op, params2(op, kids[2]).first, 3, "conv function's input");
      paddedColumns(satMul(w[1] * w[2], w[3]), satMul(w[1] * w[2], fin[2]));
      break;
    }
    case Op::PaddedConvKS: {
      auto w = shapeOf(op, kids[1], 4, "weights");
      auto fw = shapeOf(op, params2(op, kids[2]).second, 4, "conv function's weights");
      paddedColumns(satMul(w[1] * w[2], w[3]), satMul(fw[1] * fw[2], fw[3]));
      break;
    }
    case Op::Mm: {
      auto a = shapeOf(op, kids[0], 2, "left matrix");
      skeleton(a[0]);  // one mvF call per row of a
      break;
    }
    case Op::Conv: {
      auto r = shapeOf(op, type, 2, "result");
      skeleton(satMul(r[0], r[1]));  // one mvF call per output position
      break;
    }
    case Op::ParallelConv: {
      auto r = shapeOf(op, type, 2, "result");
      auto w = shapeOf(op, kids[1], 4, "weights");
      auto [fa, fb] = params2(op, kids[2]);
      auto fm = shapeOf(op, fa, 2, "mv function's matrix");
      int64_t g = exactDiv(op, fm[1], w[1] * w[2] * w[3], "mv function's columns");
      skeleton(ceilDiv(r[0] * r[1], g));  // groups of G output positions
      break;
    }
    case Op::Conv1DW: {
      auto img = shapeOf(op, kids[0], 2, "image");
      skeleton(img[0]);  // one mvF call per row
      break;
    }
    case Op::Conv1DH: {
      auto img = shapeOf(op, kids[0], 2, "image");
      skeleton(img[1]);  // one mvF call per column
      break;
    }
    case Op::TiledMv: {
      auto m = shapeOf(op, kids[0], 2, "matrix");
      auto fm = shapeOf(op, params2(op, kids[2]).first, 2, "mv function's matrix");
      skeleton(exactDiv(op, m[1], fm[1], "columns"));
      break;
    }
    case Op::TiledMvRows: {
      auto m = shapeOf(op, kids[0], 2, "matrix");
      auto fm = shapeOf(op, params2(op, kids[2]).first, 2, "mv function's matrix");
      skeleton(exactDiv(op, m[0], fm[0], "rows"));
      break;
    }
    case Op::TiledMmW:
    case Op::TiledMmH:
    case Op::TiledMmK: {
      auto a = shapeOf(op, kids[0], 2, "left matrix");
      auto b = shapeOf(op, kids[1], 2, "right matrix");
      auto [fa, fb] = params2(op, kids[2]);
      auto fA = shapeOf(op, fa, 2, "mm function's first parameter");
      auto fB = shapeOf(op, fb, 2, "mm function's second parameter");
      if (op == Op::TiledMmW) skeleton(exactDiv(op, b[0], fB[0], "width"));
      else if (op == Op::TiledMmH) skeleton(exactDiv(op, a[0], fA[0], "height"));
      else skeleton(exactDiv(op, a[1], fA[1], "inner dimension"));
      break;
    }
    case Op::TiledConvHW:
    case Op::PairedConvW: {  // PairedConvW tiles its paired input: half the output columns
      auto w = shapeOf(op, kids[1], 4, "weights");
      auto r = shapeOf(op, type, 2, "result");
      auto fin = shapeOf(op, params2(op, kids[2]).first, 3, "conv function's input");
      int64_t ks = w[1];
      int64_t tilesH = exactDiv(op, r[0], fin[0] - ks + 1, "output height");
      int64_t tilesW = exactDiv(op, op == Op::PairedConvW ? r[1] / 2 : r[1], fin[1] - ks + 1, "output width");
      skeleton(satMul(tilesH, tilesW));  // number of (overlapping) input tiles
      break;
    }
    case Op::TiledConvICH: {
      auto in = shapeOf(op, kids[0], 3, "input");
      auto fin = shapeOf(op, params2(op, kids[2]).first, 3, "conv function's input");
      skeleton(exactDiv(op, in[2], fin[2], "input channels"));
      break;
    }
    case Op::TiledConvOCH: {
      auto w = shapeOf(op, kids[1], 4, "weights");
      auto fw = shapeOf(op, params2(op, kids[2]).second, 4, "conv function's weights");
      skeleton(exactDiv(op, w[0], fw[0], "output channels"));
      break;
    }
    case Op::MergePartialSum:
      t.linear.push_back({0, 1});  // latency-free (Appendix A): T(psum)
      break;
    case Op::Map: {
      auto x = shapeOf(op, kids[0], 1, "array");
      if (n != 2) bad(op, "expects two children");
      t.linear.push_back({1, x[0]});
      t.maxOf = {0};
      break;
    }
    case Op::ZipWith:
    case Op::Reduce: {
      auto x = shapeOf(op, kids[op == Op::ZipWith ? 0 : 1], 1, "array");
      if (n != 3) bad(op, "expects three children");
      t.linear.push_back({2, x[0]});
      t.maxOf = {0, 1};
      break;
    }
    default:
      // Element-wise and reshaping operators use no DSPs and are fused into the streams
      // that feed them: as slow as their slowest input.
      for (uint32_t i = 0; i < n; ++i) t.maxOf.push_back(i);
      break;
  }
  if (oracle_) {
    // Units run one after another: the data children are produced before this node, one
    // after the other, so their times add up (the paper's model overlaps them: max).
    t.sumOf = std::move(t.maxOf);
    t.maxOf.clear();
    // A tiling of the filters gives every call the same input: the unit reads its windows
    // once and replays them to every tile (lower/lower_transforms.cpp), so the calls cost
    // their compute time, and the windows f reads afresh are paid once: T(f).
    const bool replaysInput = op == Op::TiledConvOCH;
    if (replaysInput) t.linear[0].compute = true;
    if (op == Op::Lam) c.compute = CostExpr{0, {{0, 1, true}}, {}, {}, {}};
    addHardware(c, op, params, kids, type, childIsVar, children, intermediate);
    if (replaysInput && c.lowerable) t.floors.push_back({t.constant, {{2, 1}}, 1});
  }
  return c;
}

namespace {

/// Skeletons whose datapath reads its operands through address generators of its own
/// shape (the windows of a convolution, the rows of a matrix product).
bool readsItsOperands(Op op) {
  return op == Op::Conv || op == Op::ParallelConv || op == Op::Conv1DW || op == Op::Conv1DH || op == Op::Mm;
}

}  // namespace

void CostModel::addHardware(NodeCost& c, Op op, std::span<const int64_t> params, std::span<const Type* const> kids,
                            const Type* type, std::span<const bool> childIsVar,
                            std::span<const ChildShape> children, bool intermediate) const {
  CostExpr& t = c.dim[kTime];
  const MemorySystem mem = memorySystem(device_);
  // A skeleton with a function argument starts a unit when no data argument is a bound
  // variable (inside a let or another skeleton's function it is part of a unit); a
  // max-pool is a unit of its own. The unit's memory side is measured on the whole unit
  // (its data children with the views the lowering folds into its reads, its function
  // the canonical one of its type): its reads' runs and its lines, in context.
  // A user map that reduces its elements is a unit (a reduction, docs/lowering.md); one
  // that keeps their shape, and a zip, are element-wise and fuse into their producer's.
  const bool reducingMap = op == Op::Map && kids.size() == 2 && kids[1] && kids[1]->isFun() &&
                           kids[1]->result()->rank() < kids[1]->param()->rank();
  const bool skeleton =
      (kids.size() == 3 && kids[2] && kids[2]->isFun() && op != Op::App && op != Op::ZipWith) || reducingMap;
  bool dataFromVars = false;
  for (size_t i = 0; i < kids.size() && i < childIsVar.size(); ++i)
    if (childIsVar[i] && kids[i] && kids[i]->isIntTensor()) dataFromVars = true;
  const bool unitStart = (skeleton && !dataFromVars) || op == Op::MaxPool;
  std::vector<ChildShape> plain(kids.size());
  for (size_t i = 0; i < kids.size(); ++i) plain[i].type = kids[i];
  // A skeleton that reads its operands itself (a convolution's windows, a matrix product's
  // rows) is no faster than its address generators, whatever unit it is in: the runs of
  // the reads it does not replay, on plain buffers of its operands' types, are a floor of
  // every call (a ParallelConv reads G windows per vector however its tile was cut). The
  // replayed operands' runs are not: a tiling around the call may load them once for
  // every tile, which the unit's own measure below sees.
  if (skeleton && readsItsOperands(op)) {
    if (std::optional<SkeletonLoad> r = oracle_(op, params, plain, type, intermediate)) {
      if (r->refused) {
        c.lowerable = false;
        return;
      }
      // A convolution in a function computes without this floor when its caller replays
      // the windows (NodeCost::compute).
      if (!unitStart && (op == Op::Conv || op == Op::ParallelConv)) c.compute = t;
      t.floors.push_back({r->freshRuns, {}, 1});
    }
  }
  if (!unitStart) return;
  c.startsUnit = true;
  std::vector<ChildShape> shapes(children.begin(), children.end());
  if (shapes.size() != kids.size()) shapes = plain;
  std::optional<SkeletonLoad> l = oracle_(op, params, shapes, type, intermediate);
  if (!l) return;
  if (l->refused) {
    c.lowerable = false;
    return;
  }
  const int64_t overhead = l->load.depth + mem.latency + kUnitSwitch;
  if (op == Op::MaxPool) {
    // its own unit: no DSPs, its read and write set its time
    t.constant = satAdd(unitCycles(l->load, mem), kUnitSwitch);
    return;
  }
  // The compute terms: calls * T(f), or its share when zero columns are dropped (a floor
  // over f's time, paddedColumns above), each as (child, coefficient, denominator).
  struct Compute {
    CostExpr::Term term;
    int64_t den;
  };
  std::vector<Compute> compute;
  for (const CostExpr::Term& f : t.linear) compute.push_back({f, 1});
  for (const CostExpr::Floor& f : t.floors)
    for (const CostExpr::Term& x : f.linear) compute.push_back({x, f.den});
  // The unit's busiest stage is its datapath's steps (calls * T(f): the chosen function's
  // parallelism) or its address generators' runs, whichever is more; its port the lines it
  // moves; unitCycles combines them as max(busiest, port, 5/8 (stalled + port)), where
  // the steps are among the stalled stages unless a replay buffer feeds them.
  t.constant = satAdd(t.constant, overhead);
  for (CostExpr::Floor& f : t.floors) f.constant = satAdd(f.constant, satMul(f.den, overhead));
  const int64_t port = portCycles(l->load.lines, mem);
  t.floors.push_back({satAdd(l->load.busiest, overhead), {}, 1});
  t.floors.push_back({satAdd(port, overhead), {}, 1});
  t.floors.push_back({satAdd(l->load.onChipLines, overhead), {}, 1});
  // the interference of the port with the stages a late line can stall (cycle_model.h)
  t.floors.push_back({satAdd(satMul(kInterferenceNum, satAdd(l->load.stalled, port)), satMul(kInterferenceDen, overhead)),
                      {},
                      kInterferenceDen});
  // A replay buffer's first block arrives before the datapath can take every step: the
  // busiest stage is the compute time plus that fill, which grows by fillPerStep with
  // each step a call (T(f)) beyond the first.
  const int64_t fill = l->load.replayFill, perStep = l->fillPerStep;
  for (const Compute& f : compute) {
    const int64_t den = satMul(kInterferenceDen, f.den);
    // The steps interfere with the port only when a late line can stall them. If they do
    // only at one step a call (T(f) = 1), the lowering replays the call's operands at two
    // or more: the floor is then that of one step a call, a constant that at two can
    // only overstate the time (self-attention's projections: 231, beside their steps
    // and fill's 239).
    const int64_t beside =
        satMul(f.den, satAdd(satMul(kInterferenceNum, satAdd(port, fill)), satMul(kInterferenceDen, overhead)));
    const int64_t steps = satMul(kInterferenceNum, f.term.coef);  // times T(f)
    if (l->stepsStall && l->stepsStallAtTwoSteps)
      t.floors.push_back({beside, {{f.term.child, steps, f.term.compute}}, den});
    else if (l->stepsStall)
      t.floors.push_back({satAdd(beside, steps), {}, den});
    if (fill > 0)
      t.floors.push_back({satMul(f.den, satAdd(fill - perStep, overhead)),
                          {{f.term.child, satAdd(f.term.coef, satMul(perStep, f.den)), f.term.compute}},
                          f.den});
  }
  if (overlap() && kids.size() == 3 && !reducingMap) {
    // Handed over from the caller before it, the unit hides its lead and that caller's
    // drain and switch (the extractor charges the largest drain; each caller's own stands
    // in for its neighbour's): its time less that, but never less than its steps, which
    // the instance takes one a cycle, nor its tail after the unit that feeds it.
    const int64_t credit = handoverCredit(l->lead, l->drain);
    NodeCost::Overlap o{l->lead, l->drain, t};
    CostExpr& x = o.exposed;
    auto less = [](int64_t v, int64_t k) { return v >= kCostCap ? v : v - k; };  // infinite stays
    x.constant = less(x.constant, credit);
    for (CostExpr::Floor& f : x.floors) f.constant = less(f.constant, satMul(f.den, credit));
    x.floors.push_back({0, {}, 1});
    x.floors.push_back({l->fedTail, {}, 1});
    for (const Compute& f : compute) {
      x.floors.push_back({0, {f.term}, f.den});
      // fed: the busiest stage, the steps and the fill at least, over the fed lines, then
      // the pipeline
      if (l->fedLines > 0)
        x.floors.push_back({satMul(f.den, satAdd(fill, satMul(l->fedLines, l->fedAfter))),
                            {f.term},
                            satMul(f.den, l->fedLines)});
    }
    c.overlap = std::move(o);
  }
}

bool isFoldedView(Op op) { return op == Op::Pad || op == Op::Transpose || op == Op::Flatten; }

bool isProgramData(Op op) { return op == Op::Input || op == Op::Const; }

bool passesItsOutputOn(Op op, bool hasFunctionChild) {
  return !hasFunctionChild && op != Op::MaxPool && op != Op::Input && op != Op::Var && op != Op::Const &&
         op != Op::Lam && op != Op::App;
}

namespace {

/// Whether a term's data is computed by a unit (not a program input, weight or constant),
/// looking through a view the lowering folds into the reads.
bool computedData(const ir::Term* k) {
  if (isFoldedView(k->op()) && k->numChildren() == 1) k = k->child(0);
  return !isProgramData(k->op()) && k->op() != Op::Var;
}

}  // namespace

NodeCost CostModel::nodeCost(const ir::Term* term, bool intermediate) const {
  const size_t n = term->numChildren();
  std::vector<const Type*> kids;
  std::vector<ChildShape> shapes;
  auto isVar = std::make_unique<bool[]>(n + 1);  // std::vector<bool> has no span
  for (size_t i = 0; i < n; ++i) {
    const ir::Term* k = term->child(i);
    kids.push_back(k->type());
    isVar[i] = k->op() == Op::Var;
    ChildShape s{k->type(), Op::Var, {}, nullptr};
    if (isFoldedView(k->op())) s = {k->type(), k->op(), {k->params().begin(), k->params().end()}, k->child(0)->type()};
    s.computed = computedData(k);
    shapes.push_back(std::move(s));
  }
  return nodeCost(term->op(), term->params(), kids, term->type(), std::span<const bool>(isVar.get(), n), shapes,
                  intermediate);
}

namespace {

using Costs = std::array<int64_t, kDims>;

/// A term's use costs and its compute time (NodeCost::compute).
struct Walked {
  Costs use{};
  int64_t compute = 0;
};

struct DesignWalker {
  const CostModel& model;
  std::unordered_set<const ir::Term*> outputs;  // terms whose value a unit writes as an output
  DesignCost result;
  // Let-bound units visible at the current point, innermost first, with the binder depth
  // at which each was bound (so %i can be resolved) and its in-place time and compute time.
  struct Unit {
    uint32_t depth;  // number of enclosing binders (lambdas and lets) at the let's body
    int64_t time, compute;
    const ir::Term* let;
  };

  /// The let a unit's function child names, or nullptr.
  const ir::Term* calledLet(const ir::Term* t) const {
    if (t->numChildren() <= NodeCost::kFunctionChild) return nullptr;
    const ir::Term* f = t->child(NodeCost::kFunctionChild);
    if (f->op() != Op::Var) return nullptr;
    const size_t depth = binders.size(), idx = static_cast<size_t>(f->varIndex());
    if (idx >= depth || binders[depth - 1 - idx] < 0) return nullptr;
    return units[static_cast<size_t>(binders[depth - 1 - idx])].let;
  }
  std::vector<Unit> units;  // outermost first
  // For each binder on the current path: index into units, or -1 for an ordinary lambda.
  std::vector<int> binders;
  std::unordered_map<uint32_t, Walked> memo;  // closed terms without lets, by term id
  // Handovers (--overlap, NodeCost::overlap). Walking one after another: the let every
  // unit calls so far (nullptr: none yet), and whether one unit calls no let or another.
  const ir::Term* chainLet = nullptr;
  bool chainBroken = false;
  // Walking again with the callers of `creditLet` credited: the largest lead and drain.
  const ir::Term* creditLet = nullptr;
  int64_t lead = 0, drain = 0;

  Walked walk(const ir::Term* t) {
    // A closed term cannot name a let-bound unit, so its cost is context-free; it is
    // memoised unless it binds units itself (each copy of those would be paid again).
    const bool memoable = t->closed();
    const size_t unitsBefore = result.sharedUnits;
    if (memoable) {
      auto it = memo.find(t->id());
      if (it != memo.end()) return it->second;
    }
    Walked out;
    if (t->op() == Op::Var) {
      size_t depth = binders.size();
      auto idx = static_cast<size_t>(t->varIndex());
      if (idx < depth && binders[depth - 1 - idx] >= 0) {
        const Unit& u = units[static_cast<size_t>(binders[depth - 1 - idx])];
        out.use[kTime] = satAdd(u.time, model.communicationCost());
        out.compute = satAdd(u.compute, model.communicationCost());
      }
    } else if (t->op() == Op::App && t->child(0)->op() == Op::Lam) {
      // let x = value in body
      Walked v = walk(t->child(1));
      for (int d = 0; d < kDims; ++d) result.fixed[d] = satAdd(result.fixed[d], d == kTime ? 0 : v.use[d]);
      ++result.sharedUnits;
      units.push_back({static_cast<uint32_t>(binders.size()), v.use[kTime], v.compute, t});
      binders.push_back(static_cast<int>(units.size() - 1));
      out = walk(t->child(0)->body());
      binders.pop_back();
      units.pop_back();
    } else {
      NodeCost nc = model.nodeCost(t, !outputs.count(t));
      std::array<std::vector<int64_t>, kDims> use;
      std::vector<int64_t> compute;
      for (size_t i = 0; i < t->numChildren(); ++i) {
        if (t->op() == Op::Lam) binders.push_back(-1);
        Walked k = walk(t->child(i));
        if (t->op() == Op::Lam) binders.pop_back();
        for (int d = 0; d < kDims; ++d) use[d].push_back(k.use[d]);
        compute.push_back(k.compute);
      }
      for (int d = 0; d < kDims; ++d) out.use[d] = nc.dim[d].evaluate(use[d], compute);
      if (nc.startsUnit) {
        const ir::Term* let = nc.overlap ? calledLet(t) : nullptr;
        if (!let || (chainLet && chainLet != let)) chainBroken = true;
        chainLet = let;
        if (let && let == creditLet) {
          out.use[kTime] = nc.overlap->exposed.evaluate(use[kTime], compute);
          lead = std::max(lead, nc.overlap->lead);
          drain = std::max(drain, nc.overlap->drain);
        }
      }
      out.compute = nc.computeTime(use[kTime], compute, out.use[kTime]);
    }
    if (memoable && result.sharedUnits == unitsBefore) memo.emplace(t->id(), out);
    return out;
  }
};

}  // namespace

DesignCost designCost(const CostModel& model, const ir::Term* term) {
  // The program's value: the body inside the lets of its shared units, and what its
  // element-wise and reshaping operators (a tuple's elements) are computed from.
  const ir::Term* root = term;
  while (root->op() == Op::App && root->child(0)->op() == Op::Lam) root = root->child(0)->body();
  std::unordered_set<const ir::Term*> outputs;
  std::vector<const ir::Term*> pending{root};
  while (!pending.empty()) {
    const ir::Term* t = pending.back();
    pending.pop_back();
    if (!outputs.insert(t).second) continue;
    bool fun = false;
    for (size_t i = 0; i < t->numChildren(); ++i) fun = fun || (t->child(i)->type() && t->child(i)->type()->isFun());
    if (passesItsOutputOn(t->op(), fun))
      for (size_t i = 0; i < t->numChildren(); ++i) pending.push_back(t->child(i));
  }
  DesignWalker w{model, outputs, {}, {}, {}, {}};
  w.result.use = w.walk(term).use;
  w.result.oneAfterAnother = w.result.use[kTime];
  if (model.overlap() && w.chainLet && !w.chainBroken) {
    // Every unit calls one let: walked again with its callers credited (the extractor's
    // evaluation, extract/selection.cpp), the design takes the less of the two times.
    DesignWalker credited{model, std::move(outputs), {}, {}, {}, {}};
    credited.creditLet = w.chainLet;
    const int64_t walked = credited.walk(term).use[kTime];  // before its lead and drain are read
    const int64_t t = satAdd(walked, handoverCredit(credited.lead, credited.drain));
    w.result.use[kTime] = std::min(w.result.use[kTime], t);
  }
  return w.result;
}

}  // namespace skeleshare::cost
