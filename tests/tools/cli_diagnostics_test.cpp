// The malformed-program corpus through the real command line: every file gives its
// announced `file:line:col: error:` diagnostic and exit code 1, `run` leaves no output
// behind, and nothing crashes (in the Sanitize build any ASan/UBSan report aborts the
// tool, which shows up here as an exit code other than 1).

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include "tool_runner.h"

namespace fs = std::filesystem;
using namespace skeleshare::testing;

namespace {

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(sourcePath("tests/frontend/malformed")))
    if (e.path().extension() == ".dsl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// The announced diagnostic `LINE:COL: error: MESSAGE` (see the corpus README).
std::string expectedDiagnostic(const fs::path& file) {
  fs::path sidecar = file;
  sidecar.replace_extension(".expect");
  std::string text = fs::exists(sidecar) ? readFile(sidecar) : readFile(file);
  std::string first = text.substr(0, text.find('\n'));
  const std::string tag = "// expect: ";
  if (first.rfind(tag, 0) == 0) first = first.substr(tag.size());
  while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.pop_back();
  return first;
}

}  // namespace

TEST(CliDiagnostics, CorpusIsLargeEnough) { EXPECT_GE(corpus().size(), 20u); }

TEST(CliDiagnostics, CheckReportsTheAnnouncedDiagnosticWithExitCode1) {
  fs::path dir = scratchDir();
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    RunResult r = runTool({"check", file.string()}, dir);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    std::string want = file.string() + ":" + expectedDiagnostic(file);
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), want);
    EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
  }
}

TEST(CliDiagnostics, RunOnMalformedInputWritesNothing) {
  fs::path dir = scratchDir();
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    fs::path out = dir / "out";
    RunResult r = runTool({"run", file.string(), "-o", out.string()}, dir);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_FALSE(fs::exists(out) && !fs::is_empty(out));
  }
}

TEST(CliDiagnostics, UsageErrorsExitWith2) {
  fs::path dir = scratchDir();
  EXPECT_EQ(runTool({}, dir).exitCode, 2);
  EXPECT_EQ(runTool({"frobnicate"}, dir).exitCode, 2);
  EXPECT_EQ(runTool({"check"}, dir).exitCode, 2);
  EXPECT_EQ(runTool({"run", sourcePath("benchmarks/small/vgg_cifar_small.dsl").string()}, dir).exitCode, 2)
      << "run without -o";
  EXPECT_EQ(runTool({"check", "--no-such-flag", "x.dsl"}, dir).exitCode, 2);
  RunResult help = runTool({"--help"}, dir);
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
}

TEST(CliDiagnostics, MissingFileIsAnInputError) {
  fs::path dir = scratchDir();
  RunResult r = runTool({"check", (dir / "nope.dsl").string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("nope.dsl: error: cannot open"), std::string::npos) << r.err;
}

TEST(CliDiagnostics, BadInputTensorIsAnInputErrorAndWritesNothing) {
  fs::path dir = scratchDir();
  fs::path prog = sourcePath("tests/tools/programs/dsp_ops.dsl");
  // A file that is not .npy, and a .npy of the wrong shape (an output of another run).
  std::ofstream(dir / "garbage.npy") << "not a numpy file";
  RunResult r = runTool({"run", prog.string(), "--input", "x=" + (dir / "garbage.npy").string(), "-o",
                         (dir / "out").string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_FALSE(fs::exists(dir / "out" / "conv_out.npy"));
  ASSERT_EQ(runTool({"run", prog.string(), "-o", (dir / "ok").string()}, dir).exitCode, 0);
  r = runTool({"run", prog.string(), "--input", "x=" + (dir / "ok" / "mv_out.npy").string(), "-o",
               (dir / "out").string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--input x"), std::string::npos) << r.err;
  r = runTool({"run", prog.string(), "--input", "nosuch=" + (dir / "ok" / "mv_out.npy").string(), "-o",
               (dir / "out").string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("declares no input or weight 'nosuch'"), std::string::npos) << r.err;
}

// A program whose inputs, weights and outputs alone exceed the 2 GiB the design
// addresses is refused before saturation (issue 23), at its largest tensor, by compile
// and sim alike, with nothing written. Before, compile saturated and extracted for 21 s
// and failed at VHDL emission with no location.
TEST(CliDiagnostics, AProgramLargerThanTheMemoryMapIsRejectedAtOnce) {
  auto dir = scratchDir();
  std::ofstream(dir / "big.dsl") << "input image : i8[4096][4096][64];\n"
                                    "weight w1 : i8[64][3][3][64];\n"
                                    "output c1 = relu(requant(conv(pad(image, 1, 1, 1, 1), w1), 6));\n";
  for (const char* cmd : {"compile", "sim"}) {
    auto out = dir / (std::string(cmd) + "_out");
    auto r = runTool({cmd, (dir / "big.dsl").string(), "-o", out.string(), "-q"}, dir);
    EXPECT_EQ(r.exitCode, 1) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("big.dsl:1:7: error: the program's inputs, weights and outputs need 2147520512 bytes"),
              std::string::npos)
        << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("the largest is input 'image', i8[4096][4096][64]: 1073741824 bytes"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << cmd;
  }
  // The skeleton IR form has no source positions: the file is named.
  std::ofstream(dir / "big.ir") << "input x : i8[65536][65536];\noutput y = Relu(@x);\n";
  auto r = runTool({"compile", (dir / "big.ir").string(), "-o", (dir / "ir_out").string(), "-q"}, dir);
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("big.ir: error: the program's inputs, weights and outputs need 8589934592 bytes"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "ir_out"));
}
