// One unit of a mid-level program as a VHDL entity: every node becomes a template
// instance (Read: ss_read, Write: ss_write, element-wise
// operators, reductions, stream/vector conversions), or wires (Split/Join only rename
// dimensions: the lanes and steps are the same). A node whose value has several
// consumers feeds them through an ss_fork. The unit is done when all its writes are.

#include <fmt/format.h>

#include <map>

#include "skeleshare/vhdl/emitter.h"
#include "vhdl_text.h"

namespace skeleshare::vhdl::detail {
namespace {

using lower::AddrGen;
using lower::DimKind;
using lower::Node;
using lower::Prim;

int64_t lanesOf(const lower::MType& t) { return t.vectorLanes(); }
int64_t widthOf(const lower::MType& t) { return t.vectorLanes() * t.bits; }

/// The extent of the innermost stream (outermost vector) dimension of t.
int64_t innermostStream(const lower::MType& t) {
  size_t ns = t.numStreamDims();
  if (ns == 0) throw EmitError("no stream dimension");
  return t.dims[ns - 1].extent;
}
int64_t outermostVector(const lower::MType& t) {
  size_t ns = t.numStreamDims();
  if (ns == t.dims.size()) throw EmitError("no vector dimension");
  return t.dims[ns].extent;
}
int64_t innermostVector(const lower::MType& t) {
  if (t.dims.empty() || t.dims.back().kind != DimKind::Vector) throw EmitError("no vector dimension");
  return t.dims.back().extent;
}

std::vector<int64_t> padded(std::vector<int64_t> v, size_t n) {
  if (v.size() > n) throw EmitError("address generator: an affine form is longer than its variables");
  v.resize(n, 0);
  return v;
}

/// The address-generator generics of ss_read/ss_write (lists padded to one entry).
std::string addrGenGenerics(const AddrGen& g) {
  std::vector<int64_t> extents, gOff, gCoef, dGroup, dDiv, dMod, space, cOff, cCoef, mOff, mCoef, mLo, mHi, mFill;
  size_t nc = std::max<size_t>(1, g.counters.size());
  for (const auto& c : g.counters) extents.push_back(c.extent);
  if (extents.empty()) extents.push_back(1);
  for (size_t gi = 0; gi < g.groups.size(); ++gi) {
    const auto& gr = g.groups[gi];
    gOff.push_back(gr.value.offset);
    auto coef = padded(gr.value.coef, nc);
    gCoef.insert(gCoef.end(), coef.begin(), coef.end());
    int64_t inner = 1;
    for (size_t i = 1; i < gr.radices.size(); ++i) inner *= gr.radices[i];
    for (size_t i = 0; i < gr.radices.size(); ++i) {
      dGroup.push_back(static_cast<int64_t>(gi));
      dDiv.push_back(inner);
      dMod.push_back(i == 0 ? 0 : gr.radices[i]);
      if (i + 1 < gr.radices.size()) inner /= gr.radices[i + 1];
    }
  }
  if (gOff.empty()) {
    gOff.push_back(0);
    gCoef.assign(nc, 0);
  }
  if (dGroup.empty()) {
    dGroup.push_back(0);
    dDiv.push_back(1);
    dMod.push_back(0);
  }
  size_t nd = dGroup.size();
  for (size_t s = 0; s < g.coords.size(); ++s) {
    space.push_back(g.space[s]);
    cOff.push_back(g.coords[s].offset);
    auto coef = padded(g.coords[s].coef, nd);
    cCoef.insert(cCoef.end(), coef.begin(), coef.end());
  }
  if (space.empty()) {
    space.push_back(1);
    cOff.push_back(0);
    cCoef.assign(nd, 0);
  }
  for (const auto& m : g.masks) {
    mOff.push_back(m.expr.offset);
    auto coef = padded(m.expr.coef, nd);
    mCoef.insert(mCoef.end(), coef.begin(), coef.end());
    mLo.push_back(m.lo);
    mHi.push_back(m.hi);
    mFill.push_back(m.fill);
  }
  size_t nm = g.masks.size();
  if (nm == 0) {
    mOff = mLo = mHi = mFill = {0};
    mCoef = {0};
  }
  return fmt::format(
      "NC => {}, EXTENTS => {},\n"
      "      NG => {}, G_OFFSET => {}, G_COEF => {},\n"
      "      ND => {}, D_GROUP => {}, D_DIV => {}, D_MOD => {},\n"
      "      NS => {}, SPACE => {}, C_OFFSET => {}, C_COEF => {},\n"
      "      NM => {}, M_OFFSET => {}, M_COEF => {}, M_LO => {}, M_HI => {}, M_FILL => {}",
      extents.size(), intVector(extents), gOff.size(), intVector(gOff), intVector(gCoef), nd, intVector(dGroup),
      intVector(dDiv), intVector(dMod), space.size(), intVector(space), intVector(cOff), intVector(cCoef), nm,
      intVector(mOff), intVector(mCoef), intVector(mLo), intVector(mHi), intVector(mFill));
}

class UnitWriter {
 public:
  UnitWriter(const MemoryMap& map, const lower::Unit& unit, EntitySpec spec)
      : map_(map), unit_(unit), spec_(std::move(spec)) {
    out_.entity = spec_.entity;
  }

