-- Read: an address generator (ss_agen) and a gather that turns the elements into a
-- stream of LANES-lane vectors read from a buffer in external memory.
--
-- The buffer starts at byte BASE; element i occupies EBYTES bytes at BASE + i*EBYTES,
-- little-endian. CACHE_LINES 512-bit lines are cached (fully associative, replaced in
-- turn); the emitter sizes the cache from the read's line sequence (vhdl/read_cache.h),
-- so a window that spans rows of the buffer (a convolution's) or a gather that returns
-- to the same lines (its weights) hits after its first pass. Lanes are filled lane 0 first; a completed vector waits in the output register
-- while the next one is assembled. Every list generic has at least one entry; NC, NG,
-- ND, NS, NM say how many are real (docs/hardware.md).
--
-- Each cycle moves one run (ss_agen): up to PER_CYCLE elements with one address
-- computation. A masked run places its fill; an accessed run lies in one line (the
-- first element's): if that line is cached, the line is shifted once by the first
-- element's byte offset, its elements are picked at constant byte offsets (the run
-- table T_A: stride 1, 2, 0 or a window's pattern), and the run is placed at lane
-- `count` by one rotation of the run's lanes; otherwise the line is requested (l_req held until l_ack,
-- which comes with l_rdata). So the hardware per instance is one affine access, one
-- line aligner and one lane aligner, whatever PER_CYCLE is.
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
  constant MAXRUN : positive := run_lanes(NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
  constant R      : positive := MAXRUN + 1;
  constant T_A    : integer_vector := run_addr_table(NC, ND, NS, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD,
                                                     SPACE, C_COEF);
  -- Bytes below the first element that a run may use (its elements lie in the line, so
  -- within LINE_BYTES - 1 below it): the aligned line is kept from there.
  constant BELOW  : natural := minimum(LINE_BYTES - 1, -table_min(T_A, 0, RUN_MODES * R) * EBYTES);
  constant W      : positive := (2 * LINE_BYTES + BELOW) * 8 + BITS;  -- BITS spare zeros on top
  -- the run is rotated to lane count mod P2, then lane j takes rotated lane j mod P2
  constant PBITS  : positive := bits_for(MAXRUN - 1);
  constant P2     : positive := 2 ** PBITS;
  constant NB     : positive := (LANES + P2 - 1) / P2;            -- blocks of P2 lanes
  constant CBITS  : positive := PBITS + bits_for(NB);             -- cnt0 (0 .. LANES) as block, offset
  type lines_t is array (0 to CACHE_LINES - 1) of std_logic_vector(LINE_BITS - 1 downto 0);
  type flags_t is array (0 to CACHE_LINES - 1) of boolean;
  signal cache       : lines_t;  -- no initial value: a line is read only once its tag is valid, and an initialised memory keeps yosys from mapping it to MLAB
  signal cache_tag   : integer_vector(0 to CACHE_LINES - 1) := (others => 0);
  signal cache_valid : flags_t := (others => false);
  signal victim      : natural range 0 to CACHE_LINES - 1 := 0;  -- the line replaced next
  signal miss_line   : integer := 0;
  signal waiting     : boolean := false;  -- a line request is outstanding
  signal acc         : std_logic_vector(LANES * BITS - 1 downto 0) := (others => '0');
  signal count       : natural range 0 to LANES := 0;
  signal out_valid   : std_logic := '0';
  -- the address generator and this cycle's decision
  signal a_fin, a_masked : boolean;
  signal a_emask     : std_logic_vector(0 to PER_CYCLE - 1);
  signal a_efill     : integer_vector(0 to PER_CYCLE - 1);
  signal a_line      : integer;
  signal a_off       : natural range 0 to LINE_BYTES - 1;
  signal a_run, a_run2, a_runm : natural range 1 to PER_CYCLE;
  signal a_mode      : natural range 0 to RUN_MODES - 1;
  signal cnt0        : natural range 0 to LANES;            -- lanes filled after the hand-off
  signal hit         : integer range -1 to CACHE_LINES - 1;  -- the cached line of the run
  signal hit2        : integer range -1 to CACHE_LINES - 1;  -- the line after it, if cached
  signal take        : std_logic;
  signal n           : natural range 1 to PER_CYCLE;
begin
  o_valid <= out_valid;

  agen : entity work.ss_agen
    generic map (NC => NC, EXTENTS => EXTENTS, NG => NG, G_OFFSET => G_OFFSET, G_COEF => G_COEF,
                 ND => ND, D_GROUP => D_GROUP, D_DIV => D_DIV, D_MOD => D_MOD,
                 NS => NS, SPACE => SPACE, C_OFFSET => C_OFFSET, C_COEF => C_COEF,
                 NM => NM, M_OFFSET => M_OFFSET, M_COEF => M_COEF, M_LO => M_LO, M_HI => M_HI, M_FILL => M_FILL,
                 BASE => BASE, EBYTES => EBYTES, PER_CYCLE => PER_CYCLE)
    port map (clk => clk, rst => rst, take => take, n => n, finished => a_fin, masked => a_masked,
              emask => a_emask, efill => a_efill, line => a_line, off => a_off, run => a_run, run2 => a_run2,
              runm => a_runm, mode => a_mode);

  -- a full vector moves to the output register when it is free
  cnt0 <= 0 when count = LANES and (out_valid = '0' or o_ready = '1') else count;

  process (all)
    variable h, h2 : integer range -1 to CACHE_LINES - 1;
  begin
    h  := -1;
    h2 := -1;
    for l in 0 to CACHE_LINES - 1 loop
      if cache_valid(l) and cache_tag(l) = a_line then
        h := l;
      end if;
      if cache_valid(l) and cache_tag(l) = a_line + 1 then
        h2 := l;
      end if;
    end loop;
    hit  <= h;
    hit2 <= h2;
  end process;

  take <= '1' when not waiting and not a_fin and cnt0 < LANES and (a_masked or hit >= 0) else '0';
  n    <= 1 when cnt0 = LANES else
          minimum(a_runm, LANES - cnt0) when hit < 0 else
          minimum(a_run2, LANES - cnt0) when hit2 >= 0 else
          minimum(a_run, LANES - cnt0);

  process (clk)
    variable line   : unsigned(W - 1 downto 0);
    variable run    : std_logic_vector(MAXRUN * BITS - 1 downto 0);
    variable placed : unsigned(P2 * BITS - 1 downto 0);
    variable c      : unsigned(CBITS - 1 downto 0);  -- cnt0: block above PBITS, lane in block below
    variable in_run : boolean;
    variable at_r, past : boolean_vector(0 to P2 - 1);  -- offset r is in the run, in block B / B + 1
    variable blk0, blk1 : boolean_vector(0 to NB - 1);  -- block b is B / B + 1
  begin
    if rising_edge(clk) then
      if rst = '1' then
        cache_valid <= (others => false);
        cache_tag   <= (others => 0);
        victim      <= 0;
        waiting     <= false;
        count       <= 0;
        out_valid   <= '0';
        l_req       <= '0';
      else
        if out_valid = '1' and o_ready = '1' then
          out_valid <= '0';
        end if;
        if count = LANES and (out_valid = '0' or o_ready = '1') then
          o_data    <= acc;
          out_valid <= '1';
        end if;
        if waiting then
          if l_ack = '1' then
            l_req               <= '0';
            waiting             <= false;
            cache(victim) <= l_rdata;
            for l in 0 to CACHE_LINES - 1 loop  -- constant indices: a register per tag
              if l = victim then
                cache_tag(l)   <= miss_line;
                cache_valid(l) <= true;
              end if;
            end loop;
            victim <= (victim + 1) mod CACHE_LINES;
          end if;
        elsif not a_fin and cnt0 < LANES and not a_masked and hit < 0 then
          waiting   <= true;
          l_req     <= '1';
          miss_line <= a_line;
          l_addr    <= std_logic_vector(to_unsigned(a_line * LINE_BYTES, 32));
        end if;
        if take = '1' then
          -- the run's elements, lane 0 first: the fill of a masked one, else from the
          -- line (pair) with the first element at byte BELOW (W covers every element)
          line := (others => '0');
          line(BELOW * 8 + LINE_BITS - 1 downto BELOW * 8) := unsigned(cache(maximum(hit, 0)));
          line((BELOW + LINE_BYTES) * 8 + LINE_BITS - 1 downto (BELOW + LINE_BYTES) * 8) :=
            unsigned(cache(maximum(hit2, 0)));
          line := shift_down(line, a_off, 8, 6);
          run  := (others => '0');
          for e in 0 to MAXRUN - 1 loop
            if a_emask(e) = '1' then
              run(e * BITS + BITS - 1 downto e * BITS) := std_logic_vector(to_signed(a_efill(e), BITS));
            else
              for md in 0 to RUN_MODES - 1 loop
                if md = a_mode and T_A(md * R + e) * EBYTES + BELOW >= 0 and
                   T_A(md * R + e) * EBYTES < 2 * LINE_BYTES then
                  run(e * BITS + BITS - 1 downto e * BITS) :=
                    std_logic_vector(line((T_A(md * R + e) * EBYTES + BELOW) * 8 + BITS - 1 downto
                                          (T_A(md * R + e) * EBYTES + BELOW) * 8));
                end if;
              end loop;
            end if;
          end loop;
          -- placed at lanes cnt0 .. cnt0 + n - 1
          -- (a rotation of the run's MAXRUN lanes, not a shifter as wide as the vector)
          placed := rotate_up(resize(unsigned(run), P2 * BITS), cnt0, BITS, PBITS);
          -- Which lanes take it, without comparing every lane with cnt0 and cnt0 + n (two
          -- carry chains per lane, most of a wide read's logic): with cnt0 = B*P2 + R and
          -- n <= P2, lane j = b*P2 + r is in the run iff (r - R) mod P2 < n and b is B
          -- when r >= R, else B + 1. That is P2 small comparisons, two block decoders
          -- and one gate per lane.
          c      := to_unsigned(cnt0, CBITS);
          for r in 0 to P2 - 1 loop
            in_run  := to_integer(to_unsigned(r, PBITS) - c(PBITS - 1 downto 0)) < n;
            at_r(r) := in_run and r >= to_integer(c(PBITS - 1 downto 0));
            past(r) := in_run and r < to_integer(c(PBITS - 1 downto 0));
          end loop;
          for b in 0 to NB - 1 loop
            blk0(b) := to_integer(c(CBITS - 1 downto PBITS)) = b;
            blk1(b) := to_integer(c(CBITS - 1 downto PBITS)) + 1 = b;
          end loop;
          for j in 0 to LANES - 1 loop
            if (at_r(j mod P2) and blk0(j / P2)) or (past(j mod P2) and blk1(j / P2)) then
              acc(j * BITS + BITS - 1 downto j * BITS) <=
                std_logic_vector(placed((j mod P2) * BITS + BITS - 1 downto (j mod P2) * BITS));
            end if;
          end loop;
          count <= cnt0 + n;
        else
          count <= cnt0;
        end if;
      end if;
    end if;
  end process;
end architecture;
