-- Affine address generator (docs/lowering.md, "The affine address generator").
--
-- Walks NC nested counters (outermost first, row-major, one element per transfer) and
-- emits for every element either its buffer address or "masked" with the fill value:
--   group g    value_g = G_OFFSET(g) + sum_k G_COEF(g*NC+k) * ctr(k)
--   digit d    floor(value_{D_GROUP(d)} / D_DIV(d)), reduced modulo D_MOD(d) unless 0
--   coord s    C_OFFSET(s) + sum_d C_COEF(s*ND+d) * digit(d), in [0, SPACE(s))
--   address    row-major offset of the coords
--   mask m     M_OFFSET(m) + sum_d M_COEF(m*ND+d) * digit(d) outside [M_LO, M_HI)
--              makes the element masked (the first such mask gives the fill)
-- Every list is passed with at least one entry; the counts say how many are real.
-- Coefficients, divisors and radices are constants, so the arithmetic is constant
-- multiplications and divisions that synthesis specialises (a divisor of 1 costs nothing).
library ieee;
use ieee.std_logic_1164.all;
use work.ss_pkg.all;

entity ss_addr_gen is
  generic (
    NC : positive; EXTENTS : integer_vector;
    NG : positive; G_OFFSET : integer_vector; G_COEF : integer_vector;
    ND : positive; D_GROUP : integer_vector; D_DIV : integer_vector; D_MOD : integer_vector;
    NS : positive; SPACE : integer_vector; C_OFFSET : integer_vector; C_COEF : integer_vector;
    NM : natural; M_OFFSET : integer_vector; M_COEF : integer_vector;
    M_LO : integer_vector; M_HI : integer_vector; M_FILL : integer_vector
  );
  port (
    clk, rst : in std_logic;
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_addr   : out natural;
    o_masked : out std_logic;
    o_fill   : out integer;
    o_last   : out std_logic  -- the final element
  );
end entity;

architecture rtl of ss_addr_gen is
  signal ctr      : integer_vector(0 to NC - 1) := (others => 0);
  signal finished : boolean := false;
begin
  process (clk)
    variable value  : integer_vector(0 to NG - 1);
    variable digit  : integer_vector(0 to ND - 1);
    variable v, a   : integer;
    variable masked : boolean;
    variable fill   : integer;
    variable last   : boolean;
    variable next_c : integer_vector(0 to NC - 1);
  begin
    if rising_edge(clk) then
      if rst = '1' then
        ctr      <= (others => 0);
        finished <= false;
        o_valid  <= '0';
        o_last   <= '0';
        o_addr   <= 0;
        o_masked <= '0';
        o_fill   <= 0;
      elsif o_valid = '0' or o_ready = '1' then
        if finished then
          o_valid <= '0';
        else
          for g in 0 to NG - 1 loop
            v := G_OFFSET(g);
            for k in 0 to NC - 1 loop
              v := v + G_COEF(g * NC + k) * ctr(k);
            end loop;
            value(g) := v;
          end loop;
          for d in 0 to ND - 1 loop
            v := floor_div(value(D_GROUP(d)), D_DIV(d));
            if D_MOD(d) /= 0 then
              v := floor_mod(v, D_MOD(d));
            end if;
            digit(d) := v;
          end loop;
          masked := false;
          fill   := 0;
          for m in 0 to NM - 1 loop
            v := M_OFFSET(m);
            for d in 0 to ND - 1 loop
              v := v + M_COEF(m * ND + d) * digit(d);
            end loop;
            if not masked and (v < M_LO(m) or v >= M_HI(m)) then
              masked := true;
              fill   := M_FILL(m);
            end if;
          end loop;
          a := 0;
          for s in 0 to NS - 1 loop
            v := C_OFFSET(s);
            for d in 0 to ND - 1 loop
              v := v + C_COEF(s * ND + d) * digit(d);
            end loop;
            a := a * SPACE(s) + v;
          end loop;
          if masked then
            a := 0;
          end if;
          -- the next counter tuple (row-major increment)
          next_c := ctr;
          last   := true;
          for k in NC - 1 downto 0 loop
            if next_c(k) < EXTENTS(k) - 1 then
              next_c(k) := next_c(k) + 1;
              last := false;
              exit;
            end if;
            next_c(k) := 0;
          end loop;
          ctr      <= next_c;
          finished <= last;
          o_valid  <= '1';
          o_addr   <= a;
          o_masked <= '1' when masked else '0';
          o_fill   <= fill;
          o_last   <= '1' when last else '0';
        end if;
      end if;
    end if;
  end process;
end architecture;
