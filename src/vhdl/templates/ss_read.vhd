-- Read: a stream of LANES-lane vectors read from a buffer in external memory through an
-- affine address generator, at up to one run of elements per cycle, with the lines it
-- needs fetched ahead.
--
-- The buffer starts at byte BASE; element i occupies EBYTES bytes at BASE + i*EBYTES,
-- little-endian. Two copies of the address generator (ss_agen) walk the same runs:
--   scout  requests the lines of every run, in order, as far ahead as the line FIFO has
--          room (FIFO_LINES lines requested and not yet used); a line among the KEEP
--          lines kept is not requested again. The arbiter takes a request per cycle.
--   main   assembles the vectors: per cycle one run, from its line (and the next, when
--          the run crosses into it), each a kept line or the next one of the FIFO.
-- Kept lines: both copies keep the tags of the last KEEP distinct lines their runs used
-- (a run's lines are looked up before it is taken; then the ones it missed enter, L first,
-- the oldest leaving), the main also their data. Both see the same runs in the same
-- order, so the scout requests exactly the lines the main will miss, in the order it
-- misses them. KEEP = 1 keeps the last line; a window whose rows lie in different lines
-- keeps a line per row (and its next) so that the windows beside it read no line again.
-- A run (ss_agen) is up to PER_CYCLE consecutive elements found from one address
-- computation, its accessed elements in the first element's line L or in L + 1 (a masked
-- element takes its fill wherever it would lie, so padding does not split runs). Its
-- lines are those holding an accessed element: L and L + 1, one of them, or none. Both
-- copies decide the same runs, so the lines arrive in the order the main uses them. The
-- hardware per instance is two affine accesses, a FIFO of lines, one line-pair aligner
-- and one lane aligner.
--
-- Lanes are filled lane 0 first. A completed vector is the output: it stays in the
-- register it was assembled in until it is taken, and in the cycle it is taken the next
-- vector's first run enters lanes 0 and up, so a vector a cycle still flows. There is no
-- second, output register: it would let one more vector be assembled while the consumer
-- waits, at the price of a flip-flop per output bit, which was half of a wide read's
-- logic (docs/hardware.md, "Synthesis and resources").
--
-- OFF_ALIGN, LANE_ALIGN: the compiler walked every run (lower::readAlignment) and found
-- the low OFF_ALIGN bits of every used run's byte offset in its line zero, and the low
-- LANE_ALIGN bits of every run's first lane. The line shifter then moves units of
-- 2**OFF_ALIGN bytes and the lane rotator groups of 2**LANE_ALIGN lanes, with that many
-- fewer stages (none at all for a read of whole lines into whole blocks, which most of a
-- network's reads are). A simulation checks the claim on every run it takes.
--
-- GATED: the buffer is being written while it is read (a producer's ss_write, running at
-- the same time): the scout requests a line only below `avail`, the writer's `wm` (the
-- byte address below which every line is written). Only the scout waits; the main
-- follows the request order as always.
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
    FIFO_LINES : positive := 16; KEEP : positive := 1;  -- designs: lower::kReadFifoLines
    OFF_ALIGN : natural := 0; LANE_ALIGN : natural := 0;
    GATED : boolean := false
  );
  port (
    clk, rst : in std_logic;
    -- line port to the memory arbiter (reads only)
    l_req    : out std_logic;
    l_addr   : out std_logic_vector(31 downto 0);
    l_gnt    : in  std_logic;
    l_rvalid : in  std_logic;
    l_rdata  : in  std_logic_vector(LINE_BITS - 1 downto 0);
    -- with GATED, the lines written so far: those below this byte address
    avail    : in  std_logic_vector(31 downto 0) := (others => '1');
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
  -- the shifter's and the rotator's stages left by the alignment (OFF_ALIGN, LANE_ALIGN)
  constant OA     : natural := minimum(OFF_ALIGN, 6);
  constant LA     : natural := minimum(LANE_ALIGN, PBITS);
  subtype slot_t is natural range 0 to FIFO_LINES - 1;
  type lines_t is array (0 to FIFO_LINES - 1) of std_logic_vector(LINE_BITS - 1 downto 0);
  type tags_t is array (0 to KEEP - 1) of integer;
  type kept_t is array (0 to KEEP - 1) of std_logic_vector(LINE_BITS - 1 downto 0);
  subtype kept_n is natural range 0 to KEEP;

  -- the position of line l among the first n kept tags, or -1
  function find(tags : tags_t; n : kept_n; l : integer) return integer is
  begin
    for k in 0 to KEEP - 1 loop
      if k < n and tags(k) = l then
        return k;
      end if;
    end loop;
    return -1;
  end function;

  -- the kept tags with l the newest (the oldest leaves)
  function push(tags : tags_t; l : integer) return tags_t is
    variable r : tags_t;
  begin
    for k in KEEP - 1 downto 1 loop
      r(k) := tags(k - 1);
    end loop;
    r(0) := l;
    return r;
  end function;

  -- the kept lines' data, as push
  function push(data : kept_t; d : std_logic_vector) return kept_t is
    variable r : kept_t;
  begin
    for k in KEEP - 1 downto 1 loop
      r(k) := data(k - 1);
    end loop;
    r(0) := d;
    return r;
  end function;

  function next_slot(s : slot_t) return slot_t is
  begin
    if s = FIFO_LINES - 1 then
      return 0;
    end if;
    return s + 1;
  end function;

  -- some accessed element among the first n lies in the first line (high = false) or the
  -- next (high = true). (e < n as ss_pkg.below: a compare of a 7-bit n with a constant is
  -- a carry chain in yosys, its cmp2lut takes 6 bits at most; 128 of them in a read.)
  function uses(n : natural; emask, ehigh : std_logic_vector; high : std_logic) return boolean is
  begin
    for e in 0 to PER_CYCLE - 1 loop
      if not work.ss_pkg.below(n, e + 1, bits_for(PER_CYCLE)) and emask(e) = '0' and ehigh(e) = high then
        return true;
      end if;
    end loop;
    return false;
  end function;

  -- the line FIFO: lines in request order (no initial value: LUT-RAM)
  signal fifo       : lines_t;
  signal wr_slot    : slot_t := 0;              -- where the next returned line goes
  signal head       : slot_t := 0;              -- the oldest line not yet released
  signal present    : natural range 0 to FIFO_LINES := 0;  -- lines returned, not released
  signal credit     : natural range 0 to FIFO_LINES := FIFO_LINES;  -- slots not requested
  -- The next line in request order that the main has not used (w1), as a register; the
  -- FIFO holds the lines after it.
  signal w1         : std_logic_vector(LINE_BITS - 1 downto 0);
  signal w1_ok      : boolean := false;

  -- scout
  signal s_fin, s_masked : boolean;
  signal s_emask, s_ehigh : std_logic_vector(0 to PER_CYCLE - 1);
  signal s_line      : integer;
  signal s_lo        : integer;                        -- the run's first line: L, or L + 1
  signal s_run, s_run2, s_runm : natural range 1 to PER_CYCLE;
  signal s_count     : natural range 0 to LANES := 0;  -- lanes of the scout's current vector
  signal s_n         : natural range 1 to PER_CYCLE;
  signal s_need2     : boolean;                        -- the run uses L and L + 1
  signal s_none      : boolean;                        -- the run accesses no element
  signal s_tags      : tags_t;                         -- the kept lines, newest first
  signal s_nk        : kept_n := 0;
  signal s_second    : boolean := false;               -- L was granted for this run; L + 1 is next
  signal s_hit       : boolean;                        -- L is kept
  signal s_have      : boolean;                        -- L is kept or requested
  signal s_more      : boolean;                        -- L + 1 is used and not kept
  signal s_take      : std_logic;
  signal want_line   : integer;                        -- the line the scout would request now
  signal written     : boolean;                        -- it is written (GATED: below avail)
  signal want        : boolean;

  -- main
  signal a_fin, a_masked : boolean;
  signal a_emask, a_ehigh : std_logic_vector(0 to PER_CYCLE - 1);
  signal a_efill     : integer_vector(0 to PER_CYCLE - 1);
  signal a_line      : integer;
  signal a_off       : natural range 0 to LINE_BYTES - 1;
  signal a_run, a_run2, a_runm : natural range 1 to PER_CYCLE;
  signal a_mode      : natural range 0 to RUN_MODES - 1;
  signal acc         : std_logic_vector(LANES * BITS - 1 downto 0) := (others => '0');
  signal count       : natural range 0 to LANES := 0;
  signal cnt0        : natural range 0 to LANES;   -- lanes filled after the hand-off
  signal n           : natural range 1 to PER_CYCLE;
  signal need2       : boolean;                    -- the main's run uses L and L + 1
  signal lo          : integer;                    -- its first line: L, or L + 1
  signal uses_l      : boolean;                    -- it uses L
  signal none        : boolean;                    -- it accesses no element
  signal k_tags      : tags_t;                     -- the kept lines, newest first
  signal k_data      : kept_t;
  signal k_nk        : kept_n := 0;
  signal hit_lo      : integer;                    -- where the run's L is kept, or -1
  signal hit_hi      : integer;                    -- where its L + 1 is kept, or -1
  signal miss_lo     : boolean;                    -- L is the next line (w1)
  signal miss_hi     : boolean;                    -- L + 1 is the next line after L's
  signal ready       : boolean;                    -- the run's lines are there
  signal fill        : boolean;                    -- w1 takes the FIFO's head
  signal take        : std_logic;
begin
  o_valid <= '1' when count = LANES else '0';
  o_data  <= acc;

  -- pragma translate_off
  alignment : process (clk)
  begin
    if rising_edge(clk) and take = '1' then
      assert cnt0 mod 2 ** LA = 0 and (none or a_off mod 2 ** OA = 0)
        report "ss_read: a run breaks the alignment the compiler found (OFF_ALIGN, LANE_ALIGN)" severity failure;
    end if;
  end process;
  -- pragma translate_on

  ---------------------------------------------------------------------------- scout
  scout_agen : entity work.ss_agen
    generic map (NC => NC, EXTENTS => EXTENTS, NG => NG, G_OFFSET => G_OFFSET, G_COEF => G_COEF,
                 ND => ND, D_GROUP => D_GROUP, D_DIV => D_DIV, D_MOD => D_MOD,
                 NS => NS, SPACE => SPACE, C_OFFSET => C_OFFSET, C_COEF => C_COEF,
                 NM => NM, M_OFFSET => M_OFFSET, M_COEF => M_COEF, M_LO => M_LO, M_HI => M_HI, M_FILL => M_FILL,
                 BASE => BASE, EBYTES => EBYTES, PER_CYCLE => PER_CYCLE)
    port map (clk => clk, rst => rst, take => s_take, n => s_n, finished => s_fin, masked => s_masked,
              emask => s_emask, ehigh => s_ehigh, efill => open, line => s_line, off => open, run => s_run,
              run2 => s_run2, runm => s_runm, mode => open);

  s_n     <= minimum(s_run2, LANES - s_count);
  s_lo    <= s_line when uses(s_n, s_emask, s_ehigh, '0') else s_line + 1;
  s_need2 <= uses(s_n, s_emask, s_ehigh, '0') and uses(s_n, s_emask, s_ehigh, '1');
  s_none  <= not uses(s_n, s_emask, s_ehigh, '0') and not uses(s_n, s_emask, s_ehigh, '1');
  -- its first line is requested unless it is kept (s_second: requested in an earlier
  -- cycle of this run); then the next, if the run uses it and it is not kept
  s_hit   <= find(s_tags, s_nk, s_lo) >= 0;
  s_have  <= s_second or s_hit;
  s_more  <= s_need2 and find(s_tags, s_nk, s_lo + 1) < 0;
  want_line <= s_lo + 1 when s_have else s_lo;
  want      <= not s_fin and not s_none and (not s_have or s_more);
  written   <= not GATED or want_line < to_integer(unsigned(avail(31 downto 6)));
  l_req  <= '1' when want and written and credit > 0 and rst = '0' else '0';
  l_addr <= std_logic_vector(to_unsigned(maximum(want_line, 0) * LINE_BYTES, 32));
  -- the run is taken when its last request is granted (or it needs none)
  s_take <= '1' when rst = '0' and not s_fin and
            (s_none or (s_have and (not s_more or l_gnt = '1')) or (not s_have and not s_more and l_gnt = '1'))
            else '0';

  scout : process (clk)
    variable tags : tags_t;
    variable nk   : kept_n;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        s_count  <= 0;
        s_nk     <= 0;
        s_second <= false;
      else
        if s_take = '1' then
          -- the lines the run missed enter the kept ones, L first
          tags := s_tags;
          nk   := s_nk;
          if not s_none and not s_hit then
            tags := push(tags, s_lo);
            nk   := minimum(nk + 1, KEEP);
          end if;
          if s_more then
            tags := push(tags, s_lo + 1);
            nk   := minimum(nk + 1, KEEP);
          end if;
          s_tags   <= tags;
          s_nk     <= nk;
          s_second <= false;
          s_count  <= 0 when s_count + s_n = LANES else s_count + s_n;
        elsif l_gnt = '1' then
          s_second <= true;  -- L granted, the run still needs L + 1
        end if;
      end if;
    end if;
  end process;

  ---------------------------------------------------------------------------- main
  main_agen : entity work.ss_agen
    generic map (NC => NC, EXTENTS => EXTENTS, NG => NG, G_OFFSET => G_OFFSET, G_COEF => G_COEF,
                 ND => ND, D_GROUP => D_GROUP, D_DIV => D_DIV, D_MOD => D_MOD,
                 NS => NS, SPACE => SPACE, C_OFFSET => C_OFFSET, C_COEF => C_COEF,
                 NM => NM, M_OFFSET => M_OFFSET, M_COEF => M_COEF, M_LO => M_LO, M_HI => M_HI, M_FILL => M_FILL,
                 BASE => BASE, EBYTES => EBYTES, PER_CYCLE => PER_CYCLE)
    port map (clk => clk, rst => rst, take => take, n => n, finished => a_fin, masked => a_masked,
              emask => a_emask, ehigh => a_ehigh, efill => a_efill, line => a_line, off => a_off, run => a_run,
              run2 => a_run2, runm => a_runm, mode => a_mode);

  -- a full vector is handed off when it is taken
  cnt0  <= 0 when count = LANES and o_ready = '1' else count;
  n      <= 1 when cnt0 = LANES else minimum(a_run2, LANES - cnt0);
  uses_l <= uses(n, a_emask, a_ehigh, '0');
  lo     <= a_line when uses_l else a_line + 1;
  need2  <= uses_l and uses(n, a_emask, a_ehigh, '1');
  none   <= not uses_l and not uses(n, a_emask, a_ehigh, '1');
  -- The main follows the request order as the scout made it: a run's line is a kept one
  -- when its tag is kept, else the next line requested (w1, then the FIFO's head). Taking
  -- the run keeps the lines it missed and moves past them; an empty w1 fills from the
  -- FIFO's head. The data is never compared: the order alone says which line is which.
  hit_lo  <= find(k_tags, k_nk, lo);
  hit_hi  <= find(k_tags, k_nk, lo + 1);
  miss_lo <= not none and hit_lo < 0;
  miss_hi <= need2 and hit_hi < 0;
  ready <= w1_ok and (not miss_hi or not miss_lo or present > 0) when miss_lo or miss_hi else true;
  take  <= '1' when rst = '0' and not a_fin and cnt0 < LANES and (none or ready) else '0';
  fill  <= not w1_ok and present > 0 and not (take = '1' and (miss_lo or miss_hi));

  main : process (clk)
    variable pair   : std_logic_vector(2 * LINE_BITS - 1 downto 0);
    variable line   : unsigned(W - 1 downto 0);
    variable run    : std_logic_vector(MAXRUN * BITS - 1 downto 0);
    variable placed : unsigned(P2 * BITS - 1 downto 0);
    variable c      : unsigned(CBITS - 1 downto 0);  -- cnt0: block above PBITS, lane in block below
    variable ahead  : unsigned(P2 - 1 downto 0);     -- offset k < n: the run before its rotation
    variable in_run : unsigned(P2 - 1 downto 0);     -- offset r is in the run: (r - R) mod P2 < n
    variable at_r, past : boolean_vector(0 to P2 - 1);  -- offset r is in the run, in block B / B + 1
    variable blk0, blk1 : boolean_vector(0 to NB - 1);  -- block b is B / B + 1
    variable pres   : natural range 0 to FIFO_LINES;
    variable cred   : natural range 0 to FIFO_LINES;
    variable pop    : boolean;
    variable d_lo, d_hi : std_logic_vector(LINE_BITS - 1 downto 0);  -- the run's lines
    variable tags   : tags_t;
    variable data   : kept_t;
    variable nk     : kept_n;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        wr_slot   <= 0;
        head      <= 0;
        present   <= 0;
        credit    <= FIFO_LINES;
        w1_ok     <= false;
        k_nk      <= 0;
        count     <= 0;
      else
        pres := present;
        cred := credit;
        if l_gnt = '1' then
          cred := cred - 1;
        end if;
        -- a returned line enters the FIFO (lines return in request order)
        if l_rvalid = '1' then
          fifo(wr_slot) <= l_rdata;
          wr_slot       <= next_slot(wr_slot);
          pres          := pres + 1;
        end if;
        -- the run's lines: kept ones, else w1 and then the FIFO's head
        d_lo := w1;
        if miss_lo then
          d_hi := fifo(head);
        else
          d_hi := w1;
        end if;
        for k in 0 to KEEP - 1 loop
          if hit_lo = k then
            d_lo := k_data(k);
          end if;
          if hit_hi = k then
            d_hi := k_data(k);
          end if;
        end loop;
        -- the lines the run missed are kept (L first); w1 (re)fills from the FIFO's head
        pop := false;
        if take = '1' and (miss_lo or miss_hi) then
          tags := k_tags;
          data := k_data;
          nk   := k_nk;
          if miss_lo then
            tags := push(tags, lo);
            data := push(data, d_lo);
            nk   := minimum(nk + 1, KEEP);
          end if;
          if miss_hi then
            tags := push(tags, lo + 1);
            data := push(data, d_hi);
            nk   := minimum(nk + 1, KEEP);
          end if;
          k_tags <= tags;
          k_data <= data;
          k_nk   <= nk;
          if miss_lo and miss_hi then     -- w1 and the head: both used
            w1_ok <= false;
            pop   := true;
          else                            -- w1 used
            if present > 0 then
              w1    <= fifo(head);
              w1_ok <= true;
              pop   := true;
            else
              w1_ok <= false;
            end if;
          end if;
        elsif fill then
          w1    <= fifo(head);
          w1_ok <= true;
          pop   := true;
        end if;
        if pop then
          head <= next_slot(head);
          pres := pres - 1;
          cred := cred + 1;
        end if;
        present <= pres;
        credit  <= cred;

        if take = '1' then
          -- the run's elements, lane 0 first: the fill of a masked one, else from the
          -- line pair with the first element at byte BELOW (W covers every element)
          -- the run's lines: L (and L + 1) at the bottom; a run using only L + 1 has it on top
          pair := d_hi & d_lo;
          if not uses_l then
            pair := pair(LINE_BITS - 1 downto 0) & pair(LINE_BITS - 1 downto 0);
          end if;
          line := (others => '0');
          line(BELOW * 8 + 2 * LINE_BITS - 1 downto BELOW * 8) := unsigned(pair);
          if OA < 6 then
            line := shift_down(line, a_off / 2 ** OA, 8 * 2 ** OA, 6 - OA);
          end if;
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
          placed := resize(unsigned(run), P2 * BITS);
          if LA < PBITS then
            placed := rotate_up(placed, cnt0 / 2 ** LA, BITS * 2 ** LA, PBITS - LA);
          end if;
          -- Which lanes take it, without comparing every lane with cnt0 and cnt0 + n (two
          -- carry chains per lane): with cnt0 = B*P2 + R and n <= P2, lane j = b*P2 + r is
          -- in the run iff (r - R) mod P2 < n and b is B when r >= R, else B + 1. The
          -- offsets in the run are the thermometer "k < n" rotated up by R, as the data is;
          -- every compare is of a small number with a constant (a LUT each, yosys' cmp2lut),
          -- not a subtraction and a compare per offset (1,735 carry cells of a read).
          c := to_unsigned(cnt0, CBITS);
          for k in 0 to P2 - 1 loop
            ahead(k) := '0';
            if not work.ss_pkg.below(n, k + 1, PBITS + 1) then
              ahead(k) := '1';
            end if;
          end loop;
          in_run := ahead;
          if LA < PBITS then
            in_run := rotate_up(ahead, cnt0 / 2 ** LA, 2 ** LA, PBITS - LA);
          end if;
          for r in 0 to P2 - 1 loop
            -- r >= R, i.e. R < r + 1
            at_r(r) := in_run(r) = '1' and work.ss_pkg.below(to_integer(c(PBITS - 1 downto 0)), r + 1, PBITS);
            past(r) := in_run(r) = '1' and not work.ss_pkg.below(to_integer(c(PBITS - 1 downto 0)), r + 1, PBITS);
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
