#pragma once
// Simulation of an emitted design in GHDL against the reference: files on disk, the
// memory image, the testbench run, the outputs read back and compared bit for bit.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "skeleshare/support/tensor.h"
#include "skeleshare/vhdl/emitter.h"
#include "skeleshare/vhdl/ghdl.h"

namespace skeleshare::vhdl {

/// Writes the design's files into `dir` and `dir/files.txt` (their names in compile order).
void writeDesign(const EmittedDesign& design, const std::filesystem::path& dir);
/// Writes the testbench's files into `dir`.
void writeTestbench(const TestbenchFiles& tb, const std::filesystem::path& dir);

struct SimOptions {
  uint64_t seed = 1;          // the memory model's random wait states and the poison of unwritten memory
  int stallPercent = 25;      // waitrequest on about this share of cycles
  int64_t maxCycles = 50'000'000;
  GhdlBackend backend = GhdlBackend::Default;
};

struct SimResult {
  bool ok = false;            // ran to done and the outputs were read
  std::string error;          // why not
  int64_t cycles = 0;         // start to done
  std::map<std::string, Tensor> outputs;
  std::string log;            // GHDL's output
};

/// Runs the testbench: `vhdlDir` holds the design and testbench files (written by
/// writeDesign/writeTestbench), `simDir` receives the memory image, the work library,
/// the dump, the result file and the log. `inputs` are the contents of the input and
/// weight buffers by name.
SimResult simulate(const EmittedDesign& design, const TestbenchFiles& tb, const std::map<std::string, Tensor>& inputs,
                   const std::filesystem::path& vhdlDir, const std::filesystem::path& simDir, const SimOptions& options);

struct Mismatch {
  std::string buffer;
  std::string index;  // "[1][0][3]"
  int64_t expected = 0, got = 0;
  std::string describe() const;
};

/// The first element (buffers in name order, elements in row-major order) where `got`
/// differs from `want`; nullopt when they are bit-identical. A missing buffer or a shape
/// difference is a mismatch with an empty index.
std::optional<Mismatch> firstMismatch(const std::map<std::string, Tensor>& want, const std::map<std::string, Tensor>& got);

}  // namespace skeleshare::vhdl
