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
--
-- A RAM of more than 2**24 bits is built as slices of its word, SLICE_W bits each (the
-- last narrower), each a memory of its own: yosys 0.23 maps no memory of more than
-- 21,474,836 bits (its efficiency overflows; lower::kMaxMemoryBits). The lowering passes
-- SLICE_W (lower::replayRamSliceWidth): W for every smaller RAM.
library ieee;
use ieee.std_logic_1164.all;

entity ss_replay_ram is
  generic (
    W       : positive;  -- bits per word
    WORDS   : positive;
    SLICE_W : positive   -- bits per slice of the word
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
  constant SLICES : positive := (W + SLICE_W - 1) / SLICE_W;
begin
  slices_g : for s in 0 to SLICES - 1 generate
    constant LO : natural := s * SLICE_W;
    constant HI : natural := minimum(W, LO + SLICE_W) - 1;
    type ram_t is array (0 to WORDS - 1) of std_logic_vector(HI downto LO);
  begin
    rw : process (clk)
      variable ram : ram_t;  -- no initial value: a word is read only after it was written
    begin
      if rising_edge(clk) then
        if re = '1' then
          rdata(HI downto LO) <= ram(raddr);
        end if;
        if we = '1' then
          ram(waddr) := wdata(HI downto LO);
        end if;
      end if;
    end process;
  end generate;
end architecture;
