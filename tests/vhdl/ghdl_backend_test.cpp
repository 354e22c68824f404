// Which GHDL code generator a simulation uses (chooseGhdlBackend), and that a testbench
// gives the same result under both: the backends must not change what is simulated.

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

bool llvmInstalled() { return std::system("ghdl-llvm --version >/dev/null 2>&1") == 0; }

TEST(GhdlBackend, NamedBackendsAreTakenAsGiven) {
  EXPECT_EQ(chooseGhdlBackend("mcode", 1'000'000), GhdlBackend::Mcode);
  if (llvmInstalled()) {
    EXPECT_EQ(chooseGhdlBackend("llvm", 1), GhdlBackend::Llvm);
  } else {
    EXPECT_THROW(chooseGhdlBackend("llvm", 1), std::runtime_error);
  }
  EXPECT_THROW(chooseGhdlBackend("gcc", 1), std::invalid_argument);
}

TEST(GhdlBackend, AutoCompilesNativelyOnlyForLongSimulations) {
  // short runs: mcode starts at once; long ones repay llvm's native compile
  EXPECT_EQ(chooseGhdlBackend("auto", kLlvmMinEstimatedCycles - 1), GhdlBackend::Default);
  EXPECT_EQ(chooseGhdlBackend("auto", kLlvmMinEstimatedCycles),
            llvmInstalled() ? GhdlBackend::Llvm : GhdlBackend::Default);
}

}  // namespace
}  // namespace skeleshare::vhdl::test
