-- ReduceStm: reduces the innermost stream dimension: every N consecutive vectors give
-- one, lane by lane. KIND "add" accumulates with 32-bit wrap (O_BITS = 32), "max" keeps
-- the largest (O_BITS = I_BITS). In a shared instance the length differs between calls:
-- `len` (1 .. N) then overrides N; left open (0), N applies.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_reduce_stm is
  generic (KIND : string; LANES : positive; N : positive; I_BITS, O_BITS : positive);
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(LANES * I_BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES * O_BITS - 1 downto 0);
    len      : in  natural := 0
  );
end entity;

architecture rtl of ss_reduce_stm is
  signal acc       : std_logic_vector(LANES * O_BITS - 1 downto 0) := (others => '0');
  signal count     : natural range 0 to N - 1 := 0;
  signal out_valid : std_logic := '0';
  signal take      : std_logic;
  signal final     : natural range 0 to N - 1;  -- the count of a group's last input
begin
  final <= N - 1 when len = 0 else len - 1;
  -- the last input of a group needs the output register; the others only the accumulator
  take    <= i_valid when count /= final else i_valid and (o_ready or not out_valid);
  i_ready <= take;
  o_valid <= out_valid;

  process (clk)
    variable x, s : signed(O_BITS - 1 downto 0);
    variable r    : std_logic_vector(LANES * O_BITS - 1 downto 0);
  begin
    if rising_edge(clk) then
      if rst = '1' then
        out_valid <= '0';
        count     <= 0;
      else
        if out_valid = '1' and o_ready = '1' then
          out_valid <= '0';
        end if;
        if take = '1' then
          for k in 0 to LANES - 1 loop
            x := wrap_to(lane(i_data, k, I_BITS), O_BITS);
            s := signed(acc(k * O_BITS + O_BITS - 1 downto k * O_BITS));
            if count /= 0 then
              if KIND = "add" then
                x := s + x;
              else
                x := maximum(s, x);
              end if;
            end if;
            r(k * O_BITS + O_BITS - 1 downto k * O_BITS) := std_logic_vector(x);
          end loop;
          acc <= r;
          if count = final then
            o_data    <= r;
            out_valid <= '1';
            count     <= 0;
          else
            count <= count + 1;
          end if;
        end if;
      end if;
    end if;
  end process;
end architecture;
