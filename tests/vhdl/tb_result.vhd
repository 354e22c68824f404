-- What the package and template testbenches (tests/vhdl/*_tb.vhd) report: one line,
-- "checked N errors E", in their RESULT_FILE (tests/vhdl/templates_test.cpp reads it).
use std.textio.all;

package tb_result is
  procedure write_result(file_name : string; checks, errors : natural);
end package;

package body tb_result is
  procedure write_result(file_name : string; checks, errors : natural) is
    file result : text;
    variable l  : line;
  begin
    file_open(result, file_name, write_mode);
    write(l, string'("checked ") & integer'image(checks) & string'(" errors ") & integer'image(errors));
    writeline(result, l);
    file_close(result);
  end procedure;
end package body;
