// A call's Broadcast into the datapath moves into its shared instance: the instance's port
// then carries the narrow vector (lower/instance_broadcasts.h).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "skeleshare/lower/instance_broadcasts.h"
#include "skeleshare/lower/interpreter.h"
#include "skeleshare/lower/verifier.h"

namespace skeleshare::lower {
namespace {

/// Buffers a: [rows][16], w: [4][16]; out: [rows][4] = a * w^T over two chunks of 8. A row
/// of a is one vector of 8 that `broadcast` calls Broadcast to the 4 rows of w, joined
/// into the chunk stream after the Broadcast (a split or join between them is the shape
/// the templates build); the others read the 4 copies (stride 0).
struct Calls {
  Program prog;
  Calls() {
    prog.buffers.push_back({"a", 8, {3, 16}, Memory::OffChip, Role::Input});
    prog.buffers.push_back({"b", 8, {5, 16}, Memory::OffChip, Role::Input});
    prog.buffers.push_back({"w", 8, {4, 16}, Memory::OffChip, Role::Weight});
    prog.buffers.push_back({"oa", 32, {3, 4}, Memory::OffChip, Role::Output});
    prog.buffers.push_back({"ob", 32, {5, 4}, Memory::OffChip, Role::Output});
    prog.instances.push_back({"let1", "dot 4 x 8"});
  }
  void addCall(int in, int64_t rows, bool broadcast) {
    Unit u{fmt::format("c{}", prog.units.size()), {}, Call{0, {}}};
    UnitBuilder b(prog, u);
    uint32_t ra = 0;
    if (broadcast) {
      std::vector<Counter> ctr{{rows, DimKind::Stream}, {2, DimKind::Stream}, {1, DimKind::Stream}, {8, DimKind::Vector}};
      AddrGen ga = AddrGen::identity({rows, 16});
      ga.regroup(ctr, {Affine{0, {1, 0, 0, 0}}, Affine{0, {0, 8, 0, 1}}});
      ra = b.op(Prim::JoinStm, {b.op(Prim::Broadcast, {b.read(in, ga)}, {4, 0})}, {1});
    } else {
      std::vector<Counter> ctr{{rows, DimKind::Stream}, {2, DimKind::Stream}, {4, DimKind::Vector}, {8, DimKind::Vector}};
      AddrGen ga = AddrGen::identity({rows, 16});
      ga.regroup(ctr, {Affine{0, {1, 0, 0, 0}}, Affine{0, {0, 8, 0, 1}}});
      ra = b.read(in, ga);
    }
    std::vector<Counter> wctr{{rows, DimKind::Stream}, {2, DimKind::Stream}, {4, DimKind::Vector}, {8, DimKind::Vector}};
    AddrGen gw = AddrGen::identity({4, 16});
    gw.regroup(wctr, {Affine{0, {0, 0, 1, 0}}, Affine{0, {0, 8, 0, 1}}});
    uint32_t m = b.op(Prim::Mul, {ra, b.read(2, gw)}, {1});
    uint32_t t = b.op(Prim::ReduceVec, {m}, {0});
    uint32_t acc = b.op(Prim::ReduceStm, {t}, {0});
    u.call->datapath = {m, t, acc};
    AddrGen go = AddrGen::identity({rows, 4});
    go.counters[1].kind = DimKind::Vector;
    b.write(in == 0 ? 3 : 4, go, acc);
    prog.units.push_back(std::move(u));
  }
  std::map<std::string, Tensor> inputs() const {
    std::map<std::string, Tensor> in;
    for (const char* name : {"a", "b", "w"}) {
      const auto& buf = prog.buffers[static_cast<size_t>(prog.findBuffer(name))];
      Tensor t(8, buf.shape);
      for (size_t i = 0; i < t.size(); ++i) t.setWrapped(i, static_cast<int64_t>((i * 29 + buf.name.size()) % 251) - 125);
      in[name] = t;
    }
    return in;
  }
};

const Node& operandOf(const Unit& u, Prim p, size_t k) {
  for (const Node& n : u.nodes)
    if (n.prim == p) return u.nodes.at(n.operands.at(k));
  ADD_FAILURE() << "no " << primName(p);
  return u.nodes.front();
}

TEST(InstanceBroadcasts, ABroadcastIntoTheDatapathMovesIntoTheInstance) {
  Calls f;
  f.addCall(0, 3, true);
  f.addCall(1, 5, true);
  ASSERT_TRUE(verify(f.prog).empty());
  const auto before = run(f.prog, f.inputs());

  EXPECT_EQ(absorbBroadcasts(f.prog), 2u);
  auto problems = verify(f.prog);
  ASSERT_TRUE(problems.empty()) << problems.front();
  for (const Unit& u : f.prog.units) {
    // the Broadcast traded places with the join and feeds the multipliers from inside
    const Node& x = operandOf(u, Prim::Mul, 0);
    EXPECT_EQ(x.prim, Prim::Broadcast);
    EXPECT_EQ(u.nodes.at(x.operands[0]).prim, Prim::JoinStm);
    EXPECT_EQ(u.call->datapath.size(), 4u);
    EXPECT_TRUE(std::is_sorted(u.call->datapath.begin(), u.call->datapath.end()));
  }
  EXPECT_EQ(checkInstanceCalls(f.prog, 0), "");
  EXPECT_EQ(run(f.prog, f.inputs()), before);
}

TEST(InstanceBroadcasts, StaysAtTheCallSiteUnlessEveryCallMovesIt) {
  Calls f;
  f.addCall(0, 3, true);
  f.addCall(1, 5, false);  // no Broadcast: the datapaths would differ
  ASSERT_TRUE(verify(f.prog).empty());
  EXPECT_EQ(absorbBroadcasts(f.prog), 0u);
  for (const Unit& u : f.prog.units) EXPECT_EQ(u.call->datapath.size(), 3u);
  EXPECT_TRUE(verify(f.prog).empty());
}

}  // namespace
}  // namespace skeleshare::lower
