-- StmToVec: the innermost stream dimension (N steps) becomes the outermost vector
-- dimension: N consecutive vectors of LANES lanes form one vector of N*LANES lanes, the
-- first input in lanes 0 .. LANES-1.
library ieee;
use ieee.std_logic_1164.all;
use work.ss_pkg.all;

entity ss_stm_to_vec is
  generic (LANES : positive; N : positive; BITS : positive);
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(LANES * BITS - 1 downto 0);
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(N * LANES * BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_stm_to_vec is
  constant W : positive := LANES * BITS;
  signal acc       : std_logic_vector(N * W - 1 downto 0) := (others => '0');
  signal count     : natural range 0 to N - 1 := 0;
  signal out_valid : std_logic := '0';
  signal take      : std_logic;
begin
  take    <= i_valid when count /= N - 1 else i_valid and (o_ready or not out_valid);
  i_ready <= take;
  o_valid <= out_valid;

  process (clk)
    variable r : std_logic_vector(N * W - 1 downto 0);
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
          if count = N - 1 then
            r := acc;
            r(count * W + W - 1 downto count * W) := i_data;
            o_data    <= r;
            out_valid <= '1';
            count     <= 0;
          else
            acc(count * W + W - 1 downto count * W) <= i_data;
            count <= count + 1;
          end if;
        end if;
      end if;
    end if;
  end process;
end architecture;
