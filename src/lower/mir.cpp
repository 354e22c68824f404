#include "skeleshare/lower/mir.h"

#include <fmt/format.h>

#include <algorithm>

#include "skeleshare/support/tensor.h"

namespace skeleshare::lower {

std::string_view primName(Prim p) {
  switch (p) {
    case Prim::Read: return "Read";
    case Prim::Write: return "Write";
    case Prim::Const: return "Const";
    case Prim::Mul: return "Mul";
    case Prim::Add: return "Add";
    case Prim::Sub: return "Sub";
    case Prim::Max: return "Max";
    case Prim::Min: return "Min";
    case Prim::ShiftRight: return "ShiftRight";
    case Prim::RoundShift: return "RoundShift";
    case Prim::RoundShiftEven: return "RoundShiftEven";
    case Prim::Saturate: return "Saturate";
    case Prim::Wrap: return "Wrap";
    case Prim::ReduceVec: return "ReduceVec";
    case Prim::ReduceStm: return "ReduceStm";
    case Prim::SplitStm: return "SplitStm";
    case Prim::JoinStm: return "JoinStm";
    case Prim::SplitVec: return "SplitVec";
    case Prim::JoinVec: return "JoinVec";
    case Prim::StmToVec: return "StmToVec";
    case Prim::VecToStm: return "VecToStm";
    case Prim::Repeat: return "Repeat";
    case Prim::Broadcast: return "Broadcast";
    case Prim::PermuteVec: return "PermuteVec";
    case Prim::Slide: return "Slide";
    case Prim::SlideStm: return "SlideStm";
    case Prim::SelectLanes: return "SelectLanes";
  }
  return "?";
}

int64_t keptLines(const Node& read) { return read.params.empty() ? 1 : read.params[0]; }

int64_t Buffer::elements() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

int Program::findBuffer(std::string_view name) const {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

[[noreturn]] void bad(const Node& n, const std::string& why) {
  throw MirError(fmt::format("{}: {}", primName(n.prim), why));
}

void needParams(const Node& n, size_t k) {
  if (n.params.size() != k) bad(n, fmt::format("expects {} parameter(s), has {}", k, n.params.size()));
}

bool validBits(int64_t b) { return b == 8 || b == 16 || b == 32; }

const Buffer& bufferOf(const Program& prog, const Node& n) {
  if (n.buffer < 0 || static_cast<size_t>(n.buffer) >= prog.buffers.size()) bad(n, "no such buffer");
  return prog.buffers[static_cast<size_t>(n.buffer)];
}

void checkAddr(const Node& n, const Buffer& b) {
  if (n.addr.space != b.shape) bad(n, fmt::format("address space does not match buffer '{}'", b.name));
  std::string why = n.addr.check();
  if (!why.empty()) bad(n, why);
}

/// Index of the d-th dimension of kind k, checked.
size_t dimOfKind(const Node& n, const MType& t, int64_t d, DimKind k) {
  int64_t seen = 0;
  for (size_t i = 0; i < t.dims.size(); ++i)
    if (t.dims[i].kind == k && seen++ == d) return i;
  bad(n, fmt::format("no {} dimension {} in {}", k == DimKind::Stream ? "stream" : "vector", d, t.str()));
}

}  // namespace

MType inferType(const Program& prog, const Unit& unit, const Node& n) {
  std::vector<const MType*> ops;
  for (uint32_t o : n.operands) {
    if (o >= unit.nodes.size() || &unit.nodes[o] >= &n) bad(n, fmt::format("operand %{} is not an earlier node", o));
    const MType& t = unit.nodes[o].type;
    if (t.isUnit()) bad(n, "operand is a Write");
    ops.push_back(&t);
  }
  auto arity = [&](size_t k) {
    if (ops.size() != k) bad(n, fmt::format("expects {} operand(s), has {}", k, ops.size()));
  };
  MType r;
  switch (n.prim) {
    case Prim::Read: {
      arity(0);
      if (n.params.size() > 1 || (n.params.size() == 1 && n.params[0] < 1))
        bad(n, "expects no parameter or a kept-line count of at least 1");
      const Buffer& b = bufferOf(prog, n);
      checkAddr(n, b);
      r = n.addr.valueType(b.bits);
      break;
    }
    case Prim::Write: {
      arity(1);
      needParams(n, 0);
      const Buffer& b = bufferOf(prog, n);
      checkAddr(n, b);
      if (n.addr.valueType(ops[0]->bits) != *ops[0])
        bad(n, fmt::format("counters {} do not match the value {}", n.addr.valueType(ops[0]->bits).str(), ops[0]->str()));
      if (ops[0]->bits > b.bits) bad(n, fmt::format("i{} value into the i{} buffer '{}'", ops[0]->bits, b.bits, b.name));
      return MType{0, {}};
    }
    case Prim::Const:
      arity(0);
      needParams(n, 2);
      if (!validBits(n.params[1])) bad(n, "bad width");
      if (n.params[0] != static_cast<int64_t>(wrapTo(n.params[0], static_cast<int>(n.params[1]))))
        bad(n, "value does not fit its width");
      r = MType{static_cast<int>(n.params[1]), n.type.dims};
      break;
    case Prim::Mul:
    case Prim::Add:
    case Prim::Sub:
    case Prim::Max:
    case Prim::Min:
      arity(2);
      if (n.prim == Prim::Mul) {
        // [dsp] or [dsp, products per DSP block]
        if (n.params.empty() || n.params.size() > 2) bad(n, "expects [dsp] or [dsp, products per block]");
        if (n.params[0] != 0 && n.params[0] != 1) bad(n, "dsp is 0 (logic) or 1 (DSP blocks)");
        if (n.params.size() == 2 && (n.params[0] != 1 || n.params[1] < 1)) bad(n, "products per block of a DSP multiplier >= 1");
      } else {
        needParams(n, 0);
      }
      if (ops[0]->dims != ops[1]->dims) bad(n, fmt::format("operands {} and {} differ in shape", ops[0]->str(), ops[1]->str()));
      r = MType{n.prim == Prim::Mul ? 32 : std::max(ops[0]->bits, ops[1]->bits), ops[0]->dims};
      break;
    case Prim::ShiftRight:
      arity(1);
      needParams(n, 1);
      if (n.params[0] < 0 || n.params[0] > 31) bad(n, "shift out of range");
      r = *ops[0];
      break;
    case Prim::RoundShift:
    case Prim::RoundShiftEven:
      arity(1);
      needParams(n, 1);
      if (n.params[0] < 1 || n.params[0] > 31) bad(n, "shift out of range");
      r = MType{32, ops[0]->dims};
      break;
    case Prim::Saturate:
    case Prim::Wrap:
      arity(1);
      needParams(n, 1);
      if (!validBits(n.params[0])) bad(n, "bad width");
      r = MType{static_cast<int>(n.params[0]), ops[0]->dims};
      break;
    case Prim::ReduceVec:
    case Prim::ReduceStm: {
      arity(1);
      needParams(n, 1);
      if (n.params[0] != 0 && n.params[0] != 1) bad(n, "kind is 0 (add) or 1 (max)");
      r = *ops[0];
      DimKind k = n.prim == Prim::ReduceVec ? DimKind::Vector : DimKind::Stream;
      // innermost dimension of kind k
      size_t at = r.dims.size();
      for (size_t i = r.dims.size(); i-- > 0;)
        if (r.dims[i].kind == k) { at = i; break; }
      if (at == r.dims.size()) bad(n, fmt::format("no {} dimension in {}", k == DimKind::Vector ? "vector" : "stream", r.str()));
      r.dims.erase(r.dims.begin() + static_cast<ptrdiff_t>(at));
      if (n.params[0] == 0) r.bits = 32;
      break;
    }
    case Prim::SplitStm:
    case Prim::SplitVec: {
      arity(1);
      needParams(n, 2);
      r = *ops[0];
      DimKind k = n.prim == Prim::SplitStm ? DimKind::Stream : DimKind::Vector;
      size_t at = dimOfKind(n, r, n.params[0], k);
      int64_t e = r.dims[at].extent, m = n.params[1];
      if (m < 1 || e % m != 0) bad(n, fmt::format("{} does not divide {}", m, e));
      r.dims[at].extent = e / m;
      r.dims.insert(r.dims.begin() + static_cast<ptrdiff_t>(at) + 1, Dim{m, k});
      break;
    }
    case Prim::JoinStm:
    case Prim::JoinVec: {
      arity(1);
      needParams(n, 1);
      r = *ops[0];
      DimKind k = n.prim == Prim::JoinStm ? DimKind::Stream : DimKind::Vector;
      size_t at = dimOfKind(n, r, n.params[0], k);
      if (at + 1 >= r.dims.size() || r.dims[at + 1].kind != k) bad(n, "needs two adjacent dimensions of its kind");
      r.dims[at].extent *= r.dims[at + 1].extent;
      r.dims.erase(r.dims.begin() + static_cast<ptrdiff_t>(at) + 1);
      break;
    }
    case Prim::StmToVec: {
      arity(1);
      needParams(n, 0);
      r = *ops[0];
      size_t ns = r.numStreamDims();
      if (ns == 0) bad(n, "no stream dimension");
      r.dims[ns - 1].kind = DimKind::Vector;
      break;
    }
    case Prim::VecToStm: {
      arity(1);
      needParams(n, 0);
      r = *ops[0];
      size_t ns = r.numStreamDims();
      if (ns == r.dims.size()) bad(n, "no vector dimension");
      r.dims[ns].kind = DimKind::Stream;
      break;
    }
    case Prim::Repeat: {
      arity(1);
      needParams(n, 2);
      r = *ops[0];
      if (n.params[0] < 1) bad(n, "non-positive count");
      if (n.params[1] < 0 || static_cast<size_t>(n.params[1]) > r.numStreamDims())
        bad(n, fmt::format("no stream position {} in {}", n.params[1], r.str()));
      r.dims.insert(r.dims.begin() + n.params[1], Dim{n.params[0], DimKind::Stream});
      break;
    }
    case Prim::Broadcast: {
      arity(1);
      needParams(n, 2);
      r = *ops[0];
      const size_t ns = r.numStreamDims();
      if (n.params[0] < 1) bad(n, "non-positive count");
      if (n.params[1] < 0 || static_cast<size_t>(n.params[1]) > r.dims.size() - ns)
        bad(n, fmt::format("no vector position {} in {}", n.params[1], r.str()));
      r.dims.insert(r.dims.begin() + static_cast<ptrdiff_t>(ns + static_cast<size_t>(n.params[1])),
                    Dim{n.params[0], DimKind::Vector});
      break;
    }
    case Prim::PermuteVec: {
      arity(1);
      r = *ops[0];
      const size_t ns = r.numStreamDims(), nv = r.dims.size() - ns;
      needParams(n, nv);
      std::vector<bool> seen(nv, false);
      for (size_t i = 0; i < nv; ++i) {
        const int64_t p = n.params[i];
        if (p < 0 || static_cast<size_t>(p) >= nv || seen[static_cast<size_t>(p)])
          bad(n, fmt::format("not a permutation of the {} vector dimensions of {}", nv, ops[0]->str()));
        seen[static_cast<size_t>(p)] = true;
        r.dims[ns + i] = ops[0]->dims[ns + static_cast<size_t>(p)];
      }
      break;
    }
    case Prim::Slide: {
      arity(1);
      needParams(n, 1);
      r = *ops[0];
      if (r.dims.empty() || r.dims.back().kind != DimKind::Vector) bad(n, fmt::format("no vector dimension in {}", r.str()));
      const int64_t e = r.dims.back().extent, k = n.params[0];
      if (k < 1 || k > e) bad(n, fmt::format("windows of {} in a dimension of {}", k, e));
      r.dims.back().extent = e - k + 1;
      r.dims.push_back(Dim{k, DimKind::Vector});
      break;
    }
    case Prim::SlideStm: {
      arity(1);
      needParams(n, 2);
      r = *ops[0];
      const size_t ns = r.numStreamDims();
      if (n.params[0] < 0 || static_cast<size_t>(n.params[0]) >= ns)
        bad(n, fmt::format("no stream dimension {} in {}", n.params[0], r.str()));
      const auto d = static_cast<size_t>(n.params[0]);
      for (size_t i = d + 1; i < ns; ++i)
        if (r.dims[i].extent != 1) bad(n, fmt::format("a stream dimension of {} inside the slid one in {}", r.dims[i].extent, r.str()));
      const int64_t e = r.dims[d].extent, k = n.params[1];
      if (k < 1 || k > e) bad(n, fmt::format("windows of {} in a dimension of {}", k, e));
      r.dims[d].extent = e - k + 1;
      r.dims.insert(r.dims.begin() + static_cast<ptrdiff_t>(ns), Dim{k, DimKind::Vector});
      break;
    }
    case Prim::SelectLanes: {
      arity(1);
      r = *ops[0];
      const size_t ns = r.numStreamDims();
      const int64_t from = r.vectorLanes();
      if (n.params.empty() || n.params[0] < 1 || n.params.size() < static_cast<size_t>(n.params[0]) + 2)
        bad(n, "expects a dimension count, the dimensions and a fill");
      const auto m = static_cast<size_t>(n.params[0]);
      r.dims.resize(ns);
      int64_t lanes = 1;
      for (size_t d = 0; d < m; ++d) {
        if (n.params[1 + d] < 1) bad(n, fmt::format("a vector dimension of {}", n.params[1 + d]));
        r.dims.push_back(Dim{n.params[1 + d], DimKind::Vector});
        lanes *= n.params[1 + d];
      }
      needParams(n, m + 2 + static_cast<size_t>(lanes));
      const int64_t fill = n.params[m + 1], top = int64_t{1} << (r.bits - 1);
      if (fill < -top || fill >= top) bad(n, fmt::format("a fill of {} in i{}", fill, r.bits));
      for (size_t j = m + 2; j < n.params.size(); ++j)
        if (n.params[j] < -1 || n.params[j] >= from) bad(n, fmt::format("no lane {} in {}", n.params[j], ops[0]->str()));
      break;
    }
  }
  std::string why = r.check();
  if (!why.empty()) bad(n, why);
  return r;
}

uint32_t UnitBuilder::add(Node n) {
  unit_.nodes.push_back(std::move(n));
  try {
    unit_.nodes.back().type = inferType(prog_, unit_, unit_.nodes.back());
  } catch (...) {
    unit_.nodes.pop_back();
    throw;
  }
  return static_cast<uint32_t>(unit_.nodes.size() - 1);
}

uint32_t UnitBuilder::read(int buffer, AddrGen addr) {
  Node n;
  n.prim = Prim::Read;
  n.buffer = buffer;
  n.addr = std::move(addr);
  return add(std::move(n));
}

void UnitBuilder::write(int buffer, AddrGen addr, uint32_t x) {
  Node n;
  n.prim = Prim::Write;
  n.buffer = buffer;
  n.addr = std::move(addr);
  n.operands = {x};
  add(std::move(n));
}

uint32_t UnitBuilder::constant(int64_t value, int bits, std::vector<Dim> dims) {
  Node n;
  n.prim = Prim::Const;
  n.params = {value, bits};
  n.type.dims = std::move(dims);
  return add(std::move(n));
}

uint32_t UnitBuilder::op(Prim p, std::vector<uint32_t> operands, std::vector<int64_t> params) {
  Node n;
  n.prim = p;
  n.operands = std::move(operands);
  n.params = std::move(params);
  return add(std::move(n));
}

}  // namespace skeleshare::lower

