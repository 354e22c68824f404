// benchmarks/synth.py on a compiled design: `ghdl synth` must accept what `compile` emits.
// yosys runs here on one template only, or up to the hard blocks (--blocks-only) on a design
// of one small unit: on today's templates a whole design's logic takes many minutes even for
// the small stencil (docs/hardware.md, "Synthesis and resources").

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tool_runner.h"

namespace skeleshare::testing {
namespace {

std::string synthScript() { return sourcePath("benchmarks/synth.py").string(); }

/// benchmarks/synth.py on the compiled design in `out`, with `args` (shell words, quoted
/// where they need it) after it; its netlist fix-ups by the skeleshare under test.
RunResult runSynth(const std::filesystem::path& out, const std::string& args, const std::filesystem::path& dir) {
  return runShell("/usr/bin/python3 " + shellQuote(synthScript()) + " " + shellQuote(out.string()) + " --skeleshare " +
                      shellQuote(SKELESHARE_TOOL) + " " + args,
                  dir);
}

std::filesystem::path compileSmallStencil(const std::filesystem::path& dir) {
  auto out = dir / "out";
  auto r = runTool({"compile", sourcePath("benchmarks/small/stencil4_small.dsl").string(), "-o", out.string(), "-q"}, dir);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  return out;
}

TEST(CliSynth, GhdlSynthesisesTheSmallStencil) {
  auto dir = scratchDir();
  auto out = compileSmallStencil(dir);
  auto r = runSynth(out, "--ghdl-only", dir);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ghdl synth:"), std::string::npos) << r.out;
  auto report = nlohmann::json::parse(readFile(out / "report.json"));
  EXPECT_EQ(report["top"], "stencil4_small_top");  // the rest of the report is kept
  ASSERT_TRUE(report.contains("synth"));
  EXPECT_GT(report["synth"]["verilog_bytes"].get<int64_t>(), 0);
  std::string verilog = readFile(out / "synth" / "stencil4_small_top.v");
  EXPECT_NE(verilog.find("module stencil4_small_top"), std::string::npos);
}

/// The hex value of o_data at time step 2 in yosys' `sat -show` table
/// ("     2 \o_data   127   7f   01111111"), or "" when there is none. (No std::regex:
/// GCC 12 warns inside <regex> under the sanitizers, and the build treats warnings as errors.)
std::string satValueAtStep2(const std::string& out) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string step, signal, dec, hex;
    if (words >> step >> signal >> dec >> hex && step == "2" && signal == "\\o_data") return hex;
  }
  return "";
}

TEST(CliSynth, YosysReadsGhdlsWideConstantsAsNumbers) {
  // GHDL 2.0 writes a constant wider than 32 bits as a Verilog string ("0...01111111"),
  // which yosys reads as ASCII: ss_unop's saturation bounds became huge, its output the
  // constant -128, and the flattened designs lost every multiplier feeding it. synth.py
  // rewrites those strings as sized binary literals; yosys' SAT-based simulation of the
  // netlist it hands on must saturate like the template. (Since saturation tests the
  // sign's copies, a 48-bit input is what makes a constant wider than 32 bits: the 43-bit
  // all-ones compare; read as ASCII, -5 saturates.)
  auto dir = scratchDir();
  auto out = compileSmallStencil(dir);
  auto r = runSynth(out, "--ghdl-only --entity ss_unop -g OP=sat -g LANES=1 -g I_BITS=48 -g O_BITS=8 -g K=8", dir);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto s = nlohmann::json::parse(readFile(out / "report.json"))["synth_entity"];
  EXPECT_GE(s["ghdl_string_literals_fixed"].get<int64_t>(), 1) << s.dump();  // a 43-bit sign copy
  auto netlist = out / "synth" / "ss_unop" / "ss_unop.v";
  for (auto [in, expected] : std::vector<std::pair<int, std::string>>{{1000, "7f"}, {-1000, "80"}, {100, "64"}, {-5, "fb"}}) {
    // two clock steps from reset state: the registered output holds apply(i_data) at step 2
    auto sim = runShell("yosys -p " +
                            shellQuote("read_verilog " + netlist.string() +
                                       "; prep -top ss_unop; flatten; sat -seq 2 -set-init-zero -set rst 0"
                                       " -set i_valid 1 -set o_ready 1 -set i_data " + std::to_string(in) +
                                       " -show o_data"),
                        dir);
    ASSERT_EQ(sim.exitCode, 0) << sim.err;
    EXPECT_EQ(satValueAtStep2(sim.out), expected) << "saturate(" << in << ")\n" << sim.out;
  }
}

