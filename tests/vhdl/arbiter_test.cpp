// The memory system on its own: the pipelined arbiter against the Avalon-MM memory model
// (random wait states and read latencies) with requesters that behave like ss_read and
// ss_write (tests/vhdl/arbiter_tb.vhd), and the choice of each read's cache size.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>

#include "skeleshare/vhdl/read_cache.h"
#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

/// Line i of the image holds byte b = (7i + b) mod 256 (as arbiter_tb.vhd expects).
void writeImage(const std::filesystem::path& file, int lines) {
  std::ofstream f(file);
  for (int i = 0; i < lines; ++i) {
    for (int b = 63; b >= 0; --b) f << fmt::format("{:02x}", (7 * i + b) % 256);
    f << "\n";
  }
}

TEST(MemorySystem, ArbiterKeepsSeveralReadsInFlightAndAnswersEachPort) {
  for (int seed : {1, 2, 3}) {
    auto dir = scratch(fmt::format("arbiter_seed{}", seed));
    writeImage(dir / "memory.hex", 64);
    std::vector<std::filesystem::path> files{templateDir() + "/ss_pkg.vhd", templateDir() + "/ss_mem_arbiter.vhd",
                                             templateDir() + "/ss_avmm_model.vhd",
                                             std::string(SKELESHARE_SOURCE_DIR) + "/tests/vhdl/arbiter_tb.vhd"};
    GhdlResult r = ghdlSimulate(dir, files, "arbiter_tb",
                                {{"IMAGE", "memory.hex"}, {"RESULT_FILE", "result.txt"}, {"SEED", std::to_string(seed)}});
    ASSERT_TRUE(r.ok) << "seed " << seed << ": " << r.failedStep << "\n" << r.log;
    std::ifstream f(dir / "result.txt");
    std::string word, result;
    std::getline(f, result);
    EXPECT_NE(result.find("errors 0 "), std::string::npos) << result;
    std::cerr << "seed " << seed << ": " << result << "\n";
  }
}

TEST(MemorySystem, CacheSizeFollowsTheReadsLineReuse) {
  // A row-major sweep uses each line once: the smallest cache.
  lower::AddrGen sweep = lower::AddrGen::identity({16, 64});
  EXPECT_EQ(readCacheLines(sweep, 0, 1), kMinCacheLines);
  EXPECT_EQ(readLineSequence(sweep, 0, 1).size(), 16u);
  // Columns of 12 rows of 64 bytes, read column by column: every column touches the
  // same 12 lines, so 4 or 8 lines miss on every element and 16 hold them all.
  lower::AddrGen columns = lower::AddrGen::identity({12, 64});
  columns.transpose(0, 1);
  auto seq = readLineSequence(columns, 0, 1);
  EXPECT_EQ(seq.size(), 64u * 12u);
  EXPECT_EQ(fifoMisses(seq, 8), 64 * 12);
  EXPECT_EQ(fifoMisses(seq, 16), 12);
  EXPECT_EQ(readCacheLines(columns, 0, 1), 16);
  // The base and the element size place the elements: 4-byte elements, lines of 16.
  EXPECT_EQ(readLineSequence(lower::AddrGen::identity({32}), 128, 4), (std::vector<int64_t>{2, 3}));
  // Masked elements fetch nothing.
  lower::AddrGen padded = lower::AddrGen::identity({64});
  padded.pad(0, 64, 0, 0);
  EXPECT_EQ(readLineSequence(padded, 0, 1), (std::vector<int64_t>{0}));
}

}  // namespace
}  // namespace skeleshare::vhdl::test
