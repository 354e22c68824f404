-- VecToStm: the outermost vector dimension (N) becomes the innermost stream dimension:
-- a vector of N*LANES lanes leaves as N vectors of LANES lanes, lanes 0 .. LANES-1 first.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_vec_to_stm is
  generic (LANES : positive; N : positive; BITS : positive);
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(N * LANES * BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES * BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_vec_to_stm is
  constant W : positive := LANES * BITS;
  -- not `buf`: GHDL keeps the name in its Verilog netlist, where buf is a gate primitive
  -- that yosys refuses as an identifier
  signal held  : std_logic_vector(N * W - 1 downto 0) := (others => '0');
  signal left  : natural range 0 to N := 0;  -- parts of `held` not yet sent
begin
  i_ready <= '1' when left = 0 or (left = 1 and o_ready = '1') else '0';
  o_valid <= '1' when left /= 0 else '0';
  o_data  <= held((N - left) * W + W - 1 downto (N - left) * W) when left /= 0 else (others => '0');

  process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' then
        left <= 0;
      elsif (left = 0 or (left = 1 and o_ready = '1')) and i_valid = '1' then
        held <= i_data;
        left <= N;
      elsif left /= 0 and o_ready = '1' then
        left <= left - 1;
      end if;
    end if;
  end process;
end architecture;
