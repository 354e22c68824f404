#pragma once
// Resource rules of the mid-level IR (docs/lowering.md, "Resource rules"); the cycle
// estimate is timing.h.
//
// DSPs are exact: a DSP multiplier (Mul[1, k]) has one lane per vector element and k
// products to a DSP block (the device's dsp_modes), nothing else uses DSPs, so a
// ParallelDot[P] template over N-element rows has ceil(P * min(N, 64) / k) blocks, the
// cost model's number. On-chip memory bits are exact for on-chip buffers and Repeat buffers.
// Logic is an estimate in LUT-sized units (documented per primitive in resources.cpp).

#include <cstdint>
#include <vector>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

struct Resources {
  int64_t dsps = 0;       // DSP blocks
  int64_t dspLanes = 0;   // DSP multipliers (lanes of Mul[1]); a block holds one or more
  int64_t onChipBits = 0;  // the bits the on-chip RAMs hold
  // the on-chip RAMs as synthesis builds them (ram_mapping.h); a RAM in flip-flops counts
  // its bits as logic
  int64_t m20kBlocks = 0;
  int64_t mlabCells = 0;
  int64_t logic = 0;
  Resources& operator+=(const Resources& o) {
    dsps += o.dsps;
    dspLanes += o.dspLanes;
    onChipBits += o.onChipBits;
    m20kBlocks += o.m20kBlocks;
    mlabCells += o.mlabCells;
    logic += o.logic;
    return *this;
  }
};

Resources nodeResources(const Unit& unit, const Node& node);
/// Every node of the unit, as if it were built on its own.
Resources unitResources(const Unit& unit);
/// A call's own hardware: every node but the shared datapath (all nodes for a plain unit).
Resources callSiteResources(const Unit& unit);
/// The datapath nodes of a call (nothing for a plain unit).
Resources datapathResources(const Unit& unit);
/// Every unit plus the on-chip buffers; a shared instance's datapath counts once, and the
/// replay buffers outside the datapaths count as the RAMs of their pool (replay_pool.h).
Resources programResources(const Program& prog);

/// The M20K bits a buffer takes on chip in a line RAM of its own (mapLineRam): none for
/// a shallow one, which synthesis builds in LUT-RAM.
int64_t onChipBufferBits(const Buffer& b);
/// The on-chip bits the intermediates may take: half of the device's (units run one at a
/// time, and each may take the other half for its replay buffers).
int64_t intermediateBudgetBits(int64_t onChipBudgetBits);
/// Whether `b` fits on chip beside intermediates that already take `usedBits`.
bool fitsOnChip(const Buffer& b, int64_t usedBits, int64_t onChipBudgetBits);
/// Whether the whole design's M20K blocks (programResources) fit `onChipBudgetBits`.
bool programFitsOnChip(const Program& prog, int64_t onChipBudgetBits);

/// Places intermediate buffers on chip, in schedule order, while their total stays within
/// intermediateBudgetBits(`onChipBudgetBits`) and, with the M20K blocks of the replay
/// pool's RAMs, within `onChipBudgetBits`; the rest, and all inputs, weights and outputs,
/// stay off chip.
void placeBuffers(Program& prog, int64_t onChipBudgetBits);

}  // namespace skeleshare::lower
