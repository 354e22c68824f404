-- Testbench of ss_mem_arbiter (tests/vhdl/arbiter_test.cpp): NPORTS requesters behave
-- like ss_read and ss_write (l_req held until l_gnt, which takes the request at that
-- edge; a random pause of 0 .. 2 cycles before the next; reads do not wait for their
-- data, which comes back on l_rvalid in request order) against the Avalon-MM memory model
-- with random wait states and read latencies. Port k first writes WRITES lines of its own
-- (line 32 + 8k + j, bytes 3k + j + b), then reads every line 0 .. 31 and its own written
-- lines back, in an order of its own; a checker per port compares every response with
-- the line its request named, in order. A monitor counts the reads accepted by the memory
-- and not yet answered; the run fails unless every response was right and at least
-- MIN_IN_FLIGHT reads were in flight at some time. With FIRST >= 0 that port has l_first
-- (served before the others); the result gives the cycle each port's last request was
-- taken.
-- Memory image: line i holds byte b = (7i + b) mod 256.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use ieee.math_real.all;
use std.textio.all;
use work.ss_pkg.all;

entity arbiter_tb is
  generic (
    IMAGE         : string := "memory.hex";
    RESULT_FILE   : string := "result.txt";
    SEED          : positive := 1;
    STALL_PCT     : natural := 25;
    MIN_IN_FLIGHT : natural := 6;
    FIRST         : integer := -1
  );
end entity;

architecture sim of arbiter_tb is
  constant NPORTS : positive := 3;
  constant WRITES : positive := 4;
  constant NLINES : positive := 64;
  signal clk, rst : std_logic := '1';
  signal running  : boolean := true;
  signal l_req, l_we, l_gnt, l_rvalid, l_first : std_logic_vector(NPORTS - 1 downto 0) := (others => '0');
  signal issued_at : integer_vector(0 to NPORTS - 1) := (others => 0);  -- the cycle of the last request
  signal cycle     : natural := 0;
  signal l_addr  : std_logic_vector(NPORTS * 32 - 1 downto 0) := (others => '0');
  signal l_wdata : std_logic_vector(NPORTS * LINE_BITS - 1 downto 0) := (others => '0');
  signal l_be    : std_logic_vector(NPORTS * LINE_BYTES - 1 downto 0) := (others => '0');
  signal l_rdata : std_logic_vector(LINE_BITS - 1 downto 0);
  signal avm_address : std_logic_vector(31 downto 0);
  signal avm_read, avm_write, avm_waitrequest, avm_readdatavalid : std_logic;
  signal avm_writedata, avm_readdata : std_logic_vector(511 downto 0);
  signal avm_byteenable : std_logic_vector(63 downto 0);
  signal avm_burstcount : std_logic_vector(7 downto 0);
  signal issued   : std_logic_vector(NPORTS - 1 downto 0) := (others => '0');  -- every request taken
  signal finished : std_logic_vector(NPORTS - 1 downto 0) := (others => '0');  -- every response checked
  signal errors   : integer_vector(0 to NPORTS - 1) := (others => 0);
  signal max_in_flight : natural := 0;

  -- the line as the image holds it (first) or as port k wrote it
  function line_value(first : natural) return std_logic_vector is
    variable v : std_logic_vector(LINE_BITS - 1 downto 0);
  begin
    for b in 0 to LINE_BYTES - 1 loop
      v(8 * b + 7 downto 8 * b) := std_logic_vector(to_unsigned((first + b) mod 256, 8));
    end loop;
    return v;
  end function;
