// The checks around simulation: a corrupted design is caught and the first differing
// element named; a hung design hits the cycle limit; emitted designs pass `ghdl synth`;
// the memory image and dump round-trip; identifiers are sanitised. The checks that a
// skipped write fails and the cycle limit run in GHDL here and, on demand, in Verilator
// (three model builds, about 3 minutes on 2 cores):
//   build/tests/test_vhdl --gtest_also_run_disabled_tests --gtest_filter='SimChecks.DISABLED_*'
// The default suite checks Verilator against GHDL on whole designs (tests/tools/cli_sim_test.cpp).

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "vhdl_test_util.h"

namespace skeleshare::vhdl::test {
namespace {

struct Stencil {
  test_support::DslModule m = test_support::loadDsl(benchPath("stencil4_small.dsl"));
  lower::Program prog = lower::lowerModule(m.module, *m.ctx);
  std::map<std::string, Tensor> inputs = ir::randomInputs(m.module, 2);
};

EmittedDesign emit(const lower::Program& prog, const std::string& name) {
  EmitOptions eo;
  eo.design = name;
  eo.templateDir = templateDir();
  return emitDesign(prog, eo);
}

SimResult run(const EmittedDesign& d, const std::map<std::string, Tensor>& inputs, const std::string& name, int64_t maxCycles,
              Simulator simulator = Simulator::Ghdl) {
  auto dir = scratch(name + (simulator == Simulator::Verilator ? "_verilator" : ""));
  TestbenchFiles tb = emitTestbench(d, templateDir());
  writeDesign(d, dir / "vhdl");
  writeTestbench(tb, dir / "vhdl");
  SimOptions so;
  so.maxCycles = maxCycles;
  so.simulator = simulator;
  so.verilatorCache = defaultVerilatorCache();  // shared with `skeleshare sim` and the Sanitize pass
  return simulate(d, tb, inputs, dir / "vhdl", dir / "sim", so);
}

TEST(SimChecks, WrongWeightAddressIsCaughtAtTheFirstDifferingElement) {
  Stencil s;
  EmittedDesign d = emit(s.prog, "corrupt");
  // Point the first unit's read of weight blur_w one element further.
  const Region& w = d.map.regions.at(static_cast<size_t>(s.prog.findBuffer("blur_w")));
  std::string& unit0 = d.files.at(d.files.size() - s.prog.units.size() - 1).text;
  std::string from = "ss_read  -- buffer blur_w";
  size_t at = unit0.find(from);
  ASSERT_NE(at, std::string::npos) << unit0;
  std::string base = fmt::format("BASE => {},", w.base);
  size_t b = unit0.find(base, at);
  ASSERT_NE(b, std::string::npos);
  unit0.replace(b, base.size(), fmt::format("BASE => {},", w.base + 1));
  // A read one byte off its lines breaks the alignment its runs had: drop the claim, so
  // that it reads the wrong elements rather than stop (AReadOrWriteWhoseRunsBreak... below).
  const size_t claim = unit0.find(", OFF_ALIGN => ", b);
  if (claim != std::string::npos && claim < unit0.find(')', b)) unit0.erase(claim, unit0.find_first_of(",)", claim + 2) - claim);
  SimResult r = run(d, s.inputs, "corrupt", 1'000'000);
  ASSERT_TRUE(r.ok) << r.error;
  auto want = ir::evaluateModule(s.m.module, *s.m.ctx, s.inputs);
  auto bad = firstMismatch(want, r.outputs);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->buffer, "edges");
  // a two-dimensional index "[i][j]"
  EXPECT_EQ(std::count(bad->index.begin(), bad->index.end(), '['), 2) << bad->index;
  EXPECT_EQ(bad->index.find_first_not_of("[]0123456789"), std::string::npos) << bad->index;
  EXPECT_NE(bad->expected, bad->got);
  EXPECT_NE(bad->describe().find("output 'edges' element " + bad->index), std::string::npos) << bad->describe();
  // ... and the uncorrupted design passes on the same inputs.
  SimResult good = run(emit(s.prog, "uncorrupted"), s.inputs, "uncorrupted", 1'000'000);
  ASSERT_TRUE(good.ok) << good.error;
  EXPECT_FALSE(firstMismatch(want, good.outputs).has_value());
}

// A read's or write's OFF_ALIGN and LANE_ALIGN drop its aligners' low stages
// (lower::readAlignment, writeAlignment). A claim that some run breaks must stop the
// simulation with a message, not let it assemble or write wrong lines.
void expectABrokenAlignmentClaimStops(const std::string& instance, const std::string& claim, const std::string& what) {
  Stencil s;
  EmittedDesign d = emit(s.prog, "misaligned");
  bool found = false;
  for (auto& f : d.files) {
    const size_t at = f.text.find(instance);
    if (at == std::string::npos) continue;
    const size_t end = f.text.find(')', f.text.find("PER_CYCLE", at));
    ASSERT_NE(end, std::string::npos);
    // the claim replaces what the compiler found (", NAME => digits")
    std::string generics = f.text.substr(at, end - at);
    const size_t old = generics.find(", " + claim.substr(0, claim.find(" =>") + 3));
    if (old != std::string::npos) generics.erase(old, generics.find_first_of(",", old + 2) - old);
    f.text.replace(at, end - at, generics + ", " + claim);
    found = true;
    break;
  }
  ASSERT_TRUE(found) << instance;
  SimResult r = run(d, s.inputs, "misaligned", 1'000'000);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find(what + ": a run breaks the alignment the compiler found"), std::string::npos) << r.error;
}

