-- Dot: a Mul whose products only an adding ReduceVec consumes, each operand possibly
-- a Broadcast that only the Mul reads (emit_unit.cpp fuses them). Output lane j sums
-- the products of lanes j*N .. j*N+N-1; product lane L reads operand lane
--   (L / (COPIES * INNER)) * INNER + L mod INNER
-- of an operand broadcast COPIES times over blocks of INNER lanes (COPIES = 1: lane L).
--
-- Synthesis gets exactly the three parts: the broadcast wires, ss_mul (its DSP
-- multipliers and product register) and ss_reduce_vec (adder tree and sum register).
-- A simulator gets the same two registers and handshakes, but the first holds each
-- output lane's sum of its products instead of the products: GHDL updates a signal per
-- bit, and the 16,384 bits of 1,024 products and the broadcast copies were most of a
-- compute-bound layer's simulation. Exact where it is used (FUSED): the products are
-- exact (P_BITS >= A_BITS + B_BITS) and their sum fits an integer, so it equals the
-- wrapping tree's. tests/vhdl/dot_tb.vhd checks the two forms cycle for cycle.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_dot is
  generic (
    LANES_OUT, N : positive;
    A_BITS, B_BITS : positive;
    DSP : boolean;
    P_BITS : positive;           -- the products' width on the Mul's stream
    O_BITS : positive := 32;
    A_COPIES, A_INNER : positive := 1;
    B_COPIES, B_INNER : positive := 1
  );
  port (
    clk, rst : in std_logic;
    a_valid  : in  std_logic;
    a_ready  : out std_logic;
    a_data   : in  std_logic_vector(LANES_OUT * N / A_COPIES * A_BITS - 1 downto 0);
    b_valid  : in  std_logic;
    b_ready  : out std_logic;
    b_data   : in  std_logic_vector(LANES_OUT * N / B_COPIES * B_BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES_OUT * O_BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_dot is
  constant LANES : positive := LANES_OUT * N;

  -- The operand lane that product lane l reads.
  function source(l : natural; copies, inner : positive) return natural is
  begin
    return (l / (copies * inner)) * inner + l mod inner;
  end function;
  type naturals_t is array (natural range <>) of natural;
  function sources(copies, inner : positive) return naturals_t is
    variable r : naturals_t(0 to LANES_OUT * N - 1);
  begin
    for l in r'range loop
      r(l) := source(l, copies, inner);
    end loop;
    return r;
  end function;

  -- |product| <= 2**(A_BITS + B_BITS - 2): N of them sum below 2**31 when N < 2**(33 - A_BITS - B_BITS).
  constant FUSED : boolean := SIMULATING and A_BITS + B_BITS <= 32 and P_BITS >= A_BITS + B_BITS and O_BITS = 32
                              and N < 2 ** (33 - A_BITS - B_BITS);
begin
  hardware : if not FUSED generate
    signal a_wide  : std_logic_vector(LANES * A_BITS - 1 downto 0);
    signal b_wide  : std_logic_vector(LANES * B_BITS - 1 downto 0);
    signal p_valid : std_logic;
    signal p_ready : std_logic;
    signal p_data  : std_logic_vector(LANES * P_BITS - 1 downto 0);
  begin
    wires : for l in 0 to LANES - 1 generate
      a_wide((l + 1) * A_BITS - 1 downto l * A_BITS) <=
        a_data((source(l, A_COPIES, A_INNER) + 1) * A_BITS - 1 downto source(l, A_COPIES, A_INNER) * A_BITS);
      b_wide((l + 1) * B_BITS - 1 downto l * B_BITS) <=
        b_data((source(l, B_COPIES, B_INNER) + 1) * B_BITS - 1 downto source(l, B_COPIES, B_INNER) * B_BITS);
    end generate;
    products : entity work.ss_mul
      generic map (LANES => LANES, A_BITS => A_BITS, B_BITS => B_BITS, DSP => DSP, O_BITS => P_BITS)
      port map (clk => clk, rst => rst, a_valid => a_valid, a_ready => a_ready, a_data => a_wide,
                b_valid => b_valid, b_ready => b_ready, b_data => b_wide,
                o_valid => p_valid, o_ready => p_ready, o_data => p_data);
    sums : entity work.ss_reduce_vec
      generic map (KIND => "add", LANES_OUT => LANES_OUT, N => N, I_BITS => P_BITS, O_BITS => O_BITS)
      port map (clk => clk, rst => rst, i_valid => p_valid, i_ready => p_ready, i_data => p_data,
                o_valid => o_valid, o_ready => o_ready, o_data => o_data);
  end generate;

  simulation : if FUSED generate
    type ints_t is array (natural range <>) of integer;
    signal sums      : ints_t(0 to LANES_OUT - 1);
    signal p_valid   : std_logic := '0';  -- ss_mul's out_valid
    signal out_valid : std_logic := '0';  -- ss_reduce_vec's
    signal take      : std_logic;         -- ss_mul takes operands
    signal advance   : std_logic;         -- ss_reduce_vec takes the products
    constant A_SRC   : naturals_t := sources(A_COPIES, A_INNER);
    constant B_SRC   : naturals_t := sources(B_COPIES, B_INNER);

    -- Lane k of v (BITS-bit two's complement lanes) as an integer, read bit by bit: no
    -- slice of v is made.
    function lane_int(v : std_logic_vector; k : natural; bits : positive) return integer is
      constant AT : natural := v'right + k * bits;
      variable r  : integer := 0;
    begin
      if v(AT + bits - 1) = '1' then
        r := -1;
      end if;
      for b in bits - 2 downto 0 loop
        r := r * 2;
        if v(AT + b) = '1' then
          r := r + 1;
        end if;
      end loop;
      return r;
    end function;
  begin
    take    <= a_valid and b_valid and (advance or not p_valid);
    advance <= p_valid and (o_ready or not out_valid);
    a_ready <= take;
    b_ready <= take;
    o_valid <= out_valid;

    process (clk)
      variable a_int : ints_t(0 to LANES / A_COPIES - 1);
      variable b_int : ints_t(0 to LANES / B_COPIES - 1);
      variable s     : integer;
    begin
      if rising_edge(clk) then
        if rst = '1' then
          p_valid <= '0';
        elsif take = '1' then
          for k in a_int'range loop
            a_int(k) := lane_int(a_data, k, A_BITS);
          end loop;
          for k in b_int'range loop
            b_int(k) := lane_int(b_data, k, B_BITS);
          end loop;
          for j in 0 to LANES_OUT - 1 loop
            s := 0;
            for k in j * N to j * N + N - 1 loop
              s := s + a_int(A_SRC(k)) * b_int(B_SRC(k));
            end loop;
            sums(j) <= s;
          end loop;
          p_valid <= '1';
        elsif advance = '1' then
          p_valid <= '0';
        end if;
        if rst = '1' then
          out_valid <= '0';
        elsif advance = '1' then
          for j in 0 to LANES_OUT - 1 loop
            o_data(j * O_BITS + O_BITS - 1 downto j * O_BITS) <= std_logic_vector(to_signed(sums(j), O_BITS));
          end loop;
          out_valid <= '1';
        elsif o_ready = '1' then
          out_valid <= '0';
        end if;
      end if;
    end process;
  end generate;
end architecture;
