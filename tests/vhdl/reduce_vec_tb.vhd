-- Testbench of ss_reduce_vec's sums (tests/vhdl/templates_test.cpp): in simulation a
-- 32-bit "add" reduction sums integer halves (SIMULATED_SUM); in synthesis it is a tree of
-- numeric_std's wrapping "+". Vectors of 2 x 3 lanes of extreme and mixed 32-bit values
-- (carries out of the low half, sums that wrap past +-2**31), and of 8-bit lanes (their
-- low bytes, summed sign-extended), each output lane compared with the wrapping "+".
-- The 8-bit lanes are also summed into 16 and 9 bits: those are not SIMULATED_SUM, so
-- the simulator runs the tree that synthesis builds, with its nodes as narrow as their
-- sums (exact into 16 bits; capped at 9 bits, where the sum wraps).
-- Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;
use work.tb_result.all;

entity reduce_vec_tb is
  generic (RESULT_FILE : string := "result.txt");
end entity;

architecture sim of reduce_vec_tb is
  constant N : positive := 3;
  constant LANES_OUT : positive := 2;
  type values_t is array (natural range <>) of signed(31 downto 0);
  constant VALUES : values_t := (
    x"00000000", x"00000001", x"FFFFFFFF", x"7FFFFFFF", x"80000000", x"0000FFFF", x"00010000",
    x"FFFF0000", x"8000FFFF", x"7FFF8001", x"12345678", x"EDCBA988", x"0000C350", x"FFFF3CB0");
  signal clk, rst : std_logic := '0';
  signal i_valid, i_ready, o_valid : std_logic := '0';
  signal i_data : std_logic_vector(LANES_OUT * N * 32 - 1 downto 0);
  signal o_data : std_logic_vector(LANES_OUT * 32 - 1 downto 0);
  signal b_data : std_logic_vector(LANES_OUT * N * 8 - 1 downto 0);  -- the 8-bit lanes
  signal b_out  : std_logic_vector(LANES_OUT * 32 - 1 downto 0);
  signal b_out16 : std_logic_vector(LANES_OUT * 16 - 1 downto 0);
  signal b_out9  : std_logic_vector(LANES_OUT * 9 - 1 downto 0);
  signal done   : boolean := false;
begin
  dut : entity work.ss_reduce_vec
    generic map (KIND => "add", LANES_OUT => LANES_OUT, N => N, I_BITS => 32, O_BITS => 32)
    port map (clk => clk, rst => rst, i_valid => i_valid, i_ready => i_ready, i_data => i_data,
              o_valid => o_valid, o_ready => '1', o_data => o_data);
  dut8 : entity work.ss_reduce_vec
    generic map (KIND => "add", LANES_OUT => LANES_OUT, N => N, I_BITS => 8, O_BITS => 32)
    port map (clk => clk, rst => rst, i_valid => i_valid, i_ready => open, i_data => b_data,
              o_valid => open, o_ready => '1', o_data => b_out);
  dut16 : entity work.ss_reduce_vec
    generic map (KIND => "add", LANES_OUT => LANES_OUT, N => N, I_BITS => 8, O_BITS => 16)
    port map (clk => clk, rst => rst, i_valid => i_valid, i_ready => open, i_data => b_data,
              o_valid => open, o_ready => '1', o_data => b_out16);
  dut9 : entity work.ss_reduce_vec
    generic map (KIND => "add", LANES_OUT => LANES_OUT, N => N, I_BITS => 8, O_BITS => 9)
    port map (clk => clk, rst => rst, i_valid => i_valid, i_ready => open, i_data => b_data,
              o_valid => open, o_ready => '1', o_data => b_out9);
  -- all four take every vector in the same cycle (o_ready = '1')
  clk <= not clk after 5 ns when not done;

  process
    variable checks, errors : natural := 0;
    variable want : signed(31 downto 0);
    variable idx  : natural;
    variable want8 : integer;
    variable wrapped9 : integer;
    variable wraps : natural := 0;  -- 9-bit sums that wrapped: the cap must be exercised
    variable vec   : std_logic_vector(LANES_OUT * N * 32 - 1 downto 0);
  begin
    rst <= '1';
    wait until rising_edge(clk);
    rst <= '0';
    for a in VALUES'range loop
      for b in VALUES'range loop
        for c in VALUES'range loop
          -- lane 0 sums (a, b, c), lane 1 (c, a, and a third value from their indices)
          idx := (a + b + c) mod VALUES'length;
          vec(31 downto 0)    := std_logic_vector(VALUES(a));
          vec(63 downto 32)   := std_logic_vector(VALUES(b));
          vec(95 downto 64)   := std_logic_vector(VALUES(c));
          vec(127 downto 96)  := std_logic_vector(VALUES(c));
          vec(159 downto 128) := std_logic_vector(VALUES(a));
          vec(191 downto 160) := std_logic_vector(VALUES(idx));
          i_data <= vec;
          for e in 0 to LANES_OUT * N - 1 loop
            b_data(e * 8 + 7 downto e * 8) <= vec(e * 32 + 7 downto e * 32);
          end loop;
          i_valid <= '1';
          wait until rising_edge(clk) and i_ready = '1';
          i_valid <= '0';
          wait until rising_edge(clk) and o_valid = '1';
          want := VALUES(a) + VALUES(b) + VALUES(c);
          checks := checks + 2;
          if signed(o_data(31 downto 0)) /= want then
            errors := errors + 1;
            report "lane 0 differs at " & integer'image(a) & " " & integer'image(b) & " " & integer'image(c) severity error;
          end if;
          for j in 0 to LANES_OUT - 1 loop
            want8 := 0;
            for k in 0 to N - 1 loop
              want8 := want8 + to_integer(signed(b_data((j * N + k) * 8 + 7 downto (j * N + k) * 8)));
            end loop;
            checks := checks + 3;
            if signed(b_out(j * 32 + 31 downto j * 32)) /= to_signed(want8, 32) then
              errors := errors + 1;
              report "8-bit lane " & integer'image(j) & " differs at " & integer'image(a) & " " & integer'image(b) & " " &
                     integer'image(c) severity error;
            end if;
            if signed(b_out16(j * 16 + 15 downto j * 16)) /= to_signed(want8, 16) then
              errors := errors + 1;
              report "16-bit sum of lane " & integer'image(j) & " differs at " & integer'image(a) & " " &
                     integer'image(b) & " " & integer'image(c) severity error;
            end if;
            wrapped9 := want8 mod 512;  -- the 9-bit two's complement of the sum
            if wrapped9 >= 256 then
              wrapped9 := wrapped9 - 512;
            end if;
            if want8 /= wrapped9 then
              wraps := wraps + 1;
            end if;
            if signed(b_out9(j * 9 + 8 downto j * 9)) /= to_signed(wrapped9, 9) then
              errors := errors + 1;
              report "9-bit sum of lane " & integer'image(j) & " differs at " & integer'image(a) & " " &
                     integer'image(b) & " " & integer'image(c) severity error;
            end if;
          end loop;
          want := VALUES(c) + VALUES(a) + VALUES(idx);
          if signed(o_data(63 downto 32)) /= want then
            errors := errors + 1;
            report "lane 1 differs at " & integer'image(a) & " " & integer'image(b) & " " & integer'image(c) severity error;
          end if;
        end loop;
      end loop;
    end loop;
    if wraps = 0 then
      errors := errors + 1;
      report "no 9-bit sum wrapped" severity error;
    end if;
    write_result(RESULT_FILE, checks, errors);
    done <= true;
    wait;
  end process;
end architecture;
