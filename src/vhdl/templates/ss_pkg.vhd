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
  procedure affine_values(
    ctr : in integer_vector; NC, NG, ND, NS : in positive; NM : in natural;
    G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF, M_OFFSET, M_COEF : in integer_vector;
    digit : out integer_vector; raw : out integer; mval : out integer_vector);

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
    digit : out integer_vector; raw : out integer; mval : out integer_vector) is
    variable value : integer_vector(0 to NG - 1);
    variable dg    : integer_vector(0 to ND - 1);
    variable v, a  : integer;
  begin
    for g in 0 to NG - 1 loop
      v := G_OFFSET(g);
      for k in 0 to NC - 1 loop
        v := v + times(ctr(k), G_COEF(g * NC + k));
      end loop;
      value(g) := v;
    end loop;
    for d in 0 to ND - 1 loop
      v := value(D_GROUP(d));
      if D_DIV(d) /= 1 then
        v := floor_div(v, D_DIV(d));
      end if;
      if D_MOD(d) /= 0 then
        v := floor_mod(v, D_MOD(d));
      end if;
      dg(d) := v;
    end loop;
    for i in 0 to NM - 1 loop
      v := M_OFFSET(i);
      for d in 0 to ND - 1 loop
        v := v + times(dg(d), M_COEF(i * ND + d));
      end loop;
      mval(i) := v;
    end loop;
    a := 0;
    for c in 0 to NS - 1 loop
      v := C_OFFSET(c);
      for d in 0 to ND - 1 loop
        v := v + times(dg(d), C_COEF(c * ND + d));
      end loop;
      a := times(a, SPACE(c)) + v;
    end loop;
    digit := dg;
    raw   := a;
  end procedure;

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
    lo_c := maximum(omin - 1, minimum(omax + 1, lo - v0)) - (omin - 1);
    hi_c := maximum(omin - 1, minimum(omax + 1, hi - v0)) - (omin - 1);
  end procedure;
end package body;