  EmittedUnit run() {
    collectUses();
    for (size_t i = 0; i < unit_.nodes.size(); ++i)
      if (spec_.emit[i]) emitNode(i);
    for (const auto& [name, value] : spec_.lenOutputs) body_ += fmt::format("  {} <= {};\n", name, value);
    std::string ports = "    clk, rst : in std_logic";
    for (const auto& [node, prefix] : spec_.sources)
      ports += fmt::format(";\n    {0}_valid : in std_logic;\n    {0}_ready : out std_logic;\n    {0}_data : in {1}", prefix,
                           slv(widthOf(unit_.nodes[node].type)));
    for (const auto& [node, prefix] : spec_.sinks)
      ports += fmt::format(";\n    {0}_valid : out std_logic;\n    {0}_ready : in std_logic;\n    {0}_data : out {1}", prefix,
                           slv(widthOf(unit_.nodes[node].type)));
    for (const auto& [node, name] : spec_.lenInputs) ports += fmt::format(";\n    {} : in natural", name);
    for (const auto& [name, value] : spec_.lenOutputs) ports += fmt::format(";\n    {} : out natural", name);
    if (spec_.memory) {
      std::string done;
      for (const std::string& d : doneSignals_) done += (done.empty() ? "" : " and ") + d;
      if (done.empty()) throw EmitError(fmt::format("unit '{}' writes nothing", unit_.name));
      if (out_.portIsWrite.empty()) throw EmitError(fmt::format("unit '{}' accesses no memory", unit_.name));
      body_ += fmt::format("  done <= {};\n", done);
      size_t np = out_.portIsWrite.size();
      ports += fmt::format(
          ";\n    done     : out std_logic;\n"
          "    l_req    : out std_logic_vector({} downto 0);\n"
          "    l_addr   : out std_logic_vector({} downto 0);\n"
          "    l_wdata  : out std_logic_vector({} downto 0);\n"
          "    l_be     : out std_logic_vector({} downto 0);\n"
          "    l_gnt    : in  std_logic_vector({} downto 0);\n"
          "    l_rvalid : in  std_logic_vector({} downto 0);\n"
          "    l_rdata  : in  std_logic_vector(LINE_BITS - 1 downto 0)",
          np - 1, np * 32 - 1, np * 512 - 1, np * 64 - 1, np - 1, np - 1);
    }
    out_.text = fmt::format(
        "-- {} (generated by skeleshare; see docs/hardware.md).\n"
        "library ieee;\nuse ieee.std_logic_1164.all;\nuse work.ss_pkg.all;\n\n"
        "entity {} is\n  port (\n{}\n  );\nend entity;\n\n"
        "architecture rtl of {} is\n{}begin\n{}end architecture;\n",
        spec_.comment, out_.entity, ports, out_.entity, decls_, body_);
    return std::move(out_);
  }

 private:
  struct Endpoint {
    std::string valid, ready, data;
  };

  void signal(const std::string& name, const std::string& type) { decls_ += fmt::format("  signal {} : {};\n", name, type); }
  static std::string slv(int64_t w) { return fmt::format("std_logic_vector({} downto 0)", w - 1); }

