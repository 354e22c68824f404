// The memory system on its own: the pipelined arbiter against the Avalon-MM memory model
// (random wait states and read latencies) with requesters that behave like ss_read and
// ss_write (tests/vhdl/arbiter_tb.vhd).

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <vector>

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

/// The cycle at which each port's last request was taken, with port `first` served before
/// the others (-1: none).
std::vector<int> issuedAt(int seed, int first) {
  auto dir = scratch(fmt::format("arbiter_first{}_seed{}", first, seed));
  writeImage(dir / "memory.hex", 64);
  std::vector<std::filesystem::path> files{templateDir() + "/ss_pkg.vhd", templateDir() + "/ss_mem_arbiter.vhd",
                                           templateDir() + "/ss_avmm_model.vhd",
                                           std::string(SKELESHARE_SOURCE_DIR) + "/tests/vhdl/arbiter_tb.vhd"};
  GhdlResult r = ghdlSimulate(dir, files, "arbiter_tb",
                              {{"IMAGE", "memory.hex"}, {"RESULT_FILE", "result.txt"}, {"SEED", std::to_string(seed)},
                               {"FIRST", std::to_string(first)}});
  EXPECT_TRUE(r.ok) << r.failedStep << "\n" << r.log;
  std::ifstream f(dir / "result.txt");
  std::string result;
  std::getline(f, result);
  EXPECT_NE(result.find("errors 0 "), std::string::npos) << result;
  std::istringstream in(result.substr(result.find("issued_at") + 9));
  std::vector<int> at(3);
  for (int& a : at) in >> a;
  std::cerr << "first " << first << ", seed " << seed << ": " << result << "\n";
  return at;
}

// The earlier of two units that run at once has its ports served first (l_first): the
// later one's reads only fetch ahead. Port 2 with l_first has all its requests taken
// before the others, and sooner than round-robin among all three takes them.
TEST(MemorySystem, ArbiterServesThePortsMarkedFirstBeforeTheOthers) {
  for (int seed : {1, 2}) {
    const std::vector<int> fair = issuedAt(seed, -1), first = issuedAt(seed, 2);
    EXPECT_LT(first[2], first[0]) << seed;
    EXPECT_LT(first[2], first[1]) << seed;
    EXPECT_LT(first[2], fair[2]) << seed;
  }
}

}  // namespace
}  // namespace skeleshare::vhdl::test
