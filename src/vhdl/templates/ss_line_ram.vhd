-- On-chip buffers: the intermediates the lowering keeps on chip (docs/hardware.md, "On-chip
-- buffers") whose lives do not overlap, LINES lines of 512 bits in block RAM, with a line
-- port of its own that the reads and writes of those buffers share. Each buffer starts at
-- the RAM's first line.
--
-- The ports speak the memory arbiter's protocol (ss_mem_arbiter), so ss_read and ss_write
-- do not know which memory serves them: a port raises l_req with its line's byte address
-- (the region in the memory map of port p's buffer starts at BASE(p)) and, for a write, data and byte
-- enables; l_gnt is combinational and the request is taken at that clock edge. The RAM is
-- simple dual-port, as block RAM is: one write and one read are taken per cycle, each
-- round-robin over the ports of its kind from the one after the last taken, so a reader
-- and a writer of one buffer that run at the same time (a gated ss_read behind an
-- ss_write) each move a line a cycle. There are no wait states: a write is in the RAM
-- after the edge that takes it, and a read's line comes back at the next edge (l_rdata,
-- registered, with l_rvalid high for that port); a read of the line being written in the
-- same cycle gets the old line. So the sequencer needs no idle signal from here before
-- the next unit runs.
--
-- The RAM is one memory of lines with a registered, enabled read and byte enables on
-- the write: the form synthesis maps to block RAM (ghdl synth splits it into 64 byte-wide
-- memories, which yosys maps to M20K blocks of 2,048 x 8 bits when they are at least 128
-- lines deep, its 5% efficiency rule; smaller ones become flip-flops). It has no initial
-- value (yosys cannot map one; an unwritten byte reads 'U' in simulation, and a design
-- that used one would fail the comparison) and is a variable of its process, not a
-- signal: GHDL keeps every bit of a signal as a signal of its own (see ss_repeat).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_line_ram is
  generic (N : positive; LINES : positive; BASE : integer_vector);  -- BASE: one per port
  port (
    clk, rst : in std_logic;
    l_req    : in  std_logic_vector(N - 1 downto 0);
    l_we     : in  std_logic_vector(N - 1 downto 0);
    l_addr   : in  std_logic_vector(N * 32 - 1 downto 0);
    l_wdata  : in  std_logic_vector(N * LINE_BITS - 1 downto 0);
    l_be     : in  std_logic_vector(N * LINE_BYTES - 1 downto 0);
    l_gnt    : out std_logic_vector(N - 1 downto 0);
    l_rvalid : out std_logic_vector(N - 1 downto 0);
    l_rdata  : out std_logic_vector(LINE_BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_line_ram is
  signal w_req, r_req : std_logic_vector(N - 1 downto 0);  -- the write / read requests
  signal last_w, last_r : natural range 0 to N - 1 := N - 1;  -- the ports taken last
  signal wsel, rsel : natural range 0 to N - 1;
  signal wr, rd     : boolean;  -- a write / a read is taken at this edge: wsel's / rsel's
  signal wline, rline : natural range 0 to LINES - 1;  -- the lines they address
  signal wdata : std_logic_vector(LINE_BITS - 1 downto 0);   -- the write's line
  signal wbe   : std_logic_vector(LINE_BYTES - 1 downto 0);  -- and its byte enables

  -- port p's line, 0 for an address outside the RAM (an idle port's may be anything)
  -- (BASE indexed by the loop's constant, not by p: indexed by a signal, GHDL makes the
  -- generic a ROM, a memory that synthesis leaves to logic)
  function line_of(addr : std_logic_vector; p : natural) return natural is
    variable a : integer := 0;
  begin
    for i in 0 to N - 1 loop
      if i = p then
        a := to_integer(unsigned(addr(i * 32 + 31 downto i * 32 + 6))) - BASE(i) / LINE_BYTES;
      end if;
    end loop;
    if a >= 0 and a < LINES then
      return a;
    end if;
    return 0;
  end function;
begin
  w_req <= l_req and l_we;
  r_req <= l_req and not l_we;

  choose : process (all)
    variable pw, pr : natural range 0 to N - 1;
  begin
    pw := round_robin(w_req, last_w);
    pr := round_robin(r_req, last_r);
    wsel <= pw;
    rsel <= pr;
    wr   <= w_req(pw) = '1' and rst = '0';
    rd   <= r_req(pr) = '1' and rst = '0';
    for i in 0 to N - 1 loop
      l_gnt(i) <= '1' when rst = '0' and ((w_req(pw) = '1' and i = pw) or (r_req(pr) = '1' and i = pr)) else '0';
    end loop;
    wline <= line_of(l_addr, pw);
    rline <= line_of(l_addr, pr);
  end process;

  -- the taken write's data and enables, an AND-OR over the ports (l_wdata indexed by wsel
  -- made GHDL write a dynamic extract from the whole N-line vector per byte, which yosys
  -- built as shifters: 28,657 LUTs in a 16-port RAM of 512 lines)
  wselect : process (all)
    variable d : std_logic_vector(LINE_BITS - 1 downto 0);
    variable e : std_logic_vector(LINE_BYTES - 1 downto 0);
  begin
    d := (others => '0');
    e := (others => '0');
    for i in 0 to N - 1 loop
      if i = wsel then
        d := d or l_wdata(i * LINE_BITS + LINE_BITS - 1 downto i * LINE_BITS);
        e := e or l_be(i * LINE_BYTES + LINE_BYTES - 1 downto i * LINE_BYTES);
      end if;
    end loop;
    wdata <= d;
    wbe   <= e;
  end process;

  control : process (clk)
  begin
    if rising_edge(clk) then
      l_rvalid <= (others => '0');
      if rst = '1' then
        last_w <= N - 1;
        last_r <= N - 1;
      else
        if wr then
          last_w <= wsel;
        end if;
        if rd then
          last_r <= rsel;
          l_rvalid(rsel) <= '1';
        end if;
      end if;
    end if;
  end process;

  -- the RAM: lines of LINE_BYTES bytes, each byte written under its enable; read first
  ram_rw : process (clk)
    type ram_t is array (0 to LINES - 1) of std_logic_vector(LINE_BITS - 1 downto 0);
    variable ram : ram_t;
  begin
    if rising_edge(clk) then
      if rd then
        l_rdata <= ram(rline);
      end if;
      if wr then
        for b in 0 to LINE_BYTES - 1 loop
          if wbe(b) = '1' then
            ram(wline)(8 * b + 7 downto 8 * b) := wdata(8 * b + 7 downto 8 * b);
          end if;
        end loop;
      end if;
    end if;
  end process;
end architecture;
