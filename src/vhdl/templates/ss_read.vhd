-- Read: an affine address generator (ss_pkg) walking NC nested counters (outermost
-- first, row-major) and a gather that turns the elements into a stream of LANES-lane
-- vectors read from a buffer in external memory.
--
-- The buffer starts at byte BASE; element i occupies EBYTES bytes at BASE + i*EBYTES,
-- little-endian. CACHE_LINES 512-bit lines are cached (fully associative, replaced in
-- turn); a window that spans rows of the buffer (a convolution's) hits after its first
-- pass. Lanes are filled lane 0 first; a completed vector waits in the output register
-- while the next one is assembled. Every list generic has at least one entry; NC, NG,
-- ND, NS, NM say how many are real (docs/hardware.md).
--
-- Runs (why the hardware is one address computation per cycle): each cycle moves a run
-- of up to PER_CYCLE elements that differ only in the innermost counter. The affine
-- access is computed once, for the run's first element; the others are a constant
-- address step ASTEP apart (ss_pkg.runs_ok). A run ends before the innermost counter
-- wraps, before a lowest digit of a group leaves its radix, where any mask's verdict
-- changes (so a run is all masked with one fill, or all read), at the end of the vector
-- being assembled, and (when read) at the end of its cached line. A read run is one
-- variable shift of the line by the first element's byte offset, constant (strided)
-- wiring, and one placement at lane `count`. Generics that runs_ok rejects (a digit
-- divided over the innermost counter that no radix of its group holds fixed) give runs
-- of one element: correct, one element per cycle.
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
  constant K      : natural := NC - 1;  -- the innermost counter
  constant RUNS   : boolean := runs_ok(NC, ND, G_COEF, D_GROUP, D_DIV, D_MOD);
  constant MAXRUN : positive := choose(RUNS, PER_CYCLE, 1);
  constant ASTEP  : integer := addr_step(NC, ND, NS, G_COEF, D_GROUP, D_DIV, SPACE, C_COEF);
  constant SB     : natural := abs(ASTEP) * EBYTES;  -- bytes between a run's elements
  constant TMAX   : natural := (MAXRUN - 1) * SB;    -- the largest byte distance in a run
  constant NMV    : positive := NM + 1;              -- mask values (one spare: NM may be 0)
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
    variable cnt      : natural range 0 to LANES;
    variable digit    : integer_vector(0 to ND - 1);
    variable mval     : integer_vector(0 to NMV - 1);
    variable raw      : integer;
    variable masked   : boolean;
    variable fill     : integer;
    variable byte     : natural;
    variable off      : natural range 0 to LINE_BYTES - 1;
    variable hit      : integer range -1 to CACHE_LINES - 1;
    variable stop     : boolean;
    variable n        : natural range 1 to MAXRUN;
    variable in0, ine : boolean;
    variable lo_t, hi_t, t, st : integer;
    variable line     : unsigned(LINE_BITS + BITS - 1 downto 0);  -- BITS spare zeros on top
    variable run      : std_logic_vector(MAXRUN * BITS - 1 downto 0);
    variable placed   : std_logic_vector(LANES * BITS - 1 downto 0);
    variable pos      : integer;
    variable c        : integer_vector(0 to NC - 1);
    variable last     : boolean;
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
        elsif not finished and cnt < LANES then
          -- the run's first element
          affine_values(ctr, NC, NG, ND, NS, NM, G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF,
                        M_OFFSET, M_COEF, digit, raw, mval);
          masked := false;
          fill   := 0;
          for m in NM - 1 downto 0 loop  -- the first failing mask gives the fill
            if mval(m) < M_LO(m) or mval(m) >= M_HI(m) then
              masked := true;
              fill   := M_FILL(m);
            end if;
          end loop;
          byte := 0;
          off  := 0;
          hit  := -1;
          if not masked then
            byte := BASE + raw * EBYTES;
            off  := byte mod LINE_BYTES;
            for l in 0 to CACHE_LINES - 1 loop
              if cache_valid(l) and cache_tag(l) = byte / LINE_BYTES then
                hit := l;
              end if;
            end loop;
          end if;
          if not masked and hit < 0 then
            waiting   <= true;
            l_req     <= '1';
            miss_line <= byte / LINE_BYTES;
            l_addr    <= std_logic_vector(to_unsigned((byte / LINE_BYTES) * LINE_BYTES, 32));
          else
            -- the run's length: the first element e that must not join it
            n    := 1;
            stop := false;
            for e in 1 to MAXRUN - 1 loop
              stop := stop or e >= LANES - cnt or ctr(K) + e >= EXTENTS(K);
              if not masked then  -- the element must be in the same line
                if ASTEP >= 0 then
                  stop := stop or off > LINE_BYTES - EBYTES - e * SB;
                else
                  stop := stop or off < e * SB;
                end if;
              end if;
              for m in 0 to NM - 1 loop  -- every mask's verdict as for the first element
                st := mask_step(m, NC, ND, G_COEF, D_GROUP, D_DIV, M_COEF);
                if st /= 0 then
                  run_window(mval(m), M_LO(m), M_HI(m), st, (MAXRUN - 1) * abs(st), lo_t, hi_t);
                  in0 := lo_t <= 0 and 0 < hi_t;
                  t   := e * abs(st);
                  ine := lo_t <= t and t < hi_t;
                  stop := stop or in0 /= ine;
                end if;
              end loop;
              for d in 0 to ND - 1 loop  -- lowest digits stay within their radix
                st := digit_step(d, NC, G_COEF, D_GROUP, D_DIV);
                if D_MOD(d) /= 0 and st /= 0 then
                  run_window(digit(d), 0, D_MOD(d), st, (MAXRUN - 1) * abs(st), lo_t, hi_t);
                  t    := e * abs(st);
                  stop := stop or not (lo_t <= t and t < hi_t);
                end if;
              end loop;
              if not stop then
                n := e + 1;
              end if;
            end loop;
            -- the run's elements, lane 0 first
            if masked then
              for e in 0 to MAXRUN - 1 loop
                run(e * BITS + BITS - 1 downto e * BITS) := std_logic_vector(to_signed(fill, BITS));
              end loop;
            else
              line := resize(unsigned(cache(hit)), LINE_BITS + BITS);
              if ASTEP >= 0 then  -- element e at byte off + e*SB: shift off down to 0
                line := shift_right(line, off * 8);
              else                -- element e at off - e*SB: shift off up to the top element
                line := shift_left(line, (LINE_BYTES - EBYTES - off) * 8);
              end if;
              run := (others => '0');
              for e in 0 to MAXRUN - 1 loop
                pos := e * SB * 8 when ASTEP >= 0 else (LINE_BYTES - EBYTES - e * SB) * 8;
                if pos >= 0 and pos < LINE_BITS then
                  run(e * BITS + BITS - 1 downto e * BITS) := std_logic_vector(line(pos + BITS - 1 downto pos));
                end if;
              end loop;
            end if;
            -- placed at lanes cnt .. cnt + n - 1
            placed := std_logic_vector(shift_left(resize(unsigned(run), LANES * BITS), cnt * BITS));
            for j in 0 to LANES - 1 loop
              if j >= cnt and j < cnt + n then
                acc(j * BITS + BITS - 1 downto j * BITS) <= placed(j * BITS + BITS - 1 downto j * BITS);
              end if;
            end loop;
            cnt := cnt + n;
            c   := ctr;
            advance_run(c, EXTENTS, n, last);
            ctr      <= c;
            finished <= last;
          end if;
        end if;
        count <= cnt;
      end if;
    end if;
  end process;
end architecture;