namespace skeleshare::lower {
namespace {

/// A datapath node as the instance sees it: what must agree between calls.
struct DatapathNode {
  Prim prim;
  std::vector<int64_t> params;
  int bits;
  std::vector<int64_t> lanes;        // vector extents: the per-cycle hardware
  std::vector<int64_t> wiring;       // >= 0: datapath position; < 0: -(port + 1)
  bool operator==(const DatapathNode&) const = default;
};

std::string describeDatapath(const Unit& u, std::vector<DatapathNode>& out) {
  const Call& c = *u.call;
  std::vector<int64_t> position(u.nodes.size(), -1);
  std::vector<uint32_t> ports;
  for (size_t i = 0; i < c.datapath.size(); ++i) {
    uint32_t n = c.datapath[i];
    if (n >= u.nodes.size()) return fmt::format("datapath node %{} does not exist", n);
    if (i > 0 && n <= c.datapath[i - 1]) return "datapath nodes are not in ascending order";
    const Node& node = u.nodes[n];
    if (node.prim == Prim::Read || node.prim == Prim::Write)
      return fmt::format("datapath node %{} is a {} (memory access belongs to the call)", n, primName(node.prim));
    DatapathNode d{node.prim, node.params, node.type.bits, {}, {}};
    for (const Dim& dim : node.type.dims)
      if (dim.kind == DimKind::Vector) d.lanes.push_back(dim.extent);
    for (uint32_t o : node.operands) {
      if (position[o] >= 0) {
        d.wiring.push_back(position[o]);
        continue;
      }
      auto it = std::find(ports.begin(), ports.end(), o);
      if (it == ports.end()) { ports.push_back(o); it = ports.end() - 1; }
      d.wiring.push_back(-1 - (it - ports.begin()));
    }
    position[n] = static_cast<int64_t>(i);
    out.push_back(std::move(d));
  }
  for (size_t i = 0; i < u.nodes.size(); ++i)
    if (u.nodes[i].prim == Prim::Mul && !u.nodes[i].params.empty() && u.nodes[i].params[0] == 1 && position[i] < 0)
      return fmt::format("DSP multiplier %{} is outside the instance's datapath", i);
  return "";
}

}  // namespace

std::vector<uint32_t> callOperands(const Unit& unit) {
  std::vector<uint32_t> ports;
  if (!unit.call) return ports;
  const auto& dp = unit.call->datapath;
  for (uint32_t n : dp)
    for (uint32_t o : unit.nodes.at(n).operands)
      if (!std::binary_search(dp.begin(), dp.end(), o) && std::find(ports.begin(), ports.end(), o) == ports.end())
        ports.push_back(o);
  return ports;
}

std::string checkInstanceCalls(const Program& prog, size_t instance) {
  if (instance >= prog.instances.size()) return fmt::format("no instance {}", instance);
  const std::string& name = prog.instances[instance].name;
  std::vector<DatapathNode> first;
  const Unit* firstUnit = nullptr;
  for (const Unit& u : prog.units) {
    if (!u.call || u.call->instance != static_cast<int>(instance)) continue;
    std::vector<DatapathNode> d;
    std::string why = describeDatapath(u, d);
    if (!why.empty()) return fmt::format("call '{}' of '{}': {}", u.name, name, why);
    if (d.empty()) return fmt::format("call '{}' of '{}' has an empty datapath", u.name, name);
    if (!firstUnit) {
      first = std::move(d);
      firstUnit = &u;
      continue;
    }
    if (d.size() != first.size())
      return fmt::format("calls '{}' and '{}' of '{}' have datapaths of {} and {} nodes", firstUnit->name, u.name, name,
                         first.size(), d.size());
    for (size_t i = 0; i < d.size(); ++i)
      if (!(d[i] == first[i]))
        return fmt::format("calls '{}' and '{}' of '{}' differ at datapath node {} ({} vs {})", firstUnit->name, u.name,
                           name, i, primName(first[i].prim), primName(d[i].prim));
  }
  if (!firstUnit) return fmt::format("instance '{}' has no call", name);
  return "";
}

}  // namespace skeleshare::lower
