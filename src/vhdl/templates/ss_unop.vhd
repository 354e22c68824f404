-- Element-wise unary operators, lane by lane (OP):
--   "shr"    arithmetic shift right by K (O_BITS = I_BITS)
--   "rshift" rounding shift: (x + 2^(K-1)) >> K, exact, O_BITS = 32
--   "rshift_even" x / 2^K rounded half to even (ONNX QuantizeLinear), exact, O_BITS = 32:
--            (x + 2^(K-1) - 1 + bit K of x) >> K, bit K being the floor quotient's parity
--   "sat"    clamp to the signed range of K = O_BITS bits
--   "wrap"   keep the low K = O_BITS bits (or sign-extend to them)
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_unop is
  generic (OP : string; LANES : positive; I_BITS, O_BITS : positive; K : natural);
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(LANES * I_BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES * O_BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_unop is
  constant W : positive := maximum(I_BITS, O_BITS) + 2;  -- room for rounding and clamping
  signal out_valid : std_logic := '0';
  signal take      : std_logic;

  function apply(x : signed) return signed is
    variable v : signed(W - 1 downto 0) := resize(x, W);
  begin
    if OP = "shr" then
      return wrap_to(shift_right(v, K), O_BITS);
    elsif OP = "rshift" then
      return wrap_to(shift_right(v + shift_left(to_signed(1, W), K - 1), K), O_BITS);
    elsif OP = "rshift_even" then
      if v(K) = '1' then
        return wrap_to(shift_right(v + shift_left(to_signed(1, W), K - 1), K), O_BITS);
      end if;
      return wrap_to(shift_right(v + shift_left(to_signed(1, W), K - 1) - 1, K), O_BITS);
    elsif OP = "sat" then
      -- v fits O_BITS exactly when its bits from O_BITS - 1 up are all its sign: two
      -- compares with constants that are LUTs (as v > max and v < min they were two W-bit
      -- carry chains a lane, most of a requantizing unit's logic in yosys)
      if v(W - 1 downto O_BITS - 1) = (W - 1 downto O_BITS - 1 => '0') or
         v(W - 1 downto O_BITS - 1) = (W - 1 downto O_BITS - 1 => '1') then
        return wrap_to(v, O_BITS);
      elsif v(W - 1) = '0' then
        return wrap_to(shift_left(to_signed(1, W), O_BITS - 1) - 1, O_BITS);
      end if;
      return wrap_to(-shift_left(to_signed(1, W), O_BITS - 1), O_BITS);
    end if;
    return wrap_to(x, O_BITS);  -- "wrap"
  end function;
begin
  take    <= i_valid and (o_ready or not out_valid);
  i_ready <= take;
  o_valid <= out_valid;

  process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' then
        out_valid <= '0';
      elsif take = '1' then
        for j in 0 to LANES - 1 loop
          o_data(j * O_BITS + O_BITS - 1 downto j * O_BITS) <= std_logic_vector(apply(lane(i_data, j, I_BITS)));
        end loop;
        out_valid <= '1';
      elsif o_ready = '1' then
        out_valid <= '0';
      end if;
    end if;
  end process;
end architecture;
