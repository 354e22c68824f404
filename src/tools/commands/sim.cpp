// skeleshare sim FILE(.dsl|.ir) [compile flags] [--seed N] [--input NAME=PATH.npy]...
//                [--simulator auto|ghdl|verilator|both] [--check-forms] [--json] [-o DIR]
// Compiles the program to VHDL (driver::compile), writes the memory image, simulates the
// generated testbench in GHDL or Verilator with seeded random memory wait states, and
// compares every output bit for bit with the skeleton interpreter. Exit 0 only on a
// bit-exact match (with `both`: and the two simulators agree cycle for cycle; with
// --check-forms: and GHDL agrees on the RTL as synthesis reads it, without the
// simulation forms).

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>

#include "command.h"
#include "compile_flags.h"
#include "output_files.h"
#include "program_inputs.h"
#include "memory_fit.h"
#include "program_loader.h"
#include "skeleshare/driver/driver.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/support/npy.h"
#include "skeleshare/vhdl/ghdl.h"
#include "skeleshare/vhdl/simulate.h"
#include "skeleshare/vhdl/verilator.h"

namespace skeleshare::tools {
namespace {

struct SimCommandOptions {
  std::string file;
  std::string outDir;
  driver::CompileOptions compile;
  uint64_t seed = 1;
  InputFiles files;
  bool json = false;
  bool quiet = false;
  int stallPercent = 25;
  int64_t maxCycles = 50'000'000;
  std::string backend = "auto";
  std::string simulator = "auto";
  bool checkForms = false;
};

/// One simulation of the design: a simulator, and for GHDL which forms of the templates.
struct SimRun {
  vhdl::Simulator simulator;
  bool synthesisForms = false;
  std::string name() const {
    return synthesisForms ? fmt::format("{} (synthesis forms)", vhdl::simulatorName(simulator)) : vhdl::simulatorName(simulator);
  }
  std::string dirName() const {
    return synthesisForms ? fmt::format("sim-{}-synthesis", vhdl::simulatorName(simulator))
                          : fmt::format("sim-{}", vhdl::simulatorName(simulator));
  }
};

using Json = nlohmann::ordered_json;
using Tensors = std::map<std::string, Tensor>;

void stageText(StagedOutputs& staged, const std::string& name, const std::string& text) {
  staged.stage(name, [&](const std::filesystem::path& p) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
  });
}

/// "; ghdl and verilator agree" and the like, for the runs after the first.
std::string agreed(const std::vector<SimRun>& plan) {
  std::string s;
  for (size_t k = 1; k < plan.size(); ++k) s += fmt::format("; {} and {} agree", plan[0].name(), plan[k].name());
  return s;
}

/// Each unit's cycles, start and end beside the lowering's estimate of them (report.json's
/// estimated_units): where a design's simulated total departs from its estimate. The
/// simulated cycles are those while the unit was current_unit (they sum to the total);
/// with units that start with the unit before them, its start and end say more.
Json unitCyclesJson(const Json& estimated, const std::vector<vhdl::UnitRun>& simulated) {
  Json units = Json::array();
  auto estimate = [&](size_t i, const char* key) {
    return estimated.is_array() && i < estimated.size() && estimated[i].contains(key) ? estimated[i][key] : Json(nullptr);
  };
  for (size_t i = 0; i < simulated.size(); ++i) {
    const vhdl::UnitRun& s = simulated[i];
    Json u;
    const Json name = estimate(i, "unit");
    u["unit"] = name.is_null() ? Json(fmt::format("u{}", i)) : name;
    u["estimated_cycles"] = estimate(i, "cycles");
    u["simulated_cycles"] = s.cycles;
    const int64_t e = u["estimated_cycles"].is_number() ? u["estimated_cycles"].get<int64_t>() : 0;
    u["simulated_over_estimated"] = e > 0 ? Json(static_cast<double>(s.cycles) / static_cast<double>(e)) : Json(nullptr);
    u["estimated_start"] = estimate(i, "start");
    u["estimated_end"] = estimate(i, "end");
    u["simulated_start"] = s.first >= 0 ? Json(s.first) : Json(nullptr);
    u["simulated_end"] = s.end >= 0 ? Json(s.end) : Json(nullptr);
    units.push_back(u);
  }
  return units;
}

int runSim(SimCommandOptions o) {
  auto err = [](const std::string& msg, int code) {
    std::cerr << "skeleshare sim: error: " << msg << '\n';
    return code;
  };
  // An unavailable simulator or backend is refused before anything is written.
  try {
    if (o.simulator == "both") {
      vhdl::chooseSimulator("ghdl");
      vhdl::chooseSimulator("verilator");
    } else {
      vhdl::chooseSimulator(o.simulator);
    }
    vhdl::chooseGhdlBackend(o.backend, 0);
  } catch (const std::exception& e) {
    return err(e.what(), kExitInputError);
  }
  auto loaded = loadProgram(o.file, std::cerr);
  if (!loaded) return kExitInputError;
  if (!interfaceFitsMemory(*loaded, std::cerr)) return kExitInputError;
  Tensors inputs;
  try {
    inputs = programInputs(*loaded, o.seed, o.files);
  } catch (const std::exception& e) {
    return err(e.what(), kExitInputError);
  }
  if (o.outDir.empty()) o.outDir = (std::filesystem::temp_directory_path() / fmt::format("skeleshare-sim-{}", getpid())).string();
  o.compile.dataDir = SKELESHARE_DATA_DIR;
  o.compile.design = vhdl::vhdlIdentifier(std::filesystem::path(o.file).stem().string());
  if (!o.quiet) o.compile.progress = [](const std::string& line) { std::cerr << line << '\n'; };
  const std::optional<driver::Workload> work = workloadOf(*loaded);

  // The reference first: it is what the hardware must compute.
  Tensors want = ir::evaluateModule(loaded->module, *loaded->ctx, inputs);
  driver::Compiled c = driver::compile(loaded->module, *loaded->ctx, work, o.compile);
  switch (c.status) {
    case driver::Status::Ok: break;
    case driver::Status::NoDesign: return err(c.message, kExitNoDesign);
    case driver::Status::BadInput: return err(c.message, kExitUsage);
    case driver::Status::NotLowered: return err(c.message, kExitInputError);
  }

  std::filesystem::path dir(o.outDir);
  std::string tdir = driver::templateDir(SKELESHARE_DATA_DIR);
  {
    StagedOutputs top(dir), vhdlFiles(dir / "vhdl");
    for (const auto& [name, text] : driver::outputFiles(c, tdir)) {
      if (name.rfind("vhdl/", 0) == 0) stageText(vhdlFiles, name.substr(5), text);
      else stageText(top, name, text);
    }
    vhdlFiles.commit();
    top.commit();
  }
  vhdl::SimOptions so;
  so.seed = o.seed;
  so.stallPercent = o.stallPercent;
  so.maxCycles = o.maxCycles;
  so.estimatedCycles = c.estimatedCycles;
  so.verilatorCache = vhdl::defaultVerilatorCache();
  if (!o.quiet) so.progress = [](const std::string& line) { std::cerr << line << '\n'; };
  std::vector<SimRun> plan;
  try {
    so.backend = vhdl::chooseGhdlBackend(o.backend, c.estimatedCycles);
    if (o.simulator == "both") plan = {{vhdl::Simulator::Ghdl}, {vhdl::Simulator::Verilator}};
    else plan = {{vhdl::chooseSimulator(o.simulator)}};
    if (o.checkForms) plan.push_back({vhdl::Simulator::Ghdl, true});
  } catch (const std::exception& e) {
    return err(e.what(), kExitInputError);
  }
  vhdl::TestbenchFiles tb = vhdl::emitTestbench(*c.hardware, tdir);
  // One run per entry of the plan, the first in DIR/sim, the others in DIR/sim-<name>.
  std::vector<vhdl::SimResult> runs;
  for (const SimRun& run : plan) {
    so.simulator = run.simulator;
    so.synthesisForms = run.synthesisForms;
    auto simDir = dir / (runs.empty() ? std::string("sim") : run.dirName());
    if (so.progress) so.progress(fmt::format("simulating in {}", run.name()));
    runs.push_back(vhdl::simulate(*c.hardware, tb, inputs, dir / "vhdl", simDir, so));
  }
  const vhdl::SimResult& r = runs.front();

  std::optional<vhdl::Mismatch> bad;
  if (r.ok) {
    bad = vhdl::firstMismatch(want, r.outputs);
    // What the hardware computed, for inspection beside `run`'s outputs: DIR/sim/NAME.npy.
    for (const auto& [name, t] : r.outputs) writeNpy((dir / "sim" / (name + ".npy")).string(), t);
  }
  // With several runs: every other one must have run, and agree in cycles and outputs.
  std::string disagreement;
  bool ok = r.ok;
  for (size_t k = 1; k < runs.size(); ++k) {
    const vhdl::SimResult& q = runs[k];
    std::string names = fmt::format("{} and {}", plan[0].name(), plan[k].name());
    if (!q.ok) {
      ok = false;
      disagreement = fmt::format("{} failed: {}", plan[k].name(), q.error);
    } else if (r.ok && q.cycles != r.cycles) {
      disagreement = fmt::format("{} disagree: {} and {} cycles", names, r.cycles, q.cycles);
    } else if (r.ok && q.units != r.units) {
      disagreement = fmt::format("{} disagree on the cycles, start or end of a unit", names);
    } else if (r.ok) {
      if (auto d = vhdl::firstMismatch(r.outputs, q.outputs))
        disagreement = fmt::format("{} disagree at {}", names, d->describe());
    }
  }
  bool pass = ok && !bad && disagreement.empty();
  Json j;
  j["file"] = o.file;
  j["result"] = pass ? "PASS" : (ok ? "MISMATCH" : "FAILED");
  j["seed"] = o.seed;
  j["top"] = c.hardware->top;
  j["simulator"] = o.simulator == "both" ? "both" : vhdl::simulatorName(r.simulator);
  j["simulated_cycles"] = r.cycles;
  j["predicted_cycles"] = c.predictedCycles;
  j["estimated_cycles"] = c.estimatedCycles;
  j["simulated_over_predicted"] =
      c.predictedCycles > 0 ? Json(static_cast<double>(r.cycles) / static_cast<double>(c.predictedCycles)) : Json(nullptr);
  j["units"] = unitCyclesJson(c.report["estimated_units"], r.units);
  j["dsp_multipliers"] = c.hardware->dspLanes;
  j["dsp_blocks"] = c.report["hardware"]["dsps"];
  j["ghdl_backend"] = vhdl::ghdlBackendName(so.backend);
  Json each = Json::array();
  for (size_t k = 0; k < runs.size(); ++k) {
    const vhdl::SimResult& q = runs[k];
    Json e;
    e["simulator"] = vhdl::simulatorName(q.simulator);
    e["forms"] = plan[k].synthesisForms ? "synthesis" : "simulation";
    e["ok"] = q.ok;
    e["simulated_cycles"] = q.cycles;
    e["run_seconds"] = std::round(q.runSeconds * 10) / 10;
    e["cycles_per_second"] = q.runSeconds > 0 ? std::round(static_cast<double>(q.cycles) / q.runSeconds) : 0.0;
    if (q.simulator == vhdl::Simulator::Verilator) {
      e["model_cached"] = q.model.cached;
      e["ghdl_synth_seconds"] = std::round(q.model.synthSeconds * 10) / 10;
      e["model_compile_seconds"] = std::round(q.model.compileSeconds * 10) / 10;
      e["model_verilate_seconds"] = std::round(q.model.verilateSeconds * 10) / 10;
      e["verilog_bytes"] = q.model.verilogBytes;
    }
    if (!q.ok) e["error"] = q.error;
    each.push_back(e);
  }
  j["simulations"] = each;
  if (!r.ok) j["error"] = r.error;
  else if (!disagreement.empty()) j["error"] = disagreement;
  if (bad) j["mismatch"] = {{"buffer", bad->buffer}, {"index", bad->index}, {"expected", bad->expected}, {"got", bad->got}};
  j["output_dir"] = dir.string();
  if (o.json) {
    std::cout << j.dump(2) << '\n';
  } else if (pass) {
    std::cout << fmt::format("PASS: {} outputs bit-exact; {} simulated cycles (predicted {}, estimated {}){}\n", want.size(),
                             r.cycles, c.predictedCycles, c.estimatedCycles, agreed(plan));
  } else if (bad) {
    std::cout << fmt::format("MISMATCH: {}; {} simulated cycles\n", bad->describe(), r.cycles);
  } else if (!r.ok) {
    std::cout << fmt::format("FAILED: {}\n", r.error);
  } else {
    std::cout << fmt::format("{}: {}\n", ok ? "MISMATCH" : "FAILED", disagreement);
  }
  return pass ? kExitOk : kExitMismatch;
}

Command addSimCommand(CLI::App& root) {
  auto o = std::make_shared<SimCommandOptions>();
  CLI::App* app = root.add_subcommand(
      "sim", "Compile to VHDL, simulate (GHDL or Verilator) and compare the outputs bit for bit with the interpreter");
  app->add_option("file", o->file, "the .dsl (or .ir) program")->required();
  app->add_option("-o,--output", o->outDir, "output directory (default: a new directory under the system's temp)");
  app->add_option("--seed", o->seed, "seed of the generated inputs and of the memory wait states (default 1)");
  addInputFileOptions(app, o->files);
  app->add_flag("--json", o->json, "print the result as JSON");
  app->add_option("--stall-percent", o->stallPercent, "memory waitrequest on about this share of cycles (default 25)")
      ->check(CLI::Range(0, 95));
  app->add_option("--max-cycles", o->maxCycles, "fail when the design is not done after this many cycles")
      ->check(CLI::PositiveNumber);
  app->add_option("--ghdl-backend", o->backend,
                  "GHDL code generator: auto (llvm for long simulations when ghdl-llvm is installed), mcode or llvm")
      ->check(CLI::IsMember({"auto", "mcode", "llvm"}));
  app->add_option("--simulator", o->simulator,
                  "auto (GHDL: measured faster on every benchmark, docs/hardware.md), ghdl, verilator, or both "
                  "(each, and they must agree cycle for cycle)")
      ->check(CLI::IsMember({"auto", "ghdl", "verilator", "both"}));
  app->add_flag("--check-forms", o->checkForms,
                "also simulate in GHDL the RTL as synthesis reads it (no simulation forms, slower): it must agree "
                "cycle for cycle");
  addCompileFlags(*app, o->compile);
  app->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
  return {app, [o] { return runSim(*o); }};
}

}  // namespace

static const CommandRegistration kRegistration{55, addSimCommand};

}  // namespace skeleshare::tools
