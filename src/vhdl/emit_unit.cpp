// One unit of a mid-level program as a VHDL entity: every node becomes a template
// instance (Read: ss_read, Write: ss_write, element-wise
// operators, reductions, stream/vector conversions), or wires (Split/Join only rename
// dimensions: the lanes and steps are the same). A node whose value has several
// consumers feeds them through an ss_fork. The unit is done when all its writes are.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "skeleshare/lower/replay_pool.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/vhdl/emitter.h"
#include "vhdl_text.h"

namespace skeleshare::vhdl::detail {
namespace {

using lower::AddrGen;
using lower::DimKind;
using lower::Node;
using lower::Prim;

using lower::kMaxAlignedRuns;

/// The OFF_ALIGN and LANE_ALIGN generics of a read or write whose runs are aligned
/// (lower::readAlignment, writeAlignment), or nothing. The walks take the buffer to start
/// on a line, as the memory map places every buffer; its offsets hold only then.
std::string alignmentGenerics(const lower::RunAlignment& a, int64_t base) {
  std::string s;
  if (base % lower::kLineBytes != 0) return s;
  if (a.offsetBits > 0) s += fmt::format(", OFF_ALIGN => {}", a.offsetBits);
  if (a.laneBits > 0) s += fmt::format(", LANE_ALIGN => {}", a.laneBits);
  return s;
}

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

/// The address-generator generics of ss_read/ss_write (lower::agenParams).
std::string addrGenGenerics(const AddrGen& g) {
  lower::AgenParams p = lower::agenParams(g);
  return fmt::format(
      "NC => {}, EXTENTS => {},\n"
      "      NG => {}, G_OFFSET => {}, G_COEF => {},\n"
      "      ND => {}, D_GROUP => {}, D_DIV => {}, D_MOD => {},\n"
      "      NS => {}, SPACE => {}, C_OFFSET => {}, C_COEF => {},\n"
      "      NM => {}, M_OFFSET => {}, M_COEF => {}, M_LO => {}, M_HI => {}, M_FILL => {}",
      p.nc, intVector(p.extents), p.ng, intVector(p.gOffset), intVector(p.gCoef), p.nd, intVector(p.dGroup),
      intVector(p.dDiv), intVector(p.dMod), p.ns, intVector(p.space), intVector(p.cOffset), intVector(p.cCoef), p.nm,
      intVector(p.mOffset), intVector(p.mCoef), intVector(p.mLo), intVector(p.mHi), intVector(p.mFill));
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
    for (const auto& [node, prefix] : spec_.sinks) {
      ports += fmt::format(";\n    {0}_valid : out std_logic;\n    {0}_ready : in std_logic", prefix);
      if (!spec_.sinksFromPool.count(node))
        ports += fmt::format(";\n    {}_data : out {}", prefix, slv(widthOf(unit_.nodes[node].type)));
    }
    for (const auto& [node, name] : spec_.lenInputs) ports += fmt::format(";\n    {} : in natural", name);
    for (const auto& [name, value] : spec_.lenOutputs) ports += fmt::format(";\n    {} : out natural", name);
    for (const auto& [node, name] : spec_.gatedReads) ports += fmt::format(";\n    {} : in  std_logic_vector(31 downto 0)", name);
    for (const auto& [node, name] : spec_.progressOutputs)
      ports += fmt::format(";\n    {} : out std_logic_vector(31 downto 0)", name);
    for (const auto& [node, prefix] : spec_.replayPorts) {
      const lower::ReplayShape shape = lower::replayShape(unit_, unit_.nodes.at(node));
      const auto beats = spec_.replayBeats.find(node);
      const bool inBeats = beats != spec_.replayBeats.end();
      ports += fmt::format(
          ";\n    {0}_we, {0}_re : out std_logic;\n    {0}_waddr, {0}_raddr : out natural range 0 to {1};\n"
          "    {0}_wdata : out {3};\n    {0}_rdata : in {2}{4}",
          prefix, shape.words - 1, slv(shape.width), slv(inBeats ? shape.width / beats->second.first : shape.width),
          inBeats ? fmt::format(";\n    {}_wmask : out {}", prefix, slv(beats->second.second)) : std::string());
    }
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
      if (!out_.onChipReads.empty())
        ports += fmt::format(";\n    l_odata  : in  std_logic_vector({} downto 0)  -- lines of on-chip buffers",
                             out_.onChipReads.size() * 512 - 1);
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

  /// Declares `name` as another name of `target` (no signal of its own).
  void alias(const std::string& name, const std::string& type, const std::string& target) {
    decls_ += fmt::format("  alias {} : {} is {};\n", name, type, target);
  }
  /// Declares the three signals of a stream, or aliases of another stream's; `dataOf`
  /// makes the data alone an alias (a replay buffer's RAM read data).
  void stream(const std::string& name, int64_t width, const Endpoint* aliasOf = nullptr,
              const std::string* dataOf = nullptr) {
    const std::string types[3] = {"std_logic", "std_logic", slv(width)};
    const char* parts[3] = {"_valid", "_ready", "_data"};
    for (int k = 0; k < 3; ++k) {
      if (aliasOf) alias(name + parts[k], types[k], k == 0 ? aliasOf->valid : k == 1 ? aliasOf->ready : aliasOf->data);
      else if (k == 2 && dataOf) alias(name + parts[k], types[k], *dataOf);
      else signal(name + parts[k], types[k]);
    }
  }
  static Endpoint portStream(const std::string& prefix) { return {prefix + "_valid", prefix + "_ready", prefix + "_data"}; }

  /// Every value inside the entity is a stream n<i>; a value used more than once is
  /// forked, one used never is drained. Values from outside the entity (sources) arrive
  /// on input ports, sinks leave on output ports. A consumer's operand (its endpoint) names
  /// the stream it reads, or its fork's output, directly, and n<i> is an alias of its port
  /// when it only passes through one: no signal copies another. (A simulator updates every
  /// bit of a copied vector whenever it changes, GHDL one signal per bit; the 16,384-bit
  /// copies were a fifth of full VGG-CIFAR's simulation time.) For the same reason a fork
  /// passes only the handshakes (its consumers read its input's data), a replay buffer's
  /// data is its RAM's read data, and a sink fed by a pool RAM has no data port.
  /// (Every unit of a replay-pool slot sees the RAM's read data change, running or not:
  /// two copies of it in each of full VGG-CIFAR's units were half its simulation time.)
  void collectUses() {
    struct Use {
      size_t j = 0, p = 0;
      const std::string* sink = nullptr;  // an output port's prefix, else operand p of node j
    };
    std::map<uint32_t, std::vector<Use>> uses;
    for (size_t j = 0; j < unit_.nodes.size(); ++j) {
      if (!spec_.emit[j]) continue;
      for (size_t p = 0; p < unit_.nodes[j].operands.size(); ++p) uses[unit_.nodes[j].operands[p]].push_back({j, p, nullptr});
    }
    for (const auto& [node, prefix] : spec_.sinks) uses[node].push_back({0, 0, &prefix});
    // A product that only adders consume (a dot's ReduceVec or ReduceStm, which sign-extend
    // their lanes) travels as its exact width, not as the i32 of its type.
    for (size_t i = 0; i < unit_.nodes.size(); ++i) {
      const Node& n = unit_.nodes[i];
      const auto& us = uses[static_cast<uint32_t>(i)];
      bool narrow = spec_.emit[i] && n.prim == Prim::Mul && !us.empty();
      for (const Use& use : us) {
        const Node* c = use.sink ? nullptr : &unit_.nodes[use.j];
        narrow = narrow && c && (c->prim == Prim::ReduceVec || c->prim == Prim::ReduceStm) && c->params[0] == 0;
      }
      if (!narrow) continue;
      const int exact = unit_.nodes[n.operands.at(0)].type.bits + unit_.nodes[n.operands.at(1)].type.bits;
      if (exact < n.type.bits) narrowBits_[i] = exact;
    }
    // A Mul that only an adding ReduceVec reads is one ss_dot with it, and so is a
    // Broadcast that only that Mul reads: in simulation the products and the broadcast
    // copies are then no signals (ss_dot.vhd says why).
    auto onlyUse = [&](size_t i, size_t j) {
      const auto& us = uses[static_cast<uint32_t>(i)];
      return spec_.emit[i] && !spec_.sources.count(static_cast<uint32_t>(i)) && us.size() == 1 && !us[0].sink &&
             us[0].j == j;
    };
    for (size_t j = 0; j < unit_.nodes.size(); ++j) {
      const Node& r = unit_.nodes[j];
      if (!spec_.emit[j] || r.prim != Prim::ReduceVec || r.params[0] != 0 || spec_.lenInputs.count(static_cast<uint32_t>(j)))
        continue;
      const size_t m = r.operands[0];
      if (unit_.nodes[m].prim != Prim::Mul || !onlyUse(m, j)) continue;
      dotOf_[j] = m;
      fused_.insert(m);
      for (size_t p = 0; p < 2; ++p) {
        const size_t b = unit_.nodes[m].operands[p];
        if (unit_.nodes[b].prim == Prim::Broadcast && onlyUse(b, m)) fused_.insert(b);
      }
    }
    for (size_t i = 0; i < unit_.nodes.size(); ++i) {
      const Node& n = unit_.nodes[i];
      auto source = spec_.sources.find(static_cast<uint32_t>(i));
      if (n.prim == Prim::Write || fused_.count(i) || (!spec_.emit[i] && source == spec_.sources.end())) continue;
      const int64_t w = lanesOf(n.type) / beatsOf(i) * bitsOf(i);
      const std::string src = fmt::format("n{}", i);
      const auto& us = uses[static_cast<uint32_t>(i)];
      // a split or join is its operand's stream under another name (an operand is an
      // earlier node, lower/mir.h, so its endpoint is known)
      std::optional<Endpoint> origin;
      if (source != spec_.sources.end()) origin = portStream(source->second);
      else if (spec_.emit[i] && lower::reshapesOnly(n.prim)) origin = endpoints_.at({i, 0});
      // a pooled replay buffer's data is the pool RAM's read data, on the entity's port
      std::optional<std::string> poolData;
      if (auto pooled = spec_.replayPorts.find(static_cast<uint32_t>(i));
          spec_.emit[i] && n.prim == Prim::Repeat && pooled != spec_.replayPorts.end())
        poolData = pooled->second + "_rdata";
      const bool fromPool = spec_.sinksFromPool.count(static_cast<uint32_t>(i)) != 0;
      const bool onlyToSink = !origin && us.size() == 1 && us[0].sink;
      if (onlyToSink) {
        origin = portStream(*us[0].sink);
        if (poolData) {
          if (!fromPool) throw EmitError(fmt::format("unit '{}': replay buffer %{} leaves on a data port", unit_.name, i));
          origin->data = *poolData;
        }
      }
      stream(src, w, origin ? &*origin : nullptr, poolData ? &*poolData : nullptr);
      if (onlyToSink) continue;
      if (us.empty()) {
        body_ += fmt::format("  {}_ready <= '1';  -- unused value\n", src);
        continue;
      }
      const size_t k = us.size();
      if (k > 1) {
        signal(src + "_fv", slv(static_cast<int64_t>(k)));
        signal(src + "_fr", slv(static_cast<int64_t>(k)));
        body_ += fmt::format(
            "  {0}_fork : entity work.ss_fork\n    generic map (N => {1})\n"
            "    port map (clk => clk, rst => rst, i_valid => {0}_valid, i_ready => {0}_ready,\n"
            "              o_valid => {0}_fv, o_ready => {0}_fr);\n",
            src, k);
      }
      for (size_t u = 0; u < k; ++u) {
        Endpoint e = k == 1 ? Endpoint{src + "_valid", src + "_ready", src + "_data"}
                            : Endpoint{fmt::format("{}_fv({})", src, u), fmt::format("{}_fr({})", src, u), src + "_data"};
        if (us[u].sink) {  // a port another value also uses, or a source passed straight out
          body_ += fmt::format("  {0}_valid <= {1};\n  {2} <= {0}_ready;\n", *us[u].sink, e.valid, e.ready);
          if (!fromPool) body_ += fmt::format("  {}_data <= {};\n", *us[u].sink, e.data);
        } else
          endpoints_[{us[u].j, us[u].p}] = std::move(e);
      }
    }
  }

  const Endpoint& operand(size_t j, size_t p) { return endpoints_.at({j, p}); }
  /// The bits of node i's lanes on its stream (its type's, or a product's exact width).
  int bitsOf(size_t i) const {
    auto it = narrowBits_.find(i);
    return it == narrowBits_.end() ? unit_.nodes[i].type.bits : it->second;
  }
  /// The beats node i's vectors are delivered in: those of the replay buffer written in
  /// beats that a Read feeds (EntitySpec::replayBeats), else 1.
  int64_t beatsOf(size_t i) const {
    for (const auto& [repeat, beats] : spec_.replayBeats)
      if (unit_.nodes.at(repeat).operands.at(0) == i) return beats.first;
    return 1;
  }

  static std::string ports(const char* prefix, const Endpoint& e) {
    return fmt::format("{0}_valid => {1}, {0}_ready => {2}, {0}_data => {3}", prefix, e.valid, e.ready, e.data);
  }
  std::string inPorts(size_t j, size_t p, const char* prefix) { return ports(prefix, operand(j, p)); }
  /// ss_unop's OP for the primitives it implements (one register stage each), else null.
  static const char* unopName(Prim p) {
    switch (p) {
      case Prim::ShiftRight: return "shr";
      case Prim::RoundShift: return "rshift";
      case Prim::RoundShiftEven: return "rshift_even";
      case Prim::Saturate: return "sat";
      case Prim::Wrap: return "wrap";
      default: return nullptr;
    }
  }

  /// The nodes whose value node `o` is (itself first), with the register stages between
  /// each and `o`, as long as `o` is it after element-wise unary operators (one register
  /// each) and reshapes (none).
  std::vector<std::pair<uint32_t, int64_t>> unaryChain(uint32_t o) const {
    std::vector<std::pair<uint32_t, int64_t>> chain;
    for (int64_t d = 0;;) {
      chain.emplace_back(o, d);
      const Node& m = unit_.nodes[o];
      if (m.operands.size() != 1 || fused_.count(o) || dotOf_.count(o)) break;
      if (unopName(m.prim)) ++d;
      else if (!lower::reshapesOnly(m.prim)) break;
      o = m.operands[0];
    }
    return chain;
  }

  /// inPorts for operand p of the binary operator i, after as many identity registers as
  /// the other operand's path from their common source has more. Without them a value
  /// forked to both operands, one of them a register later (a leaky ReLU: max(x, x >> 3)),
  /// waits in the fork for its other half, and the operator takes a value every other
  /// cycle: TinyYolo's first layer simulated at twice its estimate.
  std::string balancedInPorts(size_t i, size_t p, const char* prefix) {
    const Node& n = unit_.nodes[i];
    const auto own = unaryChain(n.operands[p]), other = unaryChain(n.operands[1 - p]);
    int64_t delay = 0;
    for (const auto& [node, d] : own) {
      auto it = std::find_if(other.begin(), other.end(), [&](const auto& x) { return x.first == node; });
      if (it == other.end()) continue;
      delay = it->second - d;
      break;
    }
    if (delay <= 0) return inPorts(i, p, prefix);
    const int bits = bitsOf(n.operands[p]);
    const int64_t lanes = lanesOf(unit_.nodes[n.operands[p]].type);
    Endpoint e = operand(i, p);
    for (int64_t k = 0; k < delay; ++k) {
      const std::string name = fmt::format("n{}_{}delay{}", i, prefix, k);
      stream(name, lanes * bits);
      body_ += fmt::format(
          "  {0} : entity work.ss_unop  -- balances operand {1}'s path (a register)\n"
          "    generic map (OP => \"wrap\", LANES => {2}, I_BITS => {3}, O_BITS => {3}, K => {3})\n"
          "    port map (clk => clk, rst => rst, i_valid => {4}, i_ready => {5}, i_data => {6},\n"
          "              o_valid => {0}_valid, o_ready => {0}_ready, o_data => {0}_data);\n",
          name, prefix, lanes, bits, e.valid, e.ready, e.data);
      e = Endpoint{name + "_valid", name + "_ready", name + "_data"};
    }
    return ports(prefix, e);
  }

  static std::string outPorts(size_t i) {
    return fmt::format("o_valid => n{0}_valid, o_ready => n{0}_ready, o_data => n{0}_data", i);
  }

  std::string linePort(bool write, int buffer) {
    size_t p = out_.portIsWrite.size();
    out_.portIsWrite.push_back(write);
    out_.portBuffer.push_back(buffer);
    std::string s = fmt::format("l_req => l_req({0}), l_addr => l_addr({1} downto {2}), l_gnt => l_gnt({0})", p, p * 32 + 31, p * 32);
    if (write)
      s += fmt::format(", l_wdata => l_wdata({} downto {}), l_be => l_be({} downto {})", p * 512 + 511, p * 512, p * 64 + 63, p * 64);
    else {
      std::string data = "l_rdata";
      if (map_.regions.at(static_cast<size_t>(buffer)).onChip) {
        size_t k = out_.onChipReads.size();
        out_.onChipReads.push_back(p);
        data = fmt::format("l_odata({} downto {})", k * 512 + 511, k * 512);
      }
      s += fmt::format(", l_rvalid => l_rvalid({}), l_rdata => {}", p, data);
      body_ += fmt::format("  l_wdata({} downto {}) <= (others => '0');  -- port {}: reads only\n", p * 512 + 511, p * 512, p);
      body_ += fmt::format("  l_be({} downto {}) <= (others => '0');\n", p * 64 + 63, p * 64);
    }
    return s;
  }

  void emitNode(size_t i) {
    const Node& n = unit_.nodes[i];
    if (fused_.count(i)) return;  // part of the ss_dot of the ReduceVec that reads it
    if (dotOf_.count(i)) return emitDot(i);
    body_ += fmt::format("  -- %{} {} : {}\n", i, lower::primName(n.prim), n.type.isUnit() ? "unit" : n.type.str());
    auto opType = [&](size_t p) -> const lower::MType& { return unit_.nodes[n.operands[p]].type; };
    switch (n.prim) {
      case Prim::Read: {
        const Region& r = map_.regions.at(static_cast<size_t>(n.buffer));
        std::string port = linePort(false, n.buffer);
        const auto gated = spec_.gatedReads.find(static_cast<uint32_t>(i));
        body_ += fmt::format(
            "  n{0}_read : entity work.ss_read  -- buffer {1}\n"
            "    generic map (\n      {2},\n"
            "      LANES => {3}, BITS => {4}, BASE => {5}, EBYTES => {6}, PER_CYCLE => {7}, FIFO_LINES => {11}{10}{12}{14})\n"
            "    port map (clk => clk, rst => rst, {8},{13}\n              {9});\n",
            i, r.name, addrGenGenerics(n.addr), lanesOf(n.type) / beatsOf(i), n.type.bits, intLiteral(r.base), r.bits / 8,
            lower::readPerCycle(lanesOf(n.type), r.bits / 8), port, outPorts(i),
            lower::keptLines(n) > 1 ? fmt::format(", KEEP => {}", lower::keptLines(n)) : std::string(),
            lower::kReadFifoLines, gated == spec_.gatedReads.end() ? "" : ", GATED => true",
            gated == spec_.gatedReads.end() ? std::string() : fmt::format(" avail => {},", gated->second),
            alignmentGenerics(lower::readAlignment(n.addr, r.bits / 8, lanesOf(n.type), kMaxAlignedRuns), r.base));
        return;
      }
      case Prim::Write: {
        const Region& r = map_.regions.at(static_cast<size_t>(n.buffer));
        std::string port = linePort(true, n.buffer);
        const auto progress = spec_.progressOutputs.find(static_cast<uint32_t>(i));
        signal(fmt::format("n{}_done", i), "std_logic");
        doneSignals_.push_back(fmt::format("n{}_done", i));
        body_ += fmt::format(
            "  n{0}_write : entity work.ss_write  -- buffer {1}\n"
            "    generic map (\n      {2},\n"
            "      LANES => {3}, VBITS => {4}, BITS => {5}, BASE => {6}, EBYTES => {7}, PER_CYCLE => {8}{12})\n"
            "    port map (clk => clk, rst => rst, {9},\n              {10}, done => n{0}_done{11});\n",
            i, r.name, addrGenGenerics(n.addr), lanesOf(opType(0)), opType(0).bits, r.bits, intLiteral(r.base), r.bits / 8,
            lower::writePerCycle(lanesOf(opType(0)), r.bits / 8), inPorts(i, 0, "i"), port,
            progress == spec_.progressOutputs.end() ? std::string() : fmt::format(", wm => {}", progress->second),
            alignmentGenerics(lower::writeAlignment(n.addr, r.bits / 8, lanesOf(opType(0)), kMaxAlignedRuns), r.base));
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
            "  n{0}_mul : entity work.ss_mul\n    generic map (LANES => {1}, A_BITS => {2}, B_BITS => {3}, DSP => {4}, O_BITS => {8})\n"
            "    port map (clk => clk, rst => rst, {5},\n              {6},\n              {7});\n",
            i, lanesOf(n.type), opType(0).bits, opType(1).bits, dsp ? "true" : "false", inPorts(i, 0, "a"),
            inPorts(i, 1, "b"), outPorts(i), bitsOf(i));
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
            i, op, lanesOf(n.type), opType(0).bits, opType(1).bits, n.type.bits, balancedInPorts(i, 0, "a"),
            balancedInPorts(i, 1, "b"), outPorts(i));
        return;
      }
      case Prim::ShiftRight:
      case Prim::RoundShift:
      case Prim::RoundShiftEven:
      case Prim::Saturate:
      case Prim::Wrap: {
        body_ += fmt::format(
            "  n{0}_op : entity work.ss_unop\n"
            "    generic map (OP => \"{1}\", LANES => {2}, I_BITS => {3}, O_BITS => {4}, K => {5})\n"
            "    port map (clk => clk, rst => rst, {6},\n              {7});\n",
            i, unopName(n.prim), lanesOf(n.type), opType(0).bits, n.type.bits, n.params[0], inPorts(i, 0, "i"),
            outPorts(i));
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
            bitsOf(n.operands[0]), n.type.bits, inPorts(i, 0, "i"), outPorts(i), lenPort);
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
      case Prim::SlideStm: {
        const int64_t k = n.params[1];
        if (k < 2) throw EmitError(fmt::format("node %{}: SlideStm of {} word(s)", i, k));
        const auto d = static_cast<size_t>(n.params[0]);
        body_ += fmt::format(
            "  n{0}_slide : entity work.ss_slide_stm\n    generic map (W => {1}, K => {2}, E => {3})\n"
            "    port map (clk => clk, rst => rst, {4},\n              {5});\n",
            i, widthOf(opType(0)), k, opType(0).dims[d].extent, inPorts(i, 0, "i"), outPorts(i));
        return;
      }
      case Prim::SplitStm:
      case Prim::JoinStm:
      case Prim::SplitVec:
      case Prim::JoinVec: {
        // The same transfers and lanes in the same order: only the type changes, so the
        // stream is an alias of its operand's (collectUses).
        return;
      }
      case Prim::Repeat: {
        // a replay buffer of the block inside the new dimension; its RAM is the top's
        // (a slot of the replay pool, on the entity's ports) or its own
        const lower::ReplayShape shape = lower::replayShape(unit_, n);
        const std::string ram = fmt::format("n{}_m", i);
        auto pooled = spec_.replayPorts.find(static_cast<uint32_t>(i));
        // The buffer's output data is the RAM's read data (collectUses: the pool's port; an
        // own RAM reads straight into the stream's data).
        if (pooled == spec_.replayPorts.end()) {
          signal(ram + "_we", "std_logic");
          signal(ram + "_re", "std_logic");
          signal(ram + "_waddr", fmt::format("natural range 0 to {}", shape.words - 1));
          signal(ram + "_raddr", fmt::format("natural range 0 to {}", shape.words - 1));
          signal(ram + "_wdata", slv(shape.width));
          body_ += replayRamInstance(ram, shape.width, shape.words, fmt::format("n{}_data", i));
        }
        const std::string m = pooled == spec_.replayPorts.end() ? ram : pooled->second;
        // written in beats: its Read delivers a beat per vector (docs/hardware.md)
        const auto beats = spec_.replayBeats.find(static_cast<uint32_t>(i));
        const bool inBeats = beats != spec_.replayBeats.end();
        body_ += fmt::format(
            "  n{0}_repeat : entity work.ss_repeat\n    generic map (W => {1}, WORDS => {2}, N => {3}{6})\n"
            "    port map (clk => clk, rst => rst, {4},\n              o_valid => n{0}_valid, o_ready => n{0}_ready,\n"
            "              m_we => {5}_we, m_waddr => {5}_waddr, m_wdata => {5}_wdata,{7} m_re => {5}_re,\n"
            "              m_raddr => {5}_raddr);\n",
            i, shape.width, shape.words / 2, n.params[0], inPorts(i, 0, "i"), m,
            inBeats ? fmt::format(", BEATS => {}, M_BEATS => {}", beats->second.first, beats->second.second) : std::string(),
            inBeats ? fmt::format(" m_wmask => {}_wmask,", m) : "");
        return;
      }
      case Prim::Broadcast: {
        const Endpoint& e = operand(i, 0);
        const BroadcastShape b = broadcastShape(i);
        const int64_t outer = b.outer, inner = b.inner, w = inner * opType(0).bits, copies = b.copies;
        body_ += fmt::format(
            "  n{0}_outer : for o in 0 to {1} generate\n"
            "    n{0}_copies : for k in 0 to {2} generate\n"
            "      n{0}_data(((o * {3} + k) + 1) * {4} - 1 downto (o * {3} + k) * {4}) <= {5}((o + 1) * {4} - 1 downto o * {4});\n"
            "    end generate;\n  end generate;\n  n{0}_valid <= {6};\n  {7} <= n{0}_ready;\n",
            i, outer - 1, copies - 1, copies, w, e.data, e.valid, e.ready);
        return;
      }
      case Prim::Slide: {
        // Wires: result lane (o, c, j) is operand lane (o, c + j), o over the outer lanes.
        const Endpoint& e = operand(i, 0);
        const int64_t k = n.params[0], ext = innermostVector(opType(0)), w = ext - k + 1;
        const int64_t outer = lanesOf(opType(0)) / ext;
        const int b = opType(0).bits;
        body_ += fmt::format(
            "  n{0}_o : for o in 0 to {1} generate\n"
            "    n{0}_c : for c in 0 to {2} generate\n"
            "      n{0}_j : for j in 0 to {3} generate\n"
            "        n{0}_data(((o * {4} + c) * {5} + j + 1) * {6} - 1 downto ((o * {4} + c) * {5} + j) * {6}) <= "
            "{7}((o * {8} + c + j + 1) * {6} - 1 downto (o * {8} + c + j) * {6});\n"
            "      end generate;\n    end generate;\n  end generate;\n"
            "  n{0}_valid <= {9};\n  {10} <= n{0}_ready;\n",
            i, outer - 1, w - 1, k - 1, w, k, b, e.data, ext, e.valid, e.ready);
        return;
      }
      case Prim::SelectLanes: {
        // Wires: result lane j is the operand's lane s_j, or the fill (a constant).
        const Endpoint& e = operand(i, 0);
        const auto m = static_cast<size_t>(n.params[0]);
        const int64_t fill = n.params[m + 1];
        const int b = opType(0).bits;
        std::string fillBits;
        for (int k = b - 1; k >= 0; --k) fillBits += ((static_cast<uint64_t>(fill) >> k) & 1) ? '1' : '0';
        for (size_t j = 0; j + m + 2 < n.params.size(); ++j) {
          const int64_t s = n.params[m + 2 + j], lo = static_cast<int64_t>(j) * b;
          body_ += s < 0 ? fmt::format("  n{}_data({} downto {}) <= \"{}\";\n", i, lo + b - 1, lo, fillBits)
                         : fmt::format("  n{}_data({} downto {}) <= {}({} downto {});\n", i, lo + b - 1, lo, e.data,
                                       (s + 1) * b - 1, s * b);
        }
        body_ += fmt::format("  n{0}_valid <= {1};\n  {2} <= n{0}_ready;\n", i, e.valid, e.ready);
        return;
      }
      case Prim::PermuteVec: {
        // Wires: one generate loop per vector dimension of the result; result lane
        // (v_0, ..., v_k-1) is the operand's lane with index v_i in its dimension p_i.
        const Endpoint& e = operand(i, 0);
        const lower::MType& in = opType(0);
        const size_t ns = in.numStreamDims(), nv = in.dims.size() - ns;
        std::vector<int64_t> inStride(nv, 1), outStride(nv, 1);
        for (size_t d = nv - 1; d > 0; --d) {
          inStride[d - 1] = inStride[d] * in.dims[ns + d].extent;
          outStride[d - 1] = outStride[d] * n.type.dims[ns + d].extent;
        }
        std::string outLane = "0", inLane = "0", open, close;
        for (size_t d = 0; d < nv; ++d) {
          open += fmt::format("{0:{1}}n{2}_v{3} : for v{3} in 0 to {4} generate\n", "", 2 * (d + 1), i, d,
                              n.type.dims[ns + d].extent - 1);
          close = fmt::format("{0:{1}}end generate;\n", "", 2 * (d + 1)) + close;
          outLane += fmt::format(" + v{} * {}", d, outStride[d]);
          inLane += fmt::format(" + v{} * {}", d, inStride[static_cast<size_t>(n.params[d])]);
        }
        const int b = in.bits;
        body_ += open +
                 fmt::format("{0:{1}}n{2}_data(({3} + 1) * {4} - 1 downto ({3}) * {4}) <= {5}(({6} + 1) * {4} - 1 downto ({6}) * {4});\n",
                             "", 2 * (nv + 1), i, outLane, b, e.data, inLane) +
                 close + fmt::format("  n{0}_valid <= {1};\n  {2} <= n{0}_ready;\n", i, e.valid, e.ready);
        return;
      }
    }
    throw EmitError("unknown primitive");
  }

