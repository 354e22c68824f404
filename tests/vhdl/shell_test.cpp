// How a failed external tool ended is part of its error message: a simulator that the
// out-of-memory killer stopped (full VGG-CIFAR's GHDL testbench at 24 GB) must not read
// like a design that failed its checks.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../../src/vhdl/shell.h"

namespace skeleshare::vhdl::detail {
namespace {

std::filesystem::path scratchLog() {
  auto dir = std::filesystem::temp_directory_path() / ("ss_shell_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir / "run.log";
}

TEST(Shell, AKilledCommandSaysWhichSignal) {
  auto log = scratchLog();
  std::string why;
  EXPECT_FALSE(runLogged("echo started; kill -9 $$", log, &why));
  EXPECT_EQ(why, "killed by signal 9 (SIGKILL: most likely the system's out-of-memory killer)");
  EXPECT_NE(slurp(log).find("started"), std::string::npos);
  why.clear();
  EXPECT_FALSE(runStreaming("kill -15 $$", log, nullptr, &why));
  EXPECT_EQ(why, "killed by signal 15");
}

TEST(Shell, AFailingCommandSaysItsExitStatus) {
  auto log = scratchLog();
  std::string why;
  EXPECT_FALSE(runLogged("exit 3", log, &why));
  EXPECT_EQ(why, "exit status 3");
  why.clear();
  EXPECT_FALSE(runStreaming("echo line; exit 2", log, nullptr, &why));
  EXPECT_EQ(why, "exit status 2");
  why = "untouched";
  EXPECT_TRUE(runLogged("true", log, &why));
  EXPECT_EQ(why, "untouched");
}

}  // namespace
}  // namespace skeleshare::vhdl::detail
