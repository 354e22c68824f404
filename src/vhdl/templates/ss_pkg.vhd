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

  -- The next counter tuple in row-major order; `last` when ctr was the final one (ctr
  -- then wraps to all zeros).
  procedure advance(ctr : inout integer_vector; EXTENTS : in integer_vector; last : out boolean);
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
