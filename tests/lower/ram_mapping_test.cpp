// The RAMs of a design as synthesis builds them: every expectation here is a yosys 0.23
// `synth_intel_alm -family cyclone10gx` measurement (benchmarks/synth.py; the dates and
// designs in docs/hardware.md).

#include <gtest/gtest.h>

#include "skeleshare/lower/ram_mapping.h"

namespace skeleshare::lower {
namespace {

TEST(RamMapping, DeepRamsTakeTheM20kShapeOfTheHighestEfficiency) {
  // VGG-CIFAR's weight slot, 288 words of 16,384 bits: 512 x 40 side by side
  EXPECT_EQ(mapRam(16384, 288), (RamCells{410, 0, 0}));
  // 4,608 words of 512 bits: 512 x 32 (16 x 9 = 144, 100% efficient) where 512 x 40 would
  // take 117 (13 x 9, 98%): memory_bram ranks efficiency before the block count
  EXPECT_EQ(mapRam(512, 4608), (RamCells{144, 0, 0}));
  // VGG-CIFAR's other two slots (synth.py --entity ss_replay_ram, 2026-12-02): 512 x 32
  // again, 288 and 16 blocks where 512 x 40 would take 234 and 13
  EXPECT_EQ(mapRam(512, 9216), (RamCells{288, 0, 0}));
  EXPECT_EQ(mapRam(512, 144), (RamCells{16, 0, 0}));
  // a line RAM of 256 lines: one M20K per byte
  EXPECT_EQ(mapLineRam(256), (RamCells{64, 0, 0}));
  EXPECT_EQ(mapLineRam(4096), (RamCells{128, 0, 0}));
}

TEST(RamMapping, ShallowRamsGoToLutRam) {
  // self-attention at 1,024 blocks: replay RAMs of 4 words of 16,384 bits and 2 of 512,
  // line RAMs of 64 lines (2026-12-02, `synth.py --per-module --blocks-only`)
  EXPECT_EQ(mapRam(16384, 4), (RamCells{0, 16384, 0}));
  EXPECT_EQ(mapRam(512, 2), (RamCells{0, 512, 0}));
  EXPECT_EQ(mapLineRam(64), (RamCells{0, 1024, 0}));
  // 16 lines: half of each 32-word cell used
  EXPECT_EQ(mapLineRam(16), (RamCells{0, 512, 0}));
  // a byte memory is 5% efficient in an M20K of 2,048 x 8 from 103 lines
  EXPECT_EQ(mapLineRam(102).m20k, 0);
  EXPECT_EQ(mapLineRam(103), (RamCells{64, 0, 0}));
}

TEST(RamMapping, AReplayRamOfMoreThan2To24BitsIsSlicedForYosys) {
  // TinyYolo v2's window slot, 48,672 words of 512 bits (24.9 Mbit): one memory, yosys
  // 0.23 maps nothing (its efficiency overflows an int: -71%) and leaves it to flip-flops;
  // two slices of 256 bits map to 768 M20K each (2026-12-02)
  EXPECT_EQ(replayRamSliceWidth(512, 48672), 256);
  EXPECT_EQ(mapReplayRam(512, 48672), (RamCells{1536, 0, 0}));
  // smaller RAMs are one slice; an uneven split leaves the last slice narrower
  EXPECT_EQ(replayRamSliceWidth(16384, 288), 16384);
  EXPECT_EQ(mapReplayRam(16384, 288), mapRam(16384, 288));
  EXPECT_EQ(replayRamSliceWidth(1000, 50000), 334);  // 50 Mbit: slices of 334, 334 and 332
  EXPECT_EQ(mapReplayRam(1000, 50000), (RamCells{mapRam(334, 50000).m20k * 2 + mapRam(332, 50000).m20k, 0, 0}));
}

TEST(RamMapping, AReplayRamWrittenInBeatsIsAMemoryPerBeat) {
  // VGG-CIFAR's weight slot written in 32 beats of 512 bits: yosys takes each 288-word beat
  // as 16 cells of 512 x 32 (56% efficient, where 13 of 512 x 40 round to 55%), 512 in
  // all where the whole word took 410
  EXPECT_EQ(mapRam(16384, 288), (RamCells{410, 0, 0}));
  EXPECT_EQ(mapReplayRam(16384, 288, 32), (RamCells{512, 0, 0}));
  // a beat of more than 2^24 bits is sliced within the beat
  EXPECT_EQ(mapReplayRam(1024, 48672, 2), (RamCells{2 * 1536, 0, 0}));  // two beats of two slices
  EXPECT_THROW(mapReplayRam(1000, 8, 3), std::invalid_argument);
}

TEST(RamMapping, TheArbitersFifoHoldsAPortIndexPerPendingRead) {
  // 32 words of the bits a port's index takes, a cell per bit (synth.py --blocks-only,
  // 2026-12-02: 2 cells with 3 ports, 3 with four chained matrix products' 5 to 8)
  EXPECT_EQ(mapArbiterFifo(3), (RamCells{0, 2, 0}));
  EXPECT_EQ(mapArbiterFifo(8), (RamCells{0, 3, 0}));
  EXPECT_EQ(mapArbiterFifo(9), (RamCells{0, 4, 0}));
  EXPECT_EQ(mapArbiterFifo(1), (RamCells{0, 1, 0}));
}

TEST(RamMapping, OneWordIsFlipFlops) {
  // one word uses 1/32 of an MLAB cell: below the 5% that memory_bram asks of it too
  EXPECT_EQ(mapRam(48, 1), (RamCells{0, 0, 48}));
  EXPECT_EQ(mapLineRam(1), (RamCells{0, 0, 512}));
  EXPECT_EQ(mapRam(0, 4), RamCells{});
}

}  // namespace
}  // namespace skeleshare::lower
