// Fuzzing the parser: random bytes, random token soup and random mutations of valid
// text. Whatever the input: no crash or hang, a failure always carries a positioned
// diagnostic, and whatever is accepted verifies and round-trips through the printer.

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "skeleshare/ir/parser.h"
#include "skeleshare/ir/printer.h"
#include "skeleshare/ir/verifier.h"

using namespace skeleshare;
using namespace skeleshare::ir;

namespace {

std::string readSample(const char* name) {
  std::ifstream in(std::string(SKELESHARE_SOURCE_DIR) + "/tests/ir/inputs/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> corpus() {
  return {
      readSample("conv_mv.ir"),
      readSample("shared.ir"),
      "input x : i8[4];\nweight w : i16[3][4];\n"
      "output o = Tuple(Map(@w, \\i16[4]. ZipWith(%0, @x, \\i16. \\i8. Max(%1, %0))), -5:i32,\n"
      "  Reduce(0:i32, @x, \\i32. \\i8. Add(%1, %0)), App(\\i8[4]. Tuple(%0, \\(i8, (i8 -> i8))[2]. %0), @x));\n",
      "input \"a b\" : i8[2][2];  # quoted\noutput \"o\\\"\" = Pad[0, 1, 1, 0, -1](@\"a b\");\n",
  };
}

const std::vector<std::string> kTokens = {
    "(", ")", ",", "\\i8.", "\\(i8 -> i16).", "%0", "%7:i8", "@x", "@w", "-", "->", "[", "]",
    "99999999999999999999", "0", "-1", "4", "Relu(", "Tuple(", "Mv(", "ParallelDot[3](", ";",
    "//", "#", "\"", "output o = ", "input x : i8[4];", ":", "i8", "(i8, i32)", "\n", " ", ".",
    "=", "@", "\\", "%", "3:i8", "i8[3][4]", "App(", "\xff", std::string(1, '\0')};

struct Fuzzer {
  std::mt19937_64 rng{12345};
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

  std::string mutate(std::string s) {
    int rounds = 1 + static_cast<int>(pick(3));
    for (int r = 0; r < rounds; ++r) {
      size_t at = s.empty() ? 0 : pick(s.size() + 1);
      switch (pick(6)) {
        case 0:  // delete a range
          if (!s.empty()) s.erase(std::min(at, s.size() - 1), 1 + pick(10));
          break;
        case 1:  // insert a random byte
          s.insert(at, 1, static_cast<char>(pick(256)));
          break;
        case 2:  // insert a token
          s.insert(at, kTokens[pick(kTokens.size())]);
          break;
        case 3:  // overwrite a byte
          if (!s.empty()) s[std::min(at, s.size() - 1)] = static_cast<char>(pick(256));
          break;
        case 4: {  // duplicate a range
          size_t len = std::min(s.size() - std::min(at, s.size()), 1 + pick(40));
          s.insert(at, s.substr(at, len));
          break;
        }
        case 5:  // truncate
          s.resize(at);
          break;
      }
    }
    return s;
  }

  std::string randomBytes() {
    std::string s(pick(64), '\0');
    for (char& c : s) c = static_cast<char>(pick(256));
    return s;
  }

  std::string tokenSoup() {
    std::string s;
    for (size_t n = pick(40); n > 0; --n) s += kTokens[pick(kTokens.size())];
    return s;
  }
};

/// Parses `text` as a module and as a lone term and checks the properties above.
/// Returns whether the module parsed.
bool check(const std::string& text) {
  bool parsed = false;
  for (int asModule = 0; asModule < 2; ++asModule) {
    Context ctx;
    SourceFile f("fuzz.ir", text);
    DiagnosticEngine d;
    std::ostringstream printed;
    if (asModule) {
      auto m = parseModule(ctx, f, d);
      parsed = m.has_value();
      if (m) {
        VerifyOptions vo;
        vo.allowApp = true;
        EXPECT_EQ(formatProblems(verifyModule(ctx, *m, vo)), "") << text;
        std::string again = printModule(ctx, *m);
        SourceFile g("again.ir", again);
        auto m2 = parseModule(ctx, g, d);
        EXPECT_TRUE(m2) << again;
        if (m2) {
          EXPECT_EQ(m2->outputs.size(), m->outputs.size());
          for (size_t i = 0; i < std::min(m2->outputs.size(), m->outputs.size()); ++i)
            EXPECT_EQ(m2->outputs[i].term, m->outputs[i].term) << again;
        }
      } else {
        EXPECT_GT(d.errorCount(), 0u) << "rejected without an error: " << text;
      }
    } else {
      TermEnv env;
      env.decls.push_back(Decl{"x", Decl::Kind::Input, ctx.tensorType(std::vector<int64_t>{4}, ctx.intType(8))});
      const Term* t = parseTerm(ctx, f, d, env);
      if (t) {
        // Annotated free variables are allowed in a lone term; only a closed one can be
        // verified without knowing their types. Both kinds must round-trip.
        VerifyOptions vo;
        vo.allowApp = true;
        if (t->closed()) {
          EXPECT_EQ(formatProblems(verify(ctx, t, vo)), "") << text;
        }
        std::string again = printTerm(ctx, t);
        SourceFile g("again.ir", again);
        EXPECT_EQ(parseTerm(ctx, g, d, env), t) << again;
      } else {
        EXPECT_GT(d.errorCount(), 0u) << "rejected without an error: " << text;
      }
    }
    for (const Diagnostic& x : d.diagnostics()) {
      EXPECT_TRUE(x.loc.valid()) << x.message;
      EXPECT_GE(x.loc.col, 1u);
      EXPECT_FALSE(x.message.empty());
      EXPECT_EQ(x.file, "fuzz.ir");
    }
    d.print(printed);  // must not crash on binary input either
  }
  return parsed;
}

TEST(ParserFuzz, CorpusParses) {
  for (const std::string& s : corpus()) EXPECT_TRUE(check(s)) << s;
}

TEST(ParserFuzz, MutationsOfValidText) {
  Fuzzer fz;
  auto seeds = corpus();
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    if (check(fz.mutate(seeds[static_cast<size_t>(i) % seeds.size()]))) ++accepted;
    if (::testing::Test::HasFailure()) break;
  }
  // Some mutations (inside comments, whitespace, a different constant) stay valid;
  // they exercise the accept path.
  EXPECT_GT(accepted, 200);
}

TEST(ParserFuzz, RandomBytesAndTokenSoup) {
  Fuzzer fz;
  for (int i = 0; i < 10000; ++i) {
    check(i % 2 ? fz.randomBytes() : fz.tokenSoup());
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
