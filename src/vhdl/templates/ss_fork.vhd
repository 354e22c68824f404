-- Fork: one stream to N consumers. Each consumer takes the vector when it is ready
-- (an "eager" fork: `taken` remembers who already has it); the input is released when
-- all have. Valid never depends on ready, so consumers whose ready depends on their
-- valid (joins) form no combinational loop, and consumers that join again later receive
-- their vectors in the same order.
-- Only the handshakes go through the fork: every consumer reads the input's data itself
-- (a data output would be a copy, which a simulator updates bit by bit on every change).
library ieee;
use ieee.std_logic_1164.all;

entity ss_fork is
  generic (N : positive);
  port (
    clk, rst : in std_logic;
    i_valid : in  std_logic;
    i_ready : out std_logic;
    o_valid : out std_logic_vector(N - 1 downto 0);
    o_ready : in  std_logic_vector(N - 1 downto 0)
  );
end entity;

architecture rtl of ss_fork is
  signal taken : std_logic_vector(N - 1 downto 0) := (others => '0');
  signal all_done : std_logic;
begin
  o_valid  <= (N - 1 downto 0 => i_valid) and not taken;
  all_done <= '1' when (taken or o_ready) = (N - 1 downto 0 => '1') else '0';
  i_ready  <= i_valid and all_done;

  process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' or (i_valid = '1' and all_done = '1') then
        taken <= (others => '0');
      else
        taken <= taken or (o_valid and o_ready);
      end if;
    end if;
  end process;
end architecture;
