// The benchmark programs through the frontend, the IR text form, both evaluators and
// the command line (issue acceptance: MAC totals, IR round trip, DSL vs skeleton-IR
// agreement, .npy element types, NumPy cross-check, determinism).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "skeleshare/frontend/frontend.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/ir/parser.h"
#include "skeleshare/ir/printer.h"
#include "skeleshare/ir/verifier.h"
#include "skeleshare/support/npy.h"
#include "tool_runner.h"

namespace fs = std::filesystem;
using namespace skeleshare;
using namespace skeleshare::testing;

namespace {

const char* kFull[] = {"vgg_cifar", "tinyyolo_v2", "tinyyolo_v2_full", "self_attention", "stencil4"};

std::vector<fs::path> allBenchmarks() {
  std::vector<fs::path> v;
  for (const char* n : kFull) {
    v.push_back(sourcePath(std::string("benchmarks/") + n + ".dsl"));
    v.push_back(sourcePath(std::string("benchmarks/small/") + n + "_small.dsl"));
  }
  return v;
}

struct Loaded {
  std::unique_ptr<SourceFile> file;
  std::optional<frontend::Program> prog;
};

Loaded load(const fs::path& p) {
  Loaded l;
  std::string err;
  auto f = SourceFile::read(p.string(), err);
  EXPECT_TRUE(f) << err;
  l.file = std::make_unique<SourceFile>(std::move(*f));
  DiagnosticEngine diags;
  l.prog = frontend::parseAndCheck(*l.file, diags);
  std::ostringstream os;
  diags.print(os);
  EXPECT_TRUE(l.prog) << os.str();
  return l;
}

}  // namespace

TEST(CliBenchmarks, CheckJsonReportsThePapersMacCounts) {
  fs::path dir = scratchDir();
  const std::pair<const char*, uint64_t> expected[] = {
      {"benchmarks/vgg_cifar.dsl", 313201664ULL},
      {"benchmarks/tinyyolo_v2.dsl", 2063692800ULL},
      {"benchmarks/tinyyolo_v2_full.dsl", 3485520896ULL},
      {"benchmarks/stencil4.dsl", 49152ULL},
  };
  for (const auto& [file, macs] : expected) {
    SCOPED_TRACE(file);
    RunResult r = runTool({"check", "--json", sourcePath(file).string()}, dir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("macs").get<uint64_t>(), macs);
    EXPECT_FALSE(j.at("layers").empty());
  }
}

TEST(CliBenchmarks, IrTextParsesBackToTheIdenticalIr) {
  for (const fs::path& p : allBenchmarks()) {
    SCOPED_TRACE(p.filename().string());
    Loaded l = load(p);
    ASSERT_TRUE(l.prog);
    ir::Context ctx;
    ir::Module m = frontend::translate(*l.prog, ctx);
    EXPECT_TRUE(ir::verifyModule(ctx, m).empty()) << ir::formatProblems(ir::verifyModule(ctx, m));
    std::string text = ir::printModule(ctx, m);
    SourceFile printed(p.string() + ".ir", text);
    DiagnosticEngine diags;
    auto back = ir::parseModule(ctx, printed, diags);
    ASSERT_TRUE(back);
    ASSERT_EQ(back->outputs.size(), m.outputs.size());
    for (size_t i = 0; i < m.outputs.size(); ++i) {
      EXPECT_EQ(back->outputs[i].name, m.outputs[i].name);
      EXPECT_EQ(back->outputs[i].term, m.outputs[i].term) << "output " << m.outputs[i].name;
    }
    ASSERT_EQ(back->decls.size(), m.decls.size());
    for (size_t i = 0; i < m.decls.size(); ++i) {
      EXPECT_EQ(back->decls[i].name, m.decls[i].name);
      EXPECT_EQ(back->decls[i].type, m.decls[i].type);
      EXPECT_EQ(back->decls[i].kind, m.decls[i].kind);
    }
    EXPECT_EQ(ir::printModule(ctx, *back), text);
  }
}

TEST(CliBenchmarks, IrCommandOutputIsAFixedPoint) {
  fs::path dir = scratchDir();
  fs::path a = dir / "a.ir", b = dir / "b.ir";
  fs::path src = sourcePath("benchmarks/vgg_cifar.dsl");
  ASSERT_EQ(runTool({"ir", src.string(), "-o", a.string()}, dir).exitCode, 0);
  ASSERT_EQ(runTool({"ir", a.string(), "-o", b.string()}, dir).exitCode, 0);
  EXPECT_EQ(readFile(a), readFile(b));
  RunResult r = runTool({"ir", src.string()}, dir);
  EXPECT_EQ(r.out, readFile(a));
}

