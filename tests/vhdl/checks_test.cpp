// The checks around simulation: a corrupted design is caught and the first differing
// element named; a hung design hits the cycle limit; emitted designs pass `ghdl synth`;
// the memory image and dump round-trip; identifiers are sanitised.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

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

SimResult run(const EmittedDesign& d, const std::map<std::string, Tensor>& inputs, const std::string& name, int64_t maxCycles) {
  auto dir = scratch(name);
  TestbenchFiles tb = emitTestbench(d, templateDir());
  writeDesign(d, dir / "vhdl");
  writeTestbench(tb, dir / "vhdl");
  SimOptions so;
  so.maxCycles = maxCycles;
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

TEST(SimChecks, CycleLimitStopsAHungDesign) {
  Stencil s;
  SimResult r = run(emit(s.prog, "limited"), s.inputs, "limited", 50);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("did not finish within 50 cycles"), std::string::npos) << r.error;
}

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
  std::string image = memoryImage(map, {{"a", a}, {"b", b}});
  // the image lines, numbered, are a dump
  std::istringstream in(image);
  std::string line, dump;
  for (int n = 0; std::getline(in, line); ++n) dump += std::to_string(n) + " " + line + "\n";
  auto out = readOutputs(map, dump);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out.at("b") == b);
  EXPECT_THROW(readOutputs(map, "2 zz\n"), std::runtime_error);
  EXPECT_THROW(readOutputs(map, "0 " + std::string(128, '0') + "\n"), std::runtime_error);  // line 2 missing
  EXPECT_THROW(memoryImage(map, {{"a", b}}), std::runtime_error);
  EXPECT_NE(cHeader(map, "my design").find("#define MY_DESIGN_B_BASE 0x00000080u"), std::string::npos);
}

TEST(Emitter, IdentifiersAreSanitised) {
  EXPECT_EQ(vhdlIdentifier("vgg_cifar_small"), "vgg_cifar_small");
  EXPECT_EQ(vhdlIdentifier("My--Design.v2_"), "my_design_v2");
  EXPECT_EQ(vhdlIdentifier("3x3"), "d_3x3");
  EXPECT_EQ(vhdlIdentifier("__"), "d");
}

}  // namespace
}  // namespace skeleshare::vhdl::test
