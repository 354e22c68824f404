-- Write: an address generator (ss_agen) and a scatter that writes a stream of LANES-lane
-- vectors (lanes of VBITS bits) to a buffer in external memory, lane 0 first.
--
-- Element i of the buffer occupies EBYTES bytes at BASE + i*EBYTES, little-endian; a lane
-- is sign-extended (or wrapped) to the buffer's BITS. Lanes are merged into a one-line
-- write buffer with byte enables; when a run leaves its line, the line moves to the
-- output register (l_req until l_gnt) and the run starts the next line in the same cycle,
-- so a run is taken every cycle unless the output register still waits for the memory.
-- After the last element the last line is written; `done` rises when it has been taken
-- and stays high until reset. Masked elements are skipped (their lane is dropped).
--
-- `wm` is how far the write has come, for a reader that runs at the same time (an
-- ss_read with GATED, whose `avail` it drives): the byte address after the last line the
-- memory has taken, and all ones once `done`. Every line below it is final when the write
-- visits its lines in rising order, never going back to one (the lowering gates a read
-- only on such a write); a line the memory has taken is seen by every later request.
--
-- Each cycle takes one run of consecutive lanes (ss_agen: one address computation; a run
-- lies in one line): the vector is shifted once to the run's first lane, its lanes go to
-- constant byte offsets (the run table T_A; where two elements of a run share an address
-- the later one wins, as element by element), and data and byte enables are shifted
-- once to the first element's offset in the line and merged into the write buffer. The
-- next vector is taken in the cycle its predecessor's last run is.
--
-- OFF_ALIGN, LANE_ALIGN: the compiler walked every run (lower::writeAlignment) and found
-- the low OFF_ALIGN bits of every written run's byte offset in its line zero, and the low
-- LANE_ALIGN bits of the lane where it starts. The two shifters then move units of
-- 2**OFF_ALIGN bytes and groups of 2**LANE_ALIGN lanes, with that many fewer stages, as
-- ss_read's. A simulation checks the claim on every run it takes.
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
    LANES : positive; VBITS : positive; BITS : positive; BASE : natural; EBYTES : positive; PER_CYCLE : positive;
    OFF_ALIGN : natural := 0; LANE_ALIGN : natural := 0
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
    l_gnt    : in  std_logic;
    done     : out std_logic;
    wm       : out std_logic_vector(31 downto 0)  -- lines below it written (see above)
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
  -- the shifters' stages left by the alignment (OFF_ALIGN, LANE_ALIGN)
  constant LBITS    : positive := bits_for(LANES);
  constant OA       : natural := minimum(OFF_ALIGN, 6);
  constant LA       : natural := minimum(LANE_ALIGN, LBITS);
  signal cur      : std_logic_vector(LANES * VBITS - 1 downto 0) := (others => '0');
  signal left     : natural range 0 to LANES := 0;  -- lanes of `cur` still to write
  signal wbuf     : std_logic_vector(LINE_BITS - 1 downto 0) := (others => '0');
  signal wbe      : std_logic_vector(LINE_BYTES - 1 downto 0) := (others => '0');
  signal wline    : integer := 0;
  signal out_v    : std_logic := '0';  -- the output register holds a line for the memory
  signal done_r   : std_logic := '0';
  signal wm_r     : unsigned(31 downto 0) := (others => '0');
  -- the address generator and this cycle's decision
  signal a_fin, a_masked : boolean;
  signal a_emask  : std_logic_vector(0 to PER_CYCLE - 1);
  signal a_line   : integer;
  signal a_off    : natural range 0 to LINE_BYTES - 1;
  signal a_run, a_runm : natural range 1 to PER_CYCLE;
  signal a_mode   : natural range 0 to RUN_MODES - 1;
  signal out_free : boolean;  -- the output register can take a line at this edge
  signal leave    : boolean;  -- the run (not only masked lanes) lies outside the buffered line
  signal take     : std_logic;
  signal n        : natural range 1 to PER_CYCLE;
  signal last_run : boolean;  -- the run takes the vector's last lanes
