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
end package body;