TEST(SimChecks, AReadOrWriteWhoseRunsBreakItsClaimedAlignmentStopsTheSimulation) {
  // the image read starts its runs at any byte of a line
  expectABrokenAlignmentClaimStops("ss_read  -- buffer image", "OFF_ALIGN => 6", "ss_read");
  // the result's rows are 8 bytes: a write at every eighth byte, not only at line starts
  expectABrokenAlignmentClaimStops("ss_write  -- buffer edges", "OFF_ALIGN => 6", "ss_write");
}

/// Makes every Write to `buffer` skip the elements at row-major offsets >= `from`: a mask
/// on the written address (an affine function of the generator's digits) that only
/// offsets below `from` pass. The design is otherwise unchanged.
void skipWritesFrom(lower::Program& prog, const std::string& buffer, int64_t from) {
  int b = prog.findBuffer(buffer);
  ASSERT_GE(b, 0) << buffer;
  int writes = 0;
  for (auto& u : prog.units)
    for (auto& n : u.nodes) {
      if (n.prim != lower::Prim::Write || n.buffer != b) continue;
      lower::AddrGen& a = n.addr;
      lower::Affine address;
      address.coef.assign(a.numDigits(), 0);
      int64_t stride = 1;
      for (size_t d = a.space.size(); d-- > 0;) {
        address.offset += stride * a.coords[d].offset;
        for (size_t k = 0; k < address.coef.size(); ++k) address.coef[k] += stride * a.coords[d].coef[k];
        stride *= a.space[d];
      }
      a.masks.push_back({address, 0, from, 0});
      ++writes;
    }
  ASSERT_GT(writes, 0) << "no Write to " << buffer;
}

std::map<std::string, Tensor> zeroInputs(const std::map<std::string, Tensor>& like) {
  std::map<std::string, Tensor> z;
  for (const auto& [name, t] : like) z.emplace(name, Tensor(t.bits(), t.shape()));
  return z;
}

// The outputs' memory starts as poison (memoryImage), so an element the design never
// writes is caught even where the expected value is 0. The hardest case: an all-zero
// image, whose edges are all zero, and a design that skips the last element's write.
void expectASkippedWriteIsCaught(Simulator sim) {
  Stencil s;
  auto zeros = zeroInputs(s.inputs);
  auto want = ir::evaluateModule(s.m.module, *s.m.ctx, zeros);
  const Tensor& edges = want.at("edges");
  for (size_t i = 0; i < edges.size(); ++i) ASSERT_EQ(edges[i], 0);  // what makes this the hard case
  lower::Program skipping = s.prog;
  skipWritesFrom(skipping, "edges", static_cast<int64_t>(edges.size()) - 1);
  SimResult good = run(emit(s.prog, "complete"), zeros, "complete", 1'000'000, sim);
  ASSERT_TRUE(good.ok) << good.error;
  EXPECT_FALSE(firstMismatch(want, good.outputs).has_value());

  SimResult r = run(emit(skipping, "skip_last"), zeros, "skip_last", 1'000'000, sim);
  ASSERT_TRUE(r.ok) << r.error;
  auto bad = firstMismatch(want, r.outputs);
  ASSERT_TRUE(bad.has_value()) << "a skipped write passed";
  EXPECT_EQ(bad->describe().substr(0, 32), "output 'edges' element [7][7]: e") << bad->describe();
  EXPECT_EQ(bad->expected, 0);
  EXPECT_NE(bad->got, 0);
  // Every other element was written.
  for (size_t i = 0; i + 1 < edges.size(); ++i) EXPECT_EQ(r.outputs.at("edges")[i], 0) << i;
}

