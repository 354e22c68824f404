-- Testbench of a read that runs while its buffer is written (tests/vhdl/onchip_test.cpp):
-- an ss_write fills a 32 x 64 i8 buffer in an ss_line_ram, a row a vector, from a source
-- that offers a vector on IN_PCT % of the cycles; at the same time an ss_read with GATED
-- reads the buffer as 64 x 32 (two vectors a line, so a line serves two runs; with WIDE
-- as 32 x 64, a line a vector), its scout
-- held below the write's `wm`, into a sink that is ready on OUT_PCT % of the cycles. The
-- RAM is simple dual-port: the write and the read each move a line a cycle.
--
-- The reader starts with the writer, so it catches up and waits for lines, and its first
-- vector must leave before the writer is done (else nothing overlapped). Every vector is
-- compared with what the writer was given; a line read before it was written holds 'U'
-- and fails the comparison, which is what happens with GATED false.
-- RESULT_FILE: "errors E vectors V first F done D cycles C".
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use ieee.math_real.all;
use std.textio.all;
use work.ss_pkg.all;

entity gated_read_tb is
  generic (
    RESULT_FILE : string := "result.txt";
    SEED        : positive := 1;
    GATED       : boolean := true;
    IN_PCT      : natural := 40;
    OUT_PCT     : natural := 80;
    WIDE        : boolean := false  -- the reader takes a line a vector (else half a line)
  );
end entity;

