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
--
-- BEATS: the word is written in BEATS beats of W / BEATS bits (docs/hardware.md, "Replay
-- buffers written in beats"): beat b is written where wmask(b) is set, from its own bits
-- of wdata. Each beat is sliced on its own (SLICE_W is then a beat's slice), so that every
-- memory has one write enable. A writer of whole words sets every bit of wmask.
library ieee;
use ieee.std_logic_1164.all;

entity ss_replay_ram is
  generic (
    W       : positive;  -- bits per word
    WORDS   : positive;
    SLICE_W : positive;  -- bits per slice of a beat
    BEATS   : positive := 1
  );
  port (
    clk   : in  std_logic;
    we    : in  std_logic;
    wmask : in  std_logic_vector(BEATS - 1 downto 0) := (others => '1');
    waddr : in  natural range 0 to WORDS - 1;
    wdata : in  std_logic_vector(W - 1 downto 0);
    re    : in  std_logic;
    raddr : in  natural range 0 to WORDS - 1;
    rdata : out std_logic_vector(W - 1 downto 0)
  );
end entity;

architecture rtl of ss_replay_ram is
  constant BW     : positive := W / BEATS;  -- bits per beat
  constant SLICES : positive := (BW + SLICE_W - 1) / SLICE_W;  -- per beat
begin
  assert W mod BEATS = 0 report "ss_replay_ram: BEATS must divide W" severity failure;
  beats_g : for b in 0 to BEATS - 1 generate
    slices_g : for s in 0 to SLICES - 1 generate
      constant LO : natural := b * BW + s * SLICE_W;
      constant HI : natural := minimum((b + 1) * BW, LO + SLICE_W) - 1;
      type ram_t is array (0 to WORDS - 1) of std_logic_vector(HI downto LO);
    begin
      rw : process (clk)
        variable ram : ram_t;  -- no initial value: a word is read only after it was written
      begin
        if rising_edge(clk) then
          if re = '1' then
            rdata(HI downto LO) <= ram(raddr);
          end if;
          if we = '1' and wmask(b) = '1' then
            ram(waddr) := wdata(HI downto LO);
          end if;
        end if;
      end process;
    end generate;
  end generate;
end architecture;
