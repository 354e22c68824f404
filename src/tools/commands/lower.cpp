// skeleshare lower FILE(.ir|.dsl) -o DIR [--check-eval]: lower a skeleton program (e.g. the
// let-bound design.ir that `compile` wrote) to the mid-level IR without extracting again.
// Writes DIR/design.shir and DIR/lower.json (the report.json fields of docs/lowering.md).

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "compile_flags.h"
#include "output_files.h"
#include "program_loader.h"
#include "skeleshare/cost/device.h"
#include "skeleshare/driver/driver.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/lower/interpreter.h"
#include "skeleshare/lower/summary.h"

namespace skeleshare::tools {
namespace {

struct LowerOptions {
  std::string file;
  std::string outDir;
  bool checkEval = false;
  bool overlap = true;  // as compile's default
  driver::ReadShapes readShapes = driver::ReadShapes::Auto;  // auto: as the file names them
};

/// Box reads unless `shapes` or, with auto, the file's read-shapes line (which `compile`
/// writes into design.ir) says lines.
bool boxReadsFor(driver::ReadShapes shapes, const std::string& file) {
  if (shapes == driver::ReadShapes::Auto) {
    std::ifstream in(file);
    shapes = driver::readShapesNamedIn(in).value_or(driver::ReadShapes::Boxes);
  }
  return shapes != driver::ReadShapes::Lines;
}

int runLower(const LowerOptions& o) {
  auto loaded = loadProgram(o.file, std::cerr);
  if (!loaded) return kExitInputError;
  ir::Context& ctx = *loaded->ctx;
  std::optional<lower::LoweredDesign> d;
  const bool boxReads = boxReadsFor(o.readShapes, o.file);
  const cost::Device device = cost::findDevice(cost::kDefaultDevice, SKELESHARE_DATA_DIR);
  try {
    lower::LowerOptions lo = lower::lowerOptions(device, boxReads);
    lo.overlap = o.overlap;
    d = lower::lowerDesign(loaded->module, ctx, lo);
  } catch (const lower::LowerError& e) {
    std::cerr << "skeleshare lower: error: " << e.what() << '\n';
    return kExitInputError;
  }
  nlohmann::ordered_json j;
  j["file"] = o.file;
  j["read_shapes"] = driver::readShapesName(driver::readShapesOf(boxReads));
  // the prediction as compile makes it, with the same overlap as the lowering
  const driver::AsWrittenCost predicted = driver::predictAsWritten(loaded->module, device, false, boxReads, o.overlap);
  j["dsp_used"] = predicted.dsps;
  j["predicted_cycles"] = predicted.cycles;
  j["lowered_dsps"] = d->resources.dsps;
  j["onchip_memory_bits"] = d->resources.onChipBits;
  j["lowered_m20k_blocks"] = d->resources.m20kBlocks;
  j["lowered_mlab_cells"] = d->resources.mlabCells;
  j["estimated_cycles"] = d->cycles.total;
  j["estimated_cycles_one_after_another"] = d->cycles.oneAfterAnother;
  j["estimated_units"] = driver::unitEstimatesJson(d->program, d->cycles);
  j["lowered_units"] = d->program.units.size();
  j["lowered_calls"] = d->calls;
  int exitCode = kExitOk;
  if (o.checkEval) {
    auto inputs = ir::randomInputs(loaded->module, 1);
    auto want = ir::evaluateModule(loaded->module, ctx, inputs);
    auto got = lower::run(d->program, inputs);
    bool same = got.size() == want.size();
    for (const auto& [name, t] : want) same = same && got.count(name) && got.at(name) == t;
    j["check_lowered"] = same ? "equal" : "MISMATCH";
    if (!same) exitCode = kExitMismatch;
  }
  StagedOutputs staged(o.outDir);
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"design.shir", d->text}, {"lower.json", j.dump(2) + "\n"}})
    staged.stage(name, [&](const std::filesystem::path& p) {
      std::ofstream f(p, std::ios::binary);
      f << text;
      if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
    });
  staged.commit();
  std::cout << j.dump() << '\n';
  return exitCode;
}

Command addLowerCommand(CLI::App& root) {
  auto o = std::make_shared<LowerOptions>();
  CLI::App* app = root.add_subcommand("lower", "Lower a skeleton program (e.g. a design.ir) to the mid-level IR: DIR/design.shir, DIR/lower.json");
  app->add_option("file", o->file, "the .ir (or .dsl) program")->required();
  app->add_option("-o,--output", o->outDir, "output directory")->required();
  addReadShapesOption(*app, o->readShapes,
                      "boxes or lines; auto (default): as the design.ir's '// read shapes:' line says, else boxes");
  app->add_flag("--overlap,!--no-overlap", o->overlap, kOverlapHelp);
  app->add_flag("--check-eval", o->checkEval, "run the lowered program and the skeleton interpreter on random inputs (exit 4 if they differ)");
  return {app, [o] { return runLower(*o); }};
}

}  // namespace

static const CommandRegistration kRegistration{55, addLowerCommand};

}  // namespace skeleshare::tools
