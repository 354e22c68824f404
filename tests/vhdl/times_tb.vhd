-- Testbench of ss_pkg.times, the shift-and-add product by a constant that the address
-- generators use instead of `*` (tests/vhdl/templates_test.cpp): for every c from -1,100
-- to 1,100, every power of two up to 2**24 and its neighbours, and x over a spread of
-- values whose product fits an integer, times(x, c) must be x * c.
-- Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use work.ss_pkg.all;
use work.tb_result.all;

entity times_tb is
  generic (RESULT_FILE : string := "result.txt");
end entity;

architecture sim of times_tb is
begin
  process
    type int_list is array (natural range <>) of integer;
    constant XS : int_list := (0, 1, -1, 2, -2, 3, 7, -7, 63, -64, 255, 1000, -1001, 65535, -65536, 1048575);
    variable n, errors : natural := 0;

    procedure check(x, c : integer) is
    begin
      n := n + 1;
      if times(x, c) /= x * c then
        errors := errors + 1;
        report "times(" & integer'image(x) & ", " & integer'image(c) & ") is " & integer'image(times(x, c))
          severity error;
      end if;
    end procedure;

    procedure check_all(c : integer) is
    begin
      for i in XS'range loop
        -- only products that fit an integer (as every address the generators compute does)
        if c = 0 or abs XS(i) <= integer'high / abs c then
          check(XS(i), c);
        end if;
      end loop;
    end procedure;
  begin
    for c in -1100 to 1100 loop
      check_all(c);
    end loop;
    for b in 10 to 24 loop
      for d in -1 to 1 loop
        check_all(2 ** b + d);
        check_all(-(2 ** b + d));
      end loop;
    end loop;
    write_result(RESULT_FILE, n, errors);
    wait;
  end process;
end architecture;
