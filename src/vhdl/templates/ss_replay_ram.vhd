-- Replay RAM: the memory of replay buffers (ss_repeat), WORDS words of W bits with one
-- write port and one registered, enabled read port. The top builds one per slot of the
-- replay pool and connects it to the replay buffers of the unit that is running (units
-- run one at a time, docs/hardware.md, "Replay buffers"); a unit with a buffer of its
-- own (a shared datapath's) builds one beside it.
--
-- The RAM is a variable of one process that reads it before it writes it, so a read of
-- the word being written gets the old word, as block RAM's does, and the output register
-- is the RAM's own read register: the form synthesis maps to block RAM (M20K) without
-- extra flip-flops. A variable, not a signal, because GHDL keeps every bit of a signal
-- as a signal of its own (full VGG-CIFAR's buffers: more than 18 GB).
library ieee;
use ieee.std_logic_1164.all;

entity ss_replay_ram is
  generic (
    W     : positive;  -- bits per word
    WORDS : positive
  );
  port (
    clk   : in  std_logic;
    we    : in  std_logic;
    waddr : in  natural range 0 to WORDS - 1;
    wdata : in  std_logic_vector(W - 1 downto 0);
    re    : in  std_logic;
    raddr : in  natural range 0 to WORDS - 1;
    rdata : out std_logic_vector(W - 1 downto 0)
  );
end entity;

architecture rtl of ss_replay_ram is
  type ram_t is array (0 to WORDS - 1) of std_logic_vector(W - 1 downto 0);
begin
  rw : process (clk)
    variable ram : ram_t;  -- no initial value: a word is read only after it was written
  begin
    if rising_edge(clk) then
      if re = '1' then
        rdata <= ram(raddr);
      end if;
      if we = '1' then
        ram(waddr) := wdata;
      end if;
    end if;
  end process;
end architecture;
