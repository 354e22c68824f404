-- Testbench of ss_pkg.below_chunked, the form of ss_pkg.below that synthesis builds
-- (tests/vhdl/templates_test.cpp): for every width 1 .. 14
-- (three 6-bit chunks), every v of that width (sampled above 9 bits) and every constant k
-- from -2 to 2**bits + 1, below_chunked(v, k, bits) must be v < k, and so must below
-- (in simulation the plain compare). Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use work.ss_pkg.all;
use work.tb_result.all;

entity below_tb is
  generic (RESULT_FILE : string := "result.txt");
end entity;

architecture sim of below_tb is
begin
  process
    variable stride : positive;  -- between the sampled v, and the sampled k
    variable k     : integer;
    variable n, errors : natural := 0;
  begin
    for bits in 1 to 14 loop
      stride := 1;
      if bits > 9 then
        stride := 2 ** (bits - 9) + 1;  -- odd: every residue of each chunk
      end if;
      for v in 0 to 2 ** bits - 1 loop
        if v mod stride = 0 or v = 2 ** bits - 1 then
          k := -2;
          while k <= 2 ** bits + 1 loop
            n := n + 1;
            if below_chunked(v, k, bits) /= (v < k) or below(v, k, bits) /= (v < k) then
              errors := errors + 1;
              report "below or below_chunked(" & integer'image(v) & ", " & integer'image(k) & ", " & integer'image(bits) & ") is wrong"
                severity error;
            end if;
            -- near v every k, elsewhere sampled
            if k >= v - 2 and k <= v + 2 then
              k := k + 1;
            else
              k := k + stride;
            end if;
          end loop;
        end if;
      end loop;
    end loop;
    write_result(RESULT_FILE, n, errors);
    wait;
  end process;
end architecture;
