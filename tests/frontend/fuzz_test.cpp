// Deterministic mutation fuzzing: mangled programs must be rejected with a diagnostic
// or, when accepted, translate to well-typed IR (Context::make throws otherwise) and
// evaluate without error, identically in the DSL evaluator and the IR interpreter.
// This is what keeps sema and the IR type rules in step.

#include <gtest/gtest.h>

#include <random>

#include "skeleshare/ir/interpreter.h"
#include "test_util.h"

namespace skeleshare::frontend {
namespace {

const char* kSeeds[] = {
    "input x : i8[8][8][3];\nweight w : i8[4][3][3][3];\nweight fc : i8[10][64];\n"
    "let c = leaky_relu(requant(conv(pad(x, 1), w), 4), 2);\nlet p = maxpool(pad(c, 0, 1, 0, 1, fill=-128), 2, 2);\n"
    "output o = mv(fc, flatten(p));\n",
    "input a : i8[6][4];\nweight b : i16[5][4];\nweight k : i8[3];\ninput v : i16[4];\n"
    "output m = mm(a, b) >> 2;\noutput u = conv1d_w(a, k) + 1;\noutput h = conv1d_h(a, k) * 3;\n"
    "output q = bias(cast(mm(a, b), i16), cast(mv(b, v), i16));\n",
    "input x : i8[4][5];\ninput s : i8[4];\n"
    "output r = map(x, \\row. reduce(row, 0, \\acc e. max(acc, e - 1)));\n"
    "output z = zip(x, s, \\row k. map(row, \\e. min(e * k, 100)));\n"
    "output t = transpose(relu(x - 3));\n",
};

std::string mutate(std::string s, std::mt19937& rng) {
  static const std::string kTokens[] = {"(", ")", ",", ";", "\\v. ", "+", "-", "*", ">>", "0", "7", "99999",
                                        "2147483648", "conv(", "map(", "reduce(", "[", "]", "=", "x", "fill=",
                                        "i8", "i32", "let ", "output o2 = ", "\xff", std::string(1, '\0')};
  int edits = rng() % 4 == 0 ? 2 : 1;
  for (int i = 0; i < edits && !s.empty(); ++i) {
    size_t pos = rng() % s.size();
    switch (rng() % 4) {
      case 0: s.erase(pos, 1 + rng() % 4); break;
      case 1: s.insert(pos, kTokens[rng() % std::size(kTokens)]); break;
      case 2:
        if (s[pos] >= '0' && s[pos] <= '9') s[pos] = static_cast<char>('0' + rng() % 10);
        else s[pos] = "0123456789(),;+*"[rng() % 16];
        break;
      case 3: {
        size_t len = std::min<size_t>(1 + rng() % 12, s.size() - pos);
        s.insert(rng() % s.size(), s.substr(pos, len));
        break;
      }
    }
  }
  return s;
}

TEST(Fuzz, MutatedProgramsAreRejectedOrWellTyped) {
  std::mt19937 rng(12345);
  int accepted = 0, rejected = 0, evaluated = 0;
  for (const char* seed : kSeeds) EXPECT_TRUE(test::Checked(seed).prog) << seed;
  for (int iter = 0; iter < 6000; ++iter) {
    std::string text = mutate(kSeeds[iter % 3], rng);
    SourceFile file("fuzz.dsl", text);
    DiagnosticEngine diags;
    std::optional<Program> prog;
    ASSERT_NO_THROW(prog = parseAndCheck(file, diags)) << text;
    if (!prog) {
      ASSERT_TRUE(diags.hasErrors()) << text;
      ++rejected;
      continue;
    }
    ++accepted;
    ir::Context ctx;
    ir::Module mod;
    ASSERT_NO_THROW(mod = translate(*prog, ctx)) << text;
    auto layers = summarize(*prog);
    // Evaluate only what stays small (a mutated digit can declare a huge tensor).
    bool small = totalMacs(layers) < 2'000'000;
    std::map<std::string, Tensor> in;
    for (const DeclInfo& d : declarations(*prog)) {
      int64_t n = 1;
      for (int64_t x : d.shape) n = std::min<int64_t>(n * x, 1'000'000);
      small = small && n < 100'000;
      if (!small) break;
      Tensor t(d.bits, d.shape);
      for (size_t i = 0; i < t.size(); ++i) t[i] = wrapTo(static_cast<int64_t>(rng() % 512) - 256, d.bits);
      in.emplace(d.name, std::move(t));
    }
    for (const LayerInfo& l : layers) small = small && l.calls < 10'000;
    if (small) {
      // The IR interpreter on the translation must agree with the DSL evaluator.
      std::map<std::string, Tensor> dsl, viaIr;
      ASSERT_NO_THROW(dsl = evaluate(*prog, in)) << text;
      ASSERT_NO_THROW(viaIr = ir::evaluateModule(mod, ctx, in)) << text;
      ASSERT_TRUE(dsl == viaIr) << text;
      ++evaluated;
    }
  }
  // Both outcomes must be exercised for the test to mean anything.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(evaluated, 50);
}

}  // namespace
}  // namespace skeleshare::frontend
