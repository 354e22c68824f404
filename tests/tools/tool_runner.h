#pragma once
// Runs the skeleshare binary (or another command) for the command-line tests and
// captures its exit code, stdout and stderr.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace skeleshare::testing {

struct RunResult {
  int exitCode = -1;
  std::string out, err;
};

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// A fresh scratch directory for the current test, under the build tree.
inline std::filesystem::path scratchDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path d = std::filesystem::path(SKELESHARE_BINARY_DIR) / "test-scratch" /
                            (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

/// Runs a shell command line; stdout and stderr go to files in `dir`.
inline RunResult runShell(const std::string& cmdline, const std::filesystem::path& dir) {
  auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  std::string full = cmdline + " >" + shellQuote(out.string()) + " 2>" + shellQuote(err.string()) + " </dev/null";
  int status = std::system(full.c_str());
  RunResult r;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = readFile(out);
  r.err = readFile(err);
  return r;
}

/// Runs `skeleshare ARGS...` (each argument quoted).
inline RunResult runTool(const std::vector<std::string>& args, const std::filesystem::path& dir) {
  std::string cmd = shellQuote(SKELESHARE_TOOL);
  for (const auto& a : args) cmd += " " + shellQuote(a);
  return runShell(cmd, dir);
}
inline RunResult runTool(std::initializer_list<std::string> args, const std::filesystem::path& dir) {
  return runTool(std::vector<std::string>(args), dir);
}

inline std::filesystem::path sourcePath(const std::string& rel) {
  return std::filesystem::path(SKELESHARE_SOURCE_DIR) / rel;
}

}  // namespace skeleshare::testing
