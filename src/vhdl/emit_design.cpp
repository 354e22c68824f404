// The design's files: the templates, one entity per unit, and the top level with its
// sequencer (units run one after another, in schedule order) and memory arbiter.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "skeleshare/lower/line_rams.h"
#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/replay_pool.h"
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

std::string quartusScript(const EmittedDesign& d) {
  std::string s = fmt::format(
      "# Quartus Prime project for the skeleshare design '{0}' (generated; docs/hardware.md).\n"
      "# Run in this directory: quartus_sh -t {0}_quartus.tcl, then quartus_sh --flow compile {0}\n"
      "project_new {0} -overwrite\n"
      "set_global_assignment -name FAMILY \"Arria 10\"\n"
      "set_global_assignment -name DEVICE 10AX115N2F40E2LG\n"
      "set_global_assignment -name TOP_LEVEL_ENTITY {1}\n"
      "set_global_assignment -name VHDL_INPUT_VERSION VHDL_2008\n",
      d.design, d.top);
  for (const auto& f : d.files) s += fmt::format("set_global_assignment -name VHDL_FILE {}\n", f.name);
  return s + "project_close\n";
}

namespace {

using lower::Prim;

/// How a call unit talks to its instance: the call site's nodes that feed the instance's
/// ports (distinct outside operands of the datapath, in order of first use), the result
/// node, and the accumulation length of every ReduceStm of the datapath.
struct CallPorts {
  std::vector<uint32_t> ports;
  uint32_t result = 0;
  std::vector<std::pair<uint32_t, int64_t>> lengths;  // datapath ReduceStm node, its length in this call
};

CallPorts callPorts(const lower::Unit& u) {
  const auto& dp = u.call->datapath;
  if (dp.empty()) throw EmitError(fmt::format("call '{}' has an empty datapath", u.name));
  auto inside = [&](uint32_t n) { return std::find(dp.begin(), dp.end(), n) != dp.end(); };
  CallPorts c;
  c.result = dp.back();
  c.ports = lower::callOperands(u);
  for (uint32_t n : dp) {
    const lower::Node& node = u.nodes.at(n);
    if (node.prim == Prim::ReduceStm) {
      const auto& t = u.nodes[node.operands[0]].type;
      c.lengths.push_back({n, t.dims[t.numStreamDims() - 1].extent});
    }
  }
  // Only the result may leave the datapath.
  for (size_t j = 0; j < u.nodes.size(); ++j)
    if (!inside(static_cast<uint32_t>(j)))
      for (uint32_t o : u.nodes[j].operands)
        if (inside(o) && o != c.result)
          throw EmitError(fmt::format("call '{}': node %{} uses datapath node %{}, which is not the result", u.name, j, o));
  return c;
}

/// The replay-pool RAM whose read data is node n's data in unit u (n a pooled Repeat, or a
/// split or join of one): its read-data signal in the top, or empty.
std::string poolDataOf(const lower::ReplayPool& pool, const lower::Unit& unit, size_t u, uint32_t n) {
  const std::optional<uint32_t> repeat = lower::replayedRepeat(unit, n);
  if (!repeat) return {};
  auto it = pool.slotOf.find({u, *repeat});
  return it == pool.slotOf.end() ? std::string() : fmt::format("r{}_rdata", it->second);
}

/// Whether nodes of the unit's own (not its call's datapath) consume the data of Repeat n,
/// through splits and joins. A call's replayed operand that only the instance consumes
/// does not: the instance reads it from the pool RAM (poolDataOf).
bool unitReadsReplay(const lower::Unit& unit, uint32_t n) {
  auto inDatapath = [&](size_t j) {
    return unit.call && std::binary_search(unit.call->datapath.begin(), unit.call->datapath.end(), static_cast<uint32_t>(j));
  };
  std::vector<bool> chain(unit.nodes.size(), false);
  chain.at(n) = true;
  for (size_t j = n + 1; j < unit.nodes.size(); ++j) {  // operands come before their users
    const lower::Node& node = unit.nodes[j];
    bool fed = false;
    for (uint32_t o : node.operands) fed = fed || chain[o];
    if (!fed || inDatapath(j)) continue;
    if (!lower::reshapesOnly(node.prim)) return true;
    chain[j] = true;
  }
  return false;
}

/// Unit u is running (started and not finished): `act(u)`, the top's vector.
std::string active(size_t u) { return fmt::format("act({}) = '1'", u); }

std::string orWhen(const std::vector<size_t>& units) {
  std::string s;
  for (size_t u : units) s += (s.empty() ? "" : " or ") + active(u);
  return s;
}

/// `target <= v0 when c0 else v1 when c1 else ... otherwise;`, a choice a line, indented
/// by `indent`.
std::string whenElse(const std::string& indent, const std::string& target,
                     const std::vector<std::pair<std::string, std::string>>& choices, const std::string& otherwise) {
  std::string s = indent + target + " <= ";
  for (const auto& [v, c] : choices) s += fmt::format("{} when {} else\n{}  ", v, c, indent);
  return s + otherwise + ";\n";
}

/// A multiplexer over units: `value(u)` of the first unit whose `when(u)` holds, `idle`
/// if none does. Where units share a value (calls that read the same pool RAM), the first
/// holding unit is picked once, as the index of its value (`pick`), and the data chooses
/// by that index: a bit of VGG-CIFAR's 16,384-bit operand then depends on its 3 sources
/// and 2 index bits (one LUT) instead of a 13-deep priority chain over the units' activity
/// (about two).
std::string muxOver(const std::string& target, const std::vector<size_t>& units,
                    const std::function<std::string(size_t)>& when, const std::function<std::string(size_t)>& value,
                    const std::string& idle) {
  std::vector<std::string> values;                        // distinct, in the order of their first unit
  std::vector<std::pair<std::string, std::string>> picks;  // per unit: its value's index, when it holds
  std::vector<std::pair<std::string, std::string>> direct;  // per unit: its value, when it holds
  for (size_t u : units) {
    const std::string v = value(u);
    auto at = std::find(values.begin(), values.end(), v);
    picks.emplace_back(std::to_string(at - values.begin()), when(u));
    direct.emplace_back(v, when(u));
    if (at == values.end()) values.push_back(v);
  }
  if (values.size() == units.size()) return whenElse("  ", target, direct, idle);
  std::vector<std::pair<std::string, std::string>> data;
  for (size_t k = 0; k < values.size(); ++k) data.emplace_back(values[k], fmt::format("pick = {}", k));
  return fmt::format("  {0}_mux : block\n    signal pick : natural range 0 to {1};\n  begin\n", target, values.size()) +
         whenElse("    ", "pick", picks, std::to_string(values.size())) + whenElse("    ", target, data, idle) +
         "  end block;\n";
}

/// Call u of an instance holds it: it runs, and the call before it, if that is the unit
/// before it and runs beside it, is finished (two calls hand the instance over when the
/// first is finished).
std::string holds(const std::vector<size_t>& calls, size_t u) {
  const bool afterNeighbour = std::find(calls.begin(), calls.end(), u - 1) != calls.end();
  return u > 0 && afterNeighbour ? fmt::format("{} and act({}) = '0'", active(u), u - 1) : active(u);
}

struct TopParts {
  std::string decls, body;
};

/// How the calls of one instance take its streams. Where a call starts with the call before
/// it and their accumulation lengths agree (`piped`), the instance is handed over stream by
/// stream: the call takes an input port once the call before it has fed that port all its
/// transfers, and the results once the call before it has taken all of its, so its inputs
/// enter while the call before it drains (the datapath keeps its order). The top counts
/// those transfers: `u<v>_<side>_all` (side `ip<p>` or `ir`) says that call v is through.
struct Handover {
  std::vector<size_t> calls;
  std::set<size_t> piped;  // calls handed the instance stream by stream
  // Set (the instance's signal prefix) when the calls interleave step by step instead
  // (Interleave below): the inputs go to the call that `<ik>_t<u>` names, the results to
  // the call at the head of the tag queue.
  std::string interleaved;

