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

  -- Floor division and modulo (VHDL's "/" truncates towards zero).
  function floor_div(a : integer; b : positive) return integer;
  function floor_mod(a : integer; b : positive) return integer;

  -- The low n bits of x (n <= x'length), or x sign-extended to n bits (n > x'length):
  -- the two's-complement wrap of the reference interpreter. (numeric_std.resize keeps the
  -- sign bit when it shrinks, which is saturation-like, not a wrap.)
  function wrap_to(x : signed; n : positive) return signed;

  -- a when c else b, for constants (VHDL-2008 has no conditional expressions there).
  function choose(c : boolean; a, b : integer) return integer;

  -- Lane k of a packed vector of BITS-bit lanes.
  function lane(v : std_logic_vector; k : natural; bits : positive) return signed;
  -- The affine address generator (docs/lowering.md, "The affine address generator";
  -- docs/hardware.md): the access of the element at counter values `ctr`:
  --   group g    value_g = G_OFFSET(g) + sum_k G_COEF(g*NC+k) * ctr(k)
  --   digit d    floor(value_{D_GROUP(d)} / D_DIV(d)), reduced modulo D_MOD(d) unless 0
  --   coord s    C_OFFSET(s) + sum_d C_COEF(s*ND+d) * digit(d), in [0, SPACE(s))
  --   address    the row-major offset of the coords
  --   mask m     M_OFFSET(m) + sum_d M_COEF(m*ND+d) * digit(d) outside [M_LO(m), M_HI(m))
  --              masks the element; the first such mask gives the fill
  -- Coefficients, divisors and radices are generics, so synthesis specialises the
  -- arithmetic to constant multiplications (and divisions only for flattened windows).
  procedure affine_access(
    ctr : in integer_vector; NC, NG, ND, NS : in positive; NM : in natural;
    G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF : in integer_vector;
    M_OFFSET, M_COEF, M_LO, M_HI, M_FILL : in integer_vector;
    addr : out natural; masked : out boolean; fill : out integer);

  -- The same generator split for runs (ss_read, ss_write): the digits, the row-major
  -- address of the coords before masking (`raw`, meaningful only when no mask fails) and
  -- every mask's value (mval(m) = M_OFFSET(m) + sum_d M_COEF(m*ND+d) * digit(d)).
  procedure affine_values(
    ctr : in integer_vector; NC, NG, ND, NS : in positive; NM : in natural;
    G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF, M_OFFSET, M_COEF : in integer_vector;
    digit : out integer_vector; raw : out integer; mval : out integer_vector);

  -- Runs (docs/hardware.md, "Runs"): the elements of a run differ only in the innermost
  -- counter k = NC - 1. Stepping it by one changes group g's value by G_COEF(g*NC + k);
  -- a digit with D_DIV = 1 (the lowest digit of its group) then steps by that much, and a
  -- digit with a larger divisor stays fixed as long as the lowest digit of its group does
  -- not leave [0, D_MOD) (the divisor is a multiple of that radix). These functions of the
  -- generics are evaluated at elaboration, so all of it is constants in hardware.
  function digit_step(d : natural; NC : positive; G_COEF, D_GROUP, D_DIV : integer_vector) return integer;
  -- Whether every digit the innermost counter moves is a lowest digit or is held fixed
  -- by a lowest digit of its group as above (if not, reads and writes take one element
  -- per cycle).
  function runs_ok(NC, ND : positive; G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return boolean;
  -- The row-major address step per element of a run.
  function addr_step(NC, ND, NS : positive; G_COEF, D_GROUP, D_DIV, SPACE, C_COEF : integer_vector) return integer;
  -- The step per element of mask m's value.
  function mask_step(m : natural; NC, ND : positive; G_COEF, D_GROUP, D_DIV, M_COEF : integer_vector) return integer;

  -- A range test of an affine value over a run, v0 + e*step in [lo, hi), rewritten as
  -- lo_t <= e*|step| < hi_t with both bounds clamped to [-1, tmax + 1] (tmax the largest
  -- e*|step| tested): one subtraction per bound per cycle, then per element a compare of
  -- small numbers against constants.
  procedure run_window(v0, lo, hi, step : in integer; tmax : in natural;
                       lo_t, hi_t : out integer);

  -- The next counter tuple in row-major order; `last` when ctr was the final one (ctr
  -- then wraps to all zeros).
  procedure advance(ctr : inout integer_vector; EXTENTS : in integer_vector; last : out boolean);
  -- The counters after a run of n elements (the innermost counter stays below its extent
  -- within a run, so only its wrap carries into the outer counters).
  procedure advance_run(ctr : inout integer_vector; EXTENTS : in integer_vector; n : in natural; last : out boolean);
end package;

package body ss_pkg is
  function floor_div(a : integer; b : positive) return integer is
    variable q : integer := a / b;
  begin
    if a < 0 and q * b /= a then
      q := q - 1;
    end if;
    return q;
  end function;

  function floor_mod(a : integer; b : positive) return integer is
  begin
    return a - floor_div(a, b) * b;
  end function;

  function wrap_to(x : signed; n : positive) return signed is
  begin
    if n <= x'length then
      return signed(resize(unsigned(x), n));  -- unsigned resize keeps the low bits
    end if;
    return resize(x, n);
  end function;

  function choose(c : boolean; a, b : integer) return integer is
  begin
    if c then
      return a;
    end if;
    return b;
  end function;

  function lane(v : std_logic_vector; k : natural; bits : positive) return signed is
  begin
    -- indexed from v'right (vectors are "downto"), without copying v: lanes of wide
    -- vectors are read many times per cycle
    return signed(v(v'right + k * bits + bits - 1 downto v'right + k * bits));
  end function;
  procedure affine_access(
    ctr : in integer_vector; NC, NG, ND, NS : in positive; NM : in natural;
    G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF : in integer_vector;
    M_OFFSET, M_COEF, M_LO, M_HI, M_FILL : in integer_vector;
    addr : out natural; masked : out boolean; fill : out integer) is
    variable value : integer_vector(0 to NG - 1);
    variable digit : integer_vector(0 to ND - 1);
    variable v, a  : integer;
    variable m     : boolean := false;
  begin
    for g in 0 to NG - 1 loop
      v := G_OFFSET(g);
      for k in 0 to NC - 1 loop
        v := v + G_COEF(g * NC + k) * ctr(k);
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
      digit(d) := v;
    end loop;
    fill := 0;
    for i in 0 to NM - 1 loop
      v := M_OFFSET(i);
      for d in 0 to ND - 1 loop
        v := v + M_COEF(i * ND + d) * digit(d);
      end loop;
      if not m and (v < M_LO(i) or v >= M_HI(i)) then
        m    := true;
        fill := M_FILL(i);
      end if;
    end loop;
    a := 0;
    for c in 0 to NS - 1 loop
      v := C_OFFSET(c);
      for d in 0 to ND - 1 loop
        v := v + C_COEF(c * ND + d) * digit(d);
      end loop;
      a := a * SPACE(c) + v;
    end loop;
    masked := m;
    addr   := 0 when m else a;
  end procedure;

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
        v := v + G_COEF(g * NC + k) * ctr(k);
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
        v := v + M_COEF(i * ND + d) * dg(d);
      end loop;
      mval(i) := v;
    end loop;
    a := 0;
    for c in 0 to NS - 1 loop
      v := C_OFFSET(c);
      for d in 0 to ND - 1 loop
        v := v + C_COEF(c * ND + d) * dg(d);
      end loop;
      a := a * SPACE(c) + v;
    end loop;
    digit := dg;
    raw   := a;
  end procedure;

  function digit_step(d : natural; NC : positive; G_COEF, D_GROUP, D_DIV : integer_vector) return integer is
  begin
    if D_DIV(d) /= 1 then
      return 0;
    end if;
    return G_COEF(D_GROUP(d) * NC + NC - 1);
  end function;

  function runs_ok(NC, ND : positive; G_COEF, D_GROUP, D_DIV, D_MOD : integer_vector) return boolean is
    variable held : boolean;
  begin
    for d in 0 to ND - 1 loop
      if D_DIV(d) /= 1 and G_COEF(D_GROUP(d) * NC + NC - 1) /= 0 then
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

  function addr_step(NC, ND, NS : positive; G_COEF, D_GROUP, D_DIV, SPACE, C_COEF : integer_vector) return integer is
    variable a, v : integer := 0;
  begin
    for c in 0 to NS - 1 loop
      v := 0;
      for d in 0 to ND - 1 loop
        v := v + C_COEF(c * ND + d) * digit_step(d, NC, G_COEF, D_GROUP, D_DIV);
      end loop;
      a := a * SPACE(c) + v;
    end loop;
    return a;
  end function;

  function mask_step(m : natural; NC, ND : positive; G_COEF, D_GROUP, D_DIV, M_COEF : integer_vector) return integer is
    variable v : integer := 0;
  begin
    for d in 0 to ND - 1 loop
      v := v + M_COEF(m * ND + d) * digit_step(d, NC, G_COEF, D_GROUP, D_DIV);
    end loop;
    return v;
  end function;

  procedure run_window(v0, lo, hi, step : in integer; tmax : in natural;
                       lo_t, hi_t : out integer) is
    variable l, h : integer;
  begin
    if step >= 0 then
      l := lo - v0;
      h := hi - v0;
    else
      l := v0 - hi + 1;
      h := v0 - lo + 1;
    end if;
    lo_t := -1 when l < -1 else tmax + 1 when l > tmax + 1 else l;
    hi_t := -1 when h < -1 else tmax + 1 when h > tmax + 1 else h;
  end procedure;

  procedure advance_run(ctr : inout integer_vector; EXTENTS : in integer_vector; n : in natural; last : out boolean) is
    constant INNER : natural := ctr'high;
  begin
    if ctr(INNER) + n < EXTENTS(INNER) then
      ctr(INNER) := ctr(INNER) + n;
      last       := false;
      return;
    end if;
    ctr(INNER) := 0;
    last       := true;
    for k in INNER - 1 downto ctr'low loop
      if ctr(k) < EXTENTS(k) - 1 then
        ctr(k) := ctr(k) + 1;
        last   := false;
        return;
      end if;
      ctr(k) := 0;
    end loop;
  end procedure;

  procedure advance(ctr : inout integer_vector; EXTENTS : in integer_vector; last : out boolean) is
  begin
    last := true;
    for k in ctr'high downto ctr'low loop
      if ctr(k) < EXTENTS(k) - 1 then
        ctr(k) := ctr(k) + 1;
        last   := false;
        return;
      end if;
      ctr(k) := 0;
    end loop;
  end procedure;
end package body;
