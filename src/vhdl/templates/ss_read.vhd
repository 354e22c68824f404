-- Read: an affine address generator (ss_pkg.affine_access) walking NC nested counters
-- (outermost first, row-major) and a gather that turns the elements into a stream of
-- LANES-lane vectors read from a buffer in external memory.
--
-- The buffer starts at byte BASE; element i occupies EBYTES bytes at BASE + i*EBYTES,
-- little-endian. CACHE_LINES 512-bit lines are cached (fully associative, replaced in
-- turn): up to PER_CYCLE consecutive elements that are masked (they take their fill) or
-- in a cached line are placed per cycle; the first other element asks the memory arbiter
-- for its line (l_req held until l_ack, which comes with l_rdata). Several lines let a
-- window that spans rows of the buffer (a convolution's) hit after its first pass. Lanes are filled lane 0 first; a completed vector waits in
-- the output register while the next one is assembled. Every list generic has at least
-- one entry; NC, NG, ND, NS, NM say how many are real (docs/hardware.md).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_read is
  generic (
    NC : positive; EXTENTS : integer_vector;
    NG : positive; G_OFFSET : integer_vector; G_COEF : integer_vector;
    ND : positive; D_GROUP : integer_vector; D_DIV : integer_vector; D_MOD : integer_vector;
    NS : positive; SPACE : integer_vector; C_OFFSET : integer_vector; C_COEF : integer_vector;
    NM : natural; M_OFFSET : integer_vector; M_COEF : integer_vector;
    M_LO : integer_vector; M_HI : integer_vector; M_FILL : integer_vector;
    LANES : positive; BITS : positive; BASE : natural; EBYTES : positive; PER_CYCLE : positive;
    CACHE_LINES : positive := 4
  );
  port (
    clk, rst : in std_logic;
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

architecture rtl of ss_read is
  signal ctr         : integer_vector(0 to NC - 1) := (others => 0);
  signal finished    : boolean := false;
  type lines_t is array (0 to CACHE_LINES - 1) of std_logic_vector(LINE_BITS - 1 downto 0);
  type flags_t is array (0 to CACHE_LINES - 1) of boolean;
  signal cache       : lines_t := (others => (others => '0'));
  signal cache_tag   : integer_vector(0 to CACHE_LINES - 1) := (others => 0);
  signal cache_valid : flags_t := (others => false);
  signal victim      : natural range 0 to CACHE_LINES - 1 := 0;  -- the line replaced next
  signal miss_line   : natural := 0;
  signal waiting     : boolean := false;  -- a line request is outstanding
  signal acc         : std_logic_vector(LANES * BITS - 1 downto 0) := (others => '0');
  signal count       : natural range 0 to LANES := 0;
  signal out_valid   : std_logic := '0';
begin
  o_valid <= out_valid;

  process (clk)
    variable c      : integer_vector(0 to NC - 1);
    variable cnt    : natural range 0 to LANES;
    variable fin    : boolean;
    variable addr   : natural;
    variable masked : boolean;
    variable fill   : integer;
    variable byte   : natural;
    variable last   : boolean;
    variable hit    : integer;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        ctr         <= (others => 0);
        finished    <= false;
        cache_valid <= (others => false);
        victim      <= 0;
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
            l_req               <= '0';
            waiting             <= false;
            cache(victim)       <= l_rdata;
            cache_tag(victim)   <= miss_line;
            cache_valid(victim) <= true;
            victim              <= (victim + 1) mod CACHE_LINES;
          end if;
        else
          c   := ctr;
          fin := finished;
          for e in 1 to PER_CYCLE loop
            exit when fin or cnt = LANES;
            affine_access(c, NC, NG, ND, NS, NM, G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF,
                          M_OFFSET, M_COEF, M_LO, M_HI, M_FILL, addr, masked, fill);
            byte := BASE + addr * EBYTES;
            hit  := -1;
            for l in 0 to CACHE_LINES - 1 loop
              if cache_valid(l) and cache_tag(l) = byte / LINE_BYTES then
                hit := l;
              end if;
            end loop;
            if masked then
              acc(cnt * BITS + BITS - 1 downto cnt * BITS) <= std_logic_vector(to_signed(fill, BITS));
            elsif hit >= 0 then
              acc(cnt * BITS + BITS - 1 downto cnt * BITS) <=
                std_logic_vector(shift_right(unsigned(cache(hit)), (byte mod LINE_BYTES) * 8)(BITS - 1 downto 0));
            else
              waiting    <= true;
              l_req      <= '1';
              miss_line  <= byte / LINE_BYTES;
              l_addr     <= std_logic_vector(to_unsigned((byte / LINE_BYTES) * LINE_BYTES, 32));
              exit;
            end if;
            cnt := cnt + 1;
            advance(c, EXTENTS, last);
            fin := last;
          end loop;
          ctr      <= c;
          finished <= fin;
        end if;
        count <= cnt;
      end if;
    end if;
  end process;
end architecture;