  /// Call u holds the instance's stream `side`.
  std::string takes(size_t u, const std::string& side) const {
    if (!interleaved.empty())
      return side == "ir" ? fmt::format("{0}_tag_none = '0' and {0}_tag = {1}", interleaved, u)
                          : fmt::format("{}_t{} = '1'", interleaved, u);
    std::string c = piped.count(u) ? fmt::format("{} and (act({}) = '0' or u{}_{}_all = '1')", active(u), u - 1, u - 1, side)
                                   : holds(calls, u);
    if (piped.count(u + 1)) c += fmt::format(" and u{}_{}_all = '0'", u, side);
    return c;
  }
  /// A multiplexer over the calls on stream `side`: `value(u)` while call u holds it.
  std::string mux(const std::string& target, const std::string& side, const std::function<std::string(size_t)>& value,
                  const std::string& idle) const {
    return muxOver(target, calls, [&](size_t u) { return takes(u, side); }, value, idle);
  }
  /// The counter of call v's transfers on `side` (`n` of them), which the call after it waits on.
  static void count(TopParts& t, size_t v, const std::string& side, int64_t n) {
    const std::string c = fmt::format("u{}_{}", v, side);
    t.decls += fmt::format("  signal {0}_n : natural range 0 to {1};\n  signal {0}_all : std_logic;\n", c, n);
    t.body += fmt::format(
        "  {0}_count : process (clk)\n  begin\n    if rising_edge(clk) then\n      if act({1}) = '0' then\n"
        "        {0}_n <= 0;\n      elsif {0}_valid = '1' and {0}_ready = '1' then\n        {0}_n <= {0}_n + 1;\n"
        "      end if;\n    end if;\n  end process;\n  {0}_all <= '1' when {0}_n = {2} else '0';\n",
        c, v, n);
  }
};

/// The step-by-step interleaving of an instance's calls (lower::stepsInterleave): each
/// cycle, a running call whose every port has a transfer ready (`<ik>_ready<u>`) gives the
/// instance that step (`<ik>_t<u>`); when both neighbours have one, the earlier call, or,
/// for the schedule's last two units, the one that did not give the last step (measured:
/// self-attention 830 -> 814 cycles, the stencil 300 -> 291, against turns everywhere;
/// the stencil took 304 with the earlier call first everywhere). At most two calls run at
/// once, and they are neighbours (lower/overlap.h), so at most one takes. A tag queue
/// (ss_tag_queue) of the calls whose steps are in flight routes each result to its call
/// (`<ik>_tag`). It holds 32 steps; when it is full no step goes in (the instance holds
/// fewer in its pipeline).
TopParts interleave(const std::string& ik, const std::vector<size_t>& calls, size_t ports, size_t units) {
  TopParts t;
  t.decls += fmt::format("  signal {0}_tag, {0}_tag_in, {0}_last : natural range 0 to {1};\n"
                         "  signal {0}_tag_none, {0}_tag_full : std_logic;\n",
                         ik, units - 1);
  t.body += fmt::format("  -- shared instance {}'s calls interleave step by step: a running call with a whole step ready\n"
                        "  -- gives it, the earlier of two neighbours first (the last two take turns); the tag queue says\n"
                        "  -- whose result comes out next\n",
                        ik.substr(1));
  for (size_t j = 0; j < calls.size(); ++j) {
    const size_t u = calls[j];
    t.decls += fmt::format("  signal {0}_ready{1}, {0}_t{1} : std_logic;\n", ik, u);
    std::string ready;
    for (size_t p = 0; p < ports; ++p) ready += fmt::format(" and u{}_ip{}_valid = '1'", u, p);
    t.body += fmt::format("  {0}_ready{1} <= '1' when {2}{3} and {0}_tag_full = '0' else '0';\n", ik, u, active(u), ready);
    // Of two neighbours, the earlier call's steps go first: the unit after the pair starts
    // only once the earlier call ends (at most two run at once). The schedule's last two
    // units take turns instead (each yields to the other if it gave the last step): nothing
    // waits for the earlier one, and the last call's writes then share the port with the
    // earlier call's rather than all following them.
    auto earlierFirst = [&](size_t pair) { return calls[pair + 1] + 1 < units; };
    std::string yield;
    if (j > 0)
      yield += earlierFirst(j - 1) ? fmt::format(" and {0}_ready{1} = '0'", ik, calls[j - 1])
                                   : fmt::format(" and not ({0}_ready{1} = '1' and {0}_last /= {1})", ik, calls[j - 1]);
    if (j + 1 < calls.size() && !earlierFirst(j))
      yield += fmt::format(" and not ({0}_ready{1} = '1' and {0}_last = {2})", ik, calls[j + 1], u);
    t.body += fmt::format("  {0}_t{1} <= '1' when {0}_ready{1} = '1'{2} else '0';\n", ik, u, yield);
  }
  t.body += muxOver(ik + "_tag_in", calls, [&](size_t u) { return fmt::format("{}_t{} = '1'", ik, u); },
                    [](size_t u) { return std::to_string(u); }, "0");
  t.body += fmt::format(
      "  {0}_tags : entity work.ss_tag_queue\n"
      "    generic map (DEPTH => 32, TAGS => {1})\n"
      "    port map (clk => clk, rst => {0}_rst, push => {0}_p0_valid and {0}_p0_ready, push_tag => {0}_tag_in,\n"
      "              pop => {0}_r_valid and {0}_r_ready, head => {0}_tag, last => {0}_last, empty => {0}_tag_none,\n"
      "              full => {0}_tag_full);\n",
      ik, units);
  return t;
}

/// A multiplexer over the calls of an instance: `value(u)` while call u holds it.
std::string muxOverCalls(const std::string& target, const std::vector<size_t>& calls,
                         const std::function<std::string(size_t)>& value, const std::string& idle) {
  return muxOver(target, calls, [&](size_t u) { return holds(calls, u); }, value, idle);
}

/// The write flags of the given line ports as a VHDL bit-string literal's contents, the
/// first port rightmost.
std::string writeFlags(const std::vector<bool>& isWrite, const std::vector<size_t>& ports) {
  std::string we;
  for (auto p = ports.rbegin(); p != ports.rend(); ++p) we += isWrite[*p] ? '1' : '0';
  return we;
}

/// Signals `<prefix>_req` ... `<prefix>_be` that carry the given line ports (of the top's
/// l_* vectors) to one memory, and its grants and read strobes back to them.
TopParts routePorts(const std::string& prefix, const std::vector<size_t>& ports) {
  TopParts t;
  const size_t n = ports.size();
  t.decls += fmt::format(
      "  signal {0}_req, {0}_gnt, {0}_rvalid : std_logic_vector({1} downto 0);\n"
      "  signal {0}_addr  : std_logic_vector({2} downto 0);\n"
      "  signal {0}_wdata : std_logic_vector({3} downto 0);\n"
      "  signal {0}_be    : std_logic_vector({4} downto 0);\n",
      prefix, n - 1, n * 32 - 1, n * 512 - 1, n * 64 - 1);
  for (size_t j = 0; j < n; ++j) {
    const size_t p = ports[j];
    t.body += fmt::format(
        "  {0}_req({1}) <= l_req({2}); l_gnt({2}) <= {0}_gnt({1}); l_rvalid({2}) <= {0}_rvalid({1});\n"
        "  {0}_addr({3} downto {4}) <= l_addr({5} downto {6});\n"
        "  {0}_wdata({7} downto {8}) <= l_wdata({9} downto {10});\n"
        "  {0}_be({11} downto {12}) <= l_be({13} downto {14});\n",
        prefix, j, p, j * 32 + 31, j * 32, p * 32 + 31, p * 32, j * 512 + 511, j * 512, p * 512 + 511, p * 512,
        j * 64 + 63, j * 64, p * 64 + 63, p * 64);
  }
  return t;
}

/// The replay pool's RAMs (lower/replay_pool.h): one ss_replay_ram per slot, driven by
/// the unit that is running. A unit's buffer in slot s is on its ports `r<s>_*`; the top
/// connects them to `u<unit>_r<s>_*` and those, through a multiplexer over the slot's
/// units, to the RAM; the RAM's read data goes to all of them.
TopParts replayPoolParts(const lower::Program& prog, const lower::ReplayPool& pool,
                         std::vector<std::string>& unitExtraPorts) {
  TopParts t;
  for (size_t s = 0; s < pool.slots.size(); ++s) {
    const lower::ReplaySlot& slot = pool.slots[s];
    const std::string r = fmt::format("r{}", s);
    std::vector<size_t> units;
    std::string names;
    for (const auto& [u, node] : slot.users) {
      units.push_back(u);
      names += fmt::format("{}u{}", names.empty() ? "" : ", ", u);
    }
    t.decls += fmt::format(
        "  signal {0}_we, {0}_re : std_logic;\n  signal {0}_waddr, {0}_raddr : natural range 0 to {1};\n"
        "  signal {0}_wdata, {0}_rdata : std_logic_vector({2} downto 0);\n",
        r, slot.words - 1, slot.width - 1);
    // Written in beats (lower::ReplaySlot::beats): a unit's port carries the beat it
    // writes, which goes to every beat's place of the RAM's wdata; wmask picks the beats.
    const bool inBeats = slot.beats > 1;
    if (inBeats) t.decls += fmt::format("  signal {}_wmask : std_logic_vector({} downto 0);\n", r, slot.beats - 1);
    t.body += fmt::format("  -- replay pool slot {}: {} words of {} bits, for {}\n", s, slot.words, slot.width, names);
    for (const auto& [u, node] : slot.users) {
      // the unit's ports' own subtypes: ghdl synth names a port's net after its actual, and
      // an actual of another range became a second net of the same name in its Verilog
      const int64_t words = lower::replayShape(prog.units[u], prog.units[u].nodes.at(node)).words;
      // (In a slot written in beats, u<u>_r<s>_wdata is the unit's beat, and _wrep the beat
      // at every beat's place: ghdl synth names the port's net u<u>_r<s>_wdata whatever its
      // actual is called.)
      const int64_t beat = inBeats ? slot.width / pool.beatsOf.at({u, node}) : slot.width;
      t.decls += fmt::format(
          "  signal u{0}_{1}_we, u{0}_{1}_re : std_logic;\n  signal u{0}_{1}_waddr, u{0}_{1}_raddr : natural range 0 to {3};\n"
          "  signal u{0}_{1}_wdata : std_logic_vector({2} downto 0);\n",
          u, r, beat - 1, words - 1);
      if (inBeats) {
        t.decls += fmt::format("  signal u{0}_{1}_wrep : std_logic_vector({2} downto 0);\n"
                               "  signal u{0}_{1}_wmask : std_logic_vector({3} downto 0);\n",
                               u, r, slot.width - 1, slot.beats - 1);
        t.body += fmt::format(
            "  u{0}_{1}_wbeats : for k in 0 to {2} generate\n"
            "    u{0}_{1}_wrep((k + 1) * {3} - 1 downto k * {3}) <= u{0}_{1}_wdata;\n  end generate;\n",
            u, r, slot.width / beat - 1, beat);
      }
      // The read data goes to every unit of the slot. A simulator gives it to the running
      // unit only: the others are held in reset and the top selects the running unit's
      // streams, but their wiring (a Broadcast of the replayed vector) would follow every
      // read, in every unit, a copy of the whole word each. (A unit that only passes the
      // data on to its instance reads none of it: the instance takes it from the RAM.)
      std::string rdata = r + "_rdata";
      if (units.size() > 1 && unitReadsReplay(prog.units[u], node)) {
        rdata = fmt::format("u{}_{}_rdata", u, r);
        t.decls += fmt::format("  signal {} : std_logic_vector({} downto 0);\n", rdata, slot.width - 1);
        t.body += fmt::format(
            "  {0}_sim : if SIMULATING generate\n"
            "    process ({1}_rdata, act)\n    begin\n      if act({2}) = '1' then\n        {0} <= {1}_rdata;\n"
            "      end if;\n    end process;\n"
            "  else generate\n    {0} <= {1}_rdata;\n  end generate;\n",
            rdata, r, u);
      }
      unitExtraPorts[u] += fmt::format(
          ",\n              {1}_we => u{0}_{1}_we, {1}_re => u{0}_{1}_re, {1}_waddr => u{0}_{1}_waddr, "
          "{1}_raddr => u{0}_{1}_raddr,\n              {1}_wdata => u{0}_{1}_wdata, {1}_rdata => {2}{3}",
          u, r, rdata, inBeats ? fmt::format(", {1}_wmask => u{0}_{1}_wmask", u, r) : std::string());
    }
    // each port of the RAM, and its value while none of the slot's units runs
    std::vector<std::pair<const char*, const char*>> ports = {
        {"we", "'0'"}, {"re", "'0'"}, {"waddr", "0"}, {"raddr", "0"}, {"wdata", "(others => '0')"}};
    if (inBeats) ports.push_back({"wmask", "(others => '0')"});
    // The data of the units that write the fewest beats (whole words) is chosen first: the
    // choices among the others are then the same for every beat's place, one set of
    // multiplexers that synthesis shares between them.
    std::vector<size_t> byBeats = units;
    std::stable_sort(byBeats.begin(), byBeats.end(), [&](size_t a, size_t b) {
      auto beatsOf = [&](size_t u) {
        for (const auto& [uu, node] : slot.users)
          if (uu == u) return pool.beatsOf.at({uu, node});
        return int64_t{1};
      };
      return beatsOf(a) < beatsOf(b);
    });
    for (const auto& [port, idle] : ports) {
      const std::string target = fmt::format("{}_{}", r, port);
      const bool wdata = std::string(port) == "wdata";
      auto source = [&](size_t u) {
        return inBeats && wdata ? fmt::format("u{}_{}_wrep", u, r) : fmt::format("u{}_{}", u, target);
      };
      if (units.size() == 1)
        t.body += fmt::format("  {} <= {};\n", target, source(units[0]));
      else
        t.body += muxOverCalls(target, wdata ? byBeats : units, source, idle);
    }
    t.body += detail::replayRamInstance(r, slot.width, slot.words, r + "_rdata", slot.beats);
  }
  return t;
}

std::string topText(const std::string& top, const std::vector<detail::EmittedUnit>& units, const lower::Program& prog,
                    const MemoryMap& map, std::vector<std::string> unitExtraPorts, const TopParts& shared,
                    const TopParts& replay) {
  // Every line port, in port order (unit by unit), and the memory that serves it: the
  // external one through the arbiter, or the RAM of an on-chip buffer, which it shares
  // with the buffers whose lives do not overlap its own (lower/line_rams.h).
  const lower::LineRamPlan rams = lower::planLineRams(prog);
  auto ramOf = [&](int b) {
    const int r = rams.ramOf.at(static_cast<size_t>(b));
    if (r < 0) throw EmitError(fmt::format("on-chip buffer '{}' has no RAM", map.regions.at(static_cast<size_t>(b)).name));
    return r;
  };
  std::vector<bool> isWrite;
  std::vector<size_t> external;
  std::map<int, std::vector<size_t>> onChip;  // line RAM -> its ports
  std::vector<int> portBuffer;                // per port: the buffer it accesses
  std::vector<size_t> portUnit;               // per port: its unit
  for (size_t i = 0; i < units.size(); ++i) {
    const auto& u = units[i];
    for (size_t p = 0; p < u.portIsWrite.size(); ++p) {
      const int b = u.portBuffer.at(p);
      portUnit.push_back(i);
      if (map.regions.at(static_cast<size_t>(b)).onChip)
        onChip[ramOf(b)].push_back(isWrite.size());
      else
        external.push_back(isWrite.size());
      isWrite.push_back(u.portIsWrite[p]);
      portBuffer.push_back(b);
    }
    for (size_t k = 0; k < u.onChipReads.size(); ++k)
      unitExtraPorts[i] += fmt::format(", l_odata({} downto {}) => m{}_rdata", k * 512 + 511, k * 512,
                                       ramOf(u.portBuffer.at(u.onChipReads[k])));
  }
  const size_t nPorts = isWrite.size();
  if (external.empty()) throw EmitError("the design writes nothing to the external memory");
  // The external memory's ports: all of them unless some buffer is on chip.
  TopParts memory;
  std::string ext = "l";
  if (!onChip.empty()) {
    ext = "e";
    TopParts r = routePorts(ext, external);
    memory.decls += r.decls;
    memory.body += r.body;
  }
  for (const auto& [ram, ports] : onChip) {
    const std::string prefix = fmt::format("m{}", ram);
    std::string names;
    for (int b : rams.rams.at(static_cast<size_t>(ram)).buffers)
      names += (names.empty() ? "" : ", ") + map.regions.at(static_cast<size_t>(b)).name;
    std::vector<int64_t> bases;  // per port, its buffer's region (all from the RAM's first line)
    for (size_t p : ports) bases.push_back(map.regions.at(static_cast<size_t>(portBuffer[p])).base);
    TopParts t = routePorts(prefix, ports);
    memory.decls += t.decls + fmt::format("  signal {}_rdata : std_logic_vector(LINE_BITS - 1 downto 0);\n", prefix);
    memory.body += t.body;
    memory.body += fmt::format(
        "  -- on-chip buffers {1}\n"
        "  {0} : entity work.ss_line_ram\n"
        "    generic map (N => {2}, LINES => {3}, BASE => {4})\n"
        "    port map (clk => clk, rst => rst, l_req => {0}_req, l_we => \"{5}\", l_addr => {0}_addr, l_wdata => {0}_wdata,\n"
        "              l_be => {0}_be, l_gnt => {0}_gnt, l_rvalid => {0}_rvalid, l_rdata => {0}_rdata);\n",
        prefix, names, ports.size(), rams.rams.at(static_cast<size_t>(ram)).lines, detail::intVector(bases),
        writeFlags(isWrite, ports));
  }
  const std::string we = writeFlags(isWrite, external);
  // The external ports of the unit that started first of those running (of two neighbours
  // that run at once, the earlier): the arbiter serves them before the other's, whose
  // reads only fetch ahead (docs/hardware.md, "Units that start with the unit before them").
  // The first request of every port of a running unit goes first too (`opened` says it has
  // gone): a unit whose first line is a small operand, such as a call's weights, starts
  // beside the other, at the cost of a cycle of the other's.
  memory.decls += fmt::format(
      "  signal lead : std_logic_vector({} downto 0);\n  signal {}_first, {}_opened : std_logic_vector({} downto 0);\n",
      units.size() - 1, ext, ext, external.size() - 1);
  memory.body += "  lead(0) <= act(0);\n";
  for (size_t u = 1; u < units.size(); ++u) memory.body += fmt::format("  lead({0}) <= act({0}) and not act({1});\n", u, u - 1);
  for (size_t k = 0; k < external.size(); ++k)
    memory.body += fmt::format("  {0}_first({1}) <= lead({2}) or (act({2}) and not {0}_opened({1}));\n", ext, k,
                               portUnit.at(external[k]));
  memory.body += fmt::format("  {}_open : process (clk)\n  begin\n    if rising_edge(clk) then\n", ext);
  for (size_t k = 0; k < external.size(); ++k)
    memory.body += fmt::format("      if act({1}) = '0' then\n        {0}_opened({2}) <= '0';\n"
                               "      elsif {0}_gnt({2}) = '1' then\n        {0}_opened({2}) <= '1';\n      end if;\n",
                               ext, portUnit.at(external[k]), k);
  memory.body += "    end if;\n  end process;\n";

  std::string inst;
  size_t first = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    size_t n = units[i].portIsWrite.size(), last = first + n - 1;
    inst += fmt::format(
        "  -- unit {0}: {1}\n"
        "  u{0}_rst <= '1' when rst = '1' or not busy or run({0}) = '0' else '0';\n"
        "  u{0} : entity work.{2}\n"
        "    port map (clk => clk, rst => u{0}_rst, done => unit_done({0}),\n"
        "              l_req => l_req({4} downto {3}), l_addr => l_addr({6} downto {5}),\n"
        "              l_wdata => l_wdata({8} downto {7}), l_be => l_be({10} downto {9}),\n"
        "              l_gnt => l_gnt({4} downto {3}), l_rvalid => l_rvalid({4} downto {3}), l_rdata => l_rdata{11});\n",
        i, prog.units[i].name, units[i].entity, first, last, first * 32, last * 32 + 31, first * 512, last * 512 + 511,
        first * 64, last * 64 + 63, unitExtraPorts[i]);
    first += n;
  }
  std::string unitRsts;
  for (size_t i = 0; i < units.size(); ++i) unitRsts += fmt::format("  signal u{}_rst : std_logic;\n", i);
  std::string withPrevious;  // the first unit rightmost
  for (size_t i = units.size(); i-- > 0;) withPrevious += prog.firstShared(i) != i ? '1' : '0';

