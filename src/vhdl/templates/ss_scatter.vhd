-- Scatter: writes a stream of LANES-lane vectors (lanes of VBITS bits) to a buffer in
-- external memory through a stream of element accesses (from ss_addr_gen), lane 0 first.
--
-- Element i of the buffer occupies EBYTES bytes at BASE + i*EBYTES, little-endian; a
-- lane is sign-extended (or wrapped) to the buffer's BITS. Writes are combined in a
-- one-line buffer with byte enables; the line is written (l_req with l_we until l_ack)
-- when an access leaves it and after the last access, then `done` rises and stays high
-- until reset. Masked accesses are skipped (their lane is dropped).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity ss_scatter is
  generic (LANES : positive; VBITS : positive; BITS : positive; BASE : natural; EBYTES : positive);
  port (
    clk, rst : in std_logic;
    -- values
    i_valid  : in  std_logic;
    i_ready  : out std_logic;
    i_data   : in  std_logic_vector(LANES * VBITS - 1 downto 0);
    -- element accesses
    a_valid  : in  std_logic;
    a_ready  : out std_logic;
    a_addr   : in  natural;
    a_masked : in  std_logic;
    a_last   : in  std_logic;
    -- line port to the memory arbiter (writes only)
    l_req    : out std_logic;
    l_addr   : out std_logic_vector(31 downto 0);
    l_wdata  : out std_logic_vector(LINE_BITS - 1 downto 0);
    l_be     : out std_logic_vector(LINE_BYTES - 1 downto 0);
    l_ack    : in  std_logic;
    done     : out std_logic
  );
end entity;

architecture rtl of ss_scatter is
  signal cur        : std_logic_vector(LANES * VBITS - 1 downto 0) := (others => '0');
  signal left       : natural range 0 to LANES := 0;  -- lanes of `cur` still to write
  signal wbuf       : std_logic_vector(LINE_BITS - 1 downto 0) := (others => '0');
  signal wbe        : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  signal wline      : natural := 0;
  signal flushing   : boolean := false;
  signal final      : boolean := false;  -- the last access has been taken
  signal done_r     : std_logic := '0';
  constant NO_BYTES : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  constant ONES     : std_logic_vector(BITS - 1 downto 0) := (others => '1');
  constant BE_ONES  : std_logic_vector(EBYTES - 1 downto 0) := (others => '1');

  function byte_of(addr : natural) return natural is
  begin
    return BASE + addr * EBYTES;
  end function;
begin
  done    <= done_r;
  i_ready <= '1' when left = 0 and not final and not flushing and rst = '0' else '0';

  -- An access is taken when a lane is waiting and the access is masked or its line is
  -- the buffered one (or nothing is buffered).
  process (all)
  begin
    a_ready <= '0';
    if a_valid = '1' and left > 0 and not flushing then
      if a_masked = '1' or wbe = NO_BYTES or wline = byte_of(a_addr) / LINE_BYTES then
        a_ready <= '1';
      end if;
    end if;
  end process;

  process (clk)
    variable off  : natural;
    variable elem : signed(BITS - 1 downto 0);
    variable k    : natural range 0 to LANES - 1;
    variable mask, data : unsigned(LINE_BITS - 1 downto 0);
    variable lanev : unsigned(VBITS - 1 downto 0);
  begin
    if rising_edge(clk) then
      if rst = '1' then
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
      elsif a_valid = '1' then
        if a_masked = '1' or wbe = NO_BYTES or wline = byte_of(a_addr) / LINE_BYTES then
          if a_masked = '0' then
            off  := byte_of(a_addr) mod LINE_BYTES;
            k    := LANES - left;  -- the lane to write
            lanev := shift_right(unsigned(cur), k * VBITS)(VBITS - 1 downto 0);
            elem  := wrap_to(signed(lanev), BITS);
            -- the element's bytes shifted to their place in the line (a barrel shifter)
            mask := shift_left(resize(unsigned(ONES), LINE_BITS), off * 8);
            data := shift_left(resize(unsigned(elem), LINE_BITS), off * 8);
            wbuf <= (wbuf and not std_logic_vector(mask)) or std_logic_vector(data);
            wbe  <= wbe or std_logic_vector(shift_left(resize(unsigned(BE_ONES), LINE_BYTES), off));
            wline <= byte_of(a_addr) / LINE_BYTES;
          end if;
          left <= left - 1;
          if a_last = '1' then
            final <= true;
          end if;
        else
          -- the access leaves the buffered line: write that line first
          flushing <= true;
          l_req    <= '1';
          l_addr   <= std_logic_vector(to_unsigned(wline * LINE_BYTES, 32));
          l_wdata  <= wbuf;
          l_be     <= wbe;
        end if;
      end if;
    end if;
  end process;
end architecture;
