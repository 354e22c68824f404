// Differential test: the DSL evaluator (on the AST) and the skeleton-IR interpreter (on
// the translated module) are independent implementations of docs/ir.md; they must agree
// bit for bit. A mismatch is a translation bug or a semantic bug in one of them.

#include <gtest/gtest.h>

#include <filesystem>

#include "skeleshare/ir/interpreter.h"
#include "test_util.h"

namespace skeleshare::frontend {
namespace {

/// Runs both on deterministic random inputs; reports the first differing output.
void crossCheck(const Program& prog, uint64_t seed, bool genericToo) {
  ir::Context ctx;
  ir::Module mod = translate(prog, ctx);
  auto inputs = ir::randomInputs(mod, seed);
  auto dsl = evaluate(prog, inputs);
  for (bool fast : {true, false}) {
    if (!fast && !genericToo) continue;
    auto irOut = ir::evaluateModule(mod, ctx, inputs, ir::EvalOptions{fast});
    ASSERT_EQ(dsl.size(), irOut.size());
    for (const auto& [name, t] : dsl) {
      ASSERT_EQ(irOut.count(name), 1u) << name;
      EXPECT_EQ(t.describe(), irOut.at(name).describe()) << name;
      EXPECT_TRUE(t == irOut.at(name)) << "output '" << name << "' differs (fast paths " << fast << ")";
    }
  }
}

const char* kPrograms[] = {
    // every DSP operator, mixed widths
    "input x : i8[7][6][3];\nweight w : i16[4][3][3][3];\ninput a : i16[5][9];\nweight b : i8[3][9];\n"
    "weight k : i8[4];\ninput v : i8[9];\n"
    "output c = conv(x, w);\noutput m = mm(a, b);\noutput mvo = mv(b, v);\n"
    "output cw = conv1d_w(a, k);\noutput ch = conv1d_h(a, cast(k, i32));\n",
    // data movement and element-wise arithmetic
    "input x : i8[6][5][2];\ninput b : i16[2];\n"
    "output p = pad(x, 1, 0, 2, 1, fill=-7);\noutput mp = maxpool(x, 3, 2);\n"
    "output r = requant(leaky_relu(bias(x, b), 1) * 300, 5);\noutput s = shr(relu(x), 2) - x;\n"
    "output re = requant_even(bias(x, b) * 3, 2);\n"
    "output t = transpose(max(x, min(x, 3)));\noutput f = flatten(cast(x, i16) + 1000);\n",
    // lambdas, broadcast literals, nested binders
    "input x : i8[4][5];\ninput s : i8[4];\nweight m : i8[3][5];\n"
    "output r = map(x, \\row. reduce(row, 0, \\acc e. acc + e * e));\n"
    "output z = zip(x, s, \\row k. map(row, \\e. e * k - 1));\n"
    "output q = map(x, \\row. mv(m, row));\noutput l = 5 - x;\n"
    "output n = reduce(x, cast(map(m, \\r. 0), i16), \\acc row. max(acc, cast(requant(mv(m, row), 1), i16) + 0));\n",
};

TEST(CrossCheck, OperatorPrograms) {
  for (const char* text : kPrograms) {
    test::Checked c(text);
    ASSERT_TRUE(c.prog) << c.printed();
    for (uint64_t seed : {1u, 2u, 3u}) crossCheck(*c.prog, seed, true);
  }
}

TEST(CrossCheck, SmallBenchmarks) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(SKELESHARE_SOURCE_DIR) / "benchmarks/small";
  ASSERT_TRUE(fs::exists(dir)) << "no benchmarks/small";
  int checked = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".dsl") continue;
    SCOPED_TRACE(e.path().filename().string());
    std::string error;
    auto file = SourceFile::read(e.path().string(), error);
    ASSERT_TRUE(file) << error;
    DiagnosticEngine d;
    auto prog = parseAndCheck(*file, d);
    ASSERT_TRUE(prog);
    crossCheck(*prog, 7, false);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace skeleshare::frontend
