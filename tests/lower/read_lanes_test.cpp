// The read-lanes pass (lower/read_lanes.h): a height-wise 1D convolution's windows are read
// a row segment per run, each row once (a line buffer slides the rows into windows), a
// width-wise one's as its row segment, the value the datapath sees unchanged.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "skeleshare/lower/read_lanes.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/lower/timing.h"
#include "../common/window_views.h"
#include "test_util.h"

namespace skeleshare::lower::test {
namespace {

/// Requant(Conv1D_<axis>(Pad(image), w)) on a square image of `n` x `n` with
/// ParallelDot[p] (the unit's matrix is n x 3: a line of n outputs, 3 taps each), the
/// image padded by one on the convolved side.
std::string oneDimensional(char axis, int64_t n, int64_t p) {
  return fmt::format(R"(
input image : i8[{0}][{0}];
weight w : i8[3];
output o = Requant[3](
  Conv1D_{2}(
    Pad[{3}](@image),
    @w,
    \i8[{0}][3]. \i8[3]. Mv(%1, %0, \i8[{0}][3]. \i8[{0}][3]. ParallelDot[{1}](%1, %0))));
)",
                     n, p, axis, axis == 'H' ? "1, 1, 0, 0, 0" : "0, 0, 1, 1, 0");
}

struct Lowered {
  Program prog;
  const Unit* unit = nullptr;
  const Node* read = nullptr;  // the image's
  std::vector<Prim> after;     // the prims that follow it
  cost::UnitLoad load;
};

/// The program lowered (and checked against the skeleton interpreter), its one unit and
/// the read of the image.
Lowered lowerOneDimensional(char axis, int64_t n, int64_t p) {
  Loaded m = loadIrText(oneDimensional(axis, n, p));
  Lowered l;
  expectAgrees(m, 7, &l.prog);
  EXPECT_EQ(l.prog.units.size(), 1u);
  l.unit = &l.prog.units.at(0);
  for (size_t i = 0; i < l.unit->nodes.size(); ++i) {
    const Node& n = l.unit->nodes[i];
    if (n.prim != Prim::Read || l.prog.buffers.at(static_cast<size_t>(n.buffer)).name != "image") continue;
    l.read = &n;
    for (size_t j = i + 1; j < l.unit->nodes.size() && l.unit->nodes[j].prim != Prim::Read; ++j)
      l.after.push_back(l.unit->nodes[j].prim);
  }
  AccessCounter counts;
  l.load = unitLoad(l.prog, *l.unit, counts, {});
  return l;
}

Lowered lowerHeightWise(int64_t n, int64_t p) { return lowerOneDimensional('H', n, p); }

TEST(ReadLanes, AWindowOfThreeRowsIsReadOneRowSegmentPerRow) {
  // 64 lanes of 64 columns: the window (column, tap) read as (tap, column) is three runs
  // of 64 a row instead of 192 runs of one; and as the taps are the rows r - 1, r, r + 1,
  // the 66 rows of the padded image are read once each and slid into windows of three
  // (SlideStm), then wired back to (column, tap).
  Lowered l = lowerHeightWise(64, 64);
  ASSERT_NE(l.read, nullptr) << printProgram(l.prog);
  EXPECT_EQ(l.read->type.str(), "stm[66][1][1] vec[64] i8");
  ASSERT_GE(l.after.size(), 2u);
  EXPECT_EQ(l.after[0], Prim::SlideStm);
  EXPECT_EQ(l.after[1], Prim::PermuteVec);
  AccessCounter counts;
  EXPECT_EQ(counts.read(l.read->addr, 1, l.read->type.vectorLanes()).runs, 66);
}

TEST(ReadLanes, NarrowVectorsOfOneRowAreReadAsOneAndSentOnInParts) {
  // 16 of 64 columns per vector: read as one 3 x 4 x 16 window a row, each row once (slid
  // into the windows), and serialised into the four vectors the datapath takes.
  Lowered l = lowerHeightWise(64, 16);
  ASSERT_NE(l.read, nullptr) << printProgram(l.prog);
  EXPECT_EQ(l.read->type.str(), "stm[66][1] vec[4][16] i8");
  EXPECT_EQ(l.after, (std::vector<Prim>{Prim::SlideStm, Prim::PermuteVec, Prim::VecToStm, Prim::JoinStm, Prim::SplitStm}))
      << printProgram(l.prog);
  // The datapath's 256 steps set the pace; the image's lines: one a row, and the output's.
  EXPECT_EQ(l.load.busiest, 64 * 4);
  EXPECT_LE(l.load.lines, 66 + 64 + 2);
}

TEST(ReadLanes, WidthWiseWindowsAreReadAsTheirRowAndSlid) {
  // Conv1D_W's window (column, tap) addresses column + tap: read lane by lane order it
  // takes a run per tap; read as the 32 + 2 elements of the row segment it takes one, and
  // Slide[3] (wires) spreads them into the 32 windows.
  Lowered l = lowerOneDimensional('W', 64, 32);
  ASSERT_NE(l.read, nullptr) << printProgram(l.prog);
  EXPECT_EQ(l.read->type.str(), "stm[64][2][1] vec[34] i8") << printProgram(l.prog);
  ASSERT_FALSE(l.after.empty());
  EXPECT_EQ(l.after[0], Prim::Slide) << printProgram(l.prog);
  AccessCounter counts;
  EXPECT_EQ(counts.read(l.read->addr, 1, l.read->type.vectorLanes()).runs, 64 * 2);
  EXPECT_EQ(l.load.busiest, 64 * 2);  // the datapath's 128 steps set the pace
}

TEST(ReadLanes, AWholeRowWithItsHaloIsOneRun) {
  // The same at ParallelDot[64]: the segment is the whole row and its two pad lanes, 66
  // lanes, more than a line's 64 elements. A read takes a line and its halo in one run
  // (readPerCycle), so each row is one run: 64 runs, not 128 (64 lanes, then the 2 pads).
  Lowered l = lowerOneDimensional('W', 64, 64);
  ASSERT_NE(l.read, nullptr) << printProgram(l.prog);
  EXPECT_EQ(l.read->type.str(), "stm[64][1][1] vec[66] i8") << printProgram(l.prog);
  EXPECT_EQ(readPerCycle(66, 1), 66);
  EXPECT_EQ(readPerCycle(80, 1), 64);  // more than a halo: a line's worth per run
  AccessCounter counts;
  const AccessCount c = counts.read(l.read->addr, 1, 66);
  EXPECT_EQ(c.runs, 64);
  EXPECT_EQ(c.lines, 64);  // the pads are fills: only the row's own line
  EXPECT_EQ(l.load.busiest, 64);  // the read keeps pace with the datapath's 64 steps
}

TEST(ReadLanes, AReadIsNotWidenedPastItsLimit) {
  // Four 64-lane vectors of a 256-wide line: 768 lanes as one, more than
  // kMaxWidenedReadLanes; the lanes are still read in row segments.
  static_assert(4 * 64 * 3 > kMaxWidenedReadLanes);
  Lowered l = lowerHeightWise(256, 64);
  ASSERT_NE(l.read, nullptr) << printProgram(l.prog);
  EXPECT_EQ(l.read->type.str(), "stm[256][4][1] vec[3][64] i8");
  ASSERT_FALSE(l.after.empty());
  EXPECT_EQ(l.after[0], Prim::PermuteVec);  // (and no line buffer: the rows are four vectors each)
}

TEST(ReadLanes, ATransposedProductIsWrittenAsComputedAndReadInMemoryOrder) {
  // transpose(t) of a computed 64 x 64 t: written transposed, each of t's rows would put
  // its 64 lanes in 64 lines (4,096 line writes); written as computed and read through a
  // transposed view, whose lanes the pass puts in memory order, every unit moves a few
  // hundred lines.
  Loaded m = loadDslText(R"(
input  x  : i8[64][64];
weight w1 : i8[64][64];
weight w2 : i8[64][64];
let t = relu(requant(mm(x, w1), 6));
output o = requant(mm(w2, transpose(t)), 7);
)");
  Program p;
  expectAgrees(m, 3, &p);
  ASSERT_EQ(p.units.size(), 2u) << printProgram(p);
  AccessCounter counts;
  for (const Unit& u : p.units) EXPECT_LE(unitLoad(p, u, counts, {}).lines, 3 * 64 + 2) << u.name << "\n" << printProgram(p);
  bool permuted = false;
  for (const Node& n : p.units[1].nodes) permuted = permuted || n.prim == Prim::PermuteVec;
  EXPECT_TRUE(permuted) << printProgram(p);
}

// Kept lines: a 3x3x3 window over rows of 64 columns (192 bytes, 3 lines a row) reads a
// 9-byte segment of three rows a window, each row in other lines. Keeping the last line,
// every window requests its rows' lines again. The rows cross into their next lines at
// the same windows, so keeping 6 (a line per row and its next) the windows of an output
// row request the 9 lines of their three rows once; 4 are too few there. The runs are
// the same.
TEST(ReadLanes, KeptLinesRequestAWindowsRowsOnceAlongTheRow) {
  const AddrGen g = test_support::paddedWindow(8, 64, 0);
  const AccessCount one = readAccess(g, 1, 64), four = readAccess(g, 1, 64, 4), six = readAccess(g, 1, 64, 6);
  EXPECT_EQ(six.runs, one.runs);
  EXPECT_EQ(one.runs, 8 * 64 * 3);
  // every run requests its line: 3 lines a window (2 in the padded first and last rows)
  EXPECT_GE(one.lines, (6 * 3 + 2 * 2) * 64);
  // at most the 9 lines of three rows per output row (6 in the first and last: the padded
  // row has no lines, and the two rows' lines still kept may serve the next output row's
  // first windows), at least every line of the interior output rows once
  EXPECT_LE(six.lines, 6 * 9 + 2 * 6);
  EXPECT_GE(six.lines, 6 * 9);
  EXPECT_GT(four.lines, six.lines);
  EXPECT_LT(four.lines, one.lines);
}

/// A 3 x 3 convolution over a padded 6 x 40 x 3 image: its window read keeps lines.
Loaded smallConvolution() {
  return loadDslText(R"(
input  x : i8[6][40][3];
weight w : i8[4][3][3][3];
output o = relu(requant(conv(pad(x, 1), w), 4));
)");
}

// The pass gives a convolution's window read the fewest kept lines that request as few
// lines as kMaxKeptLines, and leaves a read that reads every line once with one; the
// lowered program still computes what the skeleton program does, and the cycle model
// counts the kept lines.
TEST(ReadLanes, AConvolutionsWindowReadKeepsALinePerRow) {
  Loaded m = smallConvolution();
  Program p;
  expectAgrees(m, 5, &p);
  const Node* readX = nullptr;
  const Node* readW = nullptr;
  for (const auto& u : p.units)
    for (const auto& n : u.nodes)
      if (n.prim == Prim::Read) (p.buffers[static_cast<size_t>(n.buffer)].name == "x" ? readX : readW) = &n;
  ASSERT_NE(readX, nullptr) << printProgram(p);
  ASSERT_NE(readW, nullptr) << printProgram(p);
  EXPECT_EQ(keptLines(*readW), 1) << printProgram(p);
  const int64_t keep = keptLines(*readX), lanes = readX->type.vectorLanes();
  ASSERT_GE(keep, 3) << printProgram(p);  // a line per row at least
  auto lines = [&](int64_t k) { return readAccess(readX->addr, 1, lanes, k).lines; };
  const KeptLineCounts counts = readLinesByKeptLines(readX->addr, 1, lanes, kMaxKeptLines);
  EXPECT_EQ(counts.runs, readAccess(readX->addr, 1, lanes).runs);
  EXPECT_GT(counts.lines.front(), counts.runs);  // bound by its lines with one kept
  const std::vector<int64_t>& all = counts.lines;
  ASSERT_EQ(all.size(), static_cast<size_t>(kMaxKeptLines));
  for (int64_t k = 1; k <= kMaxKeptLines; ++k) EXPECT_EQ(all[static_cast<size_t>(k - 1)], lines(k)) << k;
  // the fewest that save seven eighths of what 8 save
  const int64_t least = *std::min_element(all.begin(), all.end());
  EXPECT_LE((lines(keep) - least) * 8, lines(1) - least);
  EXPECT_GT((lines(keep - 1) - least) * 8, lines(1) - least);
  EXPECT_LT(lines(keep) * 4, lines(1));
}

// Box reads. The convolution's windows walk a row of 40 positions, each window three runs
// of 9 bytes (kx, c) in three image rows: 120 runs a row of windows. Read as one box of
// the three rows (3 x 40 x 3 lanes, the padding columns outside it: lanes every window
// masks), a row of windows is three rows of 120 bytes, a run for each line they touch; SelectLanes spreads the box into the 40 windows
// (the padded ones take the fill) and VecToStm sends them on as before. The program still
// computes what the skeleton program does, and the cycle model counts the box.
TEST(ReadLanes, AConvolutionsRowOfWindowsIsReadOnceAsABox) {
  Loaded m = smallConvolution();
  Program boxed, plain;
  LowerOptions boxReads;
  boxReads.boxReads = true;
  expectAgrees(m, 5, &boxed, boxReads);
  expectAgrees(m, 5, &plain);
  ASSERT_EQ(boxed.units.size(), 1u);
  const Unit& u = boxed.units[0];
  const auto read = std::find_if(u.nodes.begin(), u.nodes.end(), [&](const Node& n) {
    return n.prim == Prim::Read && boxed.buffers[static_cast<size_t>(n.buffer)].name == "x";
  });
  ASSERT_NE(read, u.nodes.end());
  EXPECT_EQ(read->type.str(), "stm[6] vec[360] i8") << printProgram(boxed);
  const Node& select = *(read + 1);
  ASSERT_EQ(select.prim, Prim::SelectLanes) << printProgram(boxed);
  EXPECT_EQ(select.type.str(), "stm[6] vec[40][1][1][27] i8");
  // window 0 (x = -1): its first pixel of each row is padding, then the row's pixels 0, 1
  const std::vector<int64_t> first(select.params.begin() + 6, select.params.begin() + 6 + 9);  // after [4, 40, 1, 1, 27, fill]
  EXPECT_EQ(first, (std::vector<int64_t>{-1, -1, -1, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ((read + 2)->prim, Prim::VecToStm);
  EXPECT_EQ((read + 3)->prim, Prim::VecToStm);
  const Node& before = plain.units[0].nodes[3];
  ASSERT_EQ(before.prim, Prim::Read);
  // three rows of 120 bytes a row of windows, a run for each of the (at most 3) lines a row touches
  EXPECT_LE(readAccess(read->addr, 1, 360).runs, 6 * 3 * 3);
  EXPECT_GE(readAccess(before.addr, 1, 27).runs, 6 * 40 * 3);
  AccessCounter counts;
  EXPECT_LT(unitLoad(boxed, u, counts, {}).busiest, unitLoad(plain, plain.units[0], counts, {}).busiest);
}

// A box read is at most kMaxBoxLanes wide, and so are the windows it spreads: a row of
// 200 positions (3 x 200 x 3 lanes, 200 windows of 27) keeps the template's read.
TEST(ReadLanes, ABoxWiderThanTheLimitIsNotRead) {
  Loaded m = loadDslText(R"(
input  x : i8[4][200][3];
weight w : i8[4][3][3][3];
output o = conv(pad(x, 1), w);
)");
  Program p;
  LowerOptions boxReads;
  boxReads.boxReads = true;
  expectAgrees(m, 3, &p, boxReads);
  for (const auto& u : p.units)
    for (const auto& n : u.nodes) EXPECT_NE(n.prim, Prim::SelectLanes) << printProgram(p);
}

TEST(ReadLanes, APoolsNeighbouringWindowsShareTheirLines) {
  // Two neighbouring 2x2 windows of 16 channels: a row of both is one 64-byte line, read
  // as the lanes of one step (lower.cpp, maxPool), so every line is requested once with
  // one kept line (a window a step took 32 bytes a run and needed two kept lines for
  // that), in an exact walk (16 x 16 x 16) and a sampled one (TinyYolo's first pool).
  for (int64_t n : {16, 416}) {
    Loaded m = loadDslText(fmt::format("input x : i8[{0}][{0}][16];\noutput o = maxpool(x, 2, 2);\n", n));
    const Program p = lowerModule(m.module, *m.ctx);
    ASSERT_EQ(p.units.size(), 1u) << printProgram(p);
    const Node& read = p.units[0].nodes.at(0);
    ASSERT_EQ(read.prim, Prim::Read) << printProgram(p);
    EXPECT_EQ(keptLines(read), 1) << n << "\n" << printProgram(p);
    const int64_t lanes = read.type.vectorLanes(), windows = (n / 2) * (n / 2);
    EXPECT_EQ(lanes, 2 * 2 * 16) << n;  // two windows' rows
    const AccessCount one = readAccess(read.addr, 1, lanes);
    EXPECT_EQ(one.runs, windows) << n;
    EXPECT_EQ(one.lines, windows) << n;
    EXPECT_EQ(one.lines * 64, n * n * 16) << n;  // the image once
  }
}

// The read passes count through the caller's counter (LowerOptions::accessCounter): the
// lowering gives the same program with it, and timing the program through that counter
// walks only what the passes did not (the writes, and a read with kept lines at its
// count), with the same estimate. The extractor's oracle and lowerDesign rely on it to
// walk each read once.
TEST(ReadLanes, ThePassesCountThroughTheCallersCounter) {
  Loaded m = smallConvolution();
  AccessCounter shared;
  LowerOptions options;
  options.accessCounter = &shared;
  const Program withCounter = lowerModule(m.module, *m.ctx, options);
  const Program alone = lowerModule(m.module, *m.ctx);
  EXPECT_EQ(printProgram(withCounter), printProgram(alone));
  const size_t byPasses = shared.walks();
  EXPECT_GT(byPasses, 0u);  // the passes walked the reads' shapes through it

  AccessCounter fresh;
  const CycleEstimate own = estimateCycles(withCounter, options.memory, fresh);
  const CycleEstimate reused = estimateCycles(withCounter, options.memory, shared);
  EXPECT_EQ(reused.total, own.total);
  size_t reads = 0, kept = 0, writes = 0;
  for (const auto& u : withCounter.units)
    for (const auto& n : u.nodes) {
      reads += n.prim == Prim::Read;
      kept += n.prim == Prim::Read && keptLines(n) > 1;
      writes += n.prim == Prim::Write;
    }
  ASSERT_GT(reads, kept);
  EXPECT_GE(fresh.walks(), reads);                  // a counter of its own walks every read
  EXPECT_LE(shared.walks() - byPasses, writes + kept);  // the shared one what the passes did not
}

}  // namespace
}  // namespace skeleshare::lower::test
