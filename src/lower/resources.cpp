#include "skeleshare/lower/resources.h"

#include <algorithm>

#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

Resources nodeResources(const Unit& unit, const Node& n) {
  Resources r;
  const int64_t lanes = n.type.vectorLanes();
  auto opType = [&](size_t i) -> const MType& { return unit.nodes[n.operands[i]].type; };
  switch (n.prim) {
    case Prim::Read:
    case Prim::Write:
      r.logic = 32 * static_cast<int64_t>(n.addr.counters.size() + n.addr.masks.size());  // counters, comparators
      break;
    case Prim::Const:
    case Prim::ShiftRight:  // wiring
    case Prim::Wrap:
    case Prim::SplitStm:
    case Prim::JoinStm:
    case Prim::SplitVec:
    case Prim::JoinVec:
      break;
    case Prim::Mul:
      if (n.params[0] == 1) {
        const int64_t perBlock = n.params.size() > 1 ? n.params[1] : 1;
        r.dspLanes = lanes;
        r.dsps = (lanes + perBlock - 1) / perBlock;
      }
      else r.logic = lanes * opType(0).bits * opType(1).bits;  // array multiplier
      break;
    case Prim::Add:
    case Prim::Sub:
    case Prim::Max:
    case Prim::Min:
    case Prim::RoundShift:
      r.logic = lanes * n.type.bits;
      break;
    case Prim::Saturate:
      r.logic = lanes * opType(0).bits;
      break;
    case Prim::ReduceVec: {
      const MType& in = opType(0);
      int64_t width = in.dims.back().extent;
      r.logic = (in.vectorLanes() / width) * (width - 1) * n.type.bits;  // a tree of width-1 operators per output lane
      break;
    }
    case Prim::ReduceStm:
      r.logic = lanes * n.type.bits * 2;  // accumulator register and operator per lane
      break;
    case Prim::StmToVec:
      r.logic = lanes * n.type.bits;  // shift registers
      break;
    case Prim::VecToStm:
      r.logic = opType(0).vectorLanes() * n.type.bits;  // output multiplexer
      break;
    case Prim::SlideStm:
      r.logic = lanes * n.type.bits;  // the held words and the output register
      break;
    case Prim::Repeat: {
      // a replay buffer of two banks of the repeated block (the stream inside the new
      // dimension): on chip, even for one word
      const MType& in = opType(0);
      int64_t block = 1;
      for (size_t i = static_cast<size_t>(n.params[1]); i < in.numStreamDims(); ++i) block *= in.dims[i].extent;
      r.onChipBits = 2 * block * in.vectorLanes() * in.bits;  // two banks
      break;
    }
    case Prim::Broadcast:  // wiring
    case Prim::PermuteVec:
    case Prim::Slide:
      break;
  }
  return r;
}

Resources unitResources(const Unit& unit) {
  Resources r;
  for (const auto& n : unit.nodes) r += nodeResources(unit, n);
  return r;
}

Resources callSiteResources(const Unit& unit) {
  if (!unit.call) return unitResources(unit);
  Resources r;
  const auto& dp = unit.call->datapath;
  for (size_t i = 0; i < unit.nodes.size(); ++i)
    if (!std::binary_search(dp.begin(), dp.end(), static_cast<uint32_t>(i))) r += nodeResources(unit, unit.nodes[i]);
  return r;
}

Resources datapathResources(const Unit& unit) {
  Resources r;
  if (unit.call)
    for (uint32_t i : unit.call->datapath) r += nodeResources(unit, unit.nodes.at(i));
  return r;
}

Resources programResources(const Program& prog) {
  Resources r;
  // A shared instance is built once: its datapath counts once (the largest over its calls;
  // the verifier makes them equal in everything that sets DSPs), the rest of every call
  // (address generators, wiring, fused stages) once per call.
  std::vector<Resources> instance(prog.instances.size());
  for (const auto& u : prog.units) {
    r += callSiteResources(u);
    if (u.call && u.call->instance >= 0 && static_cast<size_t>(u.call->instance) < instance.size()) {
      Resources d = datapathResources(u);
      Resources& best = instance[static_cast<size_t>(u.call->instance)];
      best.dsps = std::max(best.dsps, d.dsps);
      best.dspLanes = std::max(best.dspLanes, d.dspLanes);
      best.onChipBits = std::max(best.onChipBits, d.onChipBits);
      best.logic = std::max(best.logic, d.logic);
    }
  }
  for (const auto& i : instance) r += i;
  for (const auto& b : prog.buffers)
    if (b.memory == Memory::OnChip) r.onChipBits += onChipBufferBits(b);
  return r;
}

int64_t onChipBufferBits(const Buffer& b) {
  // ss_line_ram as synthesis builds it: the byte enables split the line into 64 byte-wide
  // RAMs (ghdl synth), each an M20K of 2,048 x 8 bits per 2,048 lines (yosys).
  constexpr int64_t kDepth = 2048, kBlockBits = 20480;
  const int64_t lines = (b.sizeBits() + kLineBytes * 8 - 1) / (kLineBytes * 8);
  return (lines + kDepth - 1) / kDepth * kLineBytes * kBlockBits;
}

int64_t intermediateBudgetBits(int64_t onChipBudgetBits) { return onChipBudgetBits / 2; }

bool fitsOnChip(const Buffer& b, int64_t usedBits, int64_t onChipBudgetBits) {
  return usedBits + onChipBufferBits(b) <= intermediateBudgetBits(onChipBudgetBits);
}

void placeBuffers(Program& prog, int64_t onChipBudgetBits) {
  int64_t used = 0;
  for (auto& b : prog.buffers) {
    if (b.role != Role::Intermediate) { b.memory = Memory::OffChip; continue; }
    if (fitsOnChip(b, used, onChipBudgetBits)) {
      b.memory = Memory::OnChip;
      used += onChipBufferBits(b);
    } else {
      b.memory = Memory::OffChip;
    }
  }
}

}  // namespace skeleshare::lower
