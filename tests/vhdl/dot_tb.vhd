-- Testbench of ss_dot's simulated form (tests/vhdl/templates_test.cpp): in simulation
-- ss_dot keeps each output lane's sum where the hardware keeps the products (FUSED).
-- It runs beside what synthesis builds from it: the broadcast wires, ss_mul and
-- ss_reduce_vec. Both get the same random operands, valids and readies (operand b
-- broadcast twice over blocks of two lanes, extreme values often), and every cycle their
-- readies, valids and, when valid, output data must agree. Writes "checked N errors E".
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use ieee.math_real.all;
use work.ss_pkg.all;
use work.tb_result.all;

entity dot_tb is
  generic (RESULT_FILE : string := "result.txt");
end entity;

architecture sim of dot_tb is
  constant LANES_OUT : positive := 3;
  constant N         : positive := 4;
  constant LANES     : positive := LANES_OUT * N;
  constant A_BITS    : positive := 8;
  constant B_BITS    : positive := 7;
  constant P_BITS    : positive := A_BITS + B_BITS;
  constant B_COPIES  : positive := 2;
  constant B_INNER   : positive := 2;
  constant CYCLES    : positive := 20000;

  signal clk, rst : std_logic := '0';
  signal a_valid, b_valid, o_ready : std_logic := '0';
  signal a_data : std_logic_vector(LANES * A_BITS - 1 downto 0) := (others => '0');
  signal b_data : std_logic_vector(LANES / B_COPIES * B_BITS - 1 downto 0) := (others => '0');
  -- the fused form
  signal f_a_ready, f_b_ready, f_o_valid : std_logic;
  signal f_o_data : std_logic_vector(LANES_OUT * 32 - 1 downto 0);
  -- the parts synthesis builds
  signal b_wide : std_logic_vector(LANES * B_BITS - 1 downto 0);
  signal p_valid, p_ready : std_logic;
  signal p_data : std_logic_vector(LANES * P_BITS - 1 downto 0);
  signal h_a_ready, h_b_ready, h_o_valid : std_logic;
  signal h_o_data : std_logic_vector(LANES_OUT * 32 - 1 downto 0);
  signal done : boolean := false;
begin
  fused : entity work.ss_dot
    generic map (LANES_OUT => LANES_OUT, N => N, A_BITS => A_BITS, B_BITS => B_BITS, DSP => true, P_BITS => P_BITS,
                 B_COPIES => B_COPIES, B_INNER => B_INNER)
    port map (clk => clk, rst => rst, a_valid => a_valid, a_ready => f_a_ready, a_data => a_data,
              b_valid => b_valid, b_ready => f_b_ready, b_data => b_data,
              o_valid => f_o_valid, o_ready => o_ready, o_data => f_o_data);

  -- lane l of the broadcast is b's lane (l / 4) * 2 + l mod 2
  wires : for l in 0 to LANES - 1 generate
    b_wide((l + 1) * B_BITS - 1 downto l * B_BITS) <=
      b_data(((l / (B_COPIES * B_INNER)) * B_INNER + l mod B_INNER + 1) * B_BITS - 1 downto
             ((l / (B_COPIES * B_INNER)) * B_INNER + l mod B_INNER) * B_BITS);
  end generate;
  products : entity work.ss_mul
    generic map (LANES => LANES, A_BITS => A_BITS, B_BITS => B_BITS, DSP => true, O_BITS => P_BITS)
    port map (clk => clk, rst => rst, a_valid => a_valid, a_ready => h_a_ready, a_data => a_data,
              b_valid => b_valid, b_ready => h_b_ready, b_data => b_wide,
              o_valid => p_valid, o_ready => p_ready, o_data => p_data);
  sums : entity work.ss_reduce_vec
    generic map (KIND => "add", LANES_OUT => LANES_OUT, N => N, I_BITS => P_BITS, O_BITS => 32)
    port map (clk => clk, rst => rst, i_valid => p_valid, i_ready => p_ready, i_data => p_data,
              o_valid => h_o_valid, o_ready => o_ready, o_data => h_o_data);

  clk <= not clk after 5 ns when not done;

  process
    variable seed1, seed2 : positive := 7;
    variable checks, errors, outputs : natural := 0;
    -- a random lane value of `bits` bits, the extremes one time in four
    impure function random_lane(bits : positive) return std_logic_vector is
      variable r : real;
      variable v : integer;
    begin
      uniform(seed1, seed2, r);
      if r < 0.125 then
        v := -2 ** (bits - 1);
      elsif r < 0.25 then
        v := 2 ** (bits - 1) - 1;
      else
        uniform(seed1, seed2, r);
        v := integer(floor(r * real(2 ** bits))) - 2 ** (bits - 1);
      end if;
      return std_logic_vector(to_signed(v, bits));
    end function;
    impure function coin(p : real) return std_logic is
      variable r : real;
    begin
      uniform(seed1, seed2, r);
      if r < p then
        return '1';
      end if;
      return '0';
    end function;
    procedure check(ok : boolean; what : string; cycle : natural) is
    begin
      checks := checks + 1;
      if not ok then
        errors := errors + 1;
        report what & " differs in cycle " & integer'image(cycle) severity error;
      end if;
    end procedure;
  begin
    rst <= '1';
    wait until rising_edge(clk);
    rst <= '0';
    for cycle in 1 to CYCLES loop
      for k in 0 to LANES - 1 loop
        a_data((k + 1) * A_BITS - 1 downto k * A_BITS) <= random_lane(A_BITS);
      end loop;
      for k in 0 to LANES / B_COPIES - 1 loop
        b_data((k + 1) * B_BITS - 1 downto k * B_BITS) <= random_lane(B_BITS);
      end loop;
      a_valid <= coin(0.8);
      b_valid <= coin(0.8);
      o_ready <= coin(0.6);
      wait for 1 ns;  -- the readies settle
      check(f_a_ready = h_a_ready and f_b_ready = h_b_ready, "a ready", cycle);
      check(f_o_valid = h_o_valid, "o_valid", cycle);
      if h_o_valid = '1' then
        check(f_o_data = h_o_data, "o_data", cycle);
        if o_ready = '1' then
          outputs := outputs + 1;
        end if;
      end if;
      wait until rising_edge(clk);
    end loop;
    -- the handshakes let vectors through (not a testbench that never compares data)
    check(outputs > CYCLES / 4, "the number of outputs", CYCLES);
    write_result(RESULT_FILE, checks, errors);
    done <= true;
    wait;
  end process;
end architecture;
