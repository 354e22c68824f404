-- Element-wise Add, Sub, Max or Min of two streams (OP = "add", "sub", "max", "min"),
-- lane by lane. Both operands are widened to O_BITS (the wider operand width) and the
-- result wraps to O_BITS. The two inputs are joined: a transfer takes one vector from each.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_binop is
  generic (OP : string; LANES : positive; A_BITS, B_BITS, O_BITS : positive);
  port (
    clk, rst : in std_logic;
    a_valid  : in  std_logic;
    a_ready  : out std_logic;
    a_data   : in  std_logic_vector(LANES * A_BITS - 1 downto 0);
    b_valid  : in  std_logic;
    b_ready  : out std_logic;
    b_data   : in  std_logic_vector(LANES * B_BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES * O_BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_binop is
  signal out_valid : std_logic := '0';
  signal take      : std_logic;
begin
  take    <= a_valid and b_valid and (o_ready or not out_valid);
  a_ready <= take;
  b_ready <= take;
  o_valid <= out_valid;

  process (clk)
    variable x, y, r : signed(O_BITS - 1 downto 0);
  begin
    if rising_edge(clk) then
      if rst = '1' then
        out_valid <= '0';
      elsif take = '1' then
        for k in 0 to LANES - 1 loop
          x := wrap_to(lane(a_data, k, A_BITS), O_BITS);
          y := wrap_to(lane(b_data, k, B_BITS), O_BITS);
          if OP = "add" then
            r := x + y;
          elsif OP = "sub" then
            r := x - y;
          elsif OP = "max" then
            r := maximum(x, y);
          else
            r := minimum(x, y);
          end if;
          o_data(k * O_BITS + O_BITS - 1 downto k * O_BITS) <= std_logic_vector(r);
        end loop;
        out_valid <= '1';
      elsif o_ready = '1' then
        out_valid <= '0';
      end if;
    end if;
  end process;
end architecture;
