-- The affine address generator of a Read or Write (ss_read, ss_write), as runs: the
-- counters (outermost first, row-major), the access of the current element, and how many
-- of the following elements may move with it in one cycle.
--
-- Why runs: evaluating the affine access (ss_pkg.affine_values) for every element of a
-- cycle would be up to PER_CYCLE chained copies of its arithmetic. Instead it is
-- evaluated once per cycle, for the run's first element; the run's other elements differ
-- from it only in the innermost counters, by compile-time constant amounts:
--   mode 0  the innermost counter moves (element e: counter NC-1 plus e);
--   mode 1  the same, and flattened-window groups whose lowest digit is 0 may cross its
--           wraps (a window row: channels, then the next column);
--   mode 2  when the counters inside level NC-L are all zero, the L = run_levels
--           innermost counters move together (element e: e in mixed radix over their
--           extents), so a vector spanning several vector dimensions is one run.
-- Within a run the address, every mask's value and every moving digit are their first
-- element's values plus constants (tables below, by mode and e). The run ends before the
-- outermost moving counter leaves its extent and before a moving digit leaves its radix
-- (beyond it a divided digit would change: a flattened window's next row), unless every
-- element from there is masked by a tail mask (TAIL_DIGIT below). Each element
-- is masked, with its mask's fill, or accessed; accessed elements must lie in the first
-- element's 64-byte line (`run`) or in it and the next (`run2`, for a reader that has
-- both). A masked first element still locates the run by its address (which may lie
-- outside the buffer); `runm` is the run's masked prefix, for when that line is not
-- there. Every test is a compare of a small number against a constant per element
-- (run_window), in parallel: no chain through the elements; each is written as unsigned
-- compares of LUT-sized chunks (ss_pkg.below), not as a carry chain. The consumer takes
-- n elements (take = '1') and the counters advance by n at the clock edge, through one
-- narrow adder per mode.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_agen is
  generic (
    NC : positive; EXTENTS : integer_vector;
    NG : positive; G_OFFSET : integer_vector; G_COEF : integer_vector;
    ND : positive; D_GROUP : integer_vector; D_DIV : integer_vector; D_MOD : integer_vector;
    NS : positive; SPACE : integer_vector; C_OFFSET : integer_vector; C_COEF : integer_vector;
    NM : natural; M_OFFSET : integer_vector; M_COEF : integer_vector;
    M_LO : integer_vector; M_HI : integer_vector; M_FILL : integer_vector;
    BASE : natural; EBYTES : positive; PER_CYCLE : positive
  );
  port (
    clk, rst : in std_logic;
    take     : in std_logic;                          -- the consumer moves n elements
    n        : in natural range 1 to PER_CYCLE;
    finished : out boolean;                           -- every element has moved
    masked   : out boolean;                           -- the first element is masked
    emask    : out std_logic_vector(0 to PER_CYCLE - 1);  -- element e of the run is masked
    ehigh    : out std_logic_vector(0 to PER_CYCLE - 1);  -- accessed element e lies in the line after the first's
    efill    : out integer_vector(0 to PER_CYCLE - 1);    -- and reads as this
    line     : out integer;                           -- the first element's line
    off      : out natural range 0 to LINE_BYTES - 1; -- and its byte offset in it
    run      : out natural range 1 to PER_CYCLE;      -- elements that may move now ...
    run2     : out natural range 1 to PER_CYCLE;      -- ... if the next line is there too
    runm     : out natural range 1 to PER_CYCLE;      -- ... if the first line is not there
    mode     : out natural range 0 to RUN_MODES - 1   -- which run table applies
  );
end entity;

