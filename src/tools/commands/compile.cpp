// skeleshare compile FILE(.dsl|.ir) -o DIR [flags]: the compile pipeline (driver::compile):
// saturate the program with the rule set, extract the fastest design within the DSP
// budget (Z3), outline it into a let-bound skeleton program, lower it and emit VHDL.
// Writes DIR/design.ir, DIR/report.json (docs/extraction.md, docs/hardware.md), the
// hardware in DIR/vhdl/ (files.txt gives the compile order; docs/hardware.md), the C
// header of the memory map, and with --emit shir the mid-level program DIR/design.shir.

#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "command.h"
#include "compile_flags.h"
#include "output_files.h"
#include "memory_fit.h"
#include "program_loader.h"
#include "skeleshare/driver/driver.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/lower/interpreter.h"
#include "skeleshare/vhdl/emitter.h"

namespace skeleshare::tools {

namespace {

struct CompileCommandOptions {
  std::string file;
  std::string outDir;
  driver::CompileOptions compile;
  bool quiet = false;
  bool checkEval = false;
  std::vector<std::string> emit;  // "shir": also write DIR/design.shir
};

using Tensors = std::map<std::string, Tensor>;

void writeText(StagedOutputs& staged, const std::string& name, const std::string& text) {
  staged.stage(name, [&](const std::filesystem::path& p) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
  });
}

bool sameOutputs(const Tensors& want, const Tensors& got) {
  bool same = want.size() == got.size();
  for (const auto& [name, t] : want) same = same && got.count(name) && got.at(name) == t;
  return same;
}

int runCompile(CompileCommandOptions o) {
  auto loaded = loadProgram(o.file, std::cerr);
  if (!loaded) return kExitInputError;
  if (!interfaceFitsMemory(*loaded, std::cerr)) return kExitInputError;
  const std::optional<driver::Workload> work = workloadOf(*loaded);
  o.compile.dataDir = SKELESHARE_DATA_DIR;
  o.compile.design = vhdl::vhdlIdentifier(std::filesystem::path(o.file).stem().string());
  if (!o.quiet) o.compile.progress = [](const std::string& line) { std::cerr << line << '\n'; };

  driver::Compiled c = driver::compile(loaded->module, *loaded->ctx, work, o.compile);
  if (c.status == driver::Status::BadInput) {
    std::cerr << "skeleshare compile: error: " << c.message << '\n';
    return kExitUsage;
  }
  c.report["file"] = o.file;

  int exitCode = kExitOk;
  if (c.status == driver::Status::NoDesign) {
    std::cerr << "skeleshare compile: " << c.message << '\n';
    exitCode = kExitNoDesign;
  } else if (c.status == driver::Status::NotLowered) {
    std::cerr << "skeleshare compile: error: " << c.message << '\n';
    exitCode = kExitInputError;
  }
  if (c.design && o.checkEval) {
    Tensors inputs = ir::randomInputs(loaded->module, 1);
    Tensors want = ir::evaluateModule(loaded->module, *loaded->ctx, inputs);
    bool same = sameOutputs(want, ir::evaluateModule(*c.design, *loaded->ctx, inputs));
    c.report["check_eval"] = same ? "equal" : "MISMATCH";
    if (!o.quiet)
      std::cerr << fmt::format("check: the design {} the source on random inputs\n", same ? "evaluates like" : "DIFFERS FROM");
    if (!same) exitCode = kExitMismatch;
    if (c.program) {  // the mid-level interpreter against the skeleton interpreter
      bool lowSame = sameOutputs(want, lower::run(*c.program, inputs));
      c.report["check_lowered"] = lowSame ? "equal" : "MISMATCH";
      if (!o.quiet)
        std::cerr << fmt::format("check: the lowered program {} the source\n", lowSame ? "evaluates like" : "DIFFERS FROM");
      if (!lowSame) exitCode = kExitMismatch;
    }
  }

  std::filesystem::path dir(o.outDir);
  bool emitShir = std::find(o.emit.begin(), o.emit.end(), "shir") != o.emit.end();
  // The lowering's own fields belong to --emit shir (tests/tools/cli_lower_test.cpp); the
  // hardware's numbers are in "hardware" either way.
  if (!emitShir)
    for (const char* key :
         {"lowered_dsps", "lowered_dsp_lanes", "onchip_memory_bits", "lowered_m20k_blocks", "lowered_mlab_cells",
          "estimated_cycles", "estimated_cycles_one_after_another", "estimated_units", "lowered_units",
          "lowered_calls"})
      c.report.erase(key);
  {
    StagedOutputs top(dir), vhdlFiles(dir / "vhdl");
    for (const auto& [name, text] : driver::outputFiles(c, driver::templateDir(SKELESHARE_DATA_DIR))) {
      if (name.rfind("vhdl/", 0) == 0) writeText(vhdlFiles, name.substr(5), text);
      else if (name != "report.json") writeText(top, name, text);
    }
    if (emitShir && c.program) writeText(top, "design.shir", c.programText);
    writeText(top, "report.json", c.report.dump(2) + "\n");
    vhdlFiles.commit();
    top.commit();
  }
  // No stale results of an earlier run in the same directory.
  std::error_code ec;
  if (!c.design) std::filesystem::remove(dir / "design.ir", ec);
  if (!(emitShir && c.program)) std::filesystem::remove(dir / "design.shir", ec);
  if (c.status == driver::Status::Ok && !o.quiet)
    std::cerr << fmt::format("wrote {}/vhdl/ (top entity {}) and {}/report.json\n", o.outDir, c.hardware->top, o.outDir);
  return exitCode;
}

Command addCompileCommand(CLI::App& root) {
  auto o = std::make_shared<CompileCommandOptions>();
  CLI::App* app = root.add_subcommand(
      "compile",
      "Saturate, extract the fastest design within the DSP budget, lower it and emit VHDL: DIR/design.ir, DIR/vhdl/, "
      "DIR/report.json");
  app->add_option("file", o->file, "the .dsl (or .ir) program")->required();
  app->add_option("-o,--output", o->outDir, "output directory")->required();
  addCompileFlags(*app, o->compile);
  app->add_flag("--check-eval", o->checkEval,
                "evaluate the source, the design and the lowered program on random inputs and compare (exit 4 if "
                "they differ)");
  app->add_option("--emit", o->emit, "also write a lowered form: shir (DIR/design.shir, the mid-level IR)")
      ->check(CLI::IsMember({"shir"}));
  app->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
  return {app, [o] { return runCompile(*o); }};
}

}  // namespace

static const CommandRegistration kRegistration{50, addCompileCommand};

}  // namespace skeleshare::tools
