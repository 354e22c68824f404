-- Tag queue: which call each step in flight through a shared instance came from, for an
-- instance whose calls interleave step by step (docs/hardware.md, "Units that start with
-- the unit before them"). A tag goes in with every step the instance takes (`push`) and
-- comes out with its result (`pop`); the instance keeps the steps' order, so `head` is the
-- tag of the result at its output. `last` is the tag pushed last: the call that gave the
-- last step, whose neighbour has the next turn.
-- No step may go in while `full`; `head` means nothing while `empty`.
library ieee;
use ieee.std_logic_1164.all;

entity ss_tag_queue is
  generic (DEPTH : positive; TAGS : positive);
  port (
    clk, rst : in std_logic;
    push     : in  std_logic;
    push_tag : in  natural range 0 to TAGS - 1;
    pop      : in  std_logic;
    head     : out natural range 0 to TAGS - 1;
    last     : out natural range 0 to TAGS - 1;
    empty    : out std_logic;
    full     : out std_logic
  );
end entity;

architecture rtl of ss_tag_queue is
  type queue_t is array (0 to DEPTH - 1) of natural range 0 to TAGS - 1;
  -- no initial value, so that synthesis may map it to LUT-RAM: an entry is read only
  -- after it is written
  signal queue    : queue_t;
  signal rd, wr   : natural range 0 to DEPTH - 1 := 0;
  signal n        : natural range 0 to DEPTH := 0;
  signal last_tag : natural range 0 to TAGS - 1 := 0;
begin
  head  <= queue(rd);
  last  <= last_tag;
  empty <= '1' when n = 0 else '0';
  full  <= '1' when n = DEPTH else '0';

  process (clk)
    variable count : natural range 0 to DEPTH;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        rd <= 0;
        wr <= 0;
        n  <= 0;
      else
        count := n;
        if push = '1' then
          queue(wr) <= push_tag;
          last_tag  <= push_tag;
          wr        <= 0 when wr = DEPTH - 1 else wr + 1;
          count     := count + 1;
        end if;
        if pop = '1' then
          rd    <= 0 when rd = DEPTH - 1 else rd + 1;
          count := count - 1;
        end if;
        n <= count;
      end if;
    end if;
  end process;
end architecture;