architecture rtl of ss_agen is
  constant LEVELS : natural := run_levels(NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
  constant MAXRUN : positive := run_lanes(NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
  constant R      : positive := MAXRUN + 1;  -- table entries per mode (e = 0 .. MAXRUN)
  type per_mode is array (0 to RUN_MODES - 1) of natural;
  constant LS     : per_mode := (1, 1, maximum(LEVELS, 1));   -- levels per mode
  constant TOP    : per_mode := (NC - 1, NC - 1, NC - LS(2)); -- outermost moving counter per mode
  constant NMV    : positive := NM + 1;                 -- mask tables (one spare: NM may be 0)
  -- aligned_lows(L)(d): d is the lowest digit of a group aligned over L levels
  -- (ss_pkg.aligned_group); it must be 0 for modes 1 and 2
  function aligned_lows(L : natural) return boolean_vector is
    variable a : boolean_vector(0 to ND - 1) := (others => false);
  begin
    if LEVELS > 0 then
      for d in 0 to ND - 1 loop
        a(d) := D_DIV(d) = 1 and aligned_group(D_GROUP(d), L, NC, ND, G_COEF, D_GROUP, D_DIV, D_MOD);
      end loop;
    end if;
    return a;
  end function;
  constant ALIGNED1 : boolean_vector(0 to ND - 1) := aligned_lows(1);
  constant ALIGNED2 : boolean_vector(0 to ND - 1) := aligned_lows(LS(2));
  constant MODE1    : boolean := ALIGNED1 /= (0 to ND - 1 => false);  -- mode 1 differs from mode 0
  constant MODE2    : boolean := LEVELS > 1;                          -- mode 2 differs from mode 1

  -- T_IN((md*R + e)*NC + j): counter j's change from the first element to element e
  function in_table return integer_vector is
    variable t : integer_vector(0 to RUN_MODES * R * NC - 1);
  begin
    for md in 0 to RUN_MODES - 1 loop
      for e in 0 to MAXRUN loop
        for j in 0 to NC - 1 loop
          t((md * R + e) * NC + j) := run_delta(e, j, LS(md), NC, EXTENTS);
        end loop;
      end loop;
    end loop;
    return t;
  end function;
  constant T_IN : integer_vector := in_table;

  -- T_M((md*NMV + m)*R + e): the change of mask m's value; T_D((md*ND + d)*R + e): of
  -- digit d's value (used for lowest digits with a radix)
  function value_table(masks : boolean) return integer_vector is
    constant NV : positive := choose(masks, NMV, ND);
    variable t  : integer_vector(0 to RUN_MODES * NV * R - 1) := (others => 0);
    variable v  : integer;
  begin
    for md in 0 to RUN_MODES - 1 loop
      for i in 0 to NV - 1 loop
        for e in 0 to MAXRUN loop
          v := 0;
          if masks then
            if i < NM then
              for d in 0 to ND - 1 loop
                v := v + M_COEF(i * ND + d) *
                         run_digit_delta(md, d, e, NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
              end loop;
            end if;
          else
            v := run_digit_delta(md, i, e, NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
          end if;
          t((md * NV + i) * R + e) := v;
        end loop;
      end loop;
    end loop;
    return t;
  end function;
  constant T_M : integer_vector := value_table(true);
  constant T_D : integer_vector := value_table(false);
  -- the ranges of the affine access's values (ss_pkg.affine_values narrows to them)
  constant RANGES : integer_vector := affine_ranges(NC, NG, ND, NS, NM, EXTENTS, G_OFFSET, G_COEF, D_GROUP, D_DIV,
                                                    D_MOD, SPACE, C_OFFSET, C_COEF, M_OFFSET, M_COEF);
  constant RBITS  : integer_vector := ranges_bits(RANGES);
  constant DPLANS : integer_vector := digit_plans(NG, ND, RANGES, D_GROUP, D_DIV, D_MOD);
  constant T_A : integer_vector := run_addr_table(NC, ND, NS, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD,
                                                  SPACE, C_COEF);
  -- Tail masks: mask m is exactly "the top digit of its group below M_HI(m)" (a guard of
  -- lanes past a flattened index's end) and every mask fills alike, so an element whose
  -- group value reaches M_HI(m) * D_DIV(TAIL_DIGIT(m)) is masked whatever the digits below
  -- the top do. A run may go on past their wraps over such elements (a window's masked last
  -- lanes are one run, not one per window row). TAIL_DIGIT(m) = -1: not a tail mask.
  function tail_digits return integer_vector is
    variable t : integer_vector(0 to NMV - 1) := (others => -1);
    variable digit, terms : integer;
  begin
    for m in 1 to NM - 1 loop
      if M_FILL(m) /= M_FILL(0) then
        return t;
      end if;
    end loop;
    for m in 0 to NM - 1 loop
      digit := -1;
      terms := 0;
      for d in 0 to ND - 1 loop
        if M_COEF(m * ND + d) /= 0 then
          terms := terms + 1;
          if M_COEF(m * ND + d) = 1 then
            digit := d;
          end if;
        end if;
      end loop;
      if terms = 1 and digit >= 0 and M_OFFSET(m) = 0 and M_LO(m) <= 0 and M_HI(m) >= 1 then
        if D_MOD(digit) = 0 then
          t(m) := digit;
        end if;
      end if;
    end loop;
    return t;
  end function;
  constant TAIL_DIGIT : integer_vector(0 to NMV - 1) := tail_digits;
  -- T_T((md*NMV + m)*R + e): the change of a tail mask's group value (affine in the
  -- counters, so exact over the digits' wraps)
  function tail_table return integer_vector is
    variable t : integer_vector(0 to RUN_MODES * NMV * R - 1) := (others => 0);
    variable v : integer;
  begin
    for md in 0 to RUN_MODES - 1 loop
      for m in 0 to NM - 1 loop
        if TAIL_DIGIT(m) >= 0 then
          for e in 0 to MAXRUN loop
            v := 0;
            for j in NC - LS(md) to NC - 1 loop
              v := v + run_delta(e, j, LS(md), NC, EXTENTS) * G_COEF(D_GROUP(TAIL_DIGIT(m)) * NC + j);
            end loop;
            t((md * NMV + m) * R + e) := v;
          end loop;
        end if;
      end loop;
    end loop;
    return t;
  end function;
  constant T_T : integer_vector := tail_table;
  -- Each run's least and greatest change (of T over elements 0 .. MAXRUN - 1 of run i):
  -- constants either way, but a simulator would otherwise scan the table on every
  -- evaluation of the process below, for every element.
  function run_extremes(t : integer_vector; greatest : boolean) return integer_vector is
    variable x : integer_vector(0 to t'length / R - 1);
  begin
    for i in x'range loop
      if greatest then
        x(i) := table_max(t, i * R, MAXRUN);
      else
        x(i) := table_min(t, i * R, MAXRUN);
      end if;
    end loop;
    return x;
  end function;
  constant T_M_MIN : integer_vector := run_extremes(T_M, false);
  constant T_M_MAX : integer_vector := run_extremes(T_M, true);
  constant T_D_MIN : integer_vector := run_extremes(T_D, false);
  constant T_D_MAX : integer_vector := run_extremes(T_D, true);
  constant T_T_MIN : integer_vector := run_extremes(T_T, false);
  constant T_T_MAX : integer_vector := run_extremes(T_T, true);

  -- the widest clamped window (run_window) of any table, for the compare widths
  function widest_window return natural is
    variable w : natural := 1;
  begin
    for md in 0 to RUN_MODES - 1 loop
      for i in 0 to NMV - 1 loop
        w := maximum(w, T_M_MAX(md * NMV + i) - T_M_MIN(md * NMV + i) + 2);
        w := maximum(w, T_T_MAX(md * NMV + i) - T_T_MIN(md * NMV + i) + 2);
      end loop;
      for i in 0 to ND - 1 loop
        w := maximum(w, T_D_MAX(md * ND + i) - T_D_MIN(md * ND + i) + 2);
      end loop;
    end loop;
    return w;
  end function;
  constant SPAN : natural := widest_window;
  -- the widths of the compared numbers (ss_pkg.below)
  constant SPAN_BITS : positive := bits_for(SPAN);
  constant CTR_BITS  : positive := bits_for(maximum(table_max(EXTENTS, 0, NC), 1) - 1);
  constant OFF_BITS  : positive := bits_for(LINE_BYTES - 1);
  -- lo <= t < hi, for a window (lo, hi) and a constant t
  function inside(lo, hi : natural; t : integer) return boolean is
  begin
    return below(lo, t + 1, SPAN_BITS) and not below(hi, t + 1, SPAN_BITS);
  end function;

  -- counters of their own width (a counter never reaches its extent)
  subtype count_t is natural range 0 to table_max(EXTENTS, 0, NC) - 1;
  type counters_t is array (0 to NC - 1) of count_t;
  function as_vector(c : counters_t) return integer_vector is
    variable v : integer_vector(0 to NC - 1);
  begin
    for k in 0 to NC - 1 loop
      v(k) := c(k);
    end loop;
    return v;
  end function;
  type windows_t is array (natural range <>) of natural range 0 to SPAN;
  signal ctr      : counters_t := (others => 0);
  signal fin      : boolean := false;
  signal mode_s   : natural range 0 to RUN_MODES - 1;
begin
  finished <= fin;
  mode     <= mode_s;

  -- this cycle's first element and run
  process (all)
    variable digit    : integer_vector(0 to ND - 1);
    variable mval     : integer_vector(0 to NMV - 1);
    variable raw      : integer;
    variable byte     : signed(33 downto 0);
    variable o        : natural range 0 to LINE_BYTES - 1;
    variable md       : natural range 0 to RUN_MODES - 1;
    variable zero     : boolean;
    variable stop, stop1, stop2, stopm, wrapped : boolean;
    variable len, len2, lenm : natural range 1 to PER_CYCLE;
    variable lo_c, hi_c : natural range 0 to SPAN;
    variable ine, me, te : boolean;
    variable gv       : integer;
    variable fe       : integer;
    variable first, t : integer;
    variable em       : std_logic_vector(0 to PER_CYCLE - 1);
    variable eh       : std_logic_vector(0 to PER_CYCLE - 1);
    variable ef       : integer_vector(0 to PER_CYCLE - 1);
    -- each mask's and digit's clamped window, computed once per cycle (not once per
    -- element: GHDL synth would write a copy of the clamping logic for every element)
    variable mask_lo, mask_hi : windows_t(0 to NMV - 1);
    variable tail_lo, tail_hi : windows_t(0 to NMV - 1);
    variable digit_lo, digit_hi : windows_t(0 to ND - 1);
  begin
    -- every variable is assigned before use on every path (no latches)
    mval := (others => 0);
    lo_c := 0;
    hi_c := 0;
    ine  := false;
    t    := 0;
    em   := (others => '0');
    eh   := (others => '0');
    ef   := (others => 0);
    mask_lo := (others => 0);
    mask_hi := (others => 0);
    tail_lo := (others => 0);
    tail_hi := (others => 0);
    gv   := 0;
    te   := false;
    wrapped := false;
    digit_lo := (others => 0);
    digit_hi := (others => 0);
    affine_values(as_vector(ctr), NC, NG, ND, NS, NM, G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF,
                  M_OFFSET, M_COEF, RANGES, RBITS, DPLANS, digit, raw, mval);
    -- the first element's byte, line and offset (also when it is masked: then its
    -- address may lie outside the buffer, even below 0, and only locates the run)
    byte := to_signed(BASE + times(raw, EBYTES), 34);
    o    := to_integer(unsigned(byte(5 downto 0)));
    md := 0;
    if MODE1 then  -- every aligned lowest digit at 0
      zero := true;
      for d in 0 to ND - 1 loop
        zero := zero and not (ALIGNED1(d) and digit(d) /= 0);
      end loop;
      if zero then
        md := 1;
      end if;
    end if;
    if MODE2 then  -- the levels inside the top one and every aligned lowest digit at 0
      zero := true;
      for j in TOP(2) + 1 to NC - 1 loop
        zero := zero and ctr(j) = 0;
      end loop;
      for d in 0 to ND - 1 loop
        zero := zero and not (ALIGNED2(d) and digit(d) /= 0);
      end loop;
      if zero then
        md := 2;
      end if;
    end if;
    len  := 1;
    len2 := 1;
    lenm := 1;
    for mdc in 0 to RUN_MODES - 1 loop
      if mdc = md then
        stop  := false;
        stop1 := false;
        stop2 := false;
        stopm := false;
        wrapped := false;
        for m in 0 to NM - 1 loop
          run_window(mval(m), M_LO(m), M_HI(m), T_M_MIN(mdc * NMV + m), T_M_MAX(mdc * NMV + m),
                     lo_c, hi_c);
          mask_lo(m) := lo_c;
          mask_hi(m) := hi_c;
          if TAIL_DIGIT(m) >= 0 then  -- the group's value, and where it reaches the threshold
            gv := G_OFFSET(D_GROUP(TAIL_DIGIT(m)));
            for k in 0 to NC - 1 loop
              gv := gv + times(ctr(k), G_COEF(D_GROUP(TAIL_DIGIT(m)) * NC + k));
            end loop;
            gv := narrow(gv, RANGES(2 * D_GROUP(TAIL_DIGIT(m))), RANGES(2 * D_GROUP(TAIL_DIGIT(m)) + 1),
                         RBITS(D_GROUP(TAIL_DIGIT(m))));
            -- run_window(gv, gv + T_T_MIN - 1, M_HI * D_DIV, ...): its low edge is always 0
            tail_lo(m) := 0;
            tail_hi(m) := window_edge(gv, M_HI(m) * D_DIV(TAIL_DIGIT(m)), T_T_MIN(mdc * NMV + m),
                                      T_T_MAX(mdc * NMV + m));
          end if;
        end loop;
        for d in 0 to ND - 1 loop
          if D_MOD(d) /= 0 and
             (T_D_MIN(mdc * ND + d) /= 0 or T_D_MAX(mdc * ND + d) /= 0) then
            run_window(digit(d), 0, D_MOD(d), T_D_MIN(mdc * ND + d), T_D_MAX(mdc * ND + d),
                       lo_c, hi_c);
            digit_lo(d) := lo_c;
            digit_hi(d) := hi_c;
          end if;
        end loop;
        for e in 0 to MAXRUN - 1 loop
          -- element e is masked (and its fill) by the first mask whose value leaves its range
          me := false;
          fe := 0;
          for m in NM - 1 downto 0 loop
            first := (mdc * NMV + m) * R;
            t   := T_M(first + e) - T_M_MIN(mdc * NMV + m) + 1;
            ine := inside(mask_lo(m), mask_hi(m), t);
            if not ine then
              me := true;
              fe := M_FILL(m);
            end if;
          end loop;
          -- or masked by a tail mask, past any wrap (every mask fills alike then)
          te := false;
          for m in 0 to NM - 1 loop
            if TAIL_DIGIT(m) >= 0 then
              t := T_T((mdc * NMV + m) * R + e) - T_T_MIN(mdc * NMV + m) + 1;
              te := te or not inside(tail_lo(m), tail_hi(m), t);
            end if;
          end loop;
          if te then
            me := true;
            fe := M_FILL(0);
          end if;
          if me then
            em(e) := '1';
          end if;
          ef(e) := fe;
          if e > 0 then
            -- the outermost moving counter stays within its extent
            stop := stop or not below(ctr(TOP(mdc)), EXTENTS(TOP(mdc)) - T_IN((mdc * R + e) * NC + TOP(mdc)), CTR_BITS);
            -- every moving digit with a radix stays within it
            for d in 0 to ND - 1 loop
              first := (mdc * ND + d) * R;
              if D_MOD(d) /= 0 and
                 (T_D_MIN(mdc * ND + d) /= 0 or T_D_MAX(mdc * ND + d) /= 0) then
                t       := T_D(first + e) - T_D_MIN(mdc * ND + d) + 1;
                wrapped := wrapped or not inside(digit_lo(d), digit_hi(d), t);
              end if;
            end loop;
            -- past a wrap only tail-masked elements may follow (their fill needs no digit)
            stop := stop or (wrapped and not te);
            -- accessed elements stay in the first one's line (or the next)
            t     := T_A(mdc * R + e) * EBYTES;
            stop1 := stop1 or stop;
            stop2 := stop2 or stop;
            stopm := stopm or stop or not me;
            if not me then
              stop1 := stop1 or below(o, -t, OFF_BITS) or not below(o, LINE_BYTES - EBYTES - t + 1, OFF_BITS);
              stop2 := stop2 or below(o, -t, OFF_BITS) or not below(o, 2 * LINE_BYTES - EBYTES - t + 1, OFF_BITS);
              if not below(o, LINE_BYTES - t, OFF_BITS) then
                eh(e) := '1';  -- o + t >= LINE_BYTES
              end if;
            end if;
            if not stop1 then
              len := e + 1;
            end if;
            if not stop2 then
              len2 := e + 1;
            end if;
            if not stopm then
              lenm := e + 1;
            end if;
          end if;
        end loop;
      end if;
    end loop;
    masked <= em(0) = '1';
    emask  <= em;
    ehigh  <= eh;
    efill  <= ef;
    line   <= to_integer(byte(33 downto 6));
    off    <= o;
    run    <= len;
    run2   <= len2;
    runm   <= lenm;
    mode_s <= md;
  end process;

  -- the counters after the consumer takes n elements. Each mode's outermost moving
  -- counter adds its step for n: one narrow adder per mode. (One adder per possible n,
  -- on 32-bit integers, was half of a 64-element generator's carry chains.) The counters
  -- inside it take their values for n. Steps and values are constants selected by
  -- comparing n with each e: GHDL makes an indexed constant table a ROM, whose read
  -- yosys' share pass explores at length (23 GB for one generator before it was killed).
  process (clk)
    variable c     : counters_t;
    variable step  : natural range 0 to MAXRUN;
    variable top_v : natural range 0 to table_max(EXTENTS, 0, NC) - 1 + MAXRUN;  -- before its wrap
    variable carry : boolean;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        ctr <= (others => 0);
        fin <= false;
      elsif take = '1' and not fin then
        c     := ctr;
        carry := false;
        for md in 0 to RUN_MODES - 1 loop
          if md = mode_s then
            step := 0;
            for e in 1 to MAXRUN loop
              if n = e then
                step := T_IN((md * R + e) * NC + TOP(md));
                for j in TOP(md) + 1 to NC - 1 loop
                  c(j) := T_IN((md * R + e) * NC + j);
                end loop;
              end if;
            end loop;
            top_v := ctr(TOP(md)) + step;
            if top_v >= EXTENTS(TOP(md)) then  -- the run ended at the level's wrap
              c(TOP(md)) := 0;
              carry      := true;
              for k in TOP(md) - 1 downto 0 loop
                if carry then
                  if c(k) < EXTENTS(k) - 1 then
                    c(k)  := c(k) + 1;
                    carry := false;
                  else
                    c(k) := 0;
                  end if;
                end if;
              end loop;
            else
              c(TOP(md)) := top_v;
            end if;
          end if;
        end loop;
        ctr <= c;
        fin <= carry;
      end if;
    end if;
  end process;
end architecture;
