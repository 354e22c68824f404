-- Testbench of ss_pkg's shifters (tests/vhdl/templates_test.cpp): in simulation
-- shift_down, shift_up and rotate_up take slices (ss_pkg.SIMULATING); synthesis builds
-- their stages (*_stages). For units of 1, 3 and 8 bits, 1 to 4 amount bits, vectors of
-- 2**ABITS units (and, for the shifts, 5 bits more), patterns with every bit distinct
-- from its neighbours, and every amount below 2**ABITS (the shifters' contract),
-- the two must be equal. Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
use work.ss_pkg.all;

entity shifters_tb is
  generic (RESULT_FILE : string := "result.txt");
end entity;

architecture sim of shifters_tb is
  type unit_bits_t is array (0 to 2) of positive;
  constant UNIT_BITS : unit_bits_t := (1, 3, 8);

  -- a pattern of n bits from a seed: bit b is bit (b * 7 + seed) mod 5 < 2 of a 5-periodic
  -- word, xored with the seed's parity at every third bit
  function pattern(n, seed : natural) return unsigned is
    variable r : unsigned(n - 1 downto 0);
  begin
    for b in 0 to n - 1 loop
      if ((b * 7 + seed) mod 5 < 2) xor (b mod 3 = 0 and seed mod 2 = 1) then
        r(b) := '1';
      else
        r(b) := '0';
      end if;
    end loop;
    return r;
  end function;
begin
  process
    file result     : text;
    variable l      : line;
    variable n, errors : natural := 0;
    variable len    : positive;
  begin
    for u in UNIT_BITS'range loop
      for abits in 1 to 4 loop
        for extra in 0 to 1 loop
          len := UNIT_BITS(u) * 2 ** abits + 5 * extra;
          for seed in 0 to 3 loop
            for amount in 0 to 2 ** abits - 1 loop
              n := n + 3;
              if shift_down(pattern(len, seed), amount, UNIT_BITS(u), abits) /=
                 shift_down_stages(pattern(len, seed), amount, UNIT_BITS(u), abits) then
                errors := errors + 1;
                report "shift_down differs: unit " & integer'image(UNIT_BITS(u)) & " abits " & integer'image(abits) &
                       " length " & integer'image(len) & " amount " & integer'image(amount) severity error;
              end if;
              if shift_up(pattern(len, seed), amount, UNIT_BITS(u), abits) /=
                 shift_up_stages(pattern(len, seed), amount, UNIT_BITS(u), abits) then
                errors := errors + 1;
                report "shift_up differs: unit " & integer'image(UNIT_BITS(u)) & " abits " & integer'image(abits) &
                       " length " & integer'image(len) & " amount " & integer'image(amount) severity error;
              end if;
              if extra = 0 and rotate_up(pattern(len, seed), amount, UNIT_BITS(u), abits) /=
                               rotate_up_stages(pattern(len, seed), amount, UNIT_BITS(u), abits) then
                errors := errors + 1;
                report "rotate_up differs: unit " & integer'image(UNIT_BITS(u)) & " abits " & integer'image(abits) &
                       " amount " & integer'image(amount) severity error;
              end if;
            end loop;
          end loop;
        end loop;
      end loop;
    end loop;
    file_open(result, RESULT_FILE, write_mode);
    write(l, string'("checked ") & integer'image(n) & string'(" errors ") & integer'image(errors));
    writeline(result, l);
    file_close(result);
    wait;
  end process;
end architecture;
