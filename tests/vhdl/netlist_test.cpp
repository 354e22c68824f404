// The fix-ups of GHDL 2.0's Verilog netlists (include/skeleshare/vhdl/netlist.h), line by
// line, on the shapes GHDL writes; the Verilator simulation of whole designs
// (tests/tools/cli_sim_test.cpp) checks that the fixed netlists compute what the VHDL does.

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "skeleshare/vhdl/netlist.h"

namespace skeleshare::vhdl::test {
namespace {

/// The line after the fix-ups, or "<dropped>".
std::string fixed(std::string line, NetlistFixes* counts = nullptr) {
  NetlistFixes c;
  bool kept = fixGhdlVerilogLine(line, c);
  if (counts) *counts = c;
  return kept ? line : "<dropped>";
}

TEST(Netlist, WideConstantStringsBecomeSizedBinaryLiterals) {
  NetlistFixes c;
  EXPECT_EQ(fixed("  assign a = $signed(b) < $signed(\"1110000000\");", &c), "  assign a = $signed(b) < $signed(10'b1110000000);");
  EXPECT_EQ(c.literals, 1);
  EXPECT_EQ(fixed("  assign n = c ? \"01\" : \"1x0z\";", &c), "  assign n = c ? 2'b01 : 4'b1x0z;");
  EXPECT_EQ(c.literals, 2);
  // not bits, empty, or in a comment: unchanged
  EXPECT_EQ(fixed("  $display(\"0a1\");", &c), "  $display(\"0a1\");");
  EXPECT_EQ(fixed("  x = \"\";"), "  x = \"\";");
  EXPECT_EQ(fixed("  /* \"0101\" */", &c), "  /* \"0101\" */");
  EXPECT_EQ(c.literals, 0);
}

TEST(Netlist, WhenElseBecomesAConditionalAssignment) {
  NetlistFixes c;
  EXPECT_EQ(fixed("  n1_o <= a when $signed(a) > $signed(b) else b;", &c),
            "  assign n1_o = ($signed(a) > $signed(b)) ? a : b;");
  EXPECT_EQ(c.selections, 1);
  // greedy, as synth.py's regular expression was: the last " when " and " else "
  EXPECT_EQ(fixed("x <= p when q when r else s else t;"), "assign x = (r else s) ? p when q : t;");
  // not a selection: no target, no value, no condition
  for (const char* same : {"  <= a when c else b;", "  x <= a when c else ;", "  x <= when c else b;",
                           "  x <= a when  else b;", "  x <= a when c else b"})
    EXPECT_EQ(fixed(same), same);
}

TEST(Netlist, SignedRightShiftsBecomeArithmetic) {
  NetlistFixes c;
  EXPECT_EQ(fixed("  assign n21181_o = $signed(n21179_o) >> 31'b0000000000000000000000000000011;", &c),
            "  assign n21181_o = $signed(n21179_o) >>> 31'b0000000000000000000000000000011;");
  EXPECT_EQ(c.shifts, 1);
  EXPECT_EQ(fixed("  assign y = $signed({a, b[3:0]}) >> s;"), "  assign y = $signed({a, b[3:0]}) >>> s;");
  // a logical shift stays one
  EXPECT_EQ(fixed("  assign y = a >> 3;", &c), "  assign y = a >> 3;");
  EXPECT_EQ(fixed("  assign y = (a) >> 3;"), "  assign y = (a) >> 3;");
  EXPECT_EQ(fixed("  assign y = $signed(a) >>> 3;"), "  assign y = $signed(a) >>> 3;");
  EXPECT_EQ(c.shifts, 0);
}

TEST(Netlist, SelfAssignmentsAreDropped) {
  NetlistFixes c;
  EXPECT_EQ(fixed("  assign u0_ilen0 = u0_ilen0; // (signal)", &c), "<dropped>");
  EXPECT_EQ(c.selfAssignments, 1);
  EXPECT_EQ(fixed("  assign u0_ilen0 = u0_ilen01;"), "  assign u0_ilen0 = u0_ilen01;");
  EXPECT_EQ(fixed("  assign a = a & b;"), "  assign a = a & b;");
}

TEST(Netlist, AWholeNetlistKeepsEveryOtherLine) {
  std::istringstream in("module m;\n  assign a = a;\n  /* x.vhd:1:2 */\n  n <= p when c else q;\nendmodule");
  std::ostringstream out;
  NetlistFixes c = fixGhdlVerilog(in, out);
  EXPECT_EQ(out.str(), "module m;\n  /* x.vhd:1:2 */\n  assign n = (c) ? p : q;\nendmodule");
  EXPECT_EQ(c.selfAssignments, 1);
  EXPECT_EQ(c.selections, 1);
  c += c;
  EXPECT_EQ(c.selections, 2);
}

}  // namespace
}  // namespace skeleshare::vhdl::test