TEST(SimChecks, ASkippedWriteIsCaughtAtTheElementEvenWhereZeroIsExpected) { expectASkippedWriteIsCaught(Simulator::Ghdl); }
TEST(SimChecks, DISABLED_ASkippedWriteIsCaughtInVerilator) { expectASkippedWriteIsCaught(Simulator::Verilator); }

// A design that writes nothing at all cannot pass, whatever its inputs.
void expectADesignThatWritesNothingFails(Simulator sim) {
  Stencil s;
  lower::Program silent = s.prog;
  skipWritesFrom(silent, "edges", 0);
  for (const auto& inputs : {s.inputs, zeroInputs(s.inputs)}) {
    SimResult r = run(emit(silent, "silent"), inputs, "silent", 1'000'000, sim);
    ASSERT_TRUE(r.ok) << r.error;
    auto bad = firstMismatch(ir::evaluateModule(s.m.module, *s.m.ctx, inputs), r.outputs);
    ASSERT_TRUE(bad.has_value());
    EXPECT_EQ(bad->buffer, "edges");
    EXPECT_EQ(bad->index, "[0][0]");
  }
}

TEST(SimChecks, ADesignThatWritesNothingFails) { expectADesignThatWritesNothingFails(Simulator::Ghdl); }
TEST(SimChecks, DISABLED_ADesignThatWritesNothingFailsInVerilator) { expectADesignThatWritesNothingFails(Simulator::Verilator); }

void expectTheCycleLimitStopsAHungDesign(Simulator sim) {
  Stencil s;
  // "complete": the design of the skipped-write check, whose Verilator model is cached by then
  SimResult r = run(emit(s.prog, "complete"), s.inputs, "limited", 50, sim);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.cycles, 50);
  EXPECT_NE(r.error.find("did not finish within 50 cycles"), std::string::npos) << r.error;
}

TEST(SimChecks, CycleLimitStopsAHungDesign) { expectTheCycleLimitStopsAHungDesign(Simulator::Ghdl); }
TEST(SimChecks, DISABLED_CycleLimitStopsAHungDesignInVerilator) { expectTheCycleLimitStopsAHungDesign(Simulator::Verilator); }

TEST(SimChecks, EmittedDesignsSynthesise) {
  for (const char* file : {"stencil4_small.dsl", "self_attention_small.dsl"}) {
    auto m = test_support::loadDsl(benchPath(file));
    EmittedDesign d = emit(lower::lowerModule(m.module, *m.ctx), "synth");
    auto dir = scratch(std::string("synth_") + file);
    writeDesign(d, dir);
    std::vector<std::filesystem::path> files;
    for (const auto& f : d.files) files.push_back(dir / f.name);
    GhdlResult g = ghdlSynth(dir, files, d.top);
    EXPECT_TRUE(g.ok) << file << ": " << g.failedStep << "\n" << g.log;
  }
}