begin
  clk <= not clk after 5 ns when running;

  dut : entity work.ss_mem_arbiter
    generic map (N => NPORTS)
    port map (clk => clk, rst => rst, l_req => l_req, l_first => l_first, l_we => l_we, l_addr => l_addr, l_wdata => l_wdata,
              l_be => l_be, l_gnt => l_gnt, l_rvalid => l_rvalid, l_rdata => l_rdata, idle => open,
              avm_address => avm_address, avm_read => avm_read, avm_write => avm_write,
              avm_writedata => avm_writedata, avm_byteenable => avm_byteenable, avm_burstcount => avm_burstcount,
              avm_waitrequest => avm_waitrequest, avm_readdata => avm_readdata, avm_readdatavalid => avm_readdatavalid);

  memory : entity work.ss_avmm_model
    generic map (NLINES => NLINES, IMAGE => IMAGE, DUMP_FILE => "unused.txt", NREGIONS => 1,
                 DUMP_LO => (0 => 0), DUMP_HI => (0 => 0), SEED => SEED, STALL_PCT => STALL_PCT)
    port map (clk => clk, avm_address => avm_address, avm_read => avm_read, avm_write => avm_write,
              avm_writedata => avm_writedata, avm_byteenable => avm_byteenable, avm_burstcount => avm_burstcount,
              avm_waitrequest => avm_waitrequest, avm_readdata => avm_readdata, avm_readdatavalid => avm_readdatavalid,
              dump => '0', dumped => open);

  first_port : for k in 0 to NPORTS - 1 generate
    l_first(k) <= '1' when k = FIRST else '0';
  end generate;

  requesters : for k in 0 to NPORTS - 1 generate
    -- the first byte of every line port k reads, in request order
    type firsts_t is array (0 to 63) of natural;
    signal expect : firsts_t;
    signal reads  : natural := 0;  -- reads issued
  begin
    process
      variable s1 : positive := SEED + 17 * k;
      variable s2 : positive := 31 + k;
      variable r  : real;
      variable ln : natural;
      variable n  : natural := 0;  -- reads issued (the signal `reads` follows it)
      -- one request, held until it is taken
      procedure request(write : boolean; line_no, first : natural) is
      begin
        l_req(k)  <= '1';
        l_we(k)   <= '1' when write else '0';
        l_addr(32 * k + 31 downto 32 * k) <= std_logic_vector(to_unsigned(line_no * LINE_BYTES, 32));
        l_wdata(LINE_BITS * k + LINE_BITS - 1 downto LINE_BITS * k) <= line_value(first);
        l_be(LINE_BYTES * k + LINE_BYTES - 1 downto LINE_BYTES * k) <= (others => '1');
        if not write then
          expect(n) <= first;
        end if;
        loop
          wait until rising_edge(clk);
          exit when l_gnt(k) = '1';
        end loop;
        if not write then
          n     := n + 1;
          reads <= n;
        end if;
        l_req(k) <= '0';
        uniform(s1, s2, r);
        for i in 1 to integer(floor(r * 3.0)) loop  -- a pause of 0 .. 2 cycles
          wait until rising_edge(clk);
        end loop;
      end procedure;
    begin
      wait until rst = '0';
      wait until rising_edge(clk);
      for j in 0 to WRITES - 1 loop
        request(true, 32 + 8 * k + j, 3 * k + j);
      end loop;
      for j in 0 to 31 loop
        ln := (j * (2 * k + 1) + 5 * k) mod 32;  -- every line, in an order per port
        request(false, ln, (7 * ln) mod 256);
      end loop;
      for j in 0 to WRITES - 1 loop
        request(false, 32 + 8 * k + j, 3 * k + j);
      end loop;
      issued(k)    <= '1';
      issued_at(k) <= cycle;
      wait;
    end process;

    checker : process (clk)
      variable got, bad : natural := 0;
    begin
      if rising_edge(clk) then
        if l_rvalid(k) = '1' then
          if got >= reads then
            report "port " & integer'image(k) & ": data without a request" severity error;
            bad := bad + 1;
          elsif l_rdata /= line_value(expect(got)) then
            report "port " & integer'image(k) & ": wrong data for read " & integer'image(got) severity error;
            bad := bad + 1;
          end if;
          got := got + 1;
        end if;
        errors(k) <= bad;
        if issued(k) = '1' and got = reads then
          finished(k) <= '1';
        end if;
      end if;
    end process;
  end generate;

  -- reads accepted by the memory and not yet answered
  monitor : process (clk)
    variable in_flight : natural := 0;
  begin
    if rising_edge(clk) then
      if avm_read = '1' and avm_waitrequest = '0' then
        in_flight := in_flight + 1;
      end if;
      if avm_readdatavalid = '1' then
        assert in_flight > 0 report "read data without a read" severity failure;
        in_flight := in_flight - 1;
      end if;
      if in_flight > max_in_flight then
        max_in_flight <= in_flight;
      end if;
    end if;
  end process;

  control : process
    file result : text;
    variable l : line;
    variable cycles, total : natural := 0;
  begin
    rst <= '1';
    for i in 1 to 4 loop
      wait until rising_edge(clk);
    end loop;
    rst <= '0';
    while finished /= (finished'range => '1') and cycles < 20000 loop
      wait until rising_edge(clk);
      cycles := cycles + 1;
      cycle  <= cycles;
    end loop;
    for k in 0 to NPORTS - 1 loop
      total := total + errors(k);
    end loop;
    file_open(result, RESULT_FILE, write_mode);
    write(l, string'("cycles ") & integer'image(cycles) & " errors " & integer'image(total) &
             " max_in_flight " & integer'image(max_in_flight) & " issued_at");
    for k in 0 to NPORTS - 1 loop
      write(l, string'(" ") & integer'image(issued_at(k)));
    end loop;
    writeline(result, l);
    file_close(result);
    running <= false;
    assert finished = (finished'range => '1') report "the requests did not finish" severity failure;
    assert total = 0 report integer'image(total) & " wrong responses" severity failure;
    assert max_in_flight >= MIN_IN_FLIGHT
      report "at most " & integer'image(max_in_flight) & " reads were in flight" severity failure;
    wait;
  end process;
end architecture;
