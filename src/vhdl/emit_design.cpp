// The design's files: the templates, one entity per unit, and the top level with its
// sequencer (units run one after another, in schedule order) and memory arbiter.

#include <fmt/format.h>

#include <cctype>

#include "skeleshare/vhdl/emitter.h"
#include "vhdl_text.h"

namespace skeleshare::vhdl {

std::string vhdlIdentifier(const std::string& text) {
  std::string s;
  for (char c : text) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0;
    char ch = ok ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '_';
    if (ch == '_' && (s.empty() || s.back() == '_')) continue;
    s += ch;
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) s = "d_" + s;
  while (!s.empty() && s.back() == '_') s.pop_back();
  return s;
}

namespace {

std::string topText(const std::string& top, const std::vector<detail::EmittedUnit>& units, const lower::Program& prog) {
  size_t nPorts = 0;
  for (const auto& u : units) nPorts += u.portIsWrite.size();
  std::string we;  // the write flag of every arbiter port, port 0 rightmost
  for (auto u = units.rbegin(); u != units.rend(); ++u)
    for (auto w = u->portIsWrite.rbegin(); w != u->portIsWrite.rend(); ++w) we += *w ? '1' : '0';

  std::string inst;
  size_t first = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    size_t n = units[i].portIsWrite.size(), last = first + n - 1;
    inst += fmt::format(
        "  -- unit {0}: {1}\n"
        "  u{0}_rst <= '1' when rst = '1' or not (busy and current = {0}) else '0';\n"
        "  u{0} : entity work.{2}\n"
        "    port map (clk => clk, rst => u{0}_rst, done => unit_done({0}),\n"
        "              l_req => l_req({4} downto {3}), l_addr => l_addr({6} downto {5}),\n"
        "              l_wdata => l_wdata({8} downto {7}), l_be => l_be({10} downto {9}),\n"
        "              l_ack => l_ack({4} downto {3}), l_rdata => l_rdata);\n",
        i, prog.units[i].name, units[i].entity, first, last, first * 32, last * 32 + 31, first * 512, last * 512 + 511,
        first * 64, last * 64 + 63);
    first += n;
  }
  std::string unitRsts;
  for (size_t i = 0; i < units.size(); ++i) unitRsts += fmt::format("  signal u{}_rst : std_logic;\n", i);

  return fmt::format(
      R"(-- Top level of the skeleshare design (generated; see docs/hardware.md).
--
-- start (a one-cycle pulse while idle) runs the {1} unit(s) of the schedule one after
-- another; done rises when the last has written its results and stays high until the
-- next start. All data moves through the Avalon-MM master: 512-bit words, byte
-- addresses (multiples of 64), single-beat bursts; the memory map is in report.json and
-- in the design's C header.
library ieee;
use ieee.std_logic_1164.all;
use work.ss_pkg.all;

entity {0} is
  port (
    clk   : in  std_logic;
    rst   : in  std_logic;  -- synchronous, active high
    start : in  std_logic;
    done  : out std_logic;
    avm_address       : out std_logic_vector(31 downto 0);
    avm_read          : out std_logic;
    avm_write         : out std_logic;
    avm_writedata     : out std_logic_vector(511 downto 0);
    avm_byteenable    : out std_logic_vector(63 downto 0);
    avm_burstcount    : out std_logic_vector(7 downto 0);
    avm_waitrequest   : in  std_logic;
    avm_readdata      : in  std_logic_vector(511 downto 0);
    avm_readdatavalid : in  std_logic
  );
end entity;

architecture rtl of {0} is
  constant NUNITS : positive := {1};
  constant NPORTS : positive := {2};
  signal busy      : boolean := false;
  signal current   : natural range 0 to NUNITS - 1 := 0;
  signal done_r    : std_logic := '0';
  signal unit_done : std_logic_vector(NUNITS - 1 downto 0);
  signal l_req, l_ack : std_logic_vector(NPORTS - 1 downto 0);
  signal l_addr  : std_logic_vector(NPORTS * 32 - 1 downto 0);
  signal l_wdata : std_logic_vector(NPORTS * LINE_BITS - 1 downto 0) := (others => '0');
  signal l_be    : std_logic_vector(NPORTS * LINE_BYTES - 1 downto 0) := (others => '0');
  signal l_rdata : std_logic_vector(LINE_BITS - 1 downto 0);
{3}begin
  done <= done_r;

  -- the schedule: one unit at a time; a unit not running is held in reset
  sequencer : process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' then
        busy    <= false;
        current <= 0;
        done_r  <= '0';
      elsif not busy then
        if start = '1' then
          busy    <= true;
          current <= 0;
          done_r  <= '0';
        end if;
      elsif unit_done(current) = '1' then
        if current = NUNITS - 1 then
          busy   <= false;
          done_r <= '1';
        else
          current <= current + 1;
        end if;
      end if;
    end if;
  end process;

{4}
  arbiter : entity work.ss_mem_arbiter
    generic map (N => NPORTS)
    port map (clk => clk, rst => rst, l_req => l_req, l_we => "{5}", l_addr => l_addr, l_wdata => l_wdata,
              l_be => l_be, l_ack => l_ack, l_rdata => l_rdata,
              avm_address => avm_address, avm_read => avm_read, avm_write => avm_write,
              avm_writedata => avm_writedata, avm_byteenable => avm_byteenable, avm_burstcount => avm_burstcount,
              avm_waitrequest => avm_waitrequest, avm_readdata => avm_readdata, avm_readdatavalid => avm_readdatavalid);
end architecture;
)",
      top, units.size(), nPorts, unitRsts, inst, we);
}

}  // namespace

EmittedDesign emitDesign(const lower::Program& prog, const EmitOptions& options) {
  if (prog.units.empty()) throw EmitError("the program has no units");
  EmittedDesign d;
  d.design = vhdlIdentifier(options.design);
  d.top = d.design + "_top";
  d.map = layoutMemory(prog);
  if (d.map.totalBytes > (int64_t{1} << 31))
    throw EmitError(fmt::format("the memory map needs {} bytes; the design addresses 2 GiB", d.map.totalBytes));
  for (const std::string& t : detail::designTemplates()) d.files.push_back({t, detail::readTemplate(options.templateDir, t)});
  std::vector<detail::EmittedUnit> units;
  for (size_t i = 0; i < prog.units.size(); ++i) {
    units.push_back(detail::emitUnit(prog, d.map, i, d.design));
    d.dspLanes += units.back().dspLanes;
    d.linePorts += static_cast<int64_t>(units.back().portIsWrite.size());
    d.files.push_back({units.back().entity + ".vhd", units.back().text});
  }
  d.files.push_back({d.top + ".vhd", topText(d.top, units, prog)});
  return d;
}

}  // namespace skeleshare::vhdl
