-- Repeat: each block of WORDS input words is passed on N times (SHIR's Repeat with an
-- on-chip buffer). The words of a block are written to a buffer as they arrive and read
-- back once per pass: the first pass trails the input by one cycle, passes 2 .. N replay
-- the buffer, one word per cycle while the consumer is ready. The next block is accepted
-- once the last pass has read the whole buffer.
--
-- The buffer is written by one process and read by another with a registered, enabled
-- read (the output register is the buffer's own read register), the form synthesis maps
-- to block RAM (M20K) without extra flip-flops beside it.
library ieee;
use ieee.std_logic_1164.all;

entity ss_repeat is
  generic (
    W     : positive;  -- bits per word (lanes x element bits)
    WORDS : positive;  -- words per block
    N     : positive   -- passes over each block
  );
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(W - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(W - 1 downto 0)
  );
end entity;

architecture rtl of ss_repeat is
  type ram_t is array (0 to WORDS - 1) of std_logic_vector(W - 1 downto 0);
  signal ram      : ram_t;  -- no initial value: a word is read only after it was written
  signal written  : natural range 0 to WORDS := 0;      -- words of the current block in the buffer
  signal pass     : natural range 0 to N - 1 := 0;      -- the pass being read
  signal ridx     : natural range 0 to WORDS - 1 := 0;  -- the next word it reads
  signal out_v    : std_logic := '0';
  signal accept   : std_logic;  -- an input word is written at this edge
  signal issue    : std_logic;  -- a word is read into the output register at this edge
begin
  o_valid <= out_v;
  accept  <= '1' when i_valid = '1' and pass = 0 and written < WORDS else '0';
  i_ready <= '1' when pass = 0 and written < WORDS else '0';
  issue   <= '1' when (out_v = '0' or o_ready = '1') and (pass /= 0 or ridx < written) else '0';

  store : process (clk)
  begin
    if rising_edge(clk) then
      if accept = '1' then
        ram(written) <= i_data;
      end if;
    end if;
  end process;

  load : process (clk)
  begin
    if rising_edge(clk) then
      if issue = '1' then
        o_data <= ram(ridx);
      end if;
    end if;
  end process;

  control : process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' then
        written <= 0;
        pass    <= 0;
        ridx    <= 0;
        out_v   <= '0';
      else
        if issue = '1' then
          out_v <= '1';
        elsif o_ready = '1' then
          out_v <= '0';
        end if;
        if issue = '1' and ridx = WORDS - 1 and pass = N - 1 then
          written <= 0;  -- the block is done: the next one may be written
        elsif accept = '1' then
          written <= written + 1;
        end if;
        if issue = '1' then
          if ridx = WORDS - 1 then
            ridx <= 0;
            pass <= 0 when pass = N - 1 else pass + 1;
          else
            ridx <= ridx + 1;
          end if;
        end if;
      end if;
    end if;
  end process;
end architecture;
