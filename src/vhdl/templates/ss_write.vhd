-- Write: an address generator (ss_agen) and a scatter that writes a stream of LANES-lane
-- vectors (lanes of VBITS bits) to a buffer in external memory, lane 0 first.
--
-- Element i of the buffer occupies EBYTES bytes at BASE + i*EBYTES, little-endian; a lane
-- is sign-extended (or wrapped) to the buffer's BITS. Lanes are combined into a one-line
-- write buffer with byte enables; the line is written (l_req until l_ack) when an element
-- leaves it and after the last element, then `done` rises and stays high until reset.
-- Masked elements are skipped (their lane is dropped).
--
-- Each cycle takes one run of consecutive lanes (ss_agen: one address computation; a run
-- lies in one line): the vector is shifted once to the run's first lane, its lanes go to
-- constant byte offsets (the run table T_A; where two elements of a run share an address
-- the later one wins, as element by element), and data and byte enables are shifted
-- once to the first element's offset in the line and merged into the write buffer.
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
  constant MAXRUN   : positive := run_lanes(NC, ND, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD);
  constant R        : positive := MAXRUN + 1;
  constant T_A      : integer_vector := run_addr_table(NC, ND, NS, PER_CYCLE, EXTENTS, G_COEF, D_GROUP, D_DIV, D_MOD,
                                                       SPACE, C_COEF);
  constant BELOW    : natural := minimum(LINE_BYTES - 1, -table_min(T_A, 0, RUN_MODES * R) * EBYTES);
  constant WB       : positive := BELOW + 2 * LINE_BYTES;  -- bytes of the alignment window
  constant NO_BYTES : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  constant BE_ONES  : unsigned(EBYTES - 1 downto 0) := (others => '1');
  signal cur      : std_logic_vector(LANES * VBITS - 1 downto 0) := (others => '0');
  signal left     : natural range 0 to LANES := 0;  -- lanes of `cur` still to write
  signal wbuf     : std_logic_vector(LINE_BITS - 1 downto 0) := (others => '0');
  signal wbe      : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  signal wline    : integer := 0;
  signal flushing : boolean := false;
  signal done_r   : std_logic := '0';
  -- the address generator and this cycle's decision
  signal a_fin, a_masked : boolean;
  signal a_emask  : std_logic_vector(0 to PER_CYCLE - 1);
  signal a_line   : integer;
  signal a_off    : natural range 0 to LINE_BYTES - 1;
  signal a_run, a_runm : natural range 1 to PER_CYCLE;
  signal same     : boolean;  -- the run may use the write buffer's line
  signal a_mode   : natural range 0 to RUN_MODES - 1;
  signal take     : std_logic;
  signal n        : natural range 1 to PER_CYCLE;
begin
  done    <= done_r;
  i_ready <= '1' when left = 0 and not a_fin and not flushing and rst = '0' else '0';

  agen : entity work.ss_agen
    generic map (NC => NC, EXTENTS => EXTENTS, NG => NG, G_OFFSET => G_OFFSET, G_COEF => G_COEF,
                 ND => ND, D_GROUP => D_GROUP, D_DIV => D_DIV, D_MOD => D_MOD,
                 NS => NS, SPACE => SPACE, C_OFFSET => C_OFFSET, C_COEF => C_COEF,
                 NM => NM, M_OFFSET => M_OFFSET, M_COEF => M_COEF, M_LO => M_LO, M_HI => M_HI, M_FILL => M_FILL,
                 BASE => BASE, EBYTES => EBYTES, PER_CYCLE => PER_CYCLE)
    port map (clk => clk, rst => rst, take => take, n => n, finished => a_fin, masked => a_masked,
              emask => a_emask, efill => open, line => a_line, off => a_off, run => a_run, run2 => open,
              runm => a_runm, mode => a_mode);

  -- a run whose first element is masked and lies in another line than the buffered one
  -- takes its masked prefix only (its lanes are dropped)
  same <= wbe = NO_BYTES or wline = a_line;
  take <= '1' when rst = '0' and not flushing and not a_fin and left /= 0 and (a_masked or same) else '0';
  n    <= 1 when left = 0 else minimum(a_run, left) when same else minimum(a_runm, left);

  process (clk)
    variable vlanes : unsigned(LANES * VBITS - 1 downto 0);
    variable data   : unsigned(WB * 8 - 1 downto 0);
    variable be     : unsigned(WB - 1 downto 0);
    variable merged : std_logic_vector(LINE_BITS - 1 downto 0);
  begin
    if rising_edge(clk) then
      if rst = '1' then
        left     <= 0;
        wbe      <= (others => '0');
        flushing <= false;
        done_r   <= '0';
        l_req    <= '0';
      elsif flushing then
        if l_ack = '1' then
          l_req    <= '0';
          flushing <= false;
          wbe      <= (others => '0');
          if a_fin then
            done_r <= '1';
          end if;
        end if;
      elsif a_fin then
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
      elsif take = '0' then
        -- the run leaves the buffered line: write that line first
        flushing <= true;
        l_req    <= '1';
        l_addr   <= std_logic_vector(to_unsigned(wline * LINE_BYTES, 32));
        l_wdata  <= wbuf;
        l_be     <= wbe;
      else
        if same then
          -- lanes LANES - left .. + n - 1 to their bytes, the first element at byte BELOW
          vlanes := shift_down(unsigned(cur), LANES - left, VBITS, bits_for(LANES));
          data   := (others => '0');
          be     := (others => '0');
          for e in 0 to MAXRUN - 1 loop
            for md in 0 to RUN_MODES - 1 loop
              if md = a_mode and e < n and a_emask(e) = '0' and T_A(md * R + e) * EBYTES + BELOW >= 0 and
                 T_A(md * R + e) * EBYTES < LINE_BYTES then
                data((T_A(md * R + e) * EBYTES + BELOW) * 8 + BITS - 1 downto (T_A(md * R + e) * EBYTES + BELOW) * 8) :=
                  unsigned(wrap_to(signed(vlanes(e * VBITS + VBITS - 1 downto e * VBITS)), BITS));
                be(T_A(md * R + e) * EBYTES + BELOW + EBYTES - 1 downto T_A(md * R + e) * EBYTES + BELOW) := BE_ONES;
              end if;
            end loop;
          end loop;
          -- to the first element's offset: the line is then bytes BELOW .. BELOW + 63
          data   := shift_up(data, a_off, 8, 6);
          be     := shift_up(be, a_off, 1, 6);
          merged := wbuf;
          for b in 0 to LINE_BYTES - 1 loop
            if be(BELOW + b) = '1' then
              merged(b * 8 + 7 downto b * 8) := std_logic_vector(data((BELOW + b) * 8 + 7 downto (BELOW + b) * 8));
            end if;
          end loop;
          wbuf  <= merged;
          wbe   <= wbe or std_logic_vector(be(BELOW + LINE_BYTES - 1 downto BELOW));
          wline <= a_line;
        end if;
        left <= left - n;
      end if;
    end if;
  end process;
end architecture;
