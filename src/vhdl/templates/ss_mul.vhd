-- Element-wise multiplication of two streams, lane by lane: LANES multipliers of
-- A_BITS x B_BITS (sized for the operand types), the product wrapped to O_BITS (32, or
-- A_BITS + B_BITS where the exact product is all its consumer needs: a simulator updates
-- every bit of the products on every vector).
-- DSP = true asks the synthesiser for DSP blocks (Intel's multstyle "dsp"), false for
-- logic; the lowering counts exactly the DSP = true lanes as DSPs.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_mul is
  generic (LANES : positive; A_BITS, B_BITS : positive; DSP : boolean; O_BITS : positive := 32);
  port (
    clk, rst : in std_logic;
    a_valid  : in  std_logic;
    a_ready  : out std_logic;
    a_data   : in  std_logic_vector(LANES * A_BITS - 1 downto 0);
    b_valid  : in  std_logic;
    b_ready  : out std_logic;
    b_data   : in  std_logic_vector(LANES * B_BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES * O_BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_mul is
  type products_t is array (0 to LANES - 1) of signed(A_BITS + B_BITS - 1 downto 0);
  signal out_valid : std_logic := '0';
  signal take      : std_logic;
  -- Intel's multiplier style for the whole vector of products.
  function mult_style(dsp_blocks : boolean) return string is
  begin
    if dsp_blocks then
      return "dsp";
    end if;
    return "logic";
  end function;

  signal product   : products_t;
  -- |a * b| <= 2**(A_BITS + B_BITS - 2) for signed operands: an integer holds it, and so
  -- does O_BITS (32, or A_BITS + B_BITS)
  constant INTEGER_PRODUCTS : boolean := A_BITS + B_BITS <= 32 and O_BITS >= A_BITS + B_BITS;
  attribute multstyle : string;
  attribute multstyle of product : signal is mult_style(DSP);
begin
  take    <= a_valid and b_valid and (o_ready or not out_valid);
  a_ready <= take;
  b_ready <= take;
  o_valid <= out_valid;

  -- The products, one multiplier per lane (one process for all lanes: per-lane
  -- processes would each be sensitive to the whole operand vectors). A simulator
  -- multiplies in the register process instead (below): a signal of every product bit,
  -- updated whenever an operand changes, and numeric_std's bitwise "*" were a sixth of
  -- a design's simulation time; the registered value is the same.
  multipliers : if not SIMULATING generate
    process (all)
    begin
      for k in 0 to LANES - 1 loop
        product(k) <= lane(a_data, k, A_BITS) * lane(b_data, k, B_BITS);
      end loop;
    end process;
  end generate;

  process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' then
        out_valid <= '0';
      elsif take = '1' then
        for k in 0 to LANES - 1 loop
          if not SIMULATING then
            o_data(k * O_BITS + O_BITS - 1 downto k * O_BITS) <= std_logic_vector(wrap_to(product(k), O_BITS));
          elsif INTEGER_PRODUCTS then  -- the exact product fits an integer, and O_BITS
            o_data(k * O_BITS + O_BITS - 1 downto k * O_BITS) <= std_logic_vector(to_signed(
              int_of(lane(a_data, k, A_BITS)) * int_of(lane(b_data, k, B_BITS)), O_BITS));
          else
            o_data(k * O_BITS + O_BITS - 1 downto k * O_BITS) <= std_logic_vector(wrap_to(
              lane(a_data, k, A_BITS) * lane(b_data, k, B_BITS), O_BITS));
          end if;
        end loop;
        out_valid <= '1';
      elsif o_ready = '1' then
        out_valid <= '0';
      end if;
    end if;
  end process;
end architecture;
