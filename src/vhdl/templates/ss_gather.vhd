-- Gather: turns a stream of element accesses (from ss_addr_gen) into a stream of
-- LANES-lane vectors read from a buffer in external memory.
--
-- The buffer starts at byte BASE; element i occupies EBYTES bytes at BASE + i*EBYTES,
-- little-endian, inside 64-byte lines. One line is cached: consecutive accesses to the
-- same line cost one cycle each; a miss asks the memory arbiter for the line (l_req held
-- until l_ack, which comes with l_rdata). Masked accesses take their fill value and no
-- memory access. Lanes are filled lane 0 first; a completed vector waits in the output
-- register while the next one is assembled.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_gather is
  generic (LANES : positive; BITS : positive; BASE : natural; EBYTES : positive);
  port (
    clk, rst : in std_logic;
    -- element accesses
    a_valid  : in  std_logic;
    a_ready  : out std_logic;
    a_addr   : in  natural;
    a_masked : in  std_logic;
    a_fill   : in  integer;
    -- line port to the memory arbiter (reads only)
    l_req    : out std_logic;
    l_addr   : out std_logic_vector(31 downto 0);
    l_ack    : in  std_logic;
    l_rdata  : in  std_logic_vector(LINE_BITS - 1 downto 0);
    -- output stream
    o_valid  : out std_logic;
    o_ready  : in  std_logic;
    o_data   : out std_logic_vector(LANES * BITS - 1 downto 0)
  );
end entity;

architecture rtl of ss_gather is
  signal cache       : std_logic_vector(LINE_BITS - 1 downto 0) := (others => '0');
  signal cache_line  : natural := 0;
  signal cache_valid : boolean := false;
  signal waiting     : boolean := false;  -- a line request is outstanding
  signal acc         : std_logic_vector(LANES * BITS - 1 downto 0) := (others => '0');
  signal count       : natural range 0 to LANES := 0;
  signal out_valid   : std_logic := '0';

  function byte_of(addr : natural) return natural is
  begin
    return BASE + addr * EBYTES;
  end function;
begin
  o_valid <= out_valid;

  -- An access is taken when the assembly register has room and its element is available
  -- now: masked, or in the cached line.
  process (all)
  begin
    a_ready <= '0';
    if a_valid = '1' and count < LANES and not waiting then
      if a_masked = '1' or (cache_valid and cache_line = byte_of(a_addr) / LINE_BYTES) then
        a_ready <= '1';
      end if;
    end if;
  end process;

  process (clk)
    variable elem : signed(BITS - 1 downto 0);
    variable off  : natural;
    variable cnt  : natural range 0 to LANES;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        cache_valid <= false;
        waiting     <= false;
        count       <= 0;
        out_valid   <= '0';
        l_req       <= '0';
      else
        cnt := count;
        if out_valid = '1' and o_ready = '1' then
          out_valid <= '0';
        end if;
        -- a full vector moves to the output register when it is free
        if cnt = LANES and (out_valid = '0' or o_ready = '1') then
          o_data    <= acc;
          out_valid <= '1';
          cnt       := 0;
        end if;
        if waiting then
          if l_ack = '1' then
            l_req       <= '0';
            waiting     <= false;
            cache       <= l_rdata;
            cache_valid <= true;
          end if;
        elsif a_valid = '1' and count < LANES then
          if a_masked = '1' then
            elem := to_signed(a_fill, BITS);
            acc(count * BITS + BITS - 1 downto count * BITS) <= std_logic_vector(elem);
            cnt  := cnt + 1;
          elsif cache_valid and cache_line = byte_of(a_addr) / LINE_BYTES then
            off  := byte_of(a_addr) mod LINE_BYTES;
            elem := signed(cache(off * 8 + BITS - 1 downto off * 8));
            acc(count * BITS + BITS - 1 downto count * BITS) <= std_logic_vector(elem);
            cnt  := cnt + 1;
          else
            waiting    <= true;
            l_req      <= '1';
            cache_line <= byte_of(a_addr) / LINE_BYTES;
            l_addr     <= std_logic_vector(to_unsigned((byte_of(a_addr) / LINE_BYTES) * LINE_BYTES, 32));
          end if;
        end if;
        count <= cnt;
      end if;
    end if;
  end process;
end architecture;
