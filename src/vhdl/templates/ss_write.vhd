-- Write: an affine address generator (ss_pkg.affine_access) and a scatter that writes a
-- stream of LANES-lane vectors (lanes of VBITS bits) to a buffer in external memory,
-- lane 0 first.
--
-- Element i of the buffer occupies EBYTES bytes at BASE + i*EBYTES, little-endian; a lane
-- is sign-extended (or wrapped) to the buffer's BITS. Up to PER_CYCLE lanes per cycle are
-- combined into a one-line write buffer with byte enables; the line is written (l_req
-- until l_ack) when an element leaves it and after the last element, then `done` rises
-- and stays high until reset. Masked elements are skipped (their lane is dropped).
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
  constant NO_BYTES : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  constant ONES     : std_logic_vector(BITS - 1 downto 0) := (others => '1');
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
    variable c      : integer_vector(0 to NC - 1);
    variable lf     : natural range 0 to LANES;
    variable buf    : std_logic_vector(LINE_BITS - 1 downto 0);
    variable be     : std_logic_vector(LINE_BYTES - 1 downto 0);
    variable wl     : natural;
    variable flush  : boolean;
    variable fin    : boolean;
    variable addr   : natural;
    variable masked : boolean;
    variable fill   : integer;
    variable byte   : natural;
    variable last   : boolean;
    variable lanev  : unsigned(VBITS - 1 downto 0);
    variable elem   : signed(BITS - 1 downto 0);
    variable mask, data : unsigned(LINE_BITS - 1 downto 0);
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
        c := ctr; lf := left; buf := wbuf; be := wbe; wl := wline; flush := false; fin := false;
        for e in 1 to PER_CYCLE loop
          exit when lf = 0 or fin;
          affine_access(c, NC, NG, ND, NS, NM, G_OFFSET, G_COEF, D_GROUP, D_DIV, D_MOD, SPACE, C_OFFSET, C_COEF,
                        M_OFFSET, M_COEF, M_LO, M_HI, M_FILL, addr, masked, fill);
          if not masked then
            byte := BASE + addr * EBYTES;
            if be /= NO_BYTES and wl /= byte / LINE_BYTES then
              flush := true;  -- the element leaves the buffered line: write that line first
              exit;
            end if;
            lanev := shift_right(unsigned(cur), (LANES - lf) * VBITS)(VBITS - 1 downto 0);
            elem  := wrap_to(signed(lanev), BITS);
            -- the element's bytes shifted to their place in the line (a barrel shifter)
            mask := shift_left(resize(unsigned(ONES), LINE_BITS), (byte mod LINE_BYTES) * 8);
            data := shift_left(resize(unsigned(elem), LINE_BITS), (byte mod LINE_BYTES) * 8);
            buf  := (buf and not std_logic_vector(mask)) or std_logic_vector(data);
            be   := be or std_logic_vector(shift_left(resize(unsigned(BE_ONES), LINE_BYTES), byte mod LINE_BYTES));
            wl   := byte / LINE_BYTES;
          end if;
          lf := lf - 1;
          advance(c, EXTENTS, last);
          fin := last;
        end loop;
        ctr   <= c;
        left  <= lf;
        wbuf  <= buf;
        wbe   <= be;
        wline <= wl;
        final <= fin;
        if flush then
          flushing <= true;
          l_req    <= '1';
          l_addr   <= std_logic_vector(to_unsigned(wl * LINE_BYTES, 32));
          l_wdata  <= buf;
          l_be     <= be;
        end if;
      end if;
    end if;
  end process;
end architecture;
