#include "skeleshare/lower/resources.h"

#include <algorithm>

#include "skeleshare/lower/line_rams.h"
#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/replay_pool.h"
#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

namespace {

/// A RAM holding `bits` as synthesis builds it: M20K blocks, MLAB cells, or flip-flops
/// (counted as logic).
Resources ramResources(int64_t bits, const RamCells& cells) {
  Resources r;
  r.onChipBits = bits;
  r.m20kBlocks = cells.m20k;
  r.mlabCells = cells.mlab;
  r.logic = cells.flipFlops;
  return r;
}

/// The replay pool's RAMs (replay_pool.h).
Resources replayPoolResources(const ReplayPool& pool) {
  Resources r;
  for (const ReplaySlot& slot : pool.slots)
    r += ramResources(slot.bits(), mapReplayRam(slot.width, slot.words, slot.beats));
  return r;
}

/// The on-chip buffers' line RAMs (line_rams.h).
Resources lineRamResources(const LineRamPlan& plan) {
  Resources r;
  for (const LineRam& ram : plan.rams) r += ramResources(ram.lines * kLineBytes * 8, mapLineRam(ram.lines));
  return r;
}

}  // namespace

Resources nodeResources(const Unit& unit, const Node& n) {
  Resources r;
  const int64_t lanes = n.type.vectorLanes();
  auto opType = [&](size_t i) -> const MType& { return unit.nodes[n.operands[i]].type; };
  switch (n.prim) {
    case Prim::Read:
    case Prim::Write:
      r.logic = 32 * static_cast<int64_t>(n.addr.counters.size() + n.addr.masks.size());  // counters, comparators
      if (n.prim == Prim::Read) {
        r.logic += (keptLines(n) - 1) * 512;  // a kept line: its register, its share of the muxes
        // its FIFO of lines: a RAM, but no buffer's bits (onChipBits counts buffers)
        r += ramResources(0, mapRam(kLineBytes * 8, kReadFifoLines));
      }
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
    case Prim::RoundShiftEven:
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
      const ReplayShape s = replayShape(unit, n);
      r = ramResources(s.width * s.words, mapReplayRam(s.width, s.words));
      break;
    }
    case Prim::Broadcast:  // wiring
    case Prim::PermuteVec:
    case Prim::Slide:
    case Prim::SelectLanes:
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
  // The replay buffers outside the datapaths are the pool's RAMs (replay_pool.h): its
  // slots count, not every buffer.
  const ReplayPool pool = planReplayPool(prog);
  r += replayPoolResources(pool);
  std::vector<Resources> instance(prog.instances.size());
  for (size_t k = 0; k < prog.units.size(); ++k) {
    const Unit& u = prog.units[k];
    r += callSiteResources(u);
    for (size_t i = 0; i < u.nodes.size(); ++i)
      if (pool.slotOf.count({k, static_cast<uint32_t>(i)})) {
        const Resources own = nodeResources(u, u.nodes[i]);
        r.onChipBits -= own.onChipBits;
        r.m20kBlocks -= own.m20kBlocks;
        r.mlabCells -= own.mlabCells;
        r.logic -= own.logic;
      }
    if (u.call && u.call->instance >= 0 && static_cast<size_t>(u.call->instance) < instance.size()) {
      Resources d = datapathResources(u);
      Resources& best = instance[static_cast<size_t>(u.call->instance)];
      best.dsps = std::max(best.dsps, d.dsps);
      best.dspLanes = std::max(best.dspLanes, d.dspLanes);
      best.onChipBits = std::max(best.onChipBits, d.onChipBits);
      best.m20kBlocks = std::max(best.m20kBlocks, d.m20kBlocks);
      best.mlabCells = std::max(best.mlabCells, d.mlabCells);
      best.logic = std::max(best.logic, d.logic);
    }
  }
  for (const auto& i : instance) r += i;
  r += lineRamResources(planLineRams(prog));  // on-chip buffers: the RAMs they share
  return r;
}

int64_t onChipBufferBits(const Buffer& b) { return mapLineRam(bufferLines(b)).m20k * kM20kBits; }

int64_t intermediateBudgetBits(int64_t onChipBudgetBits) { return onChipBudgetBits / 2; }

bool fitsOnChip(const Buffer& b, int64_t usedBits, int64_t onChipBudgetBits) {
  return usedBits + onChipBufferBits(b) <= intermediateBudgetBits(onChipBudgetBits);
}

bool programFitsOnChip(const Program& prog, int64_t onChipBudgetBits) {
  return programResources(prog).m20kBlocks * kM20kBits <= onChipBudgetBits;
}

void placeBuffers(Program& prog, int64_t onChipBudgetBits) {
  // The replay pool's RAMs take their blocks of the device too: the intermediates get
  // their half, and no more than the pool leaves (TinyYolo v2's window slot alone takes
  // 1,248 of the GX1150's 2,713 blocks).
  const int64_t replayBits = replayPoolResources(planReplayPool(prog)).m20kBlocks * kM20kBits;
  // In schedule order, each intermediate is tried on chip: it stays there when the RAMs of
  // all placed buffers (sharing them where their lives allow, line_rams.h) still fit.
  for (auto& b : prog.buffers) b.memory = Memory::OffChip;
  for (auto& b : prog.buffers) {
    if (b.role != Role::Intermediate) continue;
    b.memory = Memory::OnChip;
    const int64_t used = lineRamResources(planLineRams(prog)).m20kBlocks * kM20kBits;
    if (used > intermediateBudgetBits(onChipBudgetBits) || replayBits + used > onChipBudgetBits) b.memory = Memory::OffChip;
  }
}

}  // namespace skeleshare::lower
