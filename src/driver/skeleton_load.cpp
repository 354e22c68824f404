#include "skeleshare/driver/skeleton_load.h"

#include <fmt/format.h>

#include <algorithm>

#include "skeleshare/ir/builders.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/timing.h"

namespace skeleshare::driver {

using ir::Op;
using ir::Type;

SkeletonLoads::SkeletonLoads(const cost::Device& device, bool boxReads)
    : options_(lower::lowerOptions(device, boxReads)) {
  options_.accessCounter = &counts_;  // the read passes' counts are the timing's
}

void SkeletonLoads::placeOnChip(lower::Program& prog, const std::string& buffer) const {
  const int b = prog.findBuffer(buffer);
  if (b < 0) return;
  lower::Buffer& buf = prog.buffers[static_cast<size_t>(b)];
  if (lower::fitsOnChip(buf, 0, options_.onChipBudgetBits)) buf.memory = lower::Memory::OnChip;
}

const Type* SkeletonLoads::local(const Type* t) {
  if (!t) return nullptr;
  if (t->isFun()) return ctx_.funType(local(t->param()), local(t->result()));
  if (t->isIntTensor()) return ctx_.tensorType(t->shape(), ctx_.intType(t->scalar()->bits()));
  return nullptr;
}

// The canonical function of a skeleton's function type, by the shapes of its parameters:
// a dot (Mv's), an mvF (Conv's, Mm's, Conv1D's, the Mv wrappers'), a partial mvF
// (ParallelConv's), a convolution function (the Conv wrappers') or an mm function. With
// two steps a call: a dot or an mvF with half the rows a step; null for the others.
const ir::Term* SkeletonLoads::canonicalFunction(Op op, const Type* f, std::span<const cost::ChildShape> kids,
                                                 int stepsPerCall) {
  // A user map that reduces its elements and a user fold: a sum in their place, which the
  // lowering builds as the same reduction unit as a maximum (docs/lowering.md).
  if (op == Op::Map || op == Op::Reduce) {
    if (stepsPerCall != 1) return nullptr;
    f = local(f);  // built from its types, in this context
  }
  if (op == Op::Map) return f && f->isFun() ? reductionFunction(f->param(), f->result()) : nullptr;
  if (op == Op::Reduce)
    return f && f->isFun() && f->result()->isFun() ? sumFold(f->param(), f->result()->param()) : nullptr;
  if (!f || !f->isFun() || !f->result()->isFun()) return nullptr;
  const Type* a = f->param();
  const Type* b = f->result()->param();
  if (!a->isIntTensor() || !b->isIntTensor()) return nullptr;
  const auto as = a->shape(), bs = b->shape();
  const Type* sa = a->scalar();
  const Type* sb = b->scalar();
  // At stepsPerCall steps a call, a dot's and an mvF's rows are split among the steps; the
  // other functions have no rows to split.
  const bool oneStep = stepsPerCall == 1;
  auto rowsPerStep = [stepsPerCall](int64_t rows) { return (rows + stepsPerCall - 1) / stepsPerCall; };
  switch (op) {
    case Op::Mv:
      if (as.size() == 2 && bs == as && as[0] >= stepsPerCall)
        return ir::dotF(ctx_, as[0], as[1], sa, sb, rowsPerStep(as[0]));
      return nullptr;
    case Op::ParallelConv: {
      if (!oneStep) return nullptr;
      auto w = kids[1].type->shape();
      if (as.size() != 2 || bs.size() != 1 || w.size() != 4) return nullptr;
      const int64_t n = w[1] * w[2] * w[3];
      if (n == 0 || as[1] % n != 0) return nullptr;
      return ir::pMvF(ctx_, as[0], as[1], as[1] / n, sa, sb);
    }
    case Op::Conv:
    case Op::Conv1DW:
    case Op::Conv1DH:
    case Op::Mm:
    case Op::TiledMv:
    case Op::TiledMvRows:
    case Op::PaddedMv:
    case Op::PaddedMvRows:
      if (as.size() == 2 && bs.size() == 1 && bs[0] == as[1] && as[0] >= stepsPerCall)
        return ir::mvF(ctx_, as[0], as[1], sa, sb, rowsPerStep(as[0]));
      return nullptr;
    case Op::TiledConvHW:
    case Op::TiledConvICH:
    case Op::TiledConvOCH:
    case Op::PaddedConvHW:
    case Op::PaddedConvICH:
    case Op::PaddedConvOCH:
    case Op::PaddedConvKS:
    case Op::PairedConvW:
      if (oneStep && as.size() == 3 && bs.size() == 4 && bs[1] == bs[2] && bs[3] == as[2])
        return ir::cConvF(ctx_, as[0], as[1], as[2], bs[0], bs[1], sa, sb);
      return nullptr;
    case Op::TiledMmW:
    case Op::TiledMmH:
    case Op::TiledMmK:
      if (oneStep && as.size() == 2 && bs.size() == 2 && as[1] == bs[1])
        return ir::cMmF(ctx_, bs[0], as[0], as[1], sa, sb);
      return nullptr;
    case Op::TransposedConv1DW:
      if (oneStep && as.size() == 2 && bs.size() == 1) return ir::cConv1DWF(ctx_, as[0], as[1], bs[0], sa, sb);
      return nullptr;
    default:
      return nullptr;
  }
}

const ir::Term* SkeletonLoads::sumFold(const Type* acc, const Type* elem) {
  if (!acc || !elem || !acc->isIntTensor() || !elem->isIntTensor()) return nullptr;
  std::string error;
  const ir::Term* kids[] = {ctx_.var(1, acc), ctx_.var(0, elem)};
  const ir::Term* add = ctx_.tryMake(Op::Add, {}, nullptr, kids, error);
  return add && add->type() == acc ? ctx_.lam2(acc, elem, add) : nullptr;
}

const ir::Term* SkeletonLoads::reductionFunction(const Type* e, const Type* r) {
  if (!e || !r || !e->isIntTensor() || !r->isIntTensor()) return nullptr;
  const auto es = e->shape(), rs = r->shape();
  if (es.empty()) return nullptr;
  const ir::Term* x = ctx_.var(0, e);
  const ir::Term* body = nullptr;
  std::string error;
  if (es.size() == 1 && rs.empty()) {  // Reduce(0, x, \\acc v. acc + v)
    const ir::Term* sum = sumFold(r, e->elem());
    if (!sum) return nullptr;
    const ir::Term* fold[] = {ctx_.constant(0, r), x, sum};
    body = ctx_.tryMake(Op::Reduce, {}, nullptr, fold, error);
  } else if (es.size() >= 2 && rs.size() + 1 == es.size() && rs[0] == es[0]) {  // a map of reductions
    const ir::Term* inner = reductionFunction(e->elem(), r->elem());
    if (!inner) return nullptr;
    const ir::Term* map[] = {x, inner};
    body = ctx_.tryMake(Op::Map, {}, nullptr, map, error);
  }
  return body && body->type() == r ? ctx_.lam(e, body) : nullptr;
}

std::optional<cost::SkeletonLoad> SkeletonLoads::measure(Op op, std::span<const int64_t> params,
                                                        std::span<const cost::ChildShape> kids, const Type* type,
                                                        bool intermediate) {
  std::optional<cost::SkeletonLoad> one = measureWith(op, params, kids, type, intermediate, 1);
  // (Without stalling steps or a fill there is nothing the second measure could change.)
  if (!one || one->refused || (!one->stepsStall && one->load.replayFill == 0)) return one;
  // Measured again with two steps a call: the lowering then replays the call's operand
  // vector (docs/cost-model.md), so the steps may no longer stall, and a read that makes a
  // pass over its lines per step (a transposed operand) fills its replay buffer twice.
  std::optional<cost::SkeletonLoad> two = measureWith(op, params, kids, type, intermediate, 2);
  if (two && !two->refused) {
    one->stepsStallAtTwoSteps = two->stepsStall;
    one->fillPerStep = std::clamp<int64_t>(two->load.replayFill - one->load.replayFill, 0, one->load.replayFill);
  }
  return one;
}

std::optional<cost::SkeletonLoad> SkeletonLoads::measureWith(Op op, std::span<const int64_t> params,
                                                            std::span<const cost::ChildShape> kids, const Type* type,
                                                            bool intermediate, int stepsPerCall) {
  ir::Module m;
  std::vector<const ir::Term*> children;
  for (size_t i = 0; i < kids.size(); ++i) {
    const Type* t = local(kids[i].type);
    if (!t) return std::nullopt;
    if (t->isFun()) {
      const ir::Term* f = canonicalFunction(op, kids[i].type, kids, stepsPerCall);
      if (!f || f->type() != t) return std::nullopt;
      children.push_back(f);
      continue;
    }
    if (t->rank() == 0) {  // a scalar (a fold's init): a constant, as the DSL writes it
      children.push_back(ctx_.constant(0, t));
      continue;
    }
    std::string name = fmt::format("x{}", i);
    const Type* in = kids[i].view == Op::Var ? t : local(kids[i].viewOf);
    if (!in) return std::nullopt;
    m.decls.push_back({name, ir::Decl::Kind::Input, in});
    const ir::Term* x = ctx_.input(name, in);
    if (kids[i].view != Op::Var) {
      std::string error;
      x = ctx_.tryMake(kids[i].view, kids[i].viewParams, nullptr, std::span<const ir::Term* const>(&x, 1), error);
      if (!x || x->type() != t) return std::nullopt;
    }
    children.push_back(x);
  }
  std::string error;
  const ir::Term* node = ctx_.tryMake(op, params, local(type), children, error);
  if (!node) return std::nullopt;
  // An accumulator's result is stored requantised in every benchmark: the requantisation
  // fuses into the unit's write, which then moves a quarter of the bytes. Measuring the
  // i32 store instead would charge a transposing unit (Conv1D_H) four times the write
  // lines it has. A design that does store i32 is under-charged for its writes only.
  if (node->type()->isIntTensor() && node->type()->scalar()->bits() > 8) {
    const int64_t shift = 0;
    const ir::Term* y = ctx_.tryMake(Op::Requant, std::span<const int64_t>(&shift, 1), nullptr,
                                     std::span<const ir::Term* const>(&node, 1), error);
    if (y) node = y;
  }
  m.outputs.push_back({"y", node});
  lower::Program prog;
  try {
    prog = lower::lowerModule(m, ctx_, options_);
  } catch (const lower::LowerError&) {
    cost::SkeletonLoad refused;
    refused.refused = true;
    return refused;
  }
  // Where the design keeps them: computed operands and an intermediate result on chip
  // when they fit (lower::placeBuffers' rule, for one buffer).
  for (size_t i = 0; i < kids.size(); ++i)
    if (kids[i].computed) placeOnChip(prog, fmt::format("x{}", i));
  if (intermediate) placeOnChip(prog, "y");
  // The skeleton's unit: the one with the datapath (its multipliers); a max-pool's or a
  // fold's only unit, the one with the accumulator. Copies of an operand the lowering adds
  // run before it and are other units.
  const bool accumulates = op == Op::MaxPool || op == Op::Reduce || op == Op::Map;
  std::optional<cost::SkeletonLoad> out;
  const lower::Unit* outUnit = nullptr;
  for (const auto& u : prog.units) {
    int64_t steps = 0;
    bool stepsStall = false;
    const std::vector<bool> stalls = lower::stallingStages(prog, u);
    for (size_t i = 0; i < u.nodes.size(); ++i) {
      const lower::Node& n = u.nodes[i];
      if (n.prim == lower::Prim::Mul || (accumulates && n.prim == lower::Prim::ReduceStm)) {
        steps = std::max(steps, n.type.streamSteps());
        stepsStall = stepsStall || stalls[i];
      }
    }
    if (steps == 0) continue;
    cost::SkeletonLoad l{steps, lower::unitLoad(prog, u, counts_, options_.memory), lower::freshReadRuns(prog, u, counts_)};
    l.stepsStall = stepsStall;
    if (!out || l.load.busiest > out->load.busiest) {
      out = l;
      outUnit = &u;
    }
  }
  // Of the skeleton's unit only, and at one step a call only: measure() keeps no more of
  // the second measure than whether its steps stall and its fill.
  if (out && overlap_ && stepsPerCall == 1) measureHandover(prog, *outUnit, kids, *out);
  return out;
}

void SkeletonLoads::measureHandover(const lower::Program& prog, const lower::Unit& u,
                                    std::span<const cost::ChildShape> kids, cost::SkeletonLoad& l) const {
  const cost::OverlappingUnit o = lower::overlapQuantities(u, l.load, 0, options_.memory);
  l.lead = o.lead;
  l.drain = o.drain;
  // fed through the operands that another unit computes
  std::vector<uint32_t> fed;
  for (uint32_t i = 0; i < u.nodes.size(); ++i) {
    const lower::Node& n = u.nodes[i];
    if (n.prim != lower::Prim::Read || n.buffer < 0) continue;
    const std::string& name = prog.buffers.at(static_cast<size_t>(n.buffer)).name;
    for (size_t k = 0; k < kids.size(); ++k)
      if (kids[k].computed && name == fmt::format("x{}", k)) fed.push_back(i);
  }
  const lower::FedTail tail = lower::fedTail(prog, u, fed, l.load, options_.memory);
  l.fedTail = tail.cycles();
  l.fedLines = tail.lines;
  l.fedAfter = tail.after;
}

std::optional<cost::SkeletonLoad> SkeletonLoads::operator()(Op op, std::span<const int64_t> params,
                                                           std::span<const cost::ChildShape> kids, const Type* type,
                                                           bool intermediate) {
  std::string key = fmt::format("{}[{}]{}", ir::opName(op), fmt::join(params, ","), intermediate ? " on chip" : "");
  for (const cost::ChildShape& k : kids) {
    key += "|" + (k.computed ? std::string("on chip ") : std::string()) + (k.type ? k.type->str() : std::string("?"));
    if (k.view != Op::Var)
      key += fmt::format(" = {}[{}]({})", ir::opName(k.view), fmt::join(k.viewParams, ","), k.viewOf ? k.viewOf->str() : "?");
  }
  key += "->" + (type ? type->str() : std::string("?"));
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  auto l = measure(op, params, kids, type, intermediate);
  cache_.emplace(key, l);
  return l;
}

cost::LoadOracle SkeletonLoads::oracle(SkeletonLoads& loads) {
  return [&loads](Op op, std::span<const int64_t> params, std::span<const cost::ChildShape> kids, const Type* type,
                  bool intermediate) {
    return loads(op, params, kids, type, intermediate);
  };
}

}  // namespace skeleshare::driver