TEST(CliBenchmarks, SmallVariantsEvaluateIdenticallyAtDslAndSkeletonLevel) {
  for (const char* n : kFull) {
    fs::path p = sourcePath(std::string("benchmarks/small/") + n + "_small.dsl");
    SCOPED_TRACE(p.filename().string());
    Loaded l = load(p);
    ASSERT_TRUE(l.prog);
    ir::Context ctx;
    ir::Module m = frontend::translate(*l.prog, ctx);
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      auto inputs = ir::randomInputs(m, seed);
      auto viaDsl = frontend::evaluate(*l.prog, inputs);
      auto viaIr = ir::evaluateModule(m, ctx, inputs);
      ASSERT_EQ(viaDsl.size(), viaIr.size());
      for (const auto& [name, t] : viaDsl) {
        EXPECT_EQ(t, viaIr.at(name)) << "output " << name << " seed " << seed;
        // The random data must exercise the program: an all-zero output would make the
        // comparison vacuous.
        bool nonzero = false;
        for (int32_t v : t.values()) nonzero |= v != 0;
        EXPECT_TRUE(nonzero) << "output " << name << " is all zeros for seed " << seed;
      }
    }
  }
}

TEST(CliBenchmarks, RunViaBothAgreesOnEverySmallVariant) {
  fs::path dir = scratchDir();
  for (const char* n : kFull) {
    fs::path p = sourcePath(std::string("benchmarks/small/") + n + "_small.dsl");
    RunResult r = runTool({"run", p.string(), "--via", "both", "--seed", "7", "-o", (dir / n).string()}, dir);
    EXPECT_EQ(r.exitCode, 0) << n << ": " << r.err;
    EXPECT_NE(r.err.find("agree on every output"), std::string::npos) << r.err;
  }
}

TEST(CliBenchmarks, OutputNpyFilesCarryTheProgramsElementType) {
  fs::path dir = scratchDir();
  std::ofstream(dir / "types.dsl") << "input x : i8[4][4];\n"
                                      "weight k : i8[3];\n"
                                      "output wide = conv1d_w(x, k);\n"
                                      "output narrow = requant(conv1d_w(x, k), 2);\n"
                                      "output mid = cast(x, i16);\n";
  RunResult r = runTool({"run", (dir / "types.dsl").string(), "-o", (dir / "out").string()}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(readNpy((dir / "out" / "wide.npy").string()).bits(), 32);
  EXPECT_EQ(readNpy((dir / "out" / "narrow.npy").string()).bits(), 8);
  EXPECT_EQ(readNpy((dir / "out" / "mid.npy").string()).bits(), 16);
  // The header names the NumPy dtype, as NumPy writes it.
  EXPECT_NE(readFile(dir / "out" / "wide.npy").find("'descr': '<i4'"), std::string::npos);
  EXPECT_NE(readFile(dir / "out" / "narrow.npy").find("'descr': '|i1'"), std::string::npos);
}

TEST(CliBenchmarks, DspOperatorsAgreeWithNumPy) {
  fs::path dir = scratchDir();
  fs::path prog = sourcePath("tests/tools/programs/dsp_ops.dsl");
  for (const char* seed : {"1", "2", "3"}) {
    fs::path out = dir / seed;
    for (const char* via : {"dsl", "ir"}) {
      RunResult r = runTool({"run", prog.string(), "--via", via, "--seed", seed, "--save-inputs", "-o", out.string()}, dir);
      ASSERT_EQ(r.exitCode, 0) << r.err;
      RunResult py = runShell("/usr/bin/python3 " + shellQuote(sourcePath("tests/tools/check_dsl_outputs.py").string()) +
                                  " " + shellQuote(out.string()), dir);
      EXPECT_EQ(py.exitCode, 0) << "via " << via << " seed " << seed << ": " << py.out << py.err;
      EXPECT_NE(py.out.find("6 outputs checked, 0 mismatches"), std::string::npos) << py.out << py.err;
    }
  }
}

TEST(CliBenchmarks, RunIsDeterministic) {
  fs::path dir = scratchDir();
  fs::path p = sourcePath("benchmarks/small/tinyyolo_v2_small.dsl");
  ASSERT_EQ(runTool({"run", p.string(), "--seed", "3", "-o", (dir / "a").string()}, dir).exitCode, 0);
  ASSERT_EQ(runTool({"run", p.string(), "--seed", "3", "-o", (dir / "b").string()}, dir).exitCode, 0);
  ASSERT_EQ(runTool({"run", p.string(), "--seed", "4", "-o", (dir / "c").string()}, dir).exitCode, 0);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir / "a")) {
    ++files;
    EXPECT_EQ(readFile(e.path()), readFile(dir / "b" / e.path().filename()));
    EXPECT_NE(readFile(e.path()), readFile(dir / "c" / e.path().filename())) << "seed has no effect";
  }
  EXPECT_GT(files, 0u);
}
