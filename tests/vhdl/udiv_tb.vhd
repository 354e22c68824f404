-- Testbench of ss_pkg.udiv_stages, the form of the address generators' division by a
-- constant that synthesis builds (tests/vhdl/templates_test.cpp): for every divisor d
-- from 1 to 400, powers of two up to 2**20 times 1, 3 and 5, and ranges umax from 0 to
-- 2**24, every u in [0, umax] (sampled above 200 values; the ends and the last quotient
-- steps always), udiv_stages(u, udiv_plan(d, umax)) must be u / d, and so must
-- udiv_const (in simulation "/"). Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use work.ss_pkg.all;
use work.tb_result.all;

entity udiv_tb is
  generic (RESULT_FILE : string := "result.txt");
end entity;

architecture sim of udiv_tb is
begin
  process
    type int_list is array (natural range <>) of integer;
    constant UMAXES : int_list := (0, 1, 2, 5, 63, 64, 100, 575, 1023, 4095, 9999, 65535, 100000, 2 ** 20 + 3,
                                   2 ** 24);
    variable n, errors : natural := 0;

    procedure check(u, d : natural; PLAN : integer_vector) is
    begin
      n := n + 1;
      if udiv_stages(u, PLAN) /= u / d or udiv_const(u, d, PLAN) /= u / d then
        errors := errors + 1;
        report "udiv_stages(" & integer'image(u) & ", udiv_plan(" & integer'image(d) & ", " &
               integer'image(PLAN(1)) & " bits)) is " & integer'image(udiv_stages(u, PLAN)) severity error;
      end if;
    end procedure;

    procedure check_range(d, umax : natural) is
      constant PLAN   : integer_vector := udiv_plan(d, umax);
      variable stride : positive := 1;
      variable u      : natural := 0;
    begin
      if umax > 200 then
        stride := umax / 100 + 1;
      end if;
      while u <= umax loop
        check(u, d, PLAN);
        u := u + stride;
      end loop;
      check(umax, d, PLAN);
      -- the last quotient steps below umax (where an inexact reciprocal first fails)
      for q in 0 to 3 loop
        if umax / d >= q then
          u := (umax / d - q) * d;
          check(u, d, PLAN);
          if u > 0 then
            check(u - 1, d, PLAN);
          end if;
        end if;
      end loop;
    end procedure;
  begin
    for i in UMAXES'range loop
      for d in 1 to 400 loop
        check_range(d, UMAXES(i));
      end loop;
      for b in 10 to 20 loop
        check_range(2 ** b, UMAXES(i));
        check_range(3 * 2 ** b, UMAXES(i));
        check_range(5 * 2 ** b, UMAXES(i));
      end loop;
    end loop;
    write_result(RESULT_FILE, n, errors);
    wait;
  end process;
end architecture;
