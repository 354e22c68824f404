-- SlideStm: windows of K consecutive words of a stream (a line buffer of K - 1 words).
-- The input arrives in runs of E words (the slid stream dimension; each run is one index
-- of the dimensions outside it); from the K-th word of a run on, every word leaves with
-- the K - 1 before it as one vector of K words, the oldest in lanes 0 .. (first), so a
-- run of E words gives E - K + 1 windows. A height-wise window over rows is read as the
-- rows once and slid here, instead of reading every row K times.
library ieee;
use ieee.std_logic_1164.all;
use work.ss_pkg.all;

entity ss_slide_stm is
  generic (W : positive; K : positive; E : positive);  -- W: bits per word; 2 <= K <= E
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(W - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(K * W - 1 downto 0)
  );
end entity;

architecture rtl of ss_slide_stm is
  type words_t is array (0 to K - 2) of std_logic_vector(W - 1 downto 0);
  signal held  : words_t;                          -- the last K - 1 words, oldest first
  signal pos   : natural range 0 to E - 1 := 0;    -- the next input word's index in its run
  signal out_v : std_logic := '0';
  signal free  : boolean;                          -- the output register takes a window
begin
  o_valid <= out_v;
  free    <= out_v = '0' or o_ready = '1';
  -- the first K - 1 words of a run only fill the buffer; a word that completes a window
  -- waits for the output register
  i_ready <= '1' when pos < K - 1 or free else '0';

  process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' then
        out_v <= '0';
        pos   <= 0;
      else
        if out_v = '1' and o_ready = '1' then
          out_v <= '0';
        end if;
        if i_valid = '1' and (pos < K - 1 or free) then
          if pos >= K - 1 then
            for j in 0 to K - 2 loop
              o_data((j + 1) * W - 1 downto j * W) <= held(j);
            end loop;
            o_data(K * W - 1 downto (K - 1) * W) <= i_data;
            out_v <= '1';
          end if;
          for j in 0 to K - 3 loop
            held(j) <= held(j + 1);
          end loop;
          held(K - 2) <= i_data;
          pos <= 0 when pos = E - 1 else pos + 1;
        end if;
      end if;
    end if;
  end process;
end architecture;
