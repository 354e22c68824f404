// The memory system on its own: the pipelined arbiter against the Avalon-MM memory model
// (random wait states and read latencies) with requesters that behave like ss_read and
// ss_write (tests/vhdl/arbiter_tb.vhd).

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>

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

}  // namespace
}  // namespace skeleshare::vhdl::test