TEST(MemoryMap, ImageAndDumpRoundTrip) {
  lower::Program p;
  p.buffers.push_back({"a", 8, {70}, lower::Memory::OffChip, lower::Role::Input});
  p.buffers.push_back({"b", 32, {3, 5}, lower::Memory::OffChip, lower::Role::Output});
  MemoryMap map = layoutMemory(p);
  EXPECT_EQ(map.regions[0].base, 0);
  EXPECT_EQ(map.regions[1].base, 128);  // 70 bytes round up to two lines
  EXPECT_EQ(map.totalBytes, 192);
  Tensor a(8, {70}), b(32, {3, 5});
  for (size_t i = 0; i < a.size(); ++i) a.setWrapped(i, static_cast<int64_t>(i) * 37 - 1000);
  for (size_t i = 0; i < b.size(); ++i) b.setWrapped(i, -static_cast<int64_t>(i) * 123457);
  std::string image = memoryImage(map, {{"a", a}, {"b", b}}, 1);
  // the image lines, numbered, are a dump
  std::istringstream in(image);
  std::string line, dump;
  for (int n = 0; std::getline(in, line); ++n) dump += std::to_string(n) + " " + line + "\n";
  auto out = readOutputs(map, dump);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out.at("b") == b);
  EXPECT_THROW(readOutputs(map, "2 zz\n"), std::runtime_error);
  EXPECT_THROW(readOutputs(map, "0 " + std::string(128, '0') + "\n"), std::runtime_error);  // line 2 missing
  EXPECT_THROW(memoryImage(map, {{"a", b}}, 1), std::runtime_error);
  EXPECT_NE(cHeader(map, "my design").find("#define MY_DESIGN_B_BASE 0x00000080u"), std::string::npos);
}

// What the design has to write starts as poison: outputs, intermediates and the unused
// bytes after every region; never 0, a function of the seed.
TEST(MemoryMap, UnwrittenMemoryIsPoisonedBySeed) {
  lower::Program p;
  p.buffers.push_back({"a", 8, {70}, lower::Memory::OffChip, lower::Role::Input});
  p.buffers.push_back({"t", 8, {64}, lower::Memory::OffChip, lower::Role::Intermediate});
  p.buffers.push_back({"b", 32, {3, 5}, lower::Memory::OffChip, lower::Role::Output});
  MemoryMap map = layoutMemory(p);
  Tensor a(8, {70});
  for (size_t i = 0; i < a.size(); ++i) a.setWrapped(i, static_cast<int64_t>(i % 3));  // zeros among the data
  auto dumpOf = [&](uint64_t seed) {
    std::istringstream in(memoryImage(map, {{"a", a}}, seed));
    std::string line, dump;
    for (int n = 0; std::getline(in, line); ++n) dump += std::to_string(n) + " " + line + "\n";
    return dump;
  };
  std::string d1 = dumpOf(1), d2 = dumpOf(2);
  EXPECT_EQ(d1, dumpOf(1));
  EXPECT_NE(d1, d2);
  // every line: byte 63 first, so the input's bytes 0..63 are the last 128 digits of line 0
  std::istringstream lines(d1);
  std::string n, hex;
  lines >> n >> hex;
  for (int byte = 0; byte < 64; ++byte)
    EXPECT_EQ(hex.substr(static_cast<size_t>(2 * (63 - byte)), 2), fmt::format("{:02x}", byte % 3)) << byte;
  lines >> n >> hex;  // line 1: input bytes 64..69, then poison
  for (int byte = 0; byte < 64; ++byte) {
    std::string digits = hex.substr(static_cast<size_t>(2 * (63 - byte)), 2);
    if (byte < 6) EXPECT_EQ(digits, fmt::format("{:02x}", (64 + byte) % 3)) << byte;
    else EXPECT_EQ(std::stoi(digits, nullptr, 16) % 2, 1) << "byte " << 64 + byte << " is not poison: " << digits;
  }
  auto out = readOutputs(map, d1).at("b");
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NE(out[i], 0) << i;
  EXPECT_FALSE(readOutputs(map, d1).at("b") == readOutputs(map, d2).at("b"));
  std::vector<uint8_t> poison = poisonBytes(4096, 7);
  EXPECT_EQ(std::count(poison.begin(), poison.end(), uint8_t{0}), 0);
  EXPECT_GT(std::set<uint8_t>(poison.begin(), poison.end()).size(), 100u);  // not a constant
}

TEST(Emitter, IdentifiersAreSanitised) {
  EXPECT_EQ(vhdlIdentifier("vgg_cifar_small"), "vgg_cifar_small");
  EXPECT_EQ(vhdlIdentifier("My--Design.v2_"), "my_design_v2");
  EXPECT_EQ(vhdlIdentifier("3x3"), "d_3x3");
  EXPECT_EQ(vhdlIdentifier("__"), "d");
}

}  // namespace
}  // namespace skeleshare::vhdl::test
