#pragma once
// How the hardware walks an address generator: the generics of its affine access
// (docs/hardware.md, "Runs") and the runs and memory lines of a Read or Write, exactly as
// the VHDL templates form them (ss_agen, ss_read, ss_write). The cycle model
// (cost/cycle_model.h) takes these counts; the emitter prints the same generics.
//
// A run is up to PER_CYCLE consecutive elements (in counter order) that the hardware
// moves in one cycle from one address computation: the innermost counters step (mode 0),
// a flattened window's row crosses its channel wraps (mode 1), or several innermost
// counters step together (mode 2). A run stops before a moving digit leaves its radix,
// before the outermost moving counter wraps, at the vector's end, and where an accessed
// element leaves the first element's line (a write) or line pair (a read); a masked
// element takes its fill wherever it would lie. A write run whose first element is
// masked is its masked prefix. The lines a read fetches are those of the run's accessed
// elements, the first element's line and the next, each requested unless it is among the
// lines the read keeps: the last `keptLines` distinct lines its runs used (1: the last).

#include <cstdint>
#include <map>
#include <vector>

#include "skeleshare/lower/addrgen.h"

namespace skeleshare::lower {

/// Bytes of a memory line: the 512-bit port's word (the device's line width).
inline constexpr int64_t kLineBytes = 64;
/// Lines of a read's FIFO (ss_read's FIFO_LINES): requested and not yet used.
inline constexpr int64_t kReadFifoLines = 16;

/// The address generator as ss_agen's generics: flattened, row-major lists, each with at
/// least one entry (NC, NG, ND, NS count the real ones; NM may be 0).
struct AgenParams {
  int64_t nc = 1, ng = 1, nd = 1, ns = 1, nm = 0;
  std::vector<int64_t> extents;                // NC
  std::vector<int64_t> gOffset, gCoef;         // NG, NG*NC
  std::vector<int64_t> dGroup, dDiv, dMod;     // ND
  std::vector<int64_t> space, cOffset, cCoef;  // NS, NS, NS*ND
  std::vector<int64_t> mOffset, mCoef, mLo, mHi, mFill;  // NM (one spare), NM*ND
};
AgenParams agenParams(const AddrGen& g);

/// Elements a Write moves per cycle: a line's worth, at most its lanes.
int64_t writePerCycle(int64_t lanes, int elementBytes);
/// A read's vector may be a line's worth plus a halo (a 1D window's row segment, which the
/// read-lanes pass makes of width-wise windows: 64 columns and 2 pad lanes for 3 taps):
/// up to 1/kReadHaloDivisor of a line more. Its run still stops where an accessed
/// element leaves the line pair (a masked pad lane does not), so such a row is one run,
/// not a line's run and a run of its halo.
inline constexpr int64_t kReadHaloDivisor = 8;
/// Elements a Read moves per cycle: all its lanes when they are at most a line and its
/// halo, else a line's worth.
int64_t readPerCycle(int64_t lanes, int elementBytes);

struct AccessCount {
  int64_t runs = 0;   // cycles of the address generator (one run each)
  int64_t lines = 0;  // 512-bit lines requested (a read) or written (a write)
  int64_t walked = 0; // runs the count visited (fewer than `runs` when it sampled): its work
};

/// The runs and lines of a read of `lanes`-lane vectors through `g` that keeps
/// `keptLines` lines (ss_read's KEEP), for a buffer whose elements are `elementBytes`
/// wide and that starts on a line (the memory map's rule).
AccessCount readAccess(const AddrGen& g, int elementBytes, int64_t lanes, int64_t keptLines = 1);
/// readAccess's runs, and its lines for each kept-line count 1 .. maxKeptLines
/// (lines[k - 1]), from one walk.
struct KeptLineCounts {
  int64_t runs = 0;
  std::vector<int64_t> lines;  // lines[k - 1]: keeping k
  int64_t walked = 0;          // as AccessCount's
};
KeptLineCounts readLinesByKeptLines(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxKeptLines);
/// The same for a write (runs within one line; a line is written when a run leaves it,
/// and at the end).
AccessCount writeAccess(const AddrGen& g, int elementBytes, int64_t lanes);
/// Whether that write writes its lines in rising order, each once: then every line below
/// the last one it has written is final, and a read of the buffer may run beside it,
/// waiting for each line (ss_read's GATED on ss_write's `wm`, docs/hardware.md, "Reading a
/// buffer while it is written"). Walks every run (no sample: the answer must be exact).
bool writeLinesRise(const AddrGen& g, int elementBytes, int64_t lanes);

/// What the aligners of a read or write may take for granted of every run it takes: the
/// low bits that are zero in the byte offset, within its line, of every run that touches
/// its line (offsetBits, at most 6), and in the lane of its vector where every such run
/// starts (laneBits, at most kMaxAlignmentBits). The line shifter then moves whole units
/// of 2^offsetBits bytes and the lane shifter (a read's rotator, a write's lane selector)
/// whole groups of 2^laneBits lanes, with as many fewer stages (OFF_ALIGN and LANE_ALIGN of
/// ss_read and ss_write). Walks every run, as the hardware takes them, since the answer
/// must hold for all of them; with more than `maxRuns` runs it gives {0, 0}, the aligners
/// for any run.
inline constexpr int kMaxAlignmentBits = 30;
/// Runs the emitter and the replay pool walk a read or write for (readAlignment's maxRuns):
/// a few seconds at most for the largest of the benchmarks; a longer one keeps the aligners
/// for any run.
inline constexpr int64_t kMaxAlignedRuns = int64_t{1} << 22;
struct RunAlignment {
  int offsetBits = 0;
  int laneBits = 0;
};
/// A read's runs touch their lines when some element is accessed; every run, even one of
/// fills only, is placed by the rotator.
RunAlignment readAlignment(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxRuns);
/// Whether every run of a read lies within one block of `block` lanes of its vector (it
/// starts at a lane that leaves room for it in the block): then the read can deliver its
/// vectors as blocks with the same runs (lower::replayWriteBeats). Stops at the first run
/// that does not; false past maxRuns runs or when block does not divide lanes.
bool readRunsStayInBlocks(const AddrGen& g, int elementBytes, int64_t lanes, int64_t block, int64_t maxRuns);
/// A write's masked runs drop their lanes: only the others are shifted.
RunAlignment writeAlignment(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxRuns);

/// readAccess and writeAccess, each answer kept: the extractor's oracle lowers one skeleton
/// per operator, parameters and types, and many of them read the same tensors through the
/// same address generators (a layer's input under every tiling of its weights), so most
/// walks would be repeated. Keyed by the generator's generics, the element width and the
/// lanes, the answers are exactly those of the two functions.
class AccessCounter {
 public:
  AccessCount read(const AddrGen& g, int elementBytes, int64_t lanes, int64_t keptLines = 1) {
    return count(false, g, elementBytes, lanes, keptLines);
  }
  AccessCount write(const AddrGen& g, int elementBytes, int64_t lanes) { return count(true, g, elementBytes, lanes, 1); }
  /// readLinesByKeptLines, kept likewise.
  const KeptLineCounts& readLines(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxKeptLines);
  size_t walks() const { return walks_; }  // the walks it did not find kept
  uint64_t walkedRuns() const { return walkedRuns_; }  // their work: the runs they visited

 private:
  AccessCount count(bool write, const AddrGen& g, int elementBytes, int64_t lanes, int64_t keptLines);
  std::map<std::vector<int64_t>, AccessCount> known_;
  std::map<std::vector<int64_t>, KeptLineCounts> knownLines_;
  size_t walks_ = 0;
  uint64_t walkedRuns_ = 0;
};

}  // namespace skeleshare::lower
