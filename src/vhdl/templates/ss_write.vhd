-- Write: an affine address generator (ss_pkg) and a scatter that writes a stream of
-- LANES-lane vectors (lanes of VBITS bits) to a buffer in external memory, lane 0 first.
--
-- Element i of the buffer occupies EBYTES bytes at BASE + i*EBYTES, little-endian; a lane
-- is sign-extended (or wrapped) to the buffer's BITS. Lanes are combined into a one-line
-- write buffer with byte enables; the line is written (l_req until l_ack) when an element
-- leaves it and after the last element, then `done` rises and stays high until reset.
-- Masked elements are skipped (their lane is dropped).
--
-- Runs, as in ss_read: each cycle takes up to PER_CYCLE consecutive lanes whose elements
-- differ only in the innermost counter, with one affine access for the first; the run
-- ends where ss_read's does (counter wrap, a lowest digit leaving its radix, a mask
-- verdict changing, the lanes of the current vector) and at the end of the buffered
-- line. Its lanes are one variable shift of the vector by the first lane, constant
-- wiring to byte offsets e*SB, and one shift of data and byte enables to the first
-- element's offset in the line. Only forward steps (ASTEP > 0) form runs; stride 0
-- (every element to one address: the last one wins) and backward steps take one
-- element per cycle, as do generics that ss_pkg.runs_ok rejects.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_write is
  generic (
    NC : positive; EXTENTS : integer_vector;
    NG : positive; G_OFFSET : integer_vector; G_COEF : integer_vector;
    ND : positive; D_GROUP : integer_vector; D_DIV : integer_vector; D_MOD : integer_vector;
    NS : positive; SPACE : integer_vector; C_OFFSET : integer_vector; C_COEF : integer_vector;
    NM : natural; M_OFFSET : integer_vector; M_COEF : integer_vector;
    M_LO : integer_vector; M_HI : integer_vector; M_FILL : integer_vector;
    LANES : positive; VBITS : positive; BITS : positive; BASE : natural; EBYTES : positive; PER_CYCLE : positive
  );
  port (
    clk, rst : in std_logic;
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(LANES * VBITS - 1 downto 0);
    -- line port to the memory arbiter (writes only)
    l_req    : out std_logic;
    l_addr   : out std_logic_vector(31 downto 0);
    l_wdata  : out std_logic_vector(LINE_BITS - 1 downto 0);
    l_be     : out std_logic_vector(LINE_BYTES - 1 downto 0);
    l_ack    : in  std_logic;
    done     : out std_logic
  );
end entity;

architecture rtl of ss_write is
  constant K        : natural := NC - 1;  -- the innermost counter
  constant ASTEP    : integer := addr_step(NC, ND, NS, G_COEF, D_GROUP, D_DIV, SPACE, C_COEF);
  constant RUNS     : boolean := runs_ok(NC, ND, G_COEF, D_GROUP, D_DIV, D_MOD) and ASTEP > 0;
  constant MAXRUN   : positive := choose(RUNS, PER_CYCLE, 1);
  constant SB       : natural := abs(ASTEP) * EBYTES;  -- bytes between a run's elements
  constant NMV      : positive := NM + 1;
  constant NO_BYTES : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  constant BE_ONES  : std_logic_vector(EBYTES - 1 downto 0) := (others => '1');
  signal ctr      : integer_vector(0 to NC - 1) := (others => 0);
  signal cur      : std_logic_vector(LANES * VBITS - 1 downto 0) := (others => '0');
  signal left     : natural range 0 to LANES := 0;  -- lanes of `cur` still to write
  signal wbuf     : std_logic_vector(LINE_BITS - 1 downto 0) := (others => '0');
  signal wbe      : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  signal wline    : natural := 0;
  signal flushing : boolean := false;
  signal final    : boolean := false;  -- the last element has been taken
  signal done_r   : std_logic := '0';
