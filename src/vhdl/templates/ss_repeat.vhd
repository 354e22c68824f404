-- Repeat: each block of WORDS input words is passed on N times (SHIR's Repeat with an
-- on-chip buffer). The buffer has two banks: a block is written into one while the block
-- before it is played from the other, so the next block arrives while the current one
-- is replayed (double buffering). A block is played once it has started to arrive: its
-- first pass trails the input by a cycle; passes 2 .. N replay the bank, one word per
-- cycle while the consumer is ready.
--
-- The buffer's memory is outside: an ss_replay_ram of at least 2 * WORDS words, on the m_*
-- ports (bank b's word i at b * WORDS + i). Its registered read is the output register:
-- the consumer takes the RAM's read data as the output's data. (There is no o_data port,
-- so that a simulator copies no words: every unit sharing a pool RAM would copy each read.)
-- Keeping the RAM outside lets the units, which run one at a time, share it (the top's
-- replay pool, docs/hardware.md, "Replay buffers").
--
-- BEATS: each word arrives as BEATS input words of W / BEATS bits, lowest first, and is
-- written a beat per cycle (lower::replayWriteBeats: its producer, a Read, then assembles
-- a beat, not the word). The RAM is written in M_BEATS beats (a multiple of BEATS, the
-- replay-pool slot's); an input beat is m_wdata and sets M_BEATS / BEATS bits of m_wmask
-- (the top places it at every beat of the RAM's wdata). A word is in the buffer once its
-- last beat is.
library ieee;
use ieee.std_logic_1164.all;

entity ss_repeat is
  generic (
    W     : positive;  -- bits per word (lanes x element bits)
    WORDS : positive;  -- words per block
    N     : positive;  -- passes over each block
    BEATS   : positive := 1;  -- input words per word
    M_BEATS : positive := 1   -- the RAM's write beats
  );
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(W / BEATS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;  -- the output's data is m_rdata
    -- the RAM
    m_we     : out std_logic;
    m_waddr  : out natural range 0 to 2 * WORDS - 1;
    m_wdata  : out std_logic_vector(W / BEATS - 1 downto 0);
    m_wmask  : out std_logic_vector(M_BEATS - 1 downto 0);
    m_re     : out std_logic;
    m_raddr  : out natural range 0 to 2 * WORDS - 1
  );
end entity;

architecture rtl of ss_repeat is
  constant PER_BEAT : positive := M_BEATS / BEATS;  -- RAM beats per input beat
  -- the writer: the bank it fills and how far
  signal wbank    : natural range 0 to 1 := 0;
  signal widx     : natural range 0 to WORDS - 1 := 0;
  signal beat     : natural range 0 to BEATS - 1 := 0;  -- of the word widx
  -- the reader: its bank, pass and word
  signal rbank    : natural range 0 to 1 := 0;
  signal pass     : natural range 0 to N - 1 := 0;
  signal ridx     : natural range 0 to WORDS - 1 := 0;
  -- blocks in the buffer (written or being written, not yet fully played): 0 .. 2
  signal held     : natural range 0 to 2 := 0;
  signal out_v    : std_logic := '0';
  signal accept   : std_logic;  -- an input word is written at this edge
  signal issue    : std_logic;  -- a word is read into the output register at this edge
  signal avail    : boolean;    -- the reader's word is in the buffer
begin
  o_valid <= out_v;
  assert M_BEATS mod BEATS = 0 and W mod M_BEATS = 0
    report "ss_repeat: BEATS must divide M_BEATS, and M_BEATS W" severity failure;
  -- the writer continues the block it started, or starts one while fewer than two are held
  i_ready <= '1' when widx /= 0 or beat /= 0 or held < 2 else '0';
  accept  <= '1' when i_valid = '1' and (widx /= 0 or beat /= 0 or held < 2) else '0';
  -- the reader's word: its block is complete (two blocks are held, or the writer moved on
  -- to the other bank), or the first pass trails the writer in the same bank
  avail   <= pass /= 0 or held = 2 or (held = 1 and wbank /= rbank) or (held = 1 and wbank = rbank and ridx < widx);
  issue   <= '1' when (out_v = '0' or o_ready = '1') and avail else '0';

  -- the RAM reads before it writes: a read of the word being written gets the old word
  m_we    <= accept;
  m_waddr <= wbank * WORDS + widx;
  m_wdata <= i_data;
  mask_g : for k in 0 to M_BEATS - 1 generate
    m_wmask(k) <= '1' when k / PER_BEAT = beat else '0';
  end generate;
  m_re    <= issue;
  m_raddr <= rbank * WORDS + ridx;

  control : process (clk)
    variable h : natural range 0 to 3;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        wbank <= 0;
        widx  <= 0;
        beat  <= 0;
        rbank <= 0;
        pass  <= 0;
        ridx  <= 0;
        held  <= 0;
        out_v <= '0';
      else
        h := held;
        if issue = '1' then
          out_v <= '1';
        elsif o_ready = '1' then
          out_v <= '0';
        end if;
        -- the writer starts a block (it is held from its first word) and moves to the
        -- other bank after its last
        if accept = '1' then
          if widx = 0 and beat = 0 then
            h := h + 1;
          end if;
          if beat /= BEATS - 1 then
            beat <= beat + 1;
          elsif widx = WORDS - 1 then
            beat  <= 0;
            widx  <= 0;
            wbank <= 1 - wbank;
          else
            beat <= 0;
            widx <= widx + 1;
          end if;
        end if;
        -- the reader releases a block after its last pass
        if issue = '1' then
          if ridx = WORDS - 1 then
            ridx <= 0;
            if pass = N - 1 then
              pass  <= 0;
              rbank <= 1 - rbank;
              h     := h - 1;
            else
              pass <= pass + 1;
            end if;
          else
            ridx <= ridx + 1;
          end if;
        end if;
        held <= h;
      end if;
    end if;
  end process;
end architecture;
