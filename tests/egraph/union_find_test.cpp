#include <gtest/gtest.h>

#include "skeleshare/egraph/hashcons.h"
#include "skeleshare/egraph/union_find.h"

using namespace skeleshare::egraph;

TEST(UnionFind, SingletonsAndUnion) {
  UnionFind uf;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(uf.makeSet(), static_cast<uint32_t>(i));
  EXPECT_EQ(uf.find(3), 3u);
  // Equal sizes: the smaller id survives.
  EXPECT_EQ(uf.unite(4, 2), 2u);
  EXPECT_EQ(uf.find(4), 2u);
  // The larger set survives.
  EXPECT_EQ(uf.unite(5, 2), 2u);
  EXPECT_EQ(uf.setSize(2), 3u);
  EXPECT_EQ(uf.unite(1, 0), 0u);
  EXPECT_EQ(uf.unite(0, 2), 2u);
  for (uint32_t i : {0u, 1u, 2u, 4u, 5u}) EXPECT_EQ(uf.find(i), 2u);
  EXPECT_EQ(uf.find(3), 3u);
}

TEST(UnionFind, PathCompression) {
  UnionFind uf;
  for (int i = 0; i < 64; ++i) uf.makeSet();
  // Build a union tree by repeatedly uniting equal-sized sets.
  for (uint32_t step = 1; step < 64; step *= 2)
    for (uint32_t i = 0; i + step < 64; i += 2 * step) uf.unite(uf.find(i), uf.find(i + step));
  uint32_t root = uf.find(63);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(uf.findMut(i), root);
  EXPECT_EQ(uf.setSize(root), 64u);
}

TEST(NodeMemo, InsertFindEraseUnderCollisions) {
  // Force collisions: every node gets one of four hashes, so probe runs are long and
  // backward-shift deletion is exercised.
  std::vector<ENode> nodes;
  std::vector<uint64_t> hashes;
  NodeMemo memo;
  for (uint32_t i = 0; i < 500; ++i) {
    nodes.emplace_back(skeleshare::ir::Op::Add, std::initializer_list<ClassId>{i, i + 1});
    hashes.push_back((i % 4) * 0x10001ULL);
    memo.insert(i, hashes);
  }
  EXPECT_EQ(memo.size(), 500u);
  for (uint32_t i = 0; i < 500; i += 3) EXPECT_TRUE(memo.erase(i, hashes));
  EXPECT_FALSE(memo.erase(0, hashes));
  for (uint32_t i = 0; i < 500; ++i) {
    NodeId found = memo.find(nodes[i], hashes[i], nodes);
    EXPECT_EQ(found, i % 3 == 0 ? kNoClass : i) << i;
  }
}
