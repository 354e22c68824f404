-- Memory arbiter: N line ports (the gathers and scatters of every unit) share one
-- Avalon-MM master (512-bit data, byte addresses, burstcount). One request is served at
-- a time, round-robin from the port after the last one served. A port holds l_req (and,
-- for a write, its address, data and byte enables) until it sees its l_ack pulse; a read
-- response is on l_rdata in the l_ack cycle. Reads and writes are single-beat bursts.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_mem_arbiter is
  generic (N : positive);
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
  type state_t is (IDLE, ISSUE_READ, WAIT_DATA, ISSUE_WRITE, ACKED);
  signal state : state_t := IDLE;
  signal port_sel : natural range 0 to N - 1 := 0;
begin
  avm_burstcount <= std_logic_vector(to_unsigned(1, 8));

  process (clk)
    variable p : natural range 0 to N - 1;
  begin
    if rising_edge(clk) then
      p     := port_sel;  -- assigned on every path: a variable kept across cycles is a latch
      l_ack <= (others => '0');
      if rst = '1' then
        state     <= IDLE;
        port_sel  <= N - 1;
        avm_read  <= '0';
        avm_write <= '0';
      else
        -- an if chain, not `case state`: GHDL writes the case as a Verilog case over a one-hot
        -- selector without a default, and yosys infers latches for it
        if state = IDLE then
            -- the first requesting port after the last one served
            for i in 1 to N loop
              -- (port_sel + i) mod N without a divider: yosys' `share` pass enumerates
              -- the activation patterns of every $mod cell in this exit chain, which
              -- grow exponentially with N (it ran out of memory at N = 12)
              if port_sel + i >= N then
                p := port_sel + i - N;
              else
                p := port_sel + i;
              end if;
              exit when l_req(p) = '1';
            end loop;
            if l_req(p) = '1' then
              port_sel    <= p;
              avm_address <= l_addr(p * 32 + 31 downto p * 32);
              if l_we(p) = '1' then
                avm_write      <= '1';
                avm_writedata  <= l_wdata(p * LINE_BITS + LINE_BITS - 1 downto p * LINE_BITS);
                avm_byteenable <= l_be(p * LINE_BYTES + LINE_BYTES - 1 downto p * LINE_BYTES);
                state          <= ISSUE_WRITE;
              else
                avm_read       <= '1';
                avm_byteenable <= (others => '1');
                state          <= ISSUE_READ;
              end if;
            end if;
        elsif state = ISSUE_READ then
            if avm_waitrequest = '0' then
              avm_read <= '0';
              state    <= WAIT_DATA;
            end if;
        elsif state = WAIT_DATA then
            if avm_readdatavalid = '1' then
              l_rdata         <= avm_readdata;
              l_ack(port_sel) <= '1';
              state           <= ACKED;
            end if;
        elsif state = ISSUE_WRITE then
            if avm_waitrequest = '0' then
              avm_write       <= '0';
              l_ack(port_sel) <= '1';
              state           <= ACKED;
            end if;
        elsif state = ACKED then
            -- the port drops its request on seeing l_ack; look again next cycle
            state <= IDLE;
        end if;
      end if;
    end if;
  end process;
end architecture;