  /// A Broadcast's lanes: the operand's are (outer o, inner i), the result's
  /// (o, copy k, i); every copy of a block of inner lanes is that block.
  struct BroadcastShape {
    int64_t outer = 1, copies = 1, inner = 1;
  };
  BroadcastShape broadcastShape(size_t i) const {
    const Node& n = unit_.nodes[i];
    const lower::MType& in = unit_.nodes[n.operands[0]].type;
    const size_t ns = in.numStreamDims(), at = ns + static_cast<size_t>(n.params[1]);
    BroadcastShape b;
    b.copies = n.params[0];
    for (size_t d = ns; d < in.dims.size(); ++d) (d < at ? b.outer : b.inner) *= in.dims[d].extent;
    return b;
  }

  /// ReduceVec j (add) with the Mul it sums, and the Broadcasts only that Mul reads.
  void emitDot(size_t j) {
    const size_t m = dotOf_.at(j);
    const Node& mul = unit_.nodes[m];
    const bool dsp = mul.params[0] == 1;
    if (dsp) out_.dspLanes += lanesOf(mul.type);
    std::string ports, spread;
    for (size_t p = 0; p < 2; ++p) {
      const char* name = p == 0 ? "a" : "b";
      const size_t src = mul.operands[p];
      const bool folded = fused_.count(src) != 0;  // a Broadcast: the dot reads its operand
      ports += (p ? ",\n              " : "") + (folded ? inPorts(src, 0, name) : inPorts(m, p, name));
      if (folded) {
        const BroadcastShape b = broadcastShape(src);
        spread += fmt::format(", {0}_COPIES => {1}, {0}_INNER => {2}", p == 0 ? "A" : "B", b.copies, b.inner);
      }
    }
    body_ += fmt::format(
        "  n{0}_dot : entity work.ss_dot  -- %{1} Mul and the Broadcasts only it reads\n"
        "    generic map (LANES_OUT => {2}, N => {3}, A_BITS => {4}, B_BITS => {5}, DSP => {6}, P_BITS => {7},\n"
        "                 O_BITS => {8}{9})\n"
        "    port map (clk => clk, rst => rst, {10},\n              {11});\n",
        j, m, lanesOf(unit_.nodes[j].type), innermostVector(mul.type), unit_.nodes[mul.operands[0]].type.bits,
        unit_.nodes[mul.operands[1]].type.bits, dsp ? "true" : "false", bitsOf(m), unit_.nodes[j].type.bits, spread, ports,
        outPorts(j));
  }

  const MemoryMap& map_;
  const lower::Unit& unit_;
  EntitySpec spec_;
  EmittedUnit out_;
  std::string decls_, body_;
  std::map<std::pair<size_t, size_t>, Endpoint> endpoints_;
  std::map<size_t, int> narrowBits_;  // Mul node -> the exact width of its products (collectUses)
  std::map<size_t, size_t> dotOf_;    // ReduceVec -> the Mul it sums in one ss_dot
  std::set<size_t> fused_;            // the Muls and Broadcasts inside an ss_dot
  std::vector<std::string> doneSignals_;
};

}  // namespace

EmittedUnit emitEntity(const MemoryMap& map, const lower::Unit& unit, EntitySpec spec) {
  return UnitWriter(map, unit, std::move(spec)).run();
}

}  // namespace skeleshare::vhdl::detail
