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
  int64_t onChipBits = 0;
  int64_t m20kBlocks = 0;  // the M20K blocks of the on-chip RAMs (ramBlocks, lineRamBits)
  int64_t logic = 0;
  Resources& operator+=(const Resources& o) {
    dsps += o.dsps;
    dspLanes += o.dspLanes;
    onChipBits += o.onChipBits;
    m20kBlocks += o.m20kBlocks;
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

/// The M20K blocks of a RAM of `words` words of `width` bits with one write and one read
/// port: the fewest of the block's simple dual-port shapes (512 x 40, 1,024 x 20, 2,048 x
/// 10 bits) side by side and stacked. An estimate of synthesis: yosys (benchmarks/synth.py
/// --entity ss_replay_ram) maps 288 x 16,384 bits to these 410 blocks, but 4,608 x 512 bits
/// to 144 where this counts 117, and builds small RAMs in logic.
int64_t ramBlocks(int64_t width, int64_t words);
/// The M20K bits of a line RAM (ss_line_ram) of `lines` lines: synthesis splits the line
/// into 64 byte-wide RAMs (its byte enables), each M20K 2,048 x 8 bits of one.
int64_t lineRamBits(int64_t lines);
/// The M20K bits a buffer takes on chip in a line RAM of its own.
int64_t onChipBufferBits(const Buffer& b);
/// The on-chip bits the intermediates may take: half of the device's (units run one at a
/// time, and each may take the other half for its replay buffers).
int64_t intermediateBudgetBits(int64_t onChipBudgetBits);
/// Whether `b` fits on chip beside intermediates that already take `usedBits`.
bool fitsOnChip(const Buffer& b, int64_t usedBits, int64_t onChipBudgetBits);

/// Places intermediate buffers on chip, in schedule order, while their total stays within
/// intermediateBudgetBits(`onChipBudgetBits`) and, with the M20K blocks of the replay
/// pool's RAMs, within `onChipBudgetBits`; the rest, and all inputs, weights and outputs,
/// stay off chip.
void placeBuffers(Program& prog, int64_t onChipBudgetBits);

}  // namespace skeleshare::lower