begin
  done    <= done_r;
  i_ready <= '1' when left = 0 and not final and not flushing and rst = '0' else '0';

  process (clk)
    variable digit    : integer_vector(0 to ND - 1);
    variable mval     : integer_vector(0 to NMV - 1);
    variable raw      : integer;
    variable masked   : boolean;
    variable byte     : natural;
    variable off      : natural range 0 to LINE_BYTES - 1;
    variable stop     : boolean;
    variable n        : natural range 1 to MAXRUN;
    variable in0, ine : boolean;
    variable lo_t, hi_t, t, st : integer;
    variable vlanes   : unsigned(LANES * VBITS - 1 downto 0);
    variable data     : unsigned(LINE_BITS - 1 downto 0);
    variable be       : unsigned(LINE_BYTES - 1 downto 0);
    variable merged   : std_logic_vector(LINE_BITS - 1 downto 0);
    variable c        : integer_vector(0 to NC - 1);
    variable last     : boolean;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        ctr      <= (others => 0);
        left     <= 0;
        wbe      <= (others => '0');
        flushing <= false;
        final    <= false;
        done_r   <= '0';
        l_req    <= '0';
      elsif flushing then
        if l_ack = '1' then
          l_req    <= '0';
          flushing <= false;
          wbe      <= (others => '0');
          if final then
            done_r <= '1';
          end if;
        end if;
      elsif final then
        if wbe /= NO_BYTES then
          flushing <= true;
          l_req    <= '1';
          l_addr   <= std_logic_vector(to_unsigned(wline * LINE_BYTES, 32));
          l_wdata  <= wbuf;
          l_be     <= wbe;
        else
          done_r <= '1';
        end if;
      elsif left = 0 then
        if i_valid = '1' then
          cur  <= i_data;
          left <= LANES;
        end if;
      else
        -- the run's first element
        affine_values(ctr, NC, NG, ND, NS, NM, G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF,
                      M_OFFSET, M_COEF, digit, raw, mval);
        masked := false;
        for m in 0 to NM - 1 loop
          if mval(m) < M_LO(m) or mval(m) >= M_HI(m) then
            masked := true;
          end if;
        end loop;
        byte := 0;
        off  := 0;
        if not masked then
          byte := BASE + raw * EBYTES;
          off  := byte mod LINE_BYTES;
        end if;
        if not masked and wbe /= NO_BYTES and wline /= byte / LINE_BYTES then
          -- the element leaves the buffered line: write that line first
          flushing <= true;
          l_req    <= '1';
          l_addr   <= std_logic_vector(to_unsigned(wline * LINE_BYTES, 32));
          l_wdata  <= wbuf;
          l_be     <= wbe;
        else
          -- the run's length: the first element e that must not join it
          n    := 1;
          stop := false;
          for e in 1 to MAXRUN - 1 loop
            stop := stop or e >= left or ctr(K) + e >= EXTENTS(K);
            if not masked then  -- the element must be in the same line
              stop := stop or off > LINE_BYTES - EBYTES - e * SB;
            end if;
            for m in 0 to NM - 1 loop  -- every mask's verdict as for the first element
              st := mask_step(m, NC, ND, G_COEF, D_GROUP, D_DIV, M_COEF);
              if st /= 0 then
                run_window(mval(m), M_LO(m), M_HI(m), st, (MAXRUN - 1) * abs(st), lo_t, hi_t);
                in0  := lo_t <= 0 and 0 < hi_t;
                t    := e * abs(st);
                ine  := lo_t <= t and t < hi_t;
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
          if not masked then
            -- lanes LANES - left .. + n - 1 to bytes off + e*SB of the line
            vlanes := shift_right(unsigned(cur), (LANES - left) * VBITS);
            data  := (others => '0');
            be    := (others => '0');
            for e in 0 to MAXRUN - 1 loop
              if e * SB + EBYTES <= LINE_BYTES and e < n then
                data(e * SB * 8 + BITS - 1 downto e * SB * 8) :=
                  unsigned(wrap_to(signed(vlanes(e * VBITS + VBITS - 1 downto e * VBITS)), BITS));
                be(e * SB + EBYTES - 1 downto e * SB) := unsigned(BE_ONES);
              end if;
            end loop;
            data := shift_left(data, off * 8);
            be   := shift_left(be, off);
            merged := wbuf;
            for b in 0 to LINE_BYTES - 1 loop
              if be(b) = '1' then
                merged(b * 8 + 7 downto b * 8) := std_logic_vector(data(b * 8 + 7 downto b * 8));
              end if;
            end loop;
            wbuf  <= merged;
            wbe   <= wbe or std_logic_vector(be);
            wline <= byte / LINE_BYTES;
          end if;
          left  <= left - n;
          c     := ctr;
          advance_run(c, EXTENTS, n, last);
          ctr   <= c;
          final <= last;
        end if;
      end if;
    end if;
  end process;
end architecture;