  return fmt::format(
      R"(-- Top level of the skeleshare design (generated; see docs/hardware.md).
--
-- start (a one-cycle pulse while idle) runs the {1} unit(s) of the schedule one after
-- another; done rises when the last has written its results and stays high until the
-- next start. Inputs, weights and outputs move through the Avalon-MM master: 512-bit
-- words, byte addresses (multiples of 64), single-beat bursts, many reads in flight; the
-- memory map is in report.json and in the design's C header. Intermediates kept on chip
-- live in RAMs of lines (ss_line_ram) at the same addresses, one RAM for the buffers
-- whose lives do not overlap; the units' replay buffers share the replay pool's RAMs
-- (ss_replay_ram). A unit is finished when its writes are done; the next starts once the
-- memory has accepted them (the arbiter is idle). A unit that has started stays out of
-- reset until the next start; act(u) says that it runs (started, not finished), and the
-- shared instances, the replay pool and the units' reads of it follow act. A shared
-- instance is built once; the sequencer connects it to the call that is running.
-- current_unit is the unit started last (0 while idle): a status for the host, and how
-- the testbench counts each unit's cycles. unit_running is act: with units that start
-- with the unit before them, more than one runs at a time, and the testbench reads each
-- unit's first and last cycle from it.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.ss_pkg.all;

entity {0} is
  port (
    clk   : in  std_logic;
    rst   : in  std_logic;  -- synchronous, active high
    start : in  std_logic;
    done  : out std_logic;
    current_unit : out std_logic_vector(15 downto 0);  -- the unit the schedule runs (its index)
    unit_running : out std_logic_vector({1} - 1 downto 0);  -- bit u: unit u runs (started, not finished)
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
  signal run, fin  : std_logic_vector(NUNITS - 1 downto 0) := (others => '0');  -- started, finished
  signal act       : std_logic_vector(NUNITS - 1 downto 0);  -- running: started, not finished
  signal current   : natural range 0 to NUNITS - 1 := 0;
  signal done_r    : std_logic := '0';
  -- WITH_PREV(u): unit u starts with the unit before it (lower/overlap.h)
  constant WITH_PREV : std_logic_vector(NUNITS - 1 downto 0) := "{13}";
  -- units 0 .. n - 1 are finished
  function finished(f : std_logic_vector; n : natural) return boolean is
  begin
    for u in 0 to n - 1 loop
      if f(u) = '0' then
        return false;
      end if;
    end loop;
    return true;
  end function;
  signal unit_done : std_logic_vector(NUNITS - 1 downto 0);
  signal l_req, l_gnt, l_rvalid : std_logic_vector(NPORTS - 1 downto 0);
  signal mem_idle : std_logic;
  signal l_addr  : std_logic_vector(NPORTS * 32 - 1 downto 0);
  signal l_wdata : std_logic_vector(NPORTS * LINE_BITS - 1 downto 0) := (others => '0');
  signal l_be    : std_logic_vector(NPORTS * LINE_BYTES - 1 downto 0) := (others => '0');
  signal l_rdata : std_logic_vector(LINE_BITS - 1 downto 0);
{3}{6}{8}begin
  done <= done_r;
  act  <= run and not fin;
  current_unit <= std_logic_vector(to_unsigned(current, 16));
  unit_running <= act;

  -- the schedule: unit u starts when every unit before it is finished and the memory has
  -- accepted their writes; a unit not started is held in reset
  sequencer : process (clk)
    variable f : std_logic_vector(NUNITS - 1 downto 0);
  begin
    if rising_edge(clk) then
      if rst = '1' then
        busy    <= false;
        run     <= (others => '0');
        fin     <= (others => '0');
        current <= 0;
        done_r  <= '0';
      elsif not busy then
        if start = '1' then
          busy    <= true;
          run     <= (0 => '1', others => '0');
          fin     <= (others => '0');
          current <= 0;
          done_r  <= '0';
        end if;
      else
        f := fin or (run and unit_done);
        fin <= f;
        for u in 1 to NUNITS - 1 loop
          -- every unit before it finished and its writes accepted; or, for a unit that
          -- starts with the one before it, that one started and every unit before that
          -- one finished (the arbiter keeps its writes before any later read)
          if run(u) = '0' and ((finished(f, u) and mem_idle = '1') or
                               (WITH_PREV(u) = '1' and run(u - 1) = '1' and finished(f, u - 1))) then
            run(u)  <= '1';
            current <= u;
          end if;
        end loop;
        if (and f) = '1' and mem_idle = '1' then
          busy   <= false;
          done_r <= '1';
        end if;
      end if;
    end if;
  end process;

{4}{7}{9}
  arbiter : entity work.ss_mem_arbiter
    generic map (N => {11}, MAX_PENDING => {12})
    port map (clk => clk, rst => rst, l_req => {10}_req, l_first => {10}_first, l_we => "{5}", l_addr => {10}_addr, l_wdata => {10}_wdata,
              l_be => {10}_be, l_gnt => {10}_gnt, l_rvalid => {10}_rvalid, l_rdata => l_rdata, idle => mem_idle,
              avm_address => avm_address, avm_read => avm_read, avm_write => avm_write,
              avm_writedata => avm_writedata, avm_byteenable => avm_byteenable, avm_burstcount => avm_burstcount,
              avm_waitrequest => avm_waitrequest, avm_readdata => avm_readdata, avm_readdatavalid => avm_readdatavalid);
end architecture;
)",
      top, units.size(), nPorts, unitRsts, inst, we, shared.decls + replay.decls, shared.body + replay.body,
      memory.decls, memory.body, ext, external.size(), lower::kArbiterPendingReads, withPrevious);
}

}  // namespace

