-- skeleshare primitive templates: shared definitions.
--
-- Every stream in a generated design is a valid/ready handshake carrying one vector per
-- transfer: LANES signed lanes of BITS bits, lane k in data(k*BITS + BITS-1 downto k*BITS).
-- A transfer happens on a rising clock edge where valid and ready are both '1'; a
-- producer holds valid and data stable until then (back-pressure), and may leave gaps.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

package ss_pkg is
  constant LINE_BITS  : positive := 512;  -- one external-memory word (Avalon-MM data)
  constant LINE_BYTES : positive := 64;

  -- x * c for a constant c (a generic or a function of the generics): the sum of x
  -- shifted by each set bit of c, so that synthesis builds adders and never a
  -- multiplier. yosys maps a product whose constant has four or more significant bits
  -- to DSP blocks (a 32-bit counter times 576 took a MUL27X27 and a MUL18X18), which the
  -- compiler does not count: every DSP block of a design is one of its ss_mul lanes
  -- (docs/hardware.md, "Synthesis and resources"). No partial value exceeds |x * c|.
  function times(x : integer; c : integer) return integer;
  -- Floor division and modulo (VHDL's "/" truncates towards zero).
  function floor_div(a : integer; b : positive) return integer;
  function floor_mod(a : integer; b : positive) return integer;

  -- The low n bits of x (n <= x'length), or x sign-extended to n bits (n > x'length):
  -- the two's-complement wrap of the reference interpreter. (numeric_std.resize keeps the
  -- sign bit when it shrinks, which is saturation-like, not a wrap.)
  function wrap_to(x : signed; n : positive) return signed;

  -- a when c else b, for constants (VHDL-2008 has no conditional expressions there).
  function choose(c : boolean; a, b : integer) return integer;

  -- Round-robin: the first index after `last` (cyclically) whose req bit is '1', or
  -- `last` when none is (req is (N - 1 downto 0)). (last + i) mod N is written without a
  -- divider: yosys' `share` pass enumerates the activation patterns of every $mod cell in
  -- the loop's exit chain, which grow exponentially with N.
  function round_robin(req : std_logic_vector; last : natural) return natural;

  -- v shifted towards bit 0 (shift_down) or away from it (shift_up) by amount*UNIT bits,
  -- amount < 2**ABITS, as ABITS stages of constant shifts (a logarithmic barrel shifter
  -- of UNIT-bit steps: numeric_std's shifts by a variable count become a multiplexer
  -- per output bit over every input bit in GHDL's synthesis).
  function shift_down(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned;
  function shift_up(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned;
  -- v (UNIT * 2**ABITS bits) rotated away from bit 0 by (amount mod 2**ABITS) * UNIT bits
  function rotate_up(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned;
  -- The same as the stages synthesis builds (a simulator takes slices: SIMULATING).
  function shift_down_stages(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned;
  function shift_up_stages(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned;
  function rotate_up_stages(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned;
  -- The bits to count 0 .. n.
  function bits_for(n : natural) return positive;
  -- v < k for v in 0 .. 2**bits - 1 and a constant k, as unsigned compares of at most 6
  -- bits, from the top chunk down. (GHDL compares naturals as signed 32-bit integers;
  -- yosys narrows that to bits + 1 bits, sign included, and makes it a carry chain of that
  -- many cells. An unsigned compare with a constant of at most 6 bits is one LUT instead
  -- (yosys' cmp2lut; the address generators make thousands of such compares.)
  -- A simulator evaluates the plain compare instead (SIMULATING): the chunked form costs
  -- GHDL numeric_std calls and heap vectors, and was 38% of a small design's simulation.
  -- below_chunked is the form synthesis builds; tests/vhdl/below_tb.vhd checks it equals
  -- the plain compare for every width up to 14 bits.
  function below(v : natural; k : integer; bits : positive) return boolean;
  function below_chunked(v : natural; k : integer; bits : positive) return boolean;

  -- True in simulation, false in synthesis: GHDL's and Quartus's synthesis skip the
  -- translate_off region. Only where the synthesis form is a hardware-shaped rewrite of
  -- a plain expression that a simulator computes instead (below, the shifters, ss_mul's
  -- products, ss_reduce_vec's sums); tests/vhdl/{below,shifters,reduce_vec}_tb.vhd check
  -- that the two agree.
  constant SIMULATING : boolean := false
    -- pragma translate_off
    or true
    -- pragma translate_on
    ;

  -- Lane k of a packed vector of BITS-bit lanes.
  function lane(v : std_logic_vector; k : natural; bits : positive) return signed;
  -- v as an integer (at most 32 bits, two's complement / unsigned), for the simulated
  -- forms: numeric_std's to_integer first copies v to check it for metavalues, which was
  -- a sixth of a large design's simulation. A bit that is not '1' counts as '0'.
  function int_of(v : signed) return integer;
  function int_of(v : unsigned) return integer;
  -- The affine address generator (docs/lowering.md, "The affine address generator";
  -- docs/hardware.md): the access of the element at counter values `ctr`:
  --   group g    value_g = G_OFFSET(g) + sum_k G_COEF(g*NC+k) * ctr(k)
  --   digit d    floor(value_{D_GROUP(d)} / D_DIV(d)), reduced modulo D_MOD(d) unless 0
  --   coord s    C_OFFSET(s) + sum_d C_COEF(s*ND+d) * digit(d), in [0, SPACE(s))
  --   address    the row-major offset of the coords
  --   mask m     mval(m) = M_OFFSET(m) + sum_d M_COEF(m*ND+d) * digit(d) outside
  --              [M_LO(m), M_HI(m)) masks the element; the first such mask gives the fill
  -- affine_values gives the digits, the address before masking (`raw`, meaningful only
  -- when no mask fails) and every mask's value. Coefficients, divisors and radices are
  -- generics, so synthesis specialises the arithmetic to constant multiplications (and
  -- divisions only for flattened windows). ss_agen evaluates it once per cycle.
  -- Every value is narrowed to the range it takes over all counter values (RANGES, from
  -- affine_ranges at elaboration; RBITS its range_bits), and a digit is divided as an
  -- unsigned number of its range by shifts and a product by a reciprocal (DPLANS, from
  -- digit_plans). As 32-bit integers, a 64-element generator's arithmetic was 41 32-bit
  -- carry chains and two 32-bit dividers (yosys), the most of its logic. (Every width and
  -- plan is an elaboration constant: GHDL synth takes a loop with an exit, or a return in
  -- a loop, as logic, and then a width computed by it is not constant.)
  procedure affine_values(
    ctr : in integer_vector; NC, NG, ND, NS : in positive; NM : in natural;
    G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF, M_OFFSET, M_COEF : in integer_vector;
    RANGES, RBITS, DPLANS : in integer_vector;
    digit : out integer_vector; raw : out integer; mval : out integer_vector);
  -- The least and greatest value of every group, digit and mask and of the address, for
  -- counters ctr(k) in [0, EXTENTS(k)) (interval arithmetic, so a superset: exact for the
  -- groups and the digits with a radix): value i is RANGES(2i) .. RANGES(2i + 1), i = g
  -- for group g, NG + d for digit d, NG + ND + m for mask m, and NG + ND + NM for the
  -- address.
  function affine_ranges(NC, NG, ND, NS : positive; NM : natural;
    EXTENTS, G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF, M_OFFSET, M_COEF : integer_vector)
    return integer_vector;
  -- range_bits of each range in RANGES
  function ranges_bits(RANGES : integer_vector) return integer_vector;
  -- The bits of the numbers in [lo, hi]: unsigned when lo >= 0, else two's complement.
  function range_bits(lo, hi : integer) return positive;
  -- x, which lies in [lo, hi], as a number of bits = range_bits(lo, hi) bits: synthesis
  -- keeps only those bits (yosys then narrows the arithmetic before it, whose low bits do
  -- not depend on the high ones, and the compares after it). A simulator checks the range.
  function narrow(x, lo, hi : integer; bits : positive) return integer;
  -- floor(u / d) for 0 <= u <= umax, by a plan made at elaboration (udiv_plan, UDIV_ENTRIES
  -- entries): in synthesis a shift by d's factor of two, then a product by a reciprocal of
  -- d's odd part and a shift (exact over the range), or, where that product would not
  -- fit 31 bits, a divider of range_bits(0, umax) bits; in simulation "/". udiv_stages is
  -- the synthesis form (tests/vhdl/udiv_tb.vhd checks it against "/").
  constant UDIV_ENTRIES : positive := 7;
  function udiv_plan(d : positive; umax : natural) return integer_vector;
  function udiv_const(u : natural; d : positive; plan : integer_vector) return natural;
  function udiv_stages(u : natural; plan : integer_vector) return natural;
  -- Per digit d, DIGIT_ENTRIES entries from d * DIGIT_ENTRIES: the base that affine_values
  -- subtracts from its group's value, the udiv_plan of D_DIV(d) and that of D_MOD(d).
  constant DIGIT_ENTRIES : positive := 1 + 2 * UDIV_ENTRIES;
  function digit_plans(NG, ND : positive; RANGES, D_GROUP, D_DIV, D_MOD : integer_vector) return integer_vector;

  -- Runs (ss_agen; docs/hardware.md, "Runs"). Stepping counter j by one changes group
  -- g's value by G_COEF(g*NC + j); a digit with D_DIV = 1 (the lowest digit of its group)
  -- then steps by that much, and a digit with a larger divisor stays fixed as long as the
  -- lowest digit of its group stays within [0, D_MOD) (the divisor is a multiple of that
  -- radix). All of these are functions of the generics, evaluated at elaboration.
  function counter_digit_step(d, j, NC : natural; G_COEF, D_GROUP, D_DIV : integer_vector) return integer;
  -- Counter j moves only lowest digits and digits held fixed by one (as above).
  function counter_moves_ok(j, NC, ND : natural; G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return boolean;
  -- How many innermost counters a run may span: 0 when the innermost counter itself
  -- moves a digit nothing holds fixed (then every run is one element), else the levels
  -- L such that counters NC-L .. NC-1 all pass counter_moves_ok, adding a level only
  -- while the levels inside it hold fewer than PER_CYCLE elements.
  function run_levels(NC, ND, PER_CYCLE : positive; EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return natural;
  -- Elements a cycle may move: PER_CYCLE with runs, else 1.
  function run_lanes(NC, ND, PER_CYCLE : positive; EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return positive;
  -- Counter j's change from a run's first element to its element e, for a run over the
  -- L innermost levels that starts with the levels inside the outermost one at zero:
  -- e in mixed radix over their extents (the outermost level takes the quotient).
  function run_delta(e, j, L, NC : natural; EXTENTS : integer_vector) return integer;
  -- Run modes (ss_agen): 0 the innermost counter moves; 1 it moves and aligned groups
  -- start at 0; 2 run_levels counters move (those inside the outermost of them at 0)
  -- and aligned groups start at 0.
  constant RUN_MODES : positive := 3;
  function mode_levels(md, NC, ND, PER_CYCLE : natural; EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector)
    return natural;

  -- A group whose lowest digit has a radix (a flattened window's group) that the levels
  -- of mode 1 only increase: when its lowest digit is 0 at the start of a run, the run
  -- may cross that digit's wraps (mode 1: a window row of channels in one run).
  function aligned_group(g, L, NC, ND : natural; G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return boolean;
  -- Digit d's change from a run's first element to its element e, in mode md:
  -- a lowest digit moves with its group's value (modulo its radix in an aligned group),
  -- the digit above it in an aligned group takes the quotient, the others stay.
  function run_digit_delta(md, d, e, NC, ND, PER_CYCLE : natural;
                           EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return integer;
  -- The address offsets (in elements) of a run's elements from its first: index
  -- mode*(MAXRUN+1) + e.
  function run_addr_table(NC, ND, NS, PER_CYCLE : positive;
                          EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_COEF : integer_vector) return integer_vector;
  -- The smallest and largest entry of table(first .. first + count - 1) and 0.
  function table_min(t : integer_vector; first, count : natural) return integer;
  function table_max(t : integer_vector; first, count : natural) return integer;
  -- lo - v0 and hi - v0 clamped to [omin - 1, omax + 1] and moved to start at 0: then
  -- v0 + o is in [lo, hi) exactly when lo_c <= o - omin + 1 < hi_c, for every o in
  -- [omin, omax] (a compare of small numbers against a constant per element of a run).
  procedure run_window(v0, lo, hi, omin, omax : in integer; lo_c, hi_c : out natural);
  -- One edge of run_window: edge - v0 clamped to [omin - 1, omax + 1], less omin - 1.
  function window_edge(v0, edge, omin, omax : integer) return natural;
end package;

package body ss_pkg is
  -- 2**n for n = 0 .. 30, for the simulated forms (a table: "**" is a library call)
  function powers_of_two return integer_vector is
    variable p : integer_vector(0 to 30);
  begin
    p(0) := 1;
    for n in 1 to 30 loop
      p(n) := 2 * p(n - 1);
    end loop;
    return p;
  end function;
  constant POW2 : integer_vector(0 to 30) := powers_of_two;

  function times(x : integer; c : integer) return integer is
    variable m : natural := abs c;
    variable p : integer := x;
    variable s : integer := 0;
  begin
    for b in 0 to 30 loop
      exit when m = 0;
      if m mod 2 = 1 then
        s := s + p;
      end if;
      m := m / 2;
      if m /= 0 then
        p := p + p;
      end if;
    end loop;
    if c < 0 then
      return -s;
    end if;
    return s;
  end function;

  function floor_div(a : integer; b : positive) return integer is
    variable q : integer := a / b;
  begin
    if a < 0 and times(q, b) /= a then
      q := q - 1;
    end if;
    return q;
  end function;

  function floor_mod(a : integer; b : positive) return integer is
  begin
    return a - times(floor_div(a, b), b);
  end function;

  function wrap_to(x : signed; n : positive) return signed is
  begin
    if n <= x'length then
      return signed(resize(unsigned(x), n));  -- unsigned resize keeps the low bits
    end if;
    return resize(x, n);
  end function;

  function shift_down(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned is
    variable r, t : unsigned(v'length - 1 downto 0) := v;
    variable s    : natural;
  begin
    if SIMULATING and ABITS <= 30 then  -- one slice, by amount's low ABITS bits as the stages
      s := (amount mod POW2(ABITS)) * UNIT;
      r := (others => '0');
      if s < v'length then
        r(v'length - 1 - s downto 0) := t(v'length - 1 downto s);
      end if;
      return r;
    end if;
    return shift_down_stages(v, amount, UNIT, ABITS);
  end function;

  function shift_down_stages(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned is
    constant A : unsigned(ABITS - 1 downto 0) := to_unsigned(amount, ABITS);
    variable r, t : unsigned(v'length - 1 downto 0) := v;
  begin
    -- largest step first: when only the low bits of the result are used, synthesis
    -- prunes every later stage to them and the steps still to come
    for i in ABITS - 1 downto 0 loop
      if A(i) = '1' then
        t := r;
        for b in 0 to v'length - 1 loop
          if b + UNIT * 2 ** i < v'length then
            r(b) := t(b + UNIT * 2 ** i);
          else
            r(b) := '0';
          end if;
        end loop;
      end if;
    end loop;
    return r;
  end function;

  function shift_up(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned is
    variable r, t : unsigned(v'length - 1 downto 0) := v;
    variable s    : natural;
  begin
    if SIMULATING and ABITS <= 30 then  -- one slice
      s := (amount mod POW2(ABITS)) * UNIT;
      r := (others => '0');
      if s < v'length then
        r(v'length - 1 downto s) := t(v'length - 1 - s downto 0);
      end if;
      return r;
    end if;
    return shift_up_stages(v, amount, UNIT, ABITS);
  end function;

  function shift_up_stages(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned is
    constant A : unsigned(ABITS - 1 downto 0) := to_unsigned(amount, ABITS);
    variable r, t : unsigned(v'length - 1 downto 0) := v;
  begin
    for i in 0 to ABITS - 1 loop
      if A(i) = '1' then
        t := r;
        for b in 0 to v'length - 1 loop
          if b >= UNIT * 2 ** i then
            r(b) := t(b - UNIT * 2 ** i);
          else
            r(b) := '0';
          end if;
        end loop;
      end if;
    end loop;
    return r;
  end function;

  function rotate_up(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned is
    constant N : natural := v'length;
    variable r, t : unsigned(v'length - 1 downto 0) := v;
    variable s    : natural;
  begin
    if SIMULATING and ABITS <= 30 then  -- two slices
      s := ((amount mod POW2(ABITS)) * UNIT) mod N;
      if s > 0 then
        r(N - 1 downto s) := t(N - 1 - s downto 0);
        r(s - 1 downto 0) := t(N - 1 downto N - s);
      end if;
      return r;
    end if;
    return rotate_up_stages(v, amount, UNIT, ABITS);
  end function;

  function rotate_up_stages(v : unsigned; amount : natural; UNIT, ABITS : positive) return unsigned is
    constant A : unsigned(31 downto 0) := to_unsigned(amount, 32);
    constant N : natural := v'length;
    variable r, t : unsigned(N - 1 downto 0) := v;
  begin
    for i in 0 to ABITS - 1 loop
      if A(i) = '1' then
        t := r;
        for b in 0 to N - 1 loop
          r(b) := t((b - UNIT * 2 ** i) mod N);
        end loop;
      end if;
    end loop;
    return r;
  end function;

  function bits_for(n : natural) return positive is
    variable b : positive := 1;
  begin
    while 2 ** b <= n loop
      b := b + 1;
    end loop;
    return b;
  end function;

  function below(v : natural; k : integer; bits : positive) return boolean is
  begin
    if SIMULATING and bits <= 30 then
      -- to_unsigned(v, bits) keeps v's low bits: the same here
      return k > 0 and (k >= POW2(bits) or v mod POW2(bits) < k);
    end if;
    return below_chunked(v, k, bits);
  end function;

  function below_chunked(v : natural; k : integer; bits : positive) return boolean is
    constant CHUNK : positive := 6;  -- a 6-input LUT's compare
    variable uv, uk : unsigned(bits - 1 downto 0);
    variable lo, hi : natural;  -- the chunk's bits
    variable lt, eq : boolean;
  begin
    if k <= 0 then
      return false;
    elsif k >= 2 ** bits then
      return true;
    end if;
    uv := to_unsigned(v, bits);
    uk := to_unsigned(k, bits);
    lt := false;
    eq := true;
    for c in (bits - 1) / CHUNK downto 0 loop
      lo := c * CHUNK;
      hi := minimum(lo + CHUNK, bits) - 1;
      lt := lt or (eq and uv(hi downto lo) < uk(hi downto lo));
      eq := eq and uv(hi downto lo) = uk(hi downto lo);
    end loop;
    return lt;
  end function;

  function choose(c : boolean; a, b : integer) return integer is
  begin
    if c then
      return a;
    end if;
    return b;
  end function;

  function round_robin(req : std_logic_vector; last : natural) return natural is
    constant N : positive := req'length;
    variable p : natural := last;
  begin
    for i in 1 to N loop
      if last + i >= N then
        p := last + i - N;
      else
        p := last + i;
      end if;
      if req(p) = '1' then
        return p;
      end if;
    end loop;
    return last;
  end function;

  function int_of(v : signed) return integer is
    variable r : integer := 0;
  begin
    if v(v'left) = '1' then
      r := -1;
    end if;
    for b in v'range loop  -- from the most significant bit
      if b /= v'left then
        r := r * 2;
        if v(b) = '1' then
          r := r + 1;
        end if;
      end if;
    end loop;
    return r;
  end function;

  function int_of(v : unsigned) return integer is
    variable r : integer := 0;
  begin
    for b in v'range loop
      r := r * 2;
      if v(b) = '1' then
        r := r + 1;
      end if;
    end loop;
    return r;
  end function;

  function lane(v : std_logic_vector; k : natural; bits : positive) return signed is
  begin
    -- indexed from v'right (vectors are "downto"), without copying v: lanes of wide
    -- vectors are read many times per cycle
    return signed(v(v'right + k * bits + bits - 1 downto v'right + k * bits));
  end function;
  procedure affine_values(
    ctr : in integer_vector; NC, NG, ND, NS : in positive; NM : in natural;
    G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF, M_OFFSET, M_COEF : in integer_vector;
    RANGES, RBITS, DPLANS : in integer_vector;
    digit : out integer_vector; raw : out integer; mval : out integer_vector) is
    variable value : integer_vector(0 to NG - 1);
    variable dg    : integer_vector(0 to ND - 1);
    variable v, a  : integer;
    constant AR    : natural := NG + ND + NM;  -- the address's range
  begin
    for g in 0 to NG - 1 loop
      v := G_OFFSET(g);
      for k in 0 to NC - 1 loop
        v := v + times(ctr(k), G_COEF(g * NC + k));
      end loop;
      value(g) := narrow(v, RANGES(2 * g), RANGES(2 * g + 1), RBITS(g));
    end loop;
    for d in 0 to ND - 1 loop
      v := value(D_GROUP(d));
      if D_DIV(d) /= 1 or D_MOD(d) /= 0 then
        -- floor(v / D_DIV) mod D_MOD (or + base / D_DIV without a radix) as unsigned
        -- arithmetic on v - base, base a multiple of the period at or below the group's least
        v := udiv_const(narrow(v - DPLANS(d * DIGIT_ENTRIES), 0, RANGES(2 * D_GROUP(d) + 1) - DPLANS(d * DIGIT_ENTRIES),
                               DPLANS(d * DIGIT_ENTRIES + 2)),  -- the udiv plan's UB
                        D_DIV(d), DPLANS(d * DIGIT_ENTRIES + 1 to d * DIGIT_ENTRIES + UDIV_ENTRIES));
        if D_MOD(d) /= 0 then
          v := v - times(udiv_const(v, D_MOD(d), DPLANS(d * DIGIT_ENTRIES + 1 + UDIV_ENTRIES to (d + 1) * DIGIT_ENTRIES - 1)),
                         D_MOD(d));
        else
          v := v + DPLANS(d * DIGIT_ENTRIES) / D_DIV(d);
        end if;
      end if;
      dg(d) := narrow(v, RANGES(2 * (NG + d)), RANGES(2 * (NG + d) + 1), RBITS(NG + d));
    end loop;
    for i in 0 to NM - 1 loop
      v := M_OFFSET(i);
      for d in 0 to ND - 1 loop
        v := v + times(dg(d), M_COEF(i * ND + d));
      end loop;
      mval(i) := narrow(v, RANGES(2 * (NG + ND + i)), RANGES(2 * (NG + ND + i) + 1), RBITS(NG + ND + i));
    end loop;
    -- (the partial sums wrap as the address does: two's complement, only its bits kept)
    a := 0;
    for c in 0 to NS - 1 loop
      v := C_OFFSET(c);
      for d in 0 to ND - 1 loop
        v := v + times(dg(d), C_COEF(c * ND + d));
      end loop;
      a := times(a, SPACE(c)) + v;
    end loop;
    digit := dg;
    raw   := narrow(a, RANGES(2 * AR), RANGES(2 * AR + 1), RBITS(AR));
  end procedure;

  -- [lo, hi] widened by the term c * x, x in [xlo, xhi] (its least and greatest product)
  procedure add_term(c, xlo, xhi : in integer; lo, hi : inout integer) is
  begin
    lo := lo + minimum(c * xlo, c * xhi);
    hi := hi + maximum(c * xlo, c * xhi);
  end procedure;

  function affine_ranges(NC, NG, ND, NS : positive; NM : natural;
    EXTENTS, G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF, M_OFFSET, M_COEF : integer_vector)
    return integer_vector is
    variable r : integer_vector(0 to 2 * (NG + ND + NM + 1) - 1);
    variable lo, hi, alo, ahi, glo, ghi : integer;
  begin
    for g in 0 to NG - 1 loop
      lo := G_OFFSET(g);
      hi := G_OFFSET(g);
      for k in 0 to NC - 1 loop
        add_term(G_COEF(g * NC + k), 0, EXTENTS(k) - 1, lo, hi);
      end loop;
      r(2 * g)     := lo;
      r(2 * g + 1) := hi;
    end loop;
    for d in 0 to ND - 1 loop
      glo := r(2 * D_GROUP(d));
      ghi := r(2 * D_GROUP(d) + 1);
      if D_MOD(d) /= 0 then
        lo := 0;
        hi := D_MOD(d) - 1;
        if floor_div(glo, D_DIV(d) * D_MOD(d)) = floor_div(ghi, D_DIV(d) * D_MOD(d)) then  -- within a period
          lo := floor_mod(floor_div(glo, D_DIV(d)), D_MOD(d));
          hi := floor_mod(floor_div(ghi, D_DIV(d)), D_MOD(d));
        end if;
      else
        lo := floor_div(glo, D_DIV(d));
        hi := floor_div(ghi, D_DIV(d));
      end if;
      r(2 * (NG + d))     := lo;
      r(2 * (NG + d) + 1) := hi;
    end loop;
    for m in 0 to NM - 1 loop
      lo := M_OFFSET(m);
      hi := M_OFFSET(m);
      for d in 0 to ND - 1 loop
        add_term(M_COEF(m * ND + d), r(2 * (NG + d)), r(2 * (NG + d) + 1), lo, hi);
      end loop;
      r(2 * (NG + ND + m))     := lo;
      r(2 * (NG + ND + m) + 1) := hi;
    end loop;
    alo := 0;
    ahi := 0;
    for c in 0 to NS - 1 loop
      lo := C_OFFSET(c);
      hi := C_OFFSET(c);
      for d in 0 to ND - 1 loop
        add_term(C_COEF(c * ND + d), r(2 * (NG + d)), r(2 * (NG + d) + 1), lo, hi);
      end loop;
      alo := alo * SPACE(c) + lo;
      ahi := ahi * SPACE(c) + hi;
    end loop;
    r(2 * (NG + ND + NM))     := alo;
    r(2 * (NG + ND + NM) + 1) := ahi;
    return r;
  end function;

  function range_bits(lo, hi : integer) return positive is
  begin
    if lo >= 0 then
      return bits_for(hi);
    end if;
    for i in 1 to 30 loop  -- two's complement: -2**i <= lo and hi < 2**i in i + 1 bits
      if -POW2(i) <= lo and hi < POW2(i) then
        return i + 1;
      end if;
    end loop;
    return 32;
  end function;

  function ranges_bits(RANGES : integer_vector) return integer_vector is
    variable r : integer_vector(0 to RANGES'length / 2 - 1);
  begin
    for i in r'range loop
      r(i) := range_bits(RANGES(RANGES'low + 2 * i), RANGES(RANGES'low + 2 * i + 1));
    end loop;
    return r;
  end function;

  function narrow(x, lo, hi : integer; bits : positive) return integer is
  begin
    if SIMULATING then
      assert lo <= x and x <= hi
        report "ss_pkg.narrow: " & integer'image(x) & " is outside its range " & integer'image(lo) & " .. " &
               integer'image(hi) severity failure;
      return x;
    end if;
    if bits >= 32 then
      return x;
    elsif lo >= 0 then
      return to_integer(to_unsigned(x, bits));
    end if;
    return to_integer(to_signed(x, bits));
  end function;

  -- plan: (kind, UB, t, o, m, s, PB), d = o * 2**t with o odd, u of UB bits; kind 0: the
  -- quotient is 0; 1: u shifted down by t; 2: that times m, shifted down by s (PB bits);
  -- 3: that divided by o
  function udiv_plan(d : positive; umax : natural) return integer_vector is
    constant UB : positive := bits_for(umax);
    variable o  : positive := d;
    variable t  : natural := 0;
    variable m, e, s, u1max : natural := 0;
  begin
    while o mod 2 = 0 loop
      o := o / 2;
      t := t + 1;
    end loop;
    if t >= UB or umax < d then  -- u < d
      return (0, UB, t, o, 0, 0, 1);
    end if;
    u1max := umax / 2 ** t;
    if o = 1 then
      return (1, UB, t, o, 0, 0, 1);
    end if;
    -- floor(u1 * m / 2**s) = floor(u1 / o) for m = ceil(2**s / o), e = m * o - 2**s, when
    -- u1max * e < 2**s (u1 = q * o + r: u1 * m / 2**s = u1 / o + u1 * e / (o * 2**s) <
    -- q + (o - 1) / o + 1 / o); the least such s
    for i in 0 to 30 loop
      s := i;
      m := (POW2(i) + o - 1) / o;
      e := m * o - POW2(i);
      exit when e = 0 or u1max <= (POW2(i) - 1) / e;  -- u1max * e < 2**i, without overflow
    end loop;
    if (e /= 0 and u1max > (POW2(s) - 1) / e) or u1max > (POW2(30) - 1) / m then  -- no such product fits
      return (3, UB, t, o, 0, 0, 1);
    end if;
    return (2, UB, t, o, m, s, bits_for(u1max * m));
  end function;

  function udiv_const(u : natural; d : positive; plan : integer_vector) return natural is
  begin
    if SIMULATING then
      return u / d;
    end if;
    return udiv_stages(u, plan);
  end function;

  function udiv_stages(u : natural; plan : integer_vector) return natural is
    constant KIND : natural := plan(plan'low);
    constant UB   : positive := plan(plan'low + 1);
    constant T    : natural := plan(plan'low + 2);
    constant O    : positive := plan(plan'low + 3);
    constant M    : natural := plan(plan'low + 4);
    constant S    : natural := plan(plan'low + 5);
    constant PB   : positive := plan(plan'low + 6);
    variable u1   : natural;
  begin
    if KIND = 0 then
      return 0;
    end if;
    u1 := to_integer(shift_right(to_unsigned(u, UB), T));
    if KIND = 1 then
      return u1;
    elsif KIND = 2 then
      return to_integer(shift_right(to_unsigned(times(u1, M), PB), S));
    end if;
    return to_integer(to_unsigned(u1, UB) / to_unsigned(O, UB));
  end function;

  function digit_plans(NG, ND : positive; RANGES, D_GROUP, D_DIV, D_MOD : integer_vector) return integer_vector is
    variable r : integer_vector(0 to ND * DIGIT_ENTRIES - 1) := (others => 0);
    variable period, base, umax : integer;
  begin
    for d in 0 to ND - 1 loop
      period := D_DIV(d) * maximum(D_MOD(d), 1);
      base   := floor_div(RANGES(2 * D_GROUP(d)), period) * period;
      umax   := RANGES(2 * D_GROUP(d) + 1) - base;
      r(d * DIGIT_ENTRIES) := base;
      r(d * DIGIT_ENTRIES + 1 to d * DIGIT_ENTRIES + UDIV_ENTRIES) := udiv_plan(D_DIV(d), umax);
      r(d * DIGIT_ENTRIES + 1 + UDIV_ENTRIES to (d + 1) * DIGIT_ENTRIES - 1) := udiv_plan(maximum(D_MOD(d), 1), umax / D_DIV(d));
    end loop;
    return r;
  end function;

  function counter_digit_step(d, j, NC : natural; G_COEF, D_GROUP, D_DIV : integer_vector) return integer is
  begin
    if D_DIV(d) /= 1 then
      return 0;
    end if;
    return G_COEF(D_GROUP(d) * NC + j);
  end function;

  function counter_moves_ok(j, NC, ND : natural; G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return boolean is
    variable held : boolean;
  begin
    for d in 0 to ND - 1 loop
      if D_DIV(d) /= 1 and G_COEF(D_GROUP(d) * NC + j) /= 0 then
        held := false;
        for l in 0 to ND - 1 loop
          if D_GROUP(l) = D_GROUP(d) and D_DIV(l) = 1 and D_MOD(l) /= 0 then
            if D_DIV(d) mod D_MOD(l) = 0 then
              held := true;
            end if;
          end if;
        end loop;
        if not held then
          return false;
        end if;
      end if;
    end loop;
    return true;
  end function;

  function run_levels(NC, ND, PER_CYCLE : positive; EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return natural is
    variable L     : natural := 1;
    variable inner : natural;
  begin
    if not counter_moves_ok(NC - 1, NC, ND, G_COEF, D_GROUP, D_DIV, D_MOD) then
      return 0;
    end if;
    inner := EXTENTS(NC - 1);
    while L < NC and inner < PER_CYCLE loop
      exit when not counter_moves_ok(NC - L - 1, NC, ND, G_COEF, D_GROUP, D_DIV, D_MOD);
      inner := inner * EXTENTS(NC - L - 1);
      L     := L + 1;
    end loop;
    return L;
  end function;

  function run_lanes(NC, ND, PER_CYCLE : positive; EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return positive is
  begin
    return choose(run_levels(NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD) > 0, PER_CYCLE, 1);
  end function;

  function run_delta(e, j, L, NC : natural; EXTENTS : integer_vector) return integer is
    variable inner : natural := 1;
  begin
    if j + L < NC then
      return 0;
    end if;
    for k in j + 1 to NC - 1 loop
      inner := inner * EXTENTS(k);
    end loop;
    if j + L = NC then
      return e / inner;
    end if;
    return (e / inner) mod EXTENTS(j);
  end function;

  function mode_levels(md, NC, ND, PER_CYCLE : natural; EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector)
    return natural is
  begin
    if md < 2 then
      return 1;
    end if;
    return maximum(run_levels(NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD), 1);
  end function;

  function aligned_group(g, L, NC, ND : natural; G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return boolean is
    variable radix : natural := 0;
    variable moved : boolean := false;
  begin
    for d in 0 to ND - 1 loop
      if D_GROUP(d) = g and D_DIV(d) = 1 then
        radix := D_MOD(d);
      end if;
    end loop;
    for j in NC - L to NC - 1 loop
      if G_COEF(g * NC + j) < 0 then
        return false;
      end if;
      moved := moved or G_COEF(g * NC + j) > 0;
    end loop;
    return radix /= 0 and moved;
  end function;

  function run_digit_delta(md, d, e, NC, ND, PER_CYCLE : natural;
                           EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return integer is
    constant L     : natural := mode_levels(md, NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
    constant g     : natural := D_GROUP(d);
    variable v     : integer := 0;  -- the group's value's change
    variable radix : natural := 0;  -- the radix of the group's lowest digit
  begin
    for j in NC - L to NC - 1 loop
      v := v + run_delta(e, j, L, NC, EXTENTS) * G_COEF(g * NC + j);
    end loop;
    for l in 0 to ND - 1 loop
      if D_GROUP(l) = g and D_DIV(l) = 1 then
        radix := D_MOD(l);
      end if;
    end loop;
    if md >= 1 and aligned_group(g, L, NC, ND, G_COEF, D_GROUP, D_DIV, D_MOD) then
      if D_DIV(d) = 1 then
        return v mod radix;
      elsif D_DIV(d) = radix then
        return v / radix;
      end if;
      return 0;
    end if;
    return choose(D_DIV(d) = 1, v, 0);
  end function;

  function run_addr_table(NC, ND, NS, PER_CYCLE : positive;
                          EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_COEF : integer_vector) return integer_vector is
    constant MAXRUN : positive := run_lanes(NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
    variable t      : integer_vector(0 to RUN_MODES * (MAXRUN + 1) - 1);
    variable dd     : integer_vector(0 to ND - 1);
    variable a, v   : integer;
  begin
    for md in 0 to RUN_MODES - 1 loop
      for e in 0 to MAXRUN loop
        for d in 0 to ND - 1 loop
          dd(d) := run_digit_delta(md, d, e, NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
        end loop;
        a := 0;
        for c in 0 to NS - 1 loop  -- the row-major address is linear in the digits
          v := 0;
          for d in 0 to ND - 1 loop
            v := v + C_COEF(c * ND + d) * dd(d);
          end loop;
          a := a * SPACE(c) + v;
        end loop;
        t(md * (MAXRUN + 1) + e) := a;
      end loop;
    end loop;
    return t;
  end function;

  function table_min(t : integer_vector; first, count : natural) return integer is
    variable r : integer := 0;
  begin
    for i in first to first + count - 1 loop
      r := minimum(r, t(i));
    end loop;
    return r;
  end function;

  function table_max(t : integer_vector; first, count : natural) return integer is
    variable r : integer := 0;
  begin
    for i in first to first + count - 1 loop
      r := maximum(r, t(i));
    end loop;
    return r;
  end function;

  procedure run_window(v0, lo, hi, omin, omax : in integer; lo_c, hi_c : out natural) is
  begin
    lo_c := window_edge(v0, lo, omin, omax);
    hi_c := window_edge(v0, hi, omin, omax);
  end procedure;

  function window_edge(v0, edge, omin, omax : integer) return natural is
  begin
    -- compares of v0 with constants, which yosys narrows to v0's bits (edge - v0 is a
    -- 32-bit difference, and clamping it two 32-bit compares)
    if v0 >= edge - omin + 1 then     -- edge - v0 <= omin - 1
      return 0;
    elsif v0 <= edge - omax - 1 then  -- edge - v0 >= omax + 1
      return omax - omin + 2;
    end if;
    return edge - v0 - omin + 1;
  end function;
end package body;
