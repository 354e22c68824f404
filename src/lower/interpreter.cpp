#include "skeleshare/lower/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace skeleshare::lower {
namespace {

int64_t applyBinary(Prim p, int64_t a, int64_t b) {
  switch (p) {
    case Prim::Mul: return a * b;
    case Prim::Add: return a + b;
    case Prim::Sub: return a - b;
    case Prim::Max: return std::max(a, b);
    case Prim::Min: return std::min(a, b);
    default: throw std::logic_error("not a binary primitive");
  }
}

/// Reduces dimension `at` of `x` into `out` (out's shape is x's without that dimension).
Tensor reduceDim(const Tensor& x, size_t at, bool add, int bits) {
  auto shape = x.shape();
  int64_t outer = 1, n = shape[at], inner = 1;
  for (size_t i = 0; i < at; ++i) outer *= shape[i];
  for (size_t i = at + 1; i < shape.size(); ++i) inner *= shape[i];
  shape.erase(shape.begin() + static_cast<ptrdiff_t>(at));
  Tensor out(bits, shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t acc = x[static_cast<size_t>(o * n * inner + i)];
      for (int64_t k = 1; k < n; ++k) {
        int64_t v = x[static_cast<size_t>((o * n + k) * inner + i)];
        acc = add ? static_cast<int64_t>(wrapTo(acc + v, 32)) : std::max(acc, v);
      }
      out.setWrapped(static_cast<size_t>(o * inner + i), acc);
    }
  return out;
}

}  // namespace

Tensor readThrough(const AddrGen& gen, const Tensor& src) {
  if (src.shape() != gen.space) throw std::runtime_error("Read: buffer shape differs from the address space");
  std::vector<int64_t> shape;
  for (const auto& c : gen.counters) shape.push_back(c.extent);
  Tensor out(src.bits(), shape);
  forEachIndex(gen.counters, [&](std::span<const int64_t> idx, int64_t lin) {
    Access a = gen.at(idx);
    out[static_cast<size_t>(lin)] = a.valid ? src[static_cast<size_t>(a.address)] : wrapTo(a.fill, src.bits());
  });
  return out;
}

void writeThrough(const AddrGen& gen, const Tensor& x, Tensor& dst) {
  if (dst.shape() != gen.space) throw std::runtime_error("Write: buffer shape differs from the address space");
  forEachIndex(gen.counters, [&](std::span<const int64_t> idx, int64_t lin) {
    Access a = gen.at(idx);
    if (a.valid) dst.setWrapped(static_cast<size_t>(a.address), x[static_cast<size_t>(lin)]);
  });
}