architecture sim of gated_read_tb is
  constant ROWS     : positive := 32;           -- lines written, a 64-lane vector each
  constant LANES    : positive := 64 / (2 - boolean'pos(WIDE));  -- lanes a vector read
  constant VECS     : positive := ROWS * 64 / LANES;  -- vectors read
  constant BASE     : natural := 4096;          -- the buffer's byte address
  constant TIMEOUT  : positive := 2000;
  signal clk, rst   : std_logic := '1';
  signal running    : boolean := true;
  signal cycle      : natural := 0;
  -- port 0 writes, port 1 reads
  signal l_req, l_gnt, l_rvalid : std_logic_vector(1 downto 0);
  signal l_addr  : std_logic_vector(63 downto 0);
  signal l_wdata : std_logic_vector(2 * LINE_BITS - 1 downto 0) := (others => '0');
  signal l_be    : std_logic_vector(2 * LINE_BYTES - 1 downto 0) := (others => '0');
  signal l_rdata : std_logic_vector(LINE_BITS - 1 downto 0);
  signal wm      : std_logic_vector(31 downto 0);
  signal w_done  : std_logic;
  signal i_valid, i_ready, o_valid, o_ready : std_logic := '0';
  signal i_data  : std_logic_vector(64 * 8 - 1 downto 0);
  signal o_data  : std_logic_vector(LANES * 8 - 1 downto 0);
  signal sent, got : natural := 0;
  signal errors  : natural := 0;
  signal first_out, done_at : natural := 0;

  -- element e of the buffer (row e / 64, column e mod 64) as the writer is given it
  function element(e : natural) return std_logic_vector is
  begin
    return std_logic_vector(to_unsigned(((e / 64) * 7 + (e mod 64) * 3) mod 256, 8));
  end function;
begin
  clk <= not clk after 5 ns when running;

  ram : entity work.ss_line_ram
    generic map (N => 2, LINES => ROWS, BASE => (BASE, BASE))
    port map (clk => clk, rst => rst, l_req => l_req, l_we => "01", l_addr => l_addr, l_wdata => l_wdata,
              l_be => l_be, l_gnt => l_gnt, l_rvalid => l_rvalid, l_rdata => l_rdata);

  writer : entity work.ss_write
    generic map (
      NC => 2, EXTENTS => (ROWS, 64),
      NG => 2, G_OFFSET => (0, 0), G_COEF => (1, 0, 0, 1),
      ND => 2, D_GROUP => (0, 1), D_DIV => (1, 1), D_MOD => (0, 0),
      NS => 2, SPACE => (ROWS, 64), C_OFFSET => (0, 0), C_COEF => (1, 0, 0, 1),
      NM => 0, M_OFFSET => (0 => 0), M_COEF => (0, 0), M_LO => (0 => 0), M_HI => (0 => 0), M_FILL => (0 => 0),
      LANES => 64, VBITS => 8, BITS => 8, BASE => BASE, EBYTES => 1, PER_CYCLE => 64)
    port map (clk => clk, rst => rst, i_valid => i_valid, i_ready => i_ready, i_data => i_data,
              l_req => l_req(0), l_addr => l_addr(31 downto 0), l_gnt => l_gnt(0),
              l_wdata => l_wdata(LINE_BITS - 1 downto 0), l_be => l_be(LINE_BYTES - 1 downto 0), done => w_done,
              wm => wm);

  reader : entity work.ss_read
    generic map (
      NC => 2, EXTENTS => (VECS, LANES),
      NG => 2, G_OFFSET => (0, 0), G_COEF => (1, 0, 0, 1),
      ND => 2, D_GROUP => (0, 1), D_DIV => (1, 1), D_MOD => (0, 0),
      NS => 2, SPACE => (VECS, LANES), C_OFFSET => (0, 0), C_COEF => (1, 0, 0, 1),
      NM => 0, M_OFFSET => (0 => 0), M_COEF => (0, 0), M_LO => (0 => 0), M_HI => (0 => 0), M_FILL => (0 => 0),
      LANES => LANES, BITS => 8, BASE => BASE, EBYTES => 1, PER_CYCLE => LANES, FIFO_LINES => 16, GATED => GATED)
    port map (clk => clk, rst => rst, l_req => l_req(1), l_addr => l_addr(63 downto 32), l_gnt => l_gnt(1),
              l_rvalid => l_rvalid(1), l_rdata => l_rdata, avail => wm,
              o_valid => o_valid, o_ready => o_ready, o_data => o_data);

  -- the source and the sink: random valid and ready
  stimulus : process
    variable s1, s2 : positive := SEED;
    variable r : real;
    variable nxt : natural;
  begin
    s2 := SEED + 17;
    rst <= '1';
    wait until rising_edge(clk);
    wait until rising_edge(clk);
    rst <= '0';
    while running loop
      -- (at an edge: a vector offered and taken here moves `sent` on) a vector offered
      -- stays offered until taken, and the next may be offered in the same cycle
      nxt := sent;
      if i_valid = '1' and i_ready = '1' then
        nxt := sent + 1;
      end if;
      sent <= nxt;
      uniform(s1, s2, r);
      if nxt < ROWS and (i_valid = '0' or i_ready = '1') and r < real(IN_PCT) / 100.0 then
        i_valid <= '1';
        for j in 0 to 63 loop
          i_data(8 * j + 7 downto 8 * j) <= element(nxt * 64 + j);
        end loop;
      elsif i_ready = '1' then
        i_valid <= '0';
      end if;
      uniform(s1, s2, r);
      o_ready <= '1' when r < real(OUT_PCT) / 100.0 else '0';
      wait until rising_edge(clk);
    end loop;
    wait;
  end process;

  check : process (clk)
    variable e : natural := 0;
  begin
    if rising_edge(clk) and rst = '0' then
      cycle <= cycle + 1;
      if w_done = '1' and done_at = 0 then
        done_at <= cycle;
      end if;
      if o_valid = '1' and o_ready = '1' then
        if got = 0 then
          first_out <= cycle;
        end if;
        for j in 0 to LANES - 1 loop
          if o_data(8 * j + 7 downto 8 * j) /= element(got * LANES + j) then
            e := e + 1;
          end if;
        end loop;
        errors <= e;
        got    <= got + 1;
      end if;
    end if;
  end process;

  finish : process
    file f : text;
    variable l : line;
  begin
    wait until rising_edge(clk) and ((got = VECS and w_done = '1') or cycle = TIMEOUT);
    running <= false;
    file_open(f, RESULT_FILE, write_mode);
    write(l, string'("errors ") & integer'image(errors + VECS - got) & string'(" vectors ") & integer'image(got) &
             string'(" first ") & integer'image(first_out) & string'(" done ") & integer'image(done_at) &
             string'(" cycles ") & integer'image(cycle));
    writeline(f, l);
    file_close(f);
    wait;
  end process;
end architecture;
