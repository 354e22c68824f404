// skeleshare ir FILE(.dsl|.ir) [-o FILE]: print the skeleton IR of a program.

#include <fstream>
#include <iostream>

#include "command.h"
#include "output_files.h"
#include "program_loader.h"
#include "skeleshare/ir/printer.h"

namespace skeleshare::tools {

namespace {

struct IrOptions {
  std::string file;
  std::string output;
};

int runIr(const IrOptions& opts) {
  auto loaded = loadProgram(opts.file, std::cerr);
  if (!loaded) return kExitInputError;
  std::string text = ir::printModule(*loaded->ctx, loaded->module);
  if (opts.output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  std::filesystem::path out(opts.output);
  StagedOutputs staged(out.has_parent_path() ? out.parent_path() : std::filesystem::path("."));
  staged.stage(out.filename().string(), [&](const std::filesystem::path& p) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write '" + opts.output + "'");
  });
  staged.commit();
  return kExitOk;
}

}  // namespace

namespace {
Command addIrCommand(CLI::App& root) {
  auto opts = std::make_shared<IrOptions>();
  CLI::App* app = root.add_subcommand("ir", "Print the skeleton IR of a .dsl (or .ir) program");
  app->add_option("file", opts->file, "the .dsl or .ir program")->required();
  app->add_option("-o,--output", opts->output, "write the IR to this file instead of stdout");
  return {app, [opts] { return runIr(*opts); }};
}

}  // namespace

static const CommandRegistration kRegistration{20, addIrCommand};

}  // namespace skeleshare::tools