begin
  done     <= done_r;
  wm       <= (others => '1') when done_r = '1' else std_logic_vector(wm_r);
  l_req    <= out_v;
  out_free <= out_v = '0' or l_gnt = '1';
  i_ready  <= '1' when rst = '0' and not a_fin and (left = 0 or (take = '1' and last_run)) else '0';

  agen : entity work.ss_agen
    generic map (NC => NC, EXTENTS => EXTENTS, NG => NG, G_OFFSET => G_OFFSET, G_COEF => G_COEF,
                 ND => ND, D_GROUP => D_GROUP, D_DIV => D_DIV, D_MOD => D_MOD,
                 NS => NS, SPACE => SPACE, C_OFFSET => C_OFFSET, C_COEF => C_COEF,
                 NM => NM, M_OFFSET => M_OFFSET, M_COEF => M_COEF, M_LO => M_LO, M_HI => M_HI, M_FILL => M_FILL,
                 BASE => BASE, EBYTES => EBYTES, PER_CYCLE => PER_CYCLE)
    port map (clk => clk, rst => rst, take => take, n => n, finished => a_fin, masked => a_masked,
              emask => a_emask, ehigh => open, efill => open, line => a_line, off => a_off, run => a_run, run2 => open,
              runm => a_runm, mode => a_mode);

  -- A run whose first element is masked takes its masked prefix only (its lanes are
  -- dropped, no line is touched); an accessed run merges into the buffered line, or, when
  -- it lies in another line, moves the buffered one out first (same cycle, if the output
  -- register is free).
  n        <= 1 when left = 0 else minimum(a_runm, left) when a_masked else minimum(a_run, left);
  leave    <= not a_masked and wbe /= NO_BYTES and wline /= a_line;
  take     <= '1' when rst = '0' and not a_fin and left /= 0 and (not leave or out_free) else '0';
  last_run <= left /= 0 and n = left;

  -- pragma translate_off
  alignment : process (clk)
  begin
    if rising_edge(clk) and take = '1' and not a_masked then
      assert (LANES - left) mod 2 ** LA = 0 and a_off mod 2 ** OA = 0
        report "ss_write: a run breaks the alignment the compiler found (OFF_ALIGN, LANE_ALIGN)" severity failure;
    end if;
  end process;
  -- pragma translate_on

  process (clk)
    variable vlanes : unsigned(LANES * VBITS - 1 downto 0);
    variable data   : unsigned(WB * 8 - 1 downto 0);
    variable be     : unsigned(WB - 1 downto 0);
    variable merged : std_logic_vector(LINE_BITS - 1 downto 0);
    variable base_d : std_logic_vector(LINE_BITS - 1 downto 0);
    variable base_e : std_logic_vector(LINE_BYTES - 1 downto 0);
  begin
    if rising_edge(clk) then
      if rst = '1' then
        left   <= 0;
        wbe    <= (others => '0');
        out_v  <= '0';
        done_r <= '0';
        wm_r   <= (others => '0');
      else
        if out_v = '1' and l_gnt = '1' then
          out_v <= '0';
          wm_r  <= unsigned(l_addr) + LINE_BYTES;
        end if;
        if a_fin then
          -- the last line goes out once the output register is free
          if wbe /= NO_BYTES then
            if out_free then
              out_v   <= '1';
              l_addr  <= std_logic_vector(to_unsigned(wline * LINE_BYTES, 32));
              l_wdata <= wbuf;
              l_be    <= wbe;
              wbe     <= (others => '0');
            end if;
          elsif out_v = '0' then
            done_r <= '1';
          end if;
        end if;
        -- the next vector, when the current one is used up (now or by this cycle's run)
        if i_valid = '1' and (left = 0 or (take = '1' and last_run)) and not a_fin then
          cur  <= i_data;
          left <= LANES;
        elsif take = '1' then
          left <= left - n;
        end if;
        if take = '1' and not a_masked then
          -- lanes LANES - left .. + n - 1 to their bytes, the first element at byte BELOW
          vlanes := unsigned(cur);
          if LA < LBITS then
            vlanes := shift_down(vlanes, (LANES - left) / 2 ** LA, VBITS * 2 ** LA, LBITS - LA);
          end if;
          data   := (others => '0');
          be     := (others => '0');
          for e in 0 to MAXRUN - 1 loop
            for md in 0 to RUN_MODES - 1 loop
              -- (e < n as ss_pkg.below, a LUT: compared as numbers, a 7-bit carry chain per e)
              if md = a_mode and not work.ss_pkg.below(n, e + 1, bits_for(PER_CYCLE)) and a_emask(e) = '0' and
                 T_A(md * R + e) * EBYTES + BELOW >= 0 and
                 T_A(md * R + e) * EBYTES < LINE_BYTES then
                data((T_A(md * R + e) * EBYTES + BELOW) * 8 + BITS - 1 downto (T_A(md * R + e) * EBYTES + BELOW) * 8) :=
                  unsigned(wrap_to(signed(vlanes(e * VBITS + VBITS - 1 downto e * VBITS)), BITS));
                be(T_A(md * R + e) * EBYTES + BELOW + EBYTES - 1 downto T_A(md * R + e) * EBYTES + BELOW) := BE_ONES;
              end if;
            end loop;
          end loop;
          -- to the first element's offset: the line is then bytes BELOW .. BELOW + 63
          if OA < 6 then
            data := shift_up(data, a_off / 2 ** OA, 8 * 2 ** OA, 6 - OA);
            be   := shift_up(be, a_off / 2 ** OA, 2 ** OA, 6 - OA);
          end if;
          if leave then
            -- the buffered line goes out; the run starts a new one
            out_v   <= '1';
            l_addr  <= std_logic_vector(to_unsigned(wline * LINE_BYTES, 32));
            l_wdata <= wbuf;
            l_be    <= wbe;
            base_d  := (others => '0');
            base_e  := (others => '0');
          else
            base_d := wbuf;
            base_e := wbe;
          end if;
          merged := base_d;
          for b in 0 to LINE_BYTES - 1 loop
            if be(BELOW + b) = '1' then
              merged(b * 8 + 7 downto b * 8) := std_logic_vector(data((BELOW + b) * 8 + 7 downto (BELOW + b) * 8));
            end if;
          end loop;
          wbuf  <= merged;
          wbe   <= base_e or std_logic_vector(be(BELOW + LINE_BYTES - 1 downto BELOW));
          wline <= a_line;
        end if;
      end if;
    end if;
  end process;
end architecture;