EmittedDesign emitDesign(const lower::Program& prog, const EmitOptions& options) {
  if (prog.units.empty()) throw EmitError("the program has no units");
  if (prog.units.size() > kMaxUnits)
    throw EmitError(fmt::format("the program has {} units; the top's current_unit counts {}", prog.units.size(), kMaxUnits));
  EmittedDesign d;
  d.units = prog.units.size();
  d.design = vhdlIdentifier(options.design);
  d.top = d.design + "_top";
  d.map = layoutMemory(prog);
  if (d.map.totalBytes > kAddressableBytes)
    throw EmitError(fmt::format("the memory map needs {} bytes; the design addresses 2 GiB", d.map.totalBytes));
  for (const std::string& t : detail::designTemplates()) d.files.push_back({t, detail::readTemplate(options.templateDir, t)});

  // The calls of every instance, with their ports.
  std::vector<std::vector<size_t>> calls(prog.instances.size());
  std::map<size_t, CallPorts> ports;
  for (size_t i = 0; i < prog.units.size(); ++i) {
    const auto& u = prog.units[i];
    if (!u.call) continue;
    if (u.call->instance < 0 || static_cast<size_t>(u.call->instance) >= prog.instances.size())
      throw EmitError(fmt::format("call '{}' names no instance", u.name));
    calls[static_cast<size_t>(u.call->instance)].push_back(i);
    ports[i] = callPorts(u);
  }

  std::vector<detail::EmittedUnit> units;
  std::vector<std::string> extra(prog.units.size());
  const lower::ReplayPool pool = lower::planReplayPool(prog);
  const TopParts replay = replayPoolParts(prog, pool, extra);
  // per call unit and instance port: the pool RAM read data that carries it, or empty
  std::vector<std::vector<std::string>> poolData(prog.units.size());
  for (size_t i = 0; i < prog.units.size(); ++i)
    if (prog.units[i].call)
      for (uint32_t n : ports.at(i).ports) poolData[i].push_back(poolDataOf(pool, prog.units[i], i, n));
  TopParts shared;
  std::vector<VhdlFile> instanceFiles;
  for (size_t k = 0; k < prog.instances.size(); ++k) {
    if (calls[k].empty()) throw EmitError(fmt::format("instance '{}' has no call", prog.instances[k].name));
    const auto& cs = calls[k];
    const lower::Unit& first = prog.units[cs[0]];
    const CallPorts& fp = ports.at(cs[0]);
    // The datapath is built from the first call; its only per-call parameter in hardware
    // is the accumulation length (a StmToVec's length must agree).
    for (size_t u : cs)
      for (size_t j = 0; j < first.call->datapath.size(); ++j) {
        const auto& a = first.nodes[first.call->datapath[j]];
        const auto& b = prog.units[u].nodes.at(prog.units[u].call->datapath.at(j));
        if (a.prim == Prim::StmToVec && first.nodes[a.operands[0]].type.streamSteps() != 0 &&
            first.nodes[a.operands[0]].type.dims != prog.units[u].nodes[b.operands[0]].type.dims)
          throw EmitError(fmt::format("instance '{}': a StmToVec of the datapath has different lengths in its calls",
                                      prog.instances[k].name));
      }
    detail::EntitySpec spec;
    spec.entity = fmt::format("{}_i{}", d.design, k);
    spec.comment = fmt::format("Shared instance {} '{}': {}", k, prog.instances[k].name, prog.instances[k].description);
    spec.memory = false;
    spec.emit.assign(first.nodes.size(), false);
    for (uint32_t n : first.call->datapath) spec.emit[n] = true;
    for (size_t p = 0; p < fp.ports.size(); ++p) spec.sources[fp.ports[p]] = fmt::format("p{}", p);
    spec.sinks.push_back({fp.result, "r"});
    for (size_t j = 0; j < fp.lengths.size(); ++j) {
      uint32_t node = fp.lengths[j].first;
      spec.lenInputs[node] = fmt::format("len{}", j);
      int64_t longest = 0;
      for (size_t u : cs) longest = std::max(longest, ports.at(u).lengths.at(j).second);
      spec.maxLen[node] = longest;
    }
    detail::EmittedUnit inst = detail::emitEntity(d.map, first, spec);
    d.dspLanes += inst.dspLanes;
    instanceFiles.push_back({inst.entity + ".vhd", inst.text});

    // Top-level wiring: the instance, and a multiplexer over its calls on every port.
    Handover hand{cs, {}, {}};
    std::string ik = fmt::format("i{}", k), map = "clk => clk, rst => " + ik + "_rst";
    for (size_t u : cs) {
      if (lower::interleavesSteps(prog, u)) hand.interleaved = ik;
      if (lower::handsOverStreams(prog, u)) hand.piped.insert(u);
    }
    if (!hand.interleaved.empty()) {
      const TopParts t = interleave(ik, cs, fp.ports.size(), prog.units.size());
      shared.decls += t.decls;
      shared.body += t.body;
      hand.piped.clear();
    }
    auto steps = [&](size_t u, uint32_t node) { return prog.units[u].nodes.at(node).type.streamSteps(); };
    for (size_t u : hand.piped) {
      for (size_t p = 0; p < fp.ports.size(); ++p) Handover::count(shared, u - 1, fmt::format("ip{}", p), steps(u - 1, ports.at(u - 1).ports.at(p)));
      Handover::count(shared, u - 1, "ir", steps(u - 1, ports.at(u - 1).result));
    }
    shared.decls += fmt::format("  signal {}_rst : std_logic;\n", ik);
    shared.body += fmt::format("  -- shared instance {}: {}\n  {}_rst <= '1' when rst = '1' or not (busy and ({})) else '0';\n",
                               k, prog.instances[k].name, ik, orWhen(cs));
    auto handshake = [&](const std::string& name) {
      shared.decls += fmt::format("  signal {0}_valid, {0}_ready : std_logic;\n", name);
    };
    auto data = [&](const std::string& name, int64_t width) {
      shared.decls += fmt::format("  signal {}_data : std_logic_vector({} downto 0);\n", name, width - 1);
    };
    for (size_t p = 0; p < fp.ports.size(); ++p) {
      std::string sig = fmt::format("{}_p{}", ik, p);
      int64_t w = first.nodes[fp.ports[p]].type.vectorLanes() * first.nodes[fp.ports[p]].type.bits;
      // An operand that a pool RAM's read data carries comes from the RAM, not through the
      // call's port; when every call's does, the instance reads the RAM directly.
      auto dataOf = [&](size_t u) {
        const auto& pd = poolData.at(u);
        return pd[p].empty() ? fmt::format("u{}_ip{}_data", u, p) : pd[p];
      };
      bool oneSource = true;
      for (size_t u : cs) oneSource = oneSource && dataOf(u) == dataOf(cs[0]);
      handshake(sig);
      for (size_t u : cs) {
        handshake(fmt::format("u{}_ip{}", u, p));
        if (poolData.at(u)[p].empty()) data(fmt::format("u{}_ip{}", u, p), w);
      }
      const std::string side = fmt::format("ip{}", p);
      shared.body += hand.mux(sig + "_valid", side, [&](size_t u) { return fmt::format("u{}_ip{}_valid", u, p); }, "'0'");
      std::string operand = dataOf(cs[0]);
      if (!oneSource) {
        data(sig, w);
        shared.body += hand.mux(sig + "_data", side, dataOf, "(others => '0')");
        operand = sig + "_data";
      }
      for (size_t u : cs)
        shared.body += fmt::format("  u{0}_ip{1}_ready <= {2}_ready when {3} else '0';\n", u, p, sig, hand.takes(u, side));
      map += fmt::format(", p{0}_valid => {1}_valid, p{0}_ready => {1}_ready, p{0}_data => {2}", p, sig, operand);
    }
    {
      // every call reads the result's data straight from the instance
      std::string sig = ik + "_r";
      int64_t w = first.nodes[fp.result].type.vectorLanes() * first.nodes[fp.result].type.bits;
      handshake(sig);
      data(sig, w);
      for (size_t u : cs) {
        handshake(fmt::format("u{}_ir", u));
        shared.body += fmt::format("  u{0}_ir_valid <= {1}_valid when {2} else '0';\n", u, sig, hand.takes(u, "ir"));
      }
      shared.body += hand.mux(sig + "_ready", "ir", [&](size_t u) { return fmt::format("u{}_ir_ready", u); }, "'0'");
      map += fmt::format(", r_valid => {0}_valid, r_ready => {0}_ready, r_data => {0}_data", sig);
    }
    for (size_t j = 0; j < fp.lengths.size(); ++j) {
      std::string sig = fmt::format("{}_len{}", ik, j);
      shared.decls += fmt::format("  signal {} : natural;\n", sig);
      for (size_t u : cs) shared.decls += fmt::format("  signal u{}_ilen{} : natural;\n", u, j);
      shared.body += muxOverCalls(sig, cs, [&](size_t u) { return fmt::format("u{}_ilen{}", u, j); }, "0");
      map += fmt::format(", len{0} => {1}", j, sig);
    }
    shared.body += fmt::format("  {} : entity work.{}\n    port map ({});\n", ik, inst.entity, map);
  }

  // Units that start with the unit before them: each read that waits on that unit's write
  // takes the write's progress (u<k>_w<n>_wm, a signal of the top).
  std::vector<std::map<uint32_t, std::string>> gated(prog.units.size()), progress(prog.units.size());
  for (size_t i = 1; i < prog.units.size(); ++i)
    for (const auto& [read, write] : lower::gatedReads(prog, i)) {
      const std::string wm = fmt::format("u{}_w{}_wm", i - 1, write);
      if (progress[i - 1].emplace(write, fmt::format("w{}_wm", write)).second) {
        shared.decls += fmt::format("  signal {} : std_logic_vector(31 downto 0);\n", wm);
        extra[i - 1] += fmt::format(", w{}_wm => {}", write, wm);
      }
      gated[i][read] = fmt::format("g{}_avail", read);
      extra[i] += fmt::format(", g{}_avail => {}", read, wm);
    }
  for (size_t i = 0; i < prog.units.size(); ++i) {
    const auto& u = prog.units[i];
    detail::EntitySpec spec;
    spec.entity = fmt::format("{}_u{}", d.design, i);
    spec.gatedReads = gated[i];
    spec.progressOutputs = progress[i];
    spec.comment = fmt::format("Unit {} of the schedule: '{}'", i, u.name);
    spec.emit.assign(u.nodes.size(), true);
    if (u.call) {
      const CallPorts& cp = ports.at(i);
      spec.comment += fmt::format(", a call of shared instance {}", u.call->instance);
      for (uint32_t n : u.call->datapath) spec.emit[n] = false;
      spec.sources[cp.result] = "ir";
      for (size_t p = 0; p < cp.ports.size(); ++p) {
        spec.sinks.push_back({cp.ports[p], fmt::format("ip{}", p)});
        extra[i] += fmt::format(",\n              ip{0}_valid => u{1}_ip{0}_valid, ip{0}_ready => u{1}_ip{0}_ready", p, i);
        if (poolData[i][p].empty())
          extra[i] += fmt::format(", ip{0}_data => u{1}_ip{0}_data", p, i);
        else
          spec.sinksFromPool.insert(cp.ports[p]);
      }
      extra[i] += fmt::format(",\n              ir_valid => u{0}_ir_valid, ir_ready => u{0}_ir_ready, ir_data => i{1}_r_data", i,
                              u.call->instance);
      for (size_t j = 0; j < cp.lengths.size(); ++j) {
        spec.lenOutputs.push_back({fmt::format("ilen{}", j), cp.lengths[j].second});
        extra[i] += fmt::format(", ilen{0} => u{1}_ilen{0}", j, i);
      }
    }
    for (const auto& [key, slot] : pool.slotOf)
      if (key.first == i) {
        spec.replayPorts[key.second] = fmt::format("r{}", slot);
        if (pool.slots[slot].beats > 1) spec.replayBeats[key.second] = {pool.beatsOf.at(key), pool.slots[slot].beats};
      }
    units.push_back(detail::emitEntity(d.map, u, spec));
    d.dspLanes += units.back().dspLanes;
    d.linePorts += static_cast<int64_t>(units.back().portIsWrite.size());
    d.files.push_back({units.back().entity + ".vhd", units.back().text});
  }
  for (auto& f : instanceFiles) d.files.push_back(std::move(f));
  d.files.push_back({d.top + ".vhd", topText(d.top, units, prog, d.map, extra, shared, replay)});
  return d;
}

}  // namespace skeleshare::vhdl