TEST(CliSynth, YosysMapsTheEmittedMultipliersTwoPerDspBlock) {
  // The design's multiplier template as emitted, 24 lanes of i8 x i8 (one stencil unit's):
  // yosys makes each lane a MISTRAL_MUL18X18, two of which share an Arria 10 DSP block,
  // and ignores multstyle "logic" (DSP => false) - the reasons its DSP count is not the
  // compiler's one per lane (docs/hardware.md, "Synthesis and resources").
  auto dir = scratchDir();
  auto out = compileSmallStencil(dir);
  for (const char* dsp : {"true", "false"}) {
    auto r = runSynth(out, std::string("--entity ss_mul -g LANES=24 -g A_BITS=8 -g B_BITS=8 -g DSP=") + dsp, dir);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    auto s = nlohmann::json::parse(readFile(out / "report.json"))["synth_entity"];
    EXPECT_EQ(s["entity"], "ss_mul");
    EXPECT_EQ(s["dsp_mults"]["MISTRAL_MUL18X18"], 24) << s.dump();
    EXPECT_EQ(s["dsps"], 12);
    EXPECT_EQ(s["m20k"], 0);
    EXPECT_GE(s["ffs"].get<int64_t>(), 24 * 16);  // registered products (16 significant bits each)
    EXPECT_GT(s["percent"]["dsps"].get<double>(), 0.0);
  }
}

TEST(CliSynth, ClassicAbcMapperKeepsTheFlowUpToLutMapping) {
  // --lut-mapper abc runs synth_intel_alm up to map_luts and maps LUTs with classic abc:
  // DSPs and flip-flops are mapped before that step, so they must match the abc9 flow's.
  auto dir = scratchDir();
  auto out = compileSmallStencil(dir);
  auto r = runSynth(out, "--lut-mapper abc --entity ss_reduce_vec -g KIND=add -g LANES_OUT=1 -g N=24 -g I_BITS=8 -g O_BITS=32", dir);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto s = nlohmann::json::parse(readFile(out / "report.json"))["synth_entity"];
  EXPECT_NE(s["tool"].get<std::string>().find("abc -lut 6"), std::string::npos) << s.dump();
  EXPECT_GT(s["luts"].get<int64_t>(), 0) << s.dump();   // an adder tree of 24 bytes is logic
  EXPECT_GE(s["ffs"].get<int64_t>(), 8 + 5);            // its registered sum (the rest of the 32 bits are sign copies)
  EXPECT_EQ(s["dsps"], 0);
  // the tree's adders are carry chains: with 32-bit nodes yosys merged them into one
  // multi-operand sum built from full adders in LUTs, twice the ALMs
  EXPECT_GE(s["cells"].value("MISTRAL_ALUT_ARITH", 0), s["luts"].get<int64_t>() * 9 / 10) << s.dump();
}

TEST(CliSynth, HierarchyOfANetlistIsCountedPerInstance) {
  // the module splitting and instance counting of --per-module (doctests in the script)
  auto dir = scratchDir();
  auto r = runShell("/usr/bin/python3 -m doctest " + shellQuote(sourcePath("benchmarks/verilog_modules.py").string()) + " " +
                        shellQuote(synthScript()),  // and synth.py's helpers
                    dir);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
}

TEST(CliSynth, PerModuleRunsReuseUnchangedModules) {
  auto dir = scratchDir();
  auto out = compileSmallStencil(dir);
  std::string args =
      "--per-module --lut-mapper abc --entity ss_reduce_vec -g KIND=add -g LANES_OUT=1 -g N=24 -g I_BITS=8 -g O_BITS=32";
  nlohmann::json first;
  for (int run = 0; run < 2; ++run) {
    auto r = runSynth(out, args, dir);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    auto s = nlohmann::json::parse(readFile(out / "report.json"))["synth_entity"];
    EXPECT_EQ(s["modules"]["unique"], 1) << s.dump();
    EXPECT_EQ(s["modules"]["reused"], run) << s.dump();  // the second run synthesises nothing
    if (run == 0) first = s;
    // the design's yosys cost, from the modules' logs: the same when they are reused
    EXPECT_GT(s["modules"]["cpu_seconds"].get<double>(), 0.0) << s.dump();
    EXPECT_EQ(s["modules"]["cpu_seconds"], first["modules"]["cpu_seconds"]);
    EXPECT_GT(s["modules"]["peak_mb"].get<double>(), 0.0);
    EXPECT_EQ(s["luts"], first["luts"]);
    EXPECT_EQ(s["ffs"], first["ffs"]);
    EXPECT_GT(s["luts"].get<int64_t>(), 0);
    // the breakdown by template: here the one module is the whole entity
    EXPECT_EQ(s["by_template"].size(), 1u) << s.dump();
    EXPECT_EQ(s["by_template"]["ss_reduce_vec"]["instances"], 1) << s.dump();
    EXPECT_EQ(s["by_template"]["ss_reduce_vec"]["luts"], s["luts"]);
  }
}