  /// Every consumer operand inside the entity gets an endpoint e<j>_<p>, every sink an
  /// output port; a value used more than once is forked, one used never is drained.
  /// Values from outside the entity (sources) arrive on input ports.
  void collectUses() {
    std::map<uint32_t, std::vector<Endpoint>> uses;
    for (size_t j = 0; j < unit_.nodes.size(); ++j) {
      if (!spec_.emit[j]) continue;
      for (size_t p = 0; p < unit_.nodes[j].operands.size(); ++p) {
        Endpoint e{fmt::format("e{}_{}_valid", j, p), fmt::format("e{}_{}_ready", j, p), fmt::format("e{}_{}_data", j, p)};
        uint32_t o = unit_.nodes[j].operands[p];
        signal(e.valid, "std_logic");
        signal(e.ready, "std_logic");
        signal(e.data, slv(widthOf(unit_.nodes[o].type)));
        uses[o].push_back(e);
        endpoints_[{j, p}] = e;
      }
    }
    for (const auto& [node, prefix] : spec_.sinks)
      uses[node].push_back(Endpoint{prefix + "_valid", prefix + "_ready", prefix + "_data"});
    for (size_t i = 0; i < unit_.nodes.size(); ++i) {
      const Node& n = unit_.nodes[i];
      auto source = spec_.sources.find(static_cast<uint32_t>(i));
      if (n.prim == Prim::Write || (!spec_.emit[i] && source == spec_.sources.end())) continue;
      int64_t w = widthOf(n.type);
      std::string src = fmt::format("n{}", i);
      signal(src + "_valid", "std_logic");
      signal(src + "_ready", "std_logic");
      signal(src + "_data", slv(w));
      if (source != spec_.sources.end())
        body_ += fmt::format("  {0}_valid <= {1}_valid;\n  {0}_data <= {1}_data;\n  {1}_ready <= {0}_ready;\n", src,
                             source->second);
      auto& us = uses[static_cast<uint32_t>(i)];
      if (us.empty()) {
        body_ += fmt::format("  {}_ready <= '1';  -- unused value\n", src);
        continue;
      }
      if (us.size() > 1) {
        size_t k = us.size();
        signal(src + "_fv", slv(static_cast<int64_t>(k)));
        signal(src + "_fr", slv(static_cast<int64_t>(k)));
        signal(src + "_fd", slv(w));
        body_ += fmt::format(
            "  {0}_fork : entity work.ss_fork\n    generic map (N => {1}, W => {2})\n"
            "    port map (clk => clk, rst => rst, i_valid => {0}_valid, i_ready => {0}_ready, i_data => {0}_data,\n"
            "              o_valid => {0}_fv, o_ready => {0}_fr, o_data => {0}_fd);\n",
            src, k, w);
      }
      for (size_t u = 0; u < us.size(); ++u) {
        const Endpoint& e = us[u];
        if (us.size() == 1)
          body_ += fmt::format("  {} <= {}_valid;\n  {} <= {}_data;\n  {}_ready <= {};\n", e.valid, src, e.data, src, src, e.ready);
        else
          body_ += fmt::format("  {} <= {}_fv({});\n  {} <= {}_fd;\n  {}_fr({}) <= {};\n", e.valid, src, u, e.data, src, src, u,
                               e.ready);
      }
    }
  }

  const Endpoint& operand(size_t j, size_t p) { return endpoints_.at({j, p}); }

  std::string inPorts(size_t j, size_t p, const char* prefix) {
    const Endpoint& e = operand(j, p);
    return fmt::format("{0}_valid => {1}, {0}_ready => {2}, {0}_data => {3}", prefix, e.valid, e.ready, e.data);
  }
  static std::string outPorts(size_t i) {
    return fmt::format("o_valid => n{0}_valid, o_ready => n{0}_ready, o_data => n{0}_data", i);
  }

  /// Elements a Read or Write handles per cycle: up to a line's worth, at most its lanes.
  static int64_t perCycle(int64_t lanes, int bits) { return std::min<int64_t>(lanes, kLineBytes / (bits / 8)); }

  std::string linePort(bool write) {
    size_t p = out_.portIsWrite.size();
    out_.portIsWrite.push_back(write);
    std::string s = fmt::format("l_req => l_req({0}), l_addr => l_addr({1} downto {2}), l_gnt => l_gnt({0})", p, p * 32 + 31, p * 32);
    if (write)
      s += fmt::format(", l_wdata => l_wdata({} downto {}), l_be => l_be({} downto {})", p * 512 + 511, p * 512, p * 64 + 63, p * 64);
    else {
      s += fmt::format(", l_rvalid => l_rvalid({}), l_rdata => l_rdata", p);
      body_ += fmt::format("  l_wdata({} downto {}) <= (others => '0');  -- port {}: reads only\n", p * 512 + 511, p * 512, p);
      body_ += fmt::format("  l_be({} downto {}) <= (others => '0');\n", p * 64 + 63, p * 64);
    }
    return s;
  }

