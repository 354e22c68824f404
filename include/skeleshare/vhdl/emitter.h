#pragma once
// VHDL emission of a mid-level program (docs/hardware.md).
//
// The design is the primitive templates of src/vhdl/templates/ (real VHDL-2008 files,
// parameterised with generics, copied verbatim) plus generated files: one entity per unit
// (`<design>_u<i>`), a dataflow graph of template instances joined by valid/ready
// streams, and the top level `<design>_top` (clock, synchronous reset, start/done, one
// 512-bit Avalon-MM master) whose sequencer runs the units in schedule order and whose
// arbiter gives every Read and Write its own line port onto the master.

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "skeleshare/lower/mir.h"
#include "skeleshare/vhdl/memory_map.h"

namespace skeleshare::vhdl {

/// A program the emitter cannot turn into hardware (a primitive without a template, a
/// constant that does not fit a 32-bit generic).
class EmitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct VhdlFile {
  std::string name;  // file name, e.g. "vgg_top.vhd"
  std::string text;
};

struct EmitOptions {
  std::string design = "design";  // a VHDL identifier prefix (sanitised)
  std::string templateDir;        // the directory holding the ss_*.vhd templates
};

struct EmittedDesign {
  std::string design;             // the sanitised design name
  std::string top;                // "<design>_top"
  std::vector<VhdlFile> files;    // synthesisable sources in compile order
  MemoryMap map;
  int64_t dspLanes = 0;           // ss_mul lanes instantiated with DSP = true
  int64_t linePorts = 0;          // ports of the memory arbiter
  size_t units = 0;               // units of the schedule, as the top's current_unit numbers them
};

/// The top's current_unit port is 16 bits wide.
inline constexpr size_t kMaxUnits = size_t{1} << 16;

/// Emits the design. Throws EmitError (or std::runtime_error when a template is missing).
EmittedDesign emitDesign(const lower::Program& prog, const EmitOptions& options);

struct TestbenchFiles {
  std::string entity;             // "<design>_tb"
  std::vector<VhdlFile> files;    // the memory model and the testbench, in compile order
  VhdlFile harness;               // ss_verilator_tb.cpp: the same testbench for Verilator (verilator.h)
  std::vector<std::pair<int64_t, int64_t>> dumpLines;  // [first, end) lines of each output region, as dumped
};

/// The testbench: the design, an Avalon-MM memory model loaded from a memory image, seeded
/// random wait states and read-data gaps, start to done under a cycle limit, the output
/// regions dumped to a file and the cycle count written to a result file. Its generics
/// (IMAGE, DUMP_FILE, RESULT_FILE, SEED, STALL_PCT, MAX_CYCLES, PROGRESS_EVERY) are set at
/// run time. `harness` is its C++ twin for Verilator, verbatim from the templates (the
/// memory size and dump regions are its command-line options).
TestbenchFiles emitTestbench(const EmittedDesign& design, const std::string& templateDir);

/// A Quartus Prime tcl script (`quartus_sh -t <design>_quartus.tcl`, run in the vhdl
/// directory) that creates a project for the Arria 10 GX1150 (10AX115N2F40E2LG) with the
/// design's files in compile order as VHDL-2008 and `<design>_top` as the top entity.
std::string quartusScript(const EmittedDesign& design);

/// A VHDL identifier from arbitrary text: letters, digits and single underscores,
/// starting with a letter.
std::string vhdlIdentifier(const std::string& text);

}  // namespace skeleshare::vhdl