TEST(CliSynth, BlocksOnlyMapsAWholeDesignsDspBlocksAsTheCompilerCountsThem) {
  // --blocks-only runs synth_intel_alm up to its logic mapping, per module: on a whole
  // design (one 8 x 8 x 8 matrix product at 8 blocks, 16 lanes) yosys's DSP blocks must
  // be the compiler's, two i8 products per block, and its RAMs the compiler's M20K blocks
  // and MLAB cells. The figures go to "synth_blocks" with
  // no logic figures, and never replace a full run's "synth".
  auto dir = scratchDir();
  { std::ofstream(dir / "mm.dsl") << "input x : i8[8][8];\nweight w : i8[8][8];\noutput y = requant(mm(x, w), 6);\n"; }
  auto out = dir / "out";
  auto c = runTool({"compile", (dir / "mm.dsl").string(), "--dsp-budget", "8", "-o", out.string(), "-q"}, dir);
  ASSERT_EQ(c.exitCode, 0) << c.out << c.err;
  auto r = runSynth(out, "--per-module --blocks-only", dir);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto report = nlohmann::json::parse(readFile(out / "report.json"));
  EXPECT_FALSE(report.contains("synth"));
  auto s = report["synth_blocks"];
  EXPECT_EQ(report["hardware"]["dsp_multiplier_lanes"], 16) << report["hardware"].dump();
  EXPECT_EQ(s["dsps"], report["hardware"]["dsps"]) << s.dump();
  EXPECT_EQ(s["dsp_mults"]["MISTRAL_MUL18X18"], 16) << s.dump();
  EXPECT_EQ(s["dsp_agreement"].get<std::string>().rfind("agree:", 0), 0u) << s.dump();
  EXPECT_FALSE(s.contains("alms"));  // no logic was mapped
  EXPECT_TRUE(s.contains("m20k"));
  // every memory goes to a RAM block: the arbiter's FIFO too (it has no initial value)
  EXPECT_EQ(s["memories_in_logic"], 0) << s.dump();
  EXPECT_EQ(s["by_template"]["ss_mul"]["dsps"], 8) << s.dump();
  // and its RAMs as the compiler counts them (lower/ram_mapping.h), the arbiter's FIFO of
  // read ports too (three ports: 32 words of 2 bits, 2 cells)
  EXPECT_EQ(s["by_template"]["ss_mem_arbiter"]["mlabs"], 2) << s.dump();
  EXPECT_GT(s["mlabs"].get<int64_t>(), 2) << s.dump();
  EXPECT_EQ(s["mlabs"], report["hardware"]["mlab_cells"]) << s.dump();
  EXPECT_EQ(s["m20k"], report["hardware"]["m20k_blocks"]) << s.dump();
  EXPECT_EQ(s["ram_agreement"].get<std::string>().rfind("agree:", 0), 0u) << s.dump();
  // --dsps-only maps the modules that multiply, and only them: the same DSP blocks, from
  // one module of the design's nineteen
  auto d = runSynth(out, "--dsps-only", dir);
  ASSERT_EQ(d.exitCode, 0) << d.out << d.err;
  report = nlohmann::json::parse(readFile(out / "report.json"));
  auto ds = report["synth_dsps"];
  EXPECT_EQ(ds["dsps"], s["dsps"]) << ds.dump();
  EXPECT_EQ(ds["dsp_agreement"].get<std::string>().rfind("agree:", 0), 0u) << ds.dump();
  EXPECT_EQ(ds["modules"]["mapped"], 1) << ds.dump();
  EXPECT_GT(ds["modules"]["unique"].get<int64_t>(), 1) << ds.dump();
  EXPECT_EQ(ds["by_template"]["ss_mul"]["dsps"], 8) << ds.dump();
  EXPECT_FALSE(ds.contains("m20k"));
  EXPECT_EQ(report["synth_blocks"], s);  // a run of its own, beside the blocks-only one
  EXPECT_EQ(runSynth(out, "--dsps-only --blocks-only", dir).exitCode, 1);
  // a run of one entity, or of GHDL only, is not a count of the design's blocks
  auto bad = runSynth(out, "--blocks-only --entity ss_mul -g LANES=2", dir);
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("--blocks-only"), std::string::npos) << bad.err;
}

TEST(CliSynth, ToolFailureIsAnErrorWithTheToolsLastLines) {
  auto dir = scratchDir();
  auto out = compileSmallStencil(dir);
  std::string before = readFile(out / "report.json");
  // a VHDL file that does not analyse: GHDL's own message must reach the user
  {
    std::ofstream bad(out / "vhdl" / "ss_pkg.vhd", std::ios::app);
    bad << "\nthis is not vhdl;\n";
  }
  auto r = runSynth(out, "--ghdl-only", dir);
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("ghdl synth failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ss_pkg.vhd"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(out / "report.json"), before);  // nothing half-written
}

TEST(CliSynth, MissingTopIsAnError) {
  auto dir = scratchDir();
  auto out = dir / "empty";
  std::filesystem::create_directories(out);
  { std::ofstream(out / "report.json") << "{\"status\": \"ok\"}\n"; }
  auto r = runSynth(out, "", dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no \"top\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace skeleshare::testing
