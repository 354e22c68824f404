#pragma once
// How synthesis builds a RAM of the design: which memories become M20K blocks, which
// LUT-RAM (MLAB) and which flip-flops, counted as yosys 0.23's `synth_intel_alm` maps
// them (docs/hardware.md, "RAMs as synthesis builds them"). The lowering counts the
// design's M20K blocks with it, and places intermediates on chip by that count.

#include <cstdint>

namespace skeleshare::lower {

inline constexpr int64_t kM20kBits = 20480;  // an M20K block: 20 Kbit

/// What synthesis builds for a group of memories.
struct RamCells {
  int64_t m20k = 0;       // M20K blocks (20 Kbit each)
  int64_t mlab = 0;       // MLAB cells of 32 words x 1 bit (LUT-RAM, half an ALM each)
  int64_t flipFlops = 0;  // bits of memories that neither takes
  RamCells& operator+=(const RamCells& o) {
    m20k += o.m20k;
    mlab += o.mlab;
    flipFlops += o.flipFlops;
    return *this;
  }
  friend bool operator==(const RamCells&, const RamCells&) = default;
};

/// One memory of `words` words of `width` bits, one write and one registered read port
/// (ss_replay_ram, one byte of ss_line_ram). yosys's `memory_bram` tries the M20K's
/// shapes (16,384 x 1 ... 512 x 40 bits) and takes the one of the highest efficiency
/// (stored bits over the bits of the blocks it takes, in whole percent, at least 5), then
/// the fewest blocks; failing that, MLAB cells of 32 x 1 bits (at least 5% efficient too);
/// failing both, flip-flops.
RamCells mapRam(int64_t width, int64_t words);

/// The most bits one memory of the design holds. yosys 0.23's `memory_bram` computes a
/// memory's efficiency as 100 x its bits in an `int`, which overflows beyond 21,474,836
/// bits: such a memory gets a negative efficiency, no M20K or MLAB takes it, and it is
/// left to flip-flops (TinyYolo v2's window slot, 48,672 words of 512 bits). So
/// ss_replay_ram splits a larger RAM into slices of its word, each a memory of its own.
inline constexpr int64_t kMaxMemoryBits = int64_t{1} << 24;

/// The bits of each slice of a replay RAM's word (ss_replay_ram's SLICE_W; the last
/// slice may be narrower): the whole word unless the RAM holds more than kMaxMemoryBits.
/// A RAM written in beats (ReplaySlot::beats) is sliced within each beat: pass the beat's
/// width.
int64_t replayRamSliceWidth(int64_t width, int64_t words);

/// A replay RAM (ss_replay_ram) written in `beats` beats of width / beats bits: its
/// slices, each beat's own, each mapped as mapRam.
RamCells mapReplayRam(int64_t width, int64_t words, int64_t beats = 1);

/// A line RAM (ss_line_ram) of `lines` lines of 512 bits: GHDL splits it into 64
/// byte-wide memories (its byte enables), each mapped as mapRam(8, lines).
RamCells mapLineRam(int64_t lines);

/// Reads the memory arbiter (ss_mem_arbiter's MAX_PENDING) lets be in flight at once; its
/// FIFO holds the port of each.
inline constexpr int64_t kArbiterPendingReads = 32;

/// The arbiter's FIFO of read ports for `ports` line ports: kArbiterPendingReads words of
/// the bits a port's index takes (GHDL's `natural range 0 to ports - 1`).
RamCells mapArbiterFifo(int64_t ports);

}  // namespace skeleshare::lower
