-- ReduceVec: reduces the innermost vector dimension (N lanes) of every vector, giving
-- LANES_OUT lanes: output lane j combines input lanes j*N .. j*N+N-1. KIND "add" is a
-- 32-bit wrapping adder tree (O_BITS = 32), "max" a comparator tree (O_BITS = I_BITS).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_reduce_vec is
  generic (KIND : string; LANES_OUT : positive; N : positive; I_BITS, O_BITS : positive);
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(LANES_OUT * N * I_BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES_OUT * O_BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_reduce_vec is
  type terms_t is array (0 to N - 1) of signed(O_BITS - 1 downto 0);
  signal out_valid : std_logic := '0';
  signal take      : std_logic;

  -- The bits of a sum of `terms` lanes of I_BITS bits, at most O_BITS (wider sums wrap).
  function sum_bits(terms : positive) return positive is
  begin
    return minimum(I_BITS + bits_for(terms - 1), O_BITS);
  end function;
  -- A balanced tree over terms lo .. hi. Each "add" node is as wide as its sum can be
  -- (sum_bits), sign-extended to O_BITS: the same value as an O_BITS-wide adder, since
  -- no node can overflow its width (or, capped at O_BITS, it wraps as the wide one does).
  -- The widths are what makes yosys build the tree as carry chains: with every node
  -- O_BITS wide its alumacc merged the tree into one multi-operand $macc, which maccmap
  -- builds from full adders in LUTs, twice the ALMs (a 64-term, 16-bit lane: ~1,262
  -- ALMs against ~564).
  function tree(t : terms_t; lo, hi : natural) return signed is
    constant W : positive := sum_bits(hi - lo + 1);
    variable l, r : signed(O_BITS - 1 downto 0);
  begin
    if lo = hi then
      return t(lo);
    end if;
    l := tree(t, lo, (lo + hi) / 2);
    r := tree(t, (lo + hi) / 2 + 1, hi);
    if KIND = "add" then
      return resize(resize(l, W) + resize(r, W), O_BITS);
    end if;
    return maximum(l, r);
  end function;
  -- Output lane j's sum modulo 2**32, as the adder tree of the sign-extended (or, above
  -- 32 bits, truncated) input lanes gives it, in integers: for a simulator (SIMULATING),
  -- where numeric_std's bitwise "+" per tree node was a tenth of a large design's
  -- simulation. Lanes of at most 16 bits are summed whole, wider ones in 16-bit halves
  -- (the high half signed); exact while N <= 16384 (SIMULATED_SUM).
  function sum_lanes(v : std_logic_vector; j : natural) return signed is
    constant HIGH : natural := minimum(I_BITS, 32) - 1;  -- the lane's top bit that counts
    variable lo, hi : integer := 0;
    variable at     : natural;
  begin
    for k in 0 to N - 1 loop
      at := v'right + (j * N + k) * I_BITS;
      if I_BITS <= 16 then
        lo := lo + int_of(signed(v(at + I_BITS - 1 downto at)));
      else
        lo := lo + int_of(unsigned(v(at + 15 downto at)));
        hi := hi + int_of(signed(v(at + HIGH downto at + 16)));
      end if;
    end loop;
    if I_BITS <= 16 then
      return to_signed(lo, 32);
    end if;
    hi := hi + lo / 65536;
    return signed(to_unsigned(hi mod 65536, 16) & to_unsigned(lo mod 65536, 16));
  end function;
  constant SIMULATED_SUM : boolean := SIMULATING and KIND = "add" and O_BITS = 32 and N <= 16384;
begin
  take    <= i_valid and (o_ready or not out_valid);
  i_ready <= take;
  o_valid <= out_valid;

  process (clk)
    variable terms : terms_t;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        out_valid <= '0';
      elsif take = '1' then
        for j in 0 to LANES_OUT - 1 loop
          if SIMULATED_SUM then
            o_data(j * O_BITS + O_BITS - 1 downto j * O_BITS) <= std_logic_vector(sum_lanes(i_data, j));
            next;
          end if;
          for k in 0 to N - 1 loop
            terms(k) := wrap_to(lane(i_data, j * N + k, I_BITS), O_BITS);
          end loop;
          o_data(j * O_BITS + O_BITS - 1 downto j * O_BITS) <= std_logic_vector(tree(terms, 0, N - 1));
        end loop;
        out_valid <= '1';
      elsif o_ready = '1' then
        out_valid <= '0';
      end if;
    end if;
  end process;
end architecture;
