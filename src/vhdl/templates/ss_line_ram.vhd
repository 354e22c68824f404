-- On-chip buffers: the intermediates the lowering keeps on chip (docs/hardware.md, "On-chip
-- buffers") whose lives do not overlap, LINES lines of 512 bits in block RAM, with a line
-- port of its own that the reads and writes of those buffers share. Each buffer starts at
-- the RAM's first line.
--
-- The ports speak the memory arbiter's protocol (ss_mem_arbiter), so ss_read and ss_write
-- do not know which memory serves them: a port raises l_req with its line's byte address
-- (the region in the memory map of port p's buffer starts at BASE(p)) and, for a write, data and byte
-- enables; l_gnt is combinational and the request is taken at that clock edge. One request
-- is taken per cycle, round-robin from the port after the last taken, and there are no
-- wait states: a write is in the RAM after the edge that takes it, and a read's line comes
-- back at the next edge (l_rdata, registered, with l_rvalid high for that port). So the
-- sequencer needs no idle signal from here before the next unit runs.
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
  signal last   : natural range 0 to N - 1 := N - 1;  -- the port taken last
  signal sel    : natural range 0 to N - 1;
  signal sel_ok : boolean;  -- a request is taken at this edge: sel's
  signal line   : natural range 0 to LINES - 1;  -- the line sel addresses
  signal wr, rd : boolean;  -- sel_ok, and sel writes / reads
begin
  choose : process (all)
    variable p : natural range 0 to N - 1;
    variable a : integer;
  begin
    p := round_robin(l_req, last);
    sel    <= p;
    sel_ok <= l_req(p) = '1' and rst = '0';
    for i in 0 to N - 1 loop
      l_gnt(i) <= '1' when l_req(p) = '1' and rst = '0' and i = p else '0';
    end loop;
    -- an idle port's address may be anything (a requesting port's is in the region)
    -- (BASE indexed by the loop's constant, not by p: indexed by a signal, GHDL makes the
    -- generic a ROM, a memory that synthesis leaves to logic)
    a := 0;
    for i in 0 to N - 1 loop
      if i = p and l_req(i) = '1' then
        a := to_integer(unsigned(l_addr(i * 32 + 31 downto i * 32 + 6))) - BASE(i) / LINE_BYTES;
      end if;
    end loop;
    line <= a when a >= 0 and a < LINES else 0;
  end process;

  wr   <= sel_ok and l_we(sel) = '1';
  rd   <= sel_ok and l_we(sel) = '0';

  control : process (clk)
  begin
    if rising_edge(clk) then
      l_rvalid <= (others => '0');
      if rst = '1' then
        last <= N - 1;
      elsif sel_ok then
        last <= sel;
        if rd then
          l_rvalid(sel) <= '1';
        end if;
      end if;
    end if;
  end process;

  -- the RAM: lines of LINE_BYTES bytes, each byte written under its enable
  ram_rw : process (clk)
    type ram_t is array (0 to LINES - 1) of std_logic_vector(LINE_BITS - 1 downto 0);
    variable ram : ram_t;
  begin
    if rising_edge(clk) then
      if rd then
        l_rdata <= ram(line);
      end if;
      if wr then
        for b in 0 to LINE_BYTES - 1 loop
          if l_be(sel * LINE_BYTES + b) = '1' then
            ram(line)(8 * b + 7 downto 8 * b) := l_wdata(sel * LINE_BITS + 8 * b + 7 downto sel * LINE_BITS + 8 * b);
          end if;
        end loop;
      end if;
    end if;
  end process;
end architecture;
