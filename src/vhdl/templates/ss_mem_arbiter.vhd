-- Memory arbiter: N line ports (the gathers and scatters of every unit) share one
-- Avalon-MM master (512-bit data, byte addresses, burstcount). A port holds l_req (and,
-- for a write, its address, data and byte enables) until it sees its l_ack pulse; a read
-- response is on l_rdata in the l_ack cycle. Reads and writes are single-beat bursts.
--
-- Pipelined: a command is issued every cycle the slave accepts one (round-robin from the
-- port after the last one served), without waiting for earlier reads to return. Avalon-MM
-- returns pipelined read data in command order, so a FIFO of MAX_PENDING entries holds
-- the port of every read accepted but not yet answered; readdatavalid acknowledges its
-- head. A write is acknowledged when the slave accepts it. A port is served again only
-- after its acknowledgement (one request per port in flight), so commands keep each
-- port's order and a unit's writes are accepted before it reports done.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_mem_arbiter is
  generic (N : positive; MAX_PENDING : positive := 8);
  port (
    clk, rst : in std_logic;
    l_req    : in  std_logic_vector(N - 1 downto 0);
    l_we     : in  std_logic_vector(N - 1 downto 0);
    l_addr   : in  std_logic_vector(N * 32 - 1 downto 0);
    l_wdata  : in  std_logic_vector(N * LINE_BITS - 1 downto 0);
    l_be     : in  std_logic_vector(N * LINE_BYTES - 1 downto 0);
    l_ack    : out std_logic_vector(N - 1 downto 0);
    l_rdata  : out std_logic_vector(LINE_BITS - 1 downto 0);
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
  signal port_sel : natural range 0 to N - 1 := 0;   -- the port of the command on the bus
  signal cmd_read, cmd_write : std_logic := '0';     -- a command is on the bus
  -- ports with a request issued and not yet acknowledged, or acknowledged in the last
  -- cycle (their l_req is still high: a port drops it the cycle after its l_ack)
  signal busy     : std_logic_vector(N - 1 downto 0) := (others => '0');
  signal fifo     : ports_t := (others => 0);        -- ports of the reads in flight
  signal head, tail : natural range 0 to MAX_PENDING - 1 := 0;
  signal pending  : natural range 0 to MAX_PENDING := 0;
begin
  avm_burstcount <= std_logic_vector(to_unsigned(1, 8));
  avm_read       <= cmd_read;
  avm_write      <= cmd_write;

  process (clk)
    variable p        : natural range 0 to N - 1;
    variable free     : boolean;                 -- no command on the bus after this edge
    variable accepted : boolean;
    variable pend     : natural range 0 to MAX_PENDING;
    variable bsy      : std_logic_vector(N - 1 downto 0);
  begin
    if rising_edge(clk) then
      -- assigned on every path: a variable kept across cycles is a latch
      p        := port_sel;
      pend     := pending;
      bsy      := busy;
      accepted := (cmd_read = '1' or cmd_write = '1') and avm_waitrequest = '0';
      free     := cmd_read = '0' and cmd_write = '0';
      l_ack    <= (others => '0');
      if rst = '1' then
        cmd_read  <= '0';
        cmd_write <= '0';
        port_sel  <= N - 1;
        busy      <= (others => '0');
        head      <= 0;
        tail      <= 0;
        pending   <= 0;
      else
        -- the oldest read in flight returns
        if avm_readdatavalid = '1' then
          l_rdata        <= avm_readdata;
          l_ack(fifo(head)) <= '1';
          if head = MAX_PENDING - 1 then
            head <= 0;
          else
            head <= head + 1;
          end if;
          pend := pend - 1;
        end if;
        -- the command on the bus is accepted
        if accepted then
          free := true;
          if cmd_read = '1' then
            fifo(tail) <= port_sel;
            if tail = MAX_PENDING - 1 then
              tail <= 0;
            else
              tail <= tail + 1;
            end if;
            pend := pend + 1;
          else
            l_ack(port_sel) <= '1';
          end if;
          cmd_read  <= '0';
          cmd_write <= '0';
        end if;
        -- the next command: the first requesting port after the last one served that has
        -- nothing in flight (a read only while the FIFO has room for it)
        if free then
          for i in 1 to N loop
            -- (port_sel + i) mod N without a divider: yosys' `share` pass enumerates
            -- the activation patterns of every $mod cell in this exit chain, which
            -- grow exponentially with N (it ran out of memory at N = 12)
            if port_sel + i >= N then
              p := port_sel + i - N;
            else
              p := port_sel + i;
            end if;
            exit when l_req(p) = '1' and bsy(p) = '0';
          end loop;
          if l_req(p) = '1' and bsy(p) = '0' and (l_we(p) = '1' or pend < MAX_PENDING) then
            port_sel    <= p;
            bsy(p)      := '1';
            avm_address <= l_addr(p * 32 + 31 downto p * 32);
            if l_we(p) = '1' then
              cmd_write      <= '1';
              avm_writedata  <= l_wdata(p * LINE_BITS + LINE_BITS - 1 downto p * LINE_BITS);
              avm_byteenable <= l_be(p * LINE_BYTES + LINE_BYTES - 1 downto p * LINE_BYTES);
            else
              cmd_read       <= '1';
              avm_byteenable <= (others => '1');
            end if;
          end if;
        end if;
        -- a port acknowledged in the last cycle drops its request at this edge (its
        -- l_req is still high now): it may be served again from the next cycle
        for i in 0 to N - 1 loop
          if l_ack(i) = '1' then
            bsy(i) := '0';
          end if;
        end loop;
        busy    <= bsy;
        pending <= pend;
      end if;
    end if;
  end process;
end architecture;
