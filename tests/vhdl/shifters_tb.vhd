-- Testbench of ss_pkg's shifters (tests/vhdl/templates_test.cpp): in simulation
-- shift_down, shift_up and rotate_up take slices (ss_pkg.SIMULATING); synthesis builds
-- their stages (*_stages). For units of 1, 3 and 8 bits, 1 to 4 amount bits, vectors of
-- 2**ABITS units (and, for the shifts, 5 bits more), patterns with every bit distinct
-- from its neighbours, and every amount below 2**ABITS (the shifters' contract),
-- the two must be equal. Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;
use work.tb_result.all;

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
  -- shifter k (0 shift_down, 1 shift_up, 2 rotate_up) in its simulated form and its stages
  function shifted(k : natural; v : unsigned; amount : natural; unit, abits : positive; stages : boolean)
    return unsigned is
  begin
    if stages then
      case k is
        when 0 => return shift_down_stages(v, amount, unit, abits);
        when 1 => return shift_up_stages(v, amount, unit, abits);
        when others => return rotate_up_stages(v, amount, unit, abits);
      end case;
    end if;
    case k is
      when 0 => return shift_down(v, amount, unit, abits);
      when 1 => return shift_up(v, amount, unit, abits);
      when others => return rotate_up(v, amount, unit, abits);
    end case;
  end function;
  type names_t is array (0 to 2) of string(1 to 10);
  constant NAMES : names_t := ("shift_down", "shift_up  ", "rotate_up ");
begin
  process
    variable n, errors : natural := 0;
    variable len    : positive;
  begin
    for u in UNIT_BITS'range loop
      for abits in 1 to 4 loop
        for extra in 0 to 1 loop
          len := UNIT_BITS(u) * 2 ** abits + 5 * extra;
          for seed in 0 to 3 loop
            for amount in 0 to 2 ** abits - 1 loop
              for k in 0 to 2 - extra loop  -- a rotation's vector is 2**ABITS units
                n := n + 1;
                if shifted(k, pattern(len, seed), amount, UNIT_BITS(u), abits, false) /=
                   shifted(k, pattern(len, seed), amount, UNIT_BITS(u), abits, true) then
                  errors := errors + 1;
                  report NAMES(k) & " differs: unit " & integer'image(UNIT_BITS(u)) & " abits " &
                         integer'image(abits) & " length " & integer'image(len) & " amount " & integer'image(amount)
                    severity error;
                end if;
              end loop;
            end loop;
          end loop;
        end loop;
      end loop;
    end loop;
    write_result(RESULT_FILE, n, errors);
    wait;
  end process;
end architecture;