Tensor evalNode(const Node& n, const std::vector<const Tensor*>& in) {
  const auto shape = n.type.shape();
  switch (n.prim) {
    case Prim::Read:
    case Prim::Write: throw std::logic_error("evalNode: Read and Write need buffers");
    case Prim::Const: {
      Tensor t(n.type.bits, shape);
      std::fill(t.values().begin(), t.values().end(), wrapTo(n.params[0], n.type.bits));
      return t;
    }
    case Prim::Mul:
    case Prim::Add:
    case Prim::Sub:
    case Prim::Max:
    case Prim::Min: {
      Tensor t(n.type.bits, shape);
      for (size_t i = 0; i < t.size(); ++i) t.setWrapped(i, applyBinary(n.prim, (*in[0])[i], (*in[1])[i]));
      return t;
    }
    case Prim::ShiftRight:
    case Prim::RoundShift:
    case Prim::RoundShiftEven:
    case Prim::Saturate:
    case Prim::Wrap: {
      Tensor t(n.type.bits, shape);
      int64_t k = n.params[0];
      for (size_t i = 0; i < t.size(); ++i) {
        int64_t v = (*in[0])[i];
        switch (n.prim) {
          case Prim::ShiftRight: t[i] = static_cast<int32_t>(v >> k); break;
          case Prim::RoundShift: t[i] = static_cast<int32_t>(roundShiftHalfUp(v, k)); break;
          case Prim::RoundShiftEven: t[i] = static_cast<int32_t>(roundShiftHalfEven(v, k)); break;
          case Prim::Saturate: t[i] = saturateTo(v, static_cast<int>(k)); break;
          default: t[i] = wrapTo(v, static_cast<int>(k)); break;
        }
      }
      return t;
    }
    case Prim::ReduceVec:
    case Prim::ReduceStm: {
      DimKind k = n.prim == Prim::ReduceVec ? DimKind::Vector : DimKind::Stream;
      // The operand's innermost dimension of kind k: recomputed from the operand's rank and
      // the node's type (the operand tensor carries no kinds).
      size_t rank = in[0]->rank();
      size_t nStream = 0;
      for (const auto& d : n.type.dims) nStream += d.kind == DimKind::Stream;
      size_t at = k == DimKind::Stream ? nStream : rank - 1;  // stream: one past the result's streams
      if (k == DimKind::Stream && nStream + 1 > rank) throw std::logic_error("ReduceStm: rank mismatch");
      return reduceDim(*in[0], at, n.params[0] == 0, n.type.bits);
    }
    case Prim::SplitStm:
    case Prim::JoinStm:
    case Prim::SplitVec:
    case Prim::JoinVec:
    case Prim::StmToVec:
    case Prim::VecToStm:
      return reshaped(*in[0], shape);  // row-major order is unchanged
    case Prim::Repeat:
    case Prim::Broadcast: {
      // The new dimension (extent r at position d of the result): result element
      // (outer, k, inner) is operand element (outer, inner).
      size_t d = static_cast<size_t>(n.params[1]) + (n.prim == Prim::Repeat ? 0 : n.type.numStreamDims());
      size_t inner = 1;
      for (size_t i = d + 1; i < shape.size(); ++i) inner *= static_cast<size_t>(shape[i]);
      size_t r = static_cast<size_t>(shape[d]);
      Tensor t(n.type.bits, shape);
      for (size_t i = 0; i < t.size(); ++i) t[i] = (*in[0])[(i / (inner * r)) * inner + i % inner];
      return t;
    }
    case Prim::Slide: {
      // Result element (outer, c, j) is operand element (outer, c + j).
      const size_t k = static_cast<size_t>(n.params[0]);
      const size_t e = static_cast<size_t>(in[0]->shape().back()), w = e - k + 1;
      Tensor t(n.type.bits, shape);
      for (size_t i = 0; i < t.size(); ++i) {
        const size_t outer = i / (w * k), c = i / k % w, j = i % k;
        t[i] = (*in[0])[outer * e + c + j];
      }
      return t;
    }
    case Prim::SlideStm: {
      // Result element (outer, r, j, lane) is operand element (outer, r + j, lane).
      const auto d = static_cast<size_t>(n.params[0]);
      const size_t k = static_cast<size_t>(n.params[1]);
      const size_t e = static_cast<size_t>(in[0]->shape()[d]), w = e - k + 1;
      const size_t lanes = static_cast<size_t>(n.type.vectorLanes()) / k;
      Tensor t(n.type.bits, shape);
      for (size_t i = 0; i < t.size(); ++i) {
        const size_t lane = i % lanes, j = i / lanes % k, r = i / (lanes * k) % w, outer = i / (lanes * k * w);
        t[i] = (*in[0])[(outer * e + r + j) * lanes + lane];
      }
      return t;
    }
    case Prim::SelectLanes: {
      // Result lane j of each step is the operand's lane s_j of that step, or the fill.
      const auto m = static_cast<size_t>(n.params[0]);
      const int64_t fill = n.params[m + 1];
      const auto from = static_cast<size_t>(in[0]->size() / std::max<size_t>(1, static_cast<size_t>(n.type.streamSteps())));
      const auto lanes = static_cast<size_t>(n.type.vectorLanes());
      Tensor t(n.type.bits, shape);
      for (size_t i = 0; i < t.size(); ++i) {
        const int64_t s = n.params[m + 2 + i % lanes];
        t[i] = s < 0 ? static_cast<int32_t>(fill) : (*in[0])[i / lanes * from + static_cast<size_t>(s)];
      }
      return t;
    }
    case Prim::PermuteVec: {
      // Result index (s..., v_0, ..., v_k-1) is operand index (s..., u) with u[p_i] = v_i.
      const size_t ns = n.type.numStreamDims(), rank = shape.size();
      const std::vector<int64_t> from = in[0]->shape();
      std::vector<size_t> stride(rank, 1);  // operand strides
      for (size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * static_cast<size_t>(from[d]);
      Tensor t(n.type.bits, shape);
      std::vector<int64_t> idx(rank, 0);
      for (size_t i = 0; i < t.size(); ++i) {
        size_t at = 0;
        for (size_t d = 0; d < rank; ++d) {
          const size_t src = d < ns ? d : ns + static_cast<size_t>(n.params[d - ns]);
          at += static_cast<size_t>(idx[d]) * stride[src];
        }
        t[i] = (*in[0])[at];
        for (size_t d = rank; d-- > 0;) {  // next result index, row-major
          if (++idx[d] < shape[d]) break;
          idx[d] = 0;
        }
      }
      return t;
    }
  }
  throw std::logic_error("evalNode: unknown primitive");
}

std::map<std::string, Tensor> run(const Program& prog, const std::map<std::string, Tensor>& inputs) {
  std::vector<Tensor> mem;
  for (const auto& b : prog.buffers) {
    if (b.role == Role::Input || b.role == Role::Weight) {
      auto it = inputs.find(b.name);
      if (it == inputs.end()) throw std::runtime_error(fmt::format("missing input '{}'", b.name));
      if (it->second.shape() != b.shape || it->second.bits() != b.bits)
        throw std::runtime_error(fmt::format("input '{}' is {}, the buffer is i{}", b.name, it->second.describe(), b.bits));
      mem.push_back(it->second);
    } else {
      mem.emplace_back(b.bits, b.shape);
    }
  }
  for (const auto& u : prog.units) {
    std::vector<Tensor> val(u.nodes.size());
    for (size_t i = 0; i < u.nodes.size(); ++i) {
      const Node& n = u.nodes[i];
      if (n.prim == Prim::Read) {
        val[i] = readThrough(n.addr, mem[static_cast<size_t>(n.buffer)]);
      } else if (n.prim == Prim::Write) {
        writeThrough(n.addr, val[n.operands[0]], mem[static_cast<size_t>(n.buffer)]);
      } else {
        std::vector<const Tensor*> ops;
        for (uint32_t o : n.operands) ops.push_back(&val[o]);
        val[i] = evalNode(n, ops);
      }
    }
  }
  std::map<std::string, Tensor> out;
  for (size_t i = 0; i < prog.buffers.size(); ++i)
    if (prog.buffers[i].role == Role::Output) out[prog.buffers[i].name] = mem[i];
  return out;
}

}  // namespace skeleshare::lower
