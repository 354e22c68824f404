// The README example end to end: parse, check, translate, evaluate, summarize.

#include <gtest/gtest.h>

#include "skeleshare/ir/builders.h"
#include "test_util.h"

namespace skeleshare::frontend {
namespace {

const char* kExample = R"(// comments with // (and #)
input  image : i8[32][32][3];          # activations are H x W x C
weight w1    : i8[64][3][3][3];        // conv weights are OCH x KS x KS x ICH
weight fc    : i8[10][16384];
let c1 = relu(requant(conv(pad(image, 1), w1), 8));
let p1 = maxpool(c1, 2);
output logits = mv(fc, flatten(p1));
)";

TEST(Pipeline, ExampleChecksTranslatesAndEvaluates) {
  test::Checked c(kExample);
  ASSERT_TRUE(c.prog) << c.printed();
  const Program& p = *c.prog;
  ASSERT_EQ(p.stmts.size(), 6u);
  EXPECT_EQ(p.stmts[3].type.str(), "i8[32][32][64]");
  EXPECT_EQ(p.stmts[4].type.str(), "i8[16][16][64]");
  EXPECT_EQ(p.stmts[5].type.str(), "i32[10]");

  ir::Context ctx;
  ir::Module m = translate(p, ctx);
  ASSERT_EQ(m.decls.size(), 3u);
  EXPECT_EQ(m.decls[1].name, "w1");
  EXPECT_EQ(m.decls[1].kind, ir::Decl::Kind::Weight);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "logits");
  EXPECT_EQ(m.outputs[0].term->type()->str(), "i32[10]");

  // Deterministic inputs; the exact values are checked by the evaluator unit tests.
  std::map<std::string, Tensor> in;
  for (const DeclInfo& d : declarations(p)) {
    Tensor t(d.bits, d.shape);
    for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<int32_t>((i * 7 + 3) % 11) - 5;
    in.emplace(d.name, std::move(t));
  }
  auto out = evaluate(p, in);
  ASSERT_EQ(out.count("logits"), 1u);
  EXPECT_EQ(out.at("logits").describe(), "i32[10]");

  auto layers = summarize(p);
  uint64_t expected = 32ull * 32 * 64 * 27 + 10ull * 16384;
  EXPECT_EQ(totalMacs(layers), expected);
}

}  // namespace
}  // namespace skeleshare::frontend