  void emitNode(size_t i) {
    const Node& n = unit_.nodes[i];
    body_ += fmt::format("  -- %{} {} : {}\n", i, lower::primName(n.prim), n.type.isUnit() ? "unit" : n.type.str());
    auto opType = [&](size_t p) -> const lower::MType& { return unit_.nodes[n.operands[p]].type; };
    switch (n.prim) {
      case Prim::Read: {
        const Region& r = map_.regions.at(static_cast<size_t>(n.buffer));
        std::string port = linePort(false);
        body_ += fmt::format(
            "  n{0}_read : entity work.ss_read  -- buffer {1}\n"
            "    generic map (\n      {2},\n"
            "      LANES => {3}, BITS => {4}, BASE => {5}, EBYTES => {6}, PER_CYCLE => {7})\n"
            "    port map (clk => clk, rst => rst, {8},\n              {9});\n",
            i, r.name, addrGenGenerics(n.addr), lanesOf(n.type), n.type.bits, intLiteral(r.base), r.bits / 8,
            perCycle(lanesOf(n.type), r.bits), port, outPorts(i));
        return;
      }
      case Prim::Write: {
        const Region& r = map_.regions.at(static_cast<size_t>(n.buffer));
        std::string port = linePort(true);
        signal(fmt::format("n{}_done", i), "std_logic");
        doneSignals_.push_back(fmt::format("n{}_done", i));
        body_ += fmt::format(
            "  n{0}_write : entity work.ss_write  -- buffer {1}\n"
            "    generic map (\n      {2},\n"
            "      LANES => {3}, VBITS => {4}, BITS => {5}, BASE => {6}, EBYTES => {7}, PER_CYCLE => {8})\n"
            "    port map (clk => clk, rst => rst, {9},\n              {10}, done => n{0}_done);\n",
            i, r.name, addrGenGenerics(n.addr), lanesOf(opType(0)), opType(0).bits, r.bits, intLiteral(r.base), r.bits / 8,
            perCycle(lanesOf(opType(0)), r.bits), inPorts(i, 0, "i"), port);
        return;
      }
      case Prim::Const:
        body_ += fmt::format("  n{0}_const : entity work.ss_const\n    generic map (LANES => {1}, BITS => {2}, VALUE => {3})\n"
                             "    port map ({4});\n",
                             i, lanesOf(n.type), n.type.bits, intLiteral(n.params[0]), outPorts(i));
        return;
      case Prim::Mul: {
        bool dsp = n.params[0] == 1;
        if (dsp) out_.dspLanes += lanesOf(n.type);
        body_ += fmt::format(
            "  n{0}_mul : entity work.ss_mul\n    generic map (LANES => {1}, A_BITS => {2}, B_BITS => {3}, DSP => {4})\n"
            "    port map (clk => clk, rst => rst, {5},\n              {6},\n              {7});\n",
            i, lanesOf(n.type), opType(0).bits, opType(1).bits, dsp ? "true" : "false", inPorts(i, 0, "a"),
            inPorts(i, 1, "b"), outPorts(i));
        return;
      }
      case Prim::Add:
      case Prim::Sub:
      case Prim::Max:
      case Prim::Min: {
        const char* op = n.prim == Prim::Add ? "add" : n.prim == Prim::Sub ? "sub" : n.prim == Prim::Max ? "max" : "min";
        body_ += fmt::format(
            "  n{0}_op : entity work.ss_binop\n"
            "    generic map (OP => \"{1}\", LANES => {2}, A_BITS => {3}, B_BITS => {4}, O_BITS => {5})\n"
            "    port map (clk => clk, rst => rst, {6},\n              {7},\n              {8});\n",
            i, op, lanesOf(n.type), opType(0).bits, opType(1).bits, n.type.bits, inPorts(i, 0, "a"), inPorts(i, 1, "b"),
            outPorts(i));
        return;
      }
      case Prim::ShiftRight:
      case Prim::RoundShift:
      case Prim::Saturate:
      case Prim::Wrap: {
        const char* op = n.prim == Prim::ShiftRight ? "shr" : n.prim == Prim::RoundShift ? "rshift" : n.prim == Prim::Saturate ? "sat" : "wrap";
        body_ += fmt::format(
            "  n{0}_op : entity work.ss_unop\n"
            "    generic map (OP => \"{1}\", LANES => {2}, I_BITS => {3}, O_BITS => {4}, K => {5})\n"
            "    port map (clk => clk, rst => rst, {6},\n              {7});\n",
            i, op, lanesOf(n.type), opType(0).bits, n.type.bits, n.params[0], inPorts(i, 0, "i"), outPorts(i));
        return;
      }
      case Prim::ReduceVec:
      case Prim::ReduceStm: {
        bool vec = n.prim == Prim::ReduceVec;
        const char* kind = n.params[0] == 0 ? "add" : "max";
        int64_t extent = vec ? innermostVector(opType(0)) : innermostStream(opType(0));
        auto len = spec_.lenInputs.find(static_cast<uint32_t>(i));
        if (len != spec_.lenInputs.end()) extent = spec_.maxLen.at(static_cast<uint32_t>(i));
        std::string lenPort = len == spec_.lenInputs.end() ? "" : ", len => " + len->second;
        body_ += fmt::format(
            "  n{0}_reduce : entity work.{1}\n"
            "    generic map (KIND => \"{2}\", {3} => {4}, N => {5}, I_BITS => {6}, O_BITS => {7})\n"
            "    port map (clk => clk, rst => rst, {8},\n              {9}{10});\n",
            i, vec ? "ss_reduce_vec" : "ss_reduce_stm", kind, vec ? "LANES_OUT" : "LANES", lanesOf(n.type), extent,
            opType(0).bits, n.type.bits, inPorts(i, 0, "i"), outPorts(i), lenPort);
        return;
      }
      case Prim::StmToVec:
      case Prim::VecToStm: {
        bool toVec = n.prim == Prim::StmToVec;
        int64_t extent = toVec ? innermostStream(opType(0)) : outermostVector(opType(0));
        int64_t lanes = toVec ? lanesOf(opType(0)) : lanesOf(n.type);
        body_ += fmt::format(
            "  n{0}_conv : entity work.{1}\n    generic map (LANES => {2}, N => {3}, BITS => {4})\n"
            "    port map (clk => clk, rst => rst, {5},\n              {6});\n",
            i, toVec ? "ss_stm_to_vec" : "ss_vec_to_stm", lanes, extent, n.type.bits, inPorts(i, 0, "i"), outPorts(i));
        return;
      }
      case Prim::SplitStm:
      case Prim::JoinStm:
      case Prim::SplitVec:
      case Prim::JoinVec: {
        // The same transfers and lanes in the same order: only the type changes.
        const Endpoint& e = operand(i, 0);
        body_ += fmt::format("  n{0}_valid <= {1};\n  n{0}_data <= {2};\n  {3} <= n{0}_ready;\n", i, e.valid, e.data, e.ready);
        return;
      }
      case Prim::Repeat: {
        // a replay buffer of the block inside the new dimension
        const lower::MType& in = opType(0);
        int64_t block = 1;
        for (size_t d = static_cast<size_t>(n.params[1]); d < in.numStreamDims(); ++d) block *= in.dims[d].extent;
        body_ += fmt::format(
            "  n{0}_repeat : entity work.ss_repeat\n    generic map (W => {1}, WORDS => {2}, N => {3})\n"
            "    port map (clk => clk, rst => rst, {4},\n              {5});\n",
            i, widthOf(in), block, n.params[0], inPorts(i, 0, "i"), outPorts(i));
        return;
      }
      case Prim::Broadcast: {
        // n copies of the operand's lanes, the copy index outermost: wires
        const Endpoint& e = operand(i, 0);
        int64_t w = widthOf(opType(0));
        body_ += fmt::format(
            "  n{0}_copies : for k in 0 to {1} generate\n    n{0}_data((k + 1) * {2} - 1 downto k * {2}) <= {3};\n"
            "  end generate;\n  n{0}_valid <= {4};\n  {5} <= n{0}_ready;\n",
            i, n.params[0] - 1, w, e.data, e.valid, e.ready);
        return;
      }
    }
    throw EmitError("unknown primitive");
  }

  const MemoryMap& map_;
  const lower::Unit& unit_;
  EntitySpec spec_;
  EmittedUnit out_;
  std::string decls_, body_;
  std::map<std::pair<size_t, size_t>, Endpoint> endpoints_;
  std::vector<std::string> doneSignals_;
};

}  // namespace

EmittedUnit emitEntity(const MemoryMap& map, const lower::Unit& unit, EntitySpec spec) {
  return UnitWriter(map, unit, std::move(spec)).run();
}

}  // namespace skeleshare::vhdl::detail
