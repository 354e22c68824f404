-- Memory arbiter: N line ports (the reads and writes of every unit) share one Avalon-MM
-- master (512-bit data, byte addresses, single-beat bursts).
--
-- A port raises l_req with its line address (and, for a write, data and byte enables)
-- and keeps it until l_gnt, which is combinational: the request is taken at the clock edge
-- of the cycle in which l_gnt is high, so a port may present its next request in the next
-- cycle (a line per cycle). Ports are served round-robin from the one after the last
-- taken, those with l_first high before the others (the ports of the unit that started
-- first, when its neighbour runs beside it and fetches ahead); a read is taken only while
-- fewer than MAX_PENDING reads are in flight.
--
-- Taken requests wait in the command register until the slave accepts them (waitrequest
-- low). Avalon-MM returns read data in command order, so a FIFO holds the port of every
-- accepted read; on readdatavalid the data goes to l_rdata with l_rvalid high for that
-- port (one cycle, registered), in the order the port asked. A port may have any number of
-- reads in flight. `idle` is high when no command waits and no read is in flight: then
-- every write taken so far has been accepted by the memory (the sequencer waits for it
-- before the next unit runs, so that unit reads what this one wrote).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_mem_arbiter is
  generic (N : positive; MAX_PENDING : positive := 32);  -- designs: lower::kArbiterPendingReads
  port (
    clk, rst : in std_logic;
    l_req    : in  std_logic_vector(N - 1 downto 0);
    l_first  : in  std_logic_vector(N - 1 downto 0) := (others => '0');
    l_we     : in  std_logic_vector(N - 1 downto 0);
    l_addr   : in  std_logic_vector(N * 32 - 1 downto 0);
    l_wdata  : in  std_logic_vector(N * LINE_BITS - 1 downto 0);
    l_be     : in  std_logic_vector(N * LINE_BYTES - 1 downto 0);
    l_gnt    : out std_logic_vector(N - 1 downto 0);
    l_rvalid : out std_logic_vector(N - 1 downto 0);
    l_rdata  : out std_logic_vector(LINE_BITS - 1 downto 0);
    idle     : out std_logic;
    -- Avalon-MM master
    avm_address       : out std_logic_vector(31 downto 0);
    avm_read          : out std_logic;
    avm_write         : out std_logic;
    avm_writedata     : out std_logic_vector(LINE_BITS - 1 downto 0);
    avm_byteenable    : out std_logic_vector(LINE_BYTES - 1 downto 0);
    avm_burstcount    : out std_logic_vector(7 downto 0);
    avm_waitrequest   : in  std_logic;
    avm_readdata      : in  std_logic_vector(LINE_BITS - 1 downto 0);
    avm_readdatavalid : in  std_logic
  );
end entity;

architecture rtl of ss_mem_arbiter is
  type ports_t is array (0 to MAX_PENDING - 1) of natural range 0 to N - 1;
  signal last      : natural range 0 to N - 1 := N - 1;  -- the port taken last
  signal cmd_read, cmd_write : std_logic := '0';         -- a command is on the bus
  signal cmd_port  : natural range 0 to N - 1 := 0;
  -- the ports of the accepted reads; no initial value, so that synthesis maps it to LUT-RAM
  -- (MLAB), which takes none: an entry is read only after it is written (inflight > 0)
  signal fifo      : ports_t;
  signal head, tail : natural range 0 to MAX_PENDING - 1 := 0;
  -- reads taken and not yet returned (on the bus or accepted)
  signal inflight  : natural range 0 to MAX_PENDING := 0;
  signal free      : boolean;   -- the command register takes a request at this edge
  signal sel       : natural range 0 to N - 1;
  signal sel_ok    : boolean;   -- some port is taken at this edge: sel
begin
  avm_burstcount <= std_logic_vector(to_unsigned(1, 8));
  avm_read       <= cmd_read;
  avm_write      <= cmd_write;
  idle           <= '1' when cmd_read = '0' and cmd_write = '0' and inflight = 0 else '0';
  free           <= (cmd_read = '0' and cmd_write = '0') or avm_waitrequest = '0';

  -- the first requesting port after the last one taken (a read only with room in flight),
  -- of those with l_first if any requests
  choose : process (all)
    variable eligible, urgent : std_logic_vector(N - 1 downto 0);
    variable p        : natural range 0 to N - 1;
    variable ok       : boolean;
  begin
    for i in 0 to N - 1 loop
      eligible(i) := '0';
      if l_req(i) = '1' and (l_we(i) = '1' or inflight < MAX_PENDING) then
        eligible(i) := '1';
      end if;
    end loop;
    urgent := eligible and l_first;
    if urgent /= (urgent'range => '0') then
      p := round_robin(urgent, last);
    else
      p := round_robin(eligible, last);
    end if;
    ok := eligible(p) = '1';
    sel    <= p;
    sel_ok <= ok and free and rst = '0';
    for i in 0 to N - 1 loop
      l_gnt(i) <= '1' when ok and free and rst = '0' and i = p else '0';
    end loop;
  end process;

  process (clk)
    variable infl : natural range 0 to MAX_PENDING;
  begin
    if rising_edge(clk) then
      l_rvalid <= (others => '0');
      if rst = '1' then
        cmd_read  <= '0';
        cmd_write <= '0';
        last      <= N - 1;
        head      <= 0;
        tail      <= 0;
        inflight  <= 0;
      else
        infl := inflight;
        -- the oldest accepted read returns
        if avm_readdatavalid = '1' then
          l_rdata              <= avm_readdata;
          l_rvalid(fifo(head)) <= '1';
          head                 <= 0 when head = MAX_PENDING - 1 else head + 1;
          infl                 := infl - 1;
        end if;
        -- the command on the bus is accepted
        if (cmd_read = '1' or cmd_write = '1') and avm_waitrequest = '0' then
          if cmd_read = '1' then
            fifo(tail) <= cmd_port;
            tail       <= 0 when tail = MAX_PENDING - 1 else tail + 1;
          end if;
          cmd_read  <= '0';
          cmd_write <= '0';
        end if;
        -- the next command
        if sel_ok then
          last        <= sel;
          cmd_port    <= sel;
          avm_address <= l_addr(sel * 32 + 31 downto sel * 32);
          if l_we(sel) = '1' then
            cmd_write      <= '1';
            avm_writedata  <= l_wdata(sel * LINE_BITS + LINE_BITS - 1 downto sel * LINE_BITS);
            avm_byteenable <= l_be(sel * LINE_BYTES + LINE_BYTES - 1 downto sel * LINE_BYTES);
          else
            cmd_read       <= '1';
            avm_byteenable <= (others => '1');
            infl           := infl + 1;
          end if;
        end if;
        inflight <= infl;
      end if;
    end if;
  end process;
end architecture;
