#pragma once
// GHDL 2.0's Verilog netlists (`ghdl synth --out=verilog`) made readable as Verilog: the
// one implementation of the fix-ups that benchmarks/synth.py (for yosys, through
// `skeleshare fix-verilog`) and the Verilator simulation path both apply
// (docs/hardware.md, "Synthesis and resources" and "Simulation").

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

namespace skeleshare::vhdl {

struct NetlistFixes {
  /// A constant wider than 32 bits printed as a string, `"0101"`: Verilog reads a string
  /// as ASCII (eight bits a character), so it becomes the sized literal `4'b0101`.
  int64_t literals = 0;
  /// A choice printed in VHDL syntax, `x <= a when c else b;`, which Verilog tools reject:
  /// `assign x = (c) ? a : b;`.
  int64_t selections = 0;
  /// An arithmetic shift right printed as `$signed(a) >> n`, which Verilog defines as a
  /// logical shift (zeros shifted in): `$signed(a) >>> n`. (ss_unop's rounding shift of a
  /// negative value became a large positive one.)
  int64_t shifts = 0;
  /// `assign x = x;` for a net driven by an instance's output port: a second driver of
  /// the net, which Verilator rejects as a combinational loop. Removed.
  int64_t selfAssignments = 0;

  NetlistFixes& operator+=(const NetlistFixes& o);
};

/// Rewrites one line of a GHDL netlist (without its newline) in place; false when the
/// line is to be dropped. Comment lines (`/* ... */`, `//`) are left alone.
bool fixGhdlVerilogLine(std::string& line, NetlistFixes& counts);

/// The whole netlist, line by line (netlists reach gigabytes).
NetlistFixes fixGhdlVerilog(std::istream& in, std::ostream& out);

/// Rewrites the netlist at `path` in place (through a temporary file and a rename).
/// Throws std::runtime_error when it cannot be read or written.
NetlistFixes fixGhdlVerilogFile(const std::filesystem::path& path);

}  // namespace skeleshare::vhdl
