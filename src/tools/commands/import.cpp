// skeleshare import MODEL.onnx -o DIR [--round-scales]
// Translates an integer-quantised ONNX model into DIR/model.dsl and DIR/weights/NAME.npy
// (docs/onnx.md); `skeleshare run|sim DIR/model.dsl --weights DIR/weights` then use the
// model's own weights.

#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "command.h"
#include "output_files.h"
#include "skeleshare/onnx/import.h"
#include "skeleshare/support/npy.h"

namespace skeleshare::tools {

namespace {

struct ImportCommandOptions {
  std::string model;
  std::string outDir;
  bool roundScales = false;
};

int runImport(const ImportCommandOptions& o) {
  onnximport::Imported r;
  try {
    r = onnximport::importModel(o.model, {o.roundScales});
  } catch (const onnximport::ImportError& e) {
    std::cerr << o.model << ": error: " << e.what() << "\n";
    return kExitInputError;
  }
  StagedOutputs staged(o.outDir);
  staged.stage("model.dsl", [&](const std::filesystem::path& p) {
    std::ofstream f(p, std::ios::binary);
    f << r.program;
    if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
  });
  for (const auto& [name, t] : r.weights)
    staged.stage("weights/" + name + ".npy", [&](const std::filesystem::path& p) { writeNpy(p.string(), t); });
  staged.commit();
  for (const auto& line : r.roundings) std::cerr << "warning: " << line << "\n";
  std::cerr << fmt::format("wrote {}/model.dsl and {} weight(s) in {}/weights/ from {}\n", o.outDir, r.weights.size(),
                           o.outDir, o.model);
  return kExitOk;
}

Command addImportCommand(CLI::App& root) {
  auto o = std::make_shared<ImportCommandOptions>();
  CLI::App* app = root.add_subcommand(
      "import", "Translate an int8-quantised ONNX model (QDQ or QLinear) into DIR/model.dsl and DIR/weights/*.npy");
  app->add_option("model", o->model, "the .onnx model")->required();
  app->add_option("-o,--output-dir", o->outDir, "directory for model.dsl and weights/")->required();
  app->add_flag("--round-scales", o->roundScales,
                "accept scales that are not powers of two, rounding each to the nearest (listed as warnings)");
  return {app, [o] { return runImport(*o); }};
}

}  // namespace

static const CommandRegistration kRegistration{5, addImportCommand};

}  // namespace skeleshare::tools
