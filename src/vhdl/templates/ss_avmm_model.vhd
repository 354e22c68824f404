-- Simulation only: an Avalon-MM slave memory of NLINES 512-bit lines for testbenches.
--
-- Loaded at time 0 from IMAGE (one line per text line, 128 hex digits, byte 63 first).
-- Seeded random back-pressure: waitrequest is raised on about STALL_PCT percent of the
-- cycles, read data returns after a random latency with random readdatavalid gaps.
-- The random decisions come from a xorshift32 generator (not ieee.math_real.uniform), so
-- that the Verilator harness (ss_verilator_tb.cpp) can draw exactly the same sequence and
-- both simulators agree cycle for cycle: per rising edge, while reads are queued, one draw
-- decides whether data is returned (70%) and, when the queue empties, one draws a gap of
-- 0-3 cycles; then one draw decides waitrequest for the next cycle (STALL_PCT%). A draw
-- d(m) steps x (x ^= x << 13, x ^= x >> 17, x ^= x << 5) and is (x >> 8) mod m; x starts
-- as SEED xor 0x9E3779B9 (never 0: SEED < 2^31).
-- Reads and writes accept bursts (burstcount beats at consecutive lines). An access
-- outside the memory stops the simulation with a failure. When `dump` rises, the lines
-- DUMP_LO(r) .. DUMP_HI(r) - 1 of every region r are written to DUMP_FILE as
-- "<line> <hex>" and `dumped` rises.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;

entity ss_avmm_model is
  generic (
    NLINES    : positive;
    IMAGE     : string;
    DUMP_FILE : string;
    NREGIONS  : positive;
    DUMP_LO   : integer_vector;
    DUMP_HI   : integer_vector;
    SEED      : positive;
    STALL_PCT : natural
  );
  port (
    clk               : in  std_logic;
    avm_address       : in  std_logic_vector(31 downto 0);
    avm_read          : in  std_logic;
    avm_write         : in  std_logic;
    avm_writedata     : in  std_logic_vector(511 downto 0);
    avm_byteenable    : in  std_logic_vector(63 downto 0);
    avm_burstcount    : in  std_logic_vector(7 downto 0);
    avm_waitrequest   : out std_logic;
    avm_readdata      : out std_logic_vector(511 downto 0);
    avm_readdatavalid : out std_logic;
    dump              : in  std_logic;
    dumped            : out std_logic
  );
end entity;

architecture sim of ss_avmm_model is
  signal stall : std_logic := '1';
begin
  avm_waitrequest <= stall;

  process
    type mem_t is array (0 to NLINES - 1) of std_logic_vector(511 downto 0);
    type queue_t is array (0 to 255) of natural;
    variable mem : mem_t := (others => (others => '0'));
    variable queue : queue_t;  -- lines of accepted reads not yet returned
    variable q_head, q_count : natural := 0;
    variable wait_cycles : natural := 0;
    variable w_line, w_left : natural := 0;  -- the rest of a write burst
    variable x : unsigned(31 downto 0);
    variable r : natural;
    variable line_no, n, beats : natural;
    file f_in, f_out : text;
    variable l : line;
    variable word : std_logic_vector(511 downto 0);
    variable ok : boolean;

    procedure check(ln : natural) is
    begin
      assert ln < NLINES report "memory access to line " & integer'image(ln) & " outside the "
        & integer'image(NLINES) & "-line memory" severity failure;
    end procedure;

    -- the next draw of the generator, in 0 .. m - 1
    procedure draw(m : positive; v : out natural) is
    begin
      x := x xor shift_left(x, 13);
      x := x xor shift_right(x, 17);
      x := x xor shift_left(x, 5);
      v := to_integer(x(31 downto 8)) mod m;
    end procedure;
  begin
    x := to_unsigned(SEED, 32) xor x"9E3779B9";
    file_open(f_in, IMAGE, read_mode);
    line_no := 0;
    while not endfile(f_in) and line_no < NLINES loop
      readline(f_in, l);
      hread(l, word, ok);
      assert ok report "memory image: bad line " & integer'image(line_no) severity failure;
      mem(line_no) := word;
      line_no := line_no + 1;
    end loop;
    file_close(f_in);
    dumped <= '0';
    avm_readdatavalid <= '0';

    loop
      wait until rising_edge(clk);
      -- requests presented in this cycle are accepted when waitrequest is low
      if stall = '0' and avm_read = '1' then
        beats := to_integer(unsigned(avm_burstcount));
        n := to_integer(unsigned(avm_address)) / 64;
        for b in 0 to beats - 1 loop
          check(n + b);
          queue((q_head + q_count) mod 256) := n + b;
          q_count := q_count + 1;
        end loop;
      end if;
      if stall = '0' and avm_write = '1' then
        if w_left = 0 then
          w_line := to_integer(unsigned(avm_address)) / 64;
          w_left := to_integer(unsigned(avm_burstcount));
        end if;
        check(w_line);
        for b in 0 to 63 loop
          if avm_byteenable(b) = '1' then
            mem(w_line)(8 * b + 7 downto 8 * b) := avm_writedata(8 * b + 7 downto 8 * b);
          end if;
        end loop;
        w_line := w_line + 1;
        w_left := w_left - 1;
      end if;
      -- return read data with random latency and gaps
      avm_readdatavalid <= '0';
      if q_count > 0 then
        draw(100, r);
        if wait_cycles > 0 then
          wait_cycles := wait_cycles - 1;
        elsif r < 70 then
          avm_readdata      <= mem(queue(q_head));
          avm_readdatavalid <= '1';
          q_head  := (q_head + 1) mod 256;
          q_count := q_count - 1;
          if q_count = 0 then
            draw(4, wait_cycles);
          end if;
        end if;
      end if;
      draw(100, r);
      stall <= '1' when r < STALL_PCT else '0';

      if dump = '1' then
        file_open(f_out, DUMP_FILE, write_mode);
        for reg in 0 to NREGIONS - 1 loop
          for ln in DUMP_LO(reg) to DUMP_HI(reg) - 1 loop
            write(l, ln);
            write(l, string'(" "));
            hwrite(l, mem(ln));
            writeline(f_out, l);
          end loop;
        end loop;
        file_close(f_out);
        dumped <= '1';
      end if;
    end loop;
  end process;
end architecture;
