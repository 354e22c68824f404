-- Testbench of ss_replay_ram's slices (tests/vhdl/templates_test.cpp): RAMs of 10-bit words
-- cut into slices of 10 (one memory), 4 (4 + 4 + 2), 3 and 1 bits get the same random
-- writes and reads, some of the word being written, for 2,000 cycles. Every read must
-- return what the testbench's own copy of the memory held before the edge (block RAM's
-- read-before-write) in every slicing. RAMs written in two beats of 5 bits (BEATS, sliced
-- 5 and 2 + 2 + 1 within a beat) get the same writes with a random beat mask, and must read
-- what a copy written beat by beat holds. Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use ieee.math_real.all;
use work.tb_result.all;

entity replay_ram_tb is
  generic (RESULT_FILE : string := "result.txt");
end entity;

architecture sim of replay_ram_tb is
  constant W     : positive := 10;
  constant WORDS : positive := 13;
  type widths_t is array (natural range <>) of positive;
  constant SLICINGS : widths_t := (10, 4, 3, 1);
  constant BEATS : positive := 2;
  constant BEAT_SLICINGS : widths_t := (5, 2);
  type data_t is array (SLICINGS'range) of std_logic_vector(W - 1 downto 0);
  type beat_data_t is array (BEAT_SLICINGS'range) of std_logic_vector(W - 1 downto 0);
  signal clk, we, re : std_logic := '0';
  signal waddr, raddr : natural range 0 to WORDS - 1 := 0;
  signal wdata : std_logic_vector(W - 1 downto 0) := (others => '0');
  signal wmask : std_logic_vector(BEATS - 1 downto 0) := (others => '0');
  signal rdata : data_t;
  signal beat_rdata : beat_data_t;
begin
  rams : for k in SLICINGS'range generate
    ram : entity work.ss_replay_ram
      generic map (W => W, WORDS => WORDS, SLICE_W => SLICINGS(k))
      port map (clk => clk, we => we, waddr => waddr, wdata => wdata, re => re, raddr => raddr, rdata => rdata(k));
  end generate;
  beat_rams : for k in BEAT_SLICINGS'range generate
    ram : entity work.ss_replay_ram
      generic map (W => W, WORDS => WORDS, SLICE_W => BEAT_SLICINGS(k), BEATS => BEATS)
      port map (clk => clk, we => we, wmask => wmask, waddr => waddr, wdata => wdata, re => re, raddr => raddr,
                rdata => beat_rdata(k));
  end generate;

  process
    type mem_t is array (0 to WORDS - 1) of std_logic_vector(W - 1 downto 0);
    variable mem : mem_t := (others => (others => '0'));
    variable written : std_logic_vector(0 to WORDS - 1) := (others => '0');
    variable expect : std_logic_vector(W - 1 downto 0);
    -- written beat by beat: a word is read once both its beats were written
    variable beat_mem : mem_t := (others => (others => '0'));
    variable beat_written : std_logic_vector(0 to 2 * WORDS - 1) := (others => '0');
    variable beat_expect : std_logic_vector(W - 1 downto 0);
    variable beat_reading : boolean := false;
    variable reading : boolean := false;
    variable s1, s2 : positive := 7;
    variable x : real;
    variable n, errors : natural := 0;
    impure function rand(hi : natural) return natural is
    begin
      uniform(s1, s2, x);
      return natural(floor(x * real(hi + 1))) mod (hi + 1);
    end function;
    -- one read of a written word (when `reading`): it must be `want`
    procedure check(reading : boolean; got, want : std_logic_vector; what : string) is
    begin
      if reading then
        n := n + 1;
        if got /= want then
          errors := errors + 1;
          report what & " read a wrong word" severity error;
        end if;
      end if;
    end procedure;
  begin
    for cycle in 1 to 2000 loop
      we <= '1' when rand(1) = 1 else '0';
      re <= '1' when rand(1) = 1 else '0';
      waddr <= rand(WORDS - 1);
      raddr <= rand(WORDS - 1);
      wdata <= std_logic_vector(to_unsigned(rand(2 ** W - 1), W));
      wmask <= std_logic_vector(to_unsigned(rand(2 ** BEATS - 1), BEATS));
      wait for 1 ns;
      -- a read of a written word: what the memory holds before this edge
      reading := re = '1' and written(raddr) = '1';
      expect := mem(raddr);
      beat_reading := re = '1' and beat_written(2 * raddr) = '1' and beat_written(2 * raddr + 1) = '1';
      beat_expect := beat_mem(raddr);
      if we = '1' then
        mem(waddr) := wdata;
        written(waddr) := '1';
        for b in 0 to BEATS - 1 loop
          if wmask(b) = '1' then
            beat_mem(waddr)((b + 1) * 5 - 1 downto b * 5) := wdata((b + 1) * 5 - 1 downto b * 5);
            beat_written(2 * waddr + b) := '1';
          end if;
        end loop;
      end if;
      clk <= '1';
      wait for 1 ns;
      clk <= '0';
      wait for 1 ns;
      for k in SLICINGS'range loop
        check(reading, rdata(k), expect, "slices of " & integer'image(SLICINGS(k)) & " bits");
      end loop;
      for k in BEAT_SLICINGS'range loop
        check(beat_reading, beat_rdata(k), beat_expect, "beats sliced in " & integer'image(BEAT_SLICINGS(k)) & " bits");
      end loop;
    end loop;
    write_result(RESULT_FILE, n, errors);
    wait;
  end process;
end architecture;
