-- A constant stream: every lane VALUE, always valid.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity ss_const is
  generic (LANES : positive; BITS : positive; VALUE : integer);
  port (
    o_valid : out std_logic;
    o_ready : in  std_logic;
    o_data  : out std_logic_vector(LANES * BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_const is
begin
  o_valid <= '1';
  lanes_g : for k in 0 to LANES - 1 generate
    o_data(k * BITS + BITS - 1 downto k * BITS) <= std_logic_vector(to_signed(VALUE, BITS));
  end generate;
end architecture;
