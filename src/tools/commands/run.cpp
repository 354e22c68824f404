// skeleshare run FILE(.dsl|.ir) [--seed N] [--input NAME=PATH.npy]... [--weights DIR] -o DIR
// Evaluates a program on concrete tensors and writes each output as DIR/<name>.npy.

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "command.h"
#include "output_files.h"
#include "program_inputs.h"
#include "program_loader.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/support/npy.h"

namespace skeleshare::tools {

namespace {

struct RunOptions {
  std::string file;
  uint64_t seed = 1;
  InputFiles files;
  std::string outDir;
  std::string via = "ir";
  bool saveInputs = false;
};

using Tensors = std::map<std::string, Tensor>;

/// Index of the first element where two tensors differ, as a multi-index string.
std::string firstDifference(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.bits() != b.bits()) return a.describe() + " vs " + b.describe();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    std::string idx;
    size_t rest = i;
    std::vector<int64_t> multi(a.rank());
    for (size_t d = a.rank(); d-- > 0;) {
      multi[d] = static_cast<int64_t>(rest % static_cast<size_t>(a.dim(d)));
      rest /= static_cast<size_t>(a.dim(d));
    }
    for (int64_t m : multi) idx += "[" + std::to_string(m) + "]";
    return fmt::format("element {}: {} vs {}", idx, a[i], b[i]);
  }
  return "";
}

int runRun(const RunOptions& opts) {
  auto loaded = loadProgram(opts.file, std::cerr);
  if (!loaded) return kExitInputError;
  if (opts.via != "ir" && !loaded->dsl) {
    std::cerr << opts.file << ": error: --via " << opts.via << " needs a .dsl program\n";
    return kExitUsage;
  }
  Tensors inputs = programInputs(*loaded, opts.seed, opts.files);

  using Clock = std::chrono::steady_clock;
  Tensors results;
  auto timed = [&](const char* what, auto&& fn) {
    auto t0 = Clock::now();
    Tensors r = fn();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::cerr << fmt::format("evaluated {} ({} level) in {:.3f} s\n", opts.file, what, s);
    return r;
  };
  if (opts.via == "ir" || opts.via == "both")
    results = timed("skeleton IR", [&] { return ir::evaluateModule(loaded->module, *loaded->ctx, inputs); });
  if (opts.via == "dsl" || opts.via == "both") {
    Tensors dsl = timed("DSL", [&] { return frontend::evaluate(*loaded->dsl, inputs); });
    if (opts.via == "both") {
      for (const auto& [name, t] : dsl) {
        std::string diff = firstDifference(t, results.at(name));
        if (!diff.empty()) {
          std::cerr << fmt::format("{}: error: output '{}' differs between the DSL and skeleton-IR evaluators: {}\n",
                                   opts.file, name, diff);
          return kExitMismatch;
        }
      }
      std::cerr << "DSL and skeleton-IR evaluation agree on every output\n";
    }
    results = std::move(dsl);
  }

  StagedOutputs staged(opts.outDir);
  for (const auto& [name, t] : results)
    staged.stage(name + ".npy", [&](const std::filesystem::path& p) { writeNpy(p.string(), t); });
  if (opts.saveInputs)
    for (const auto& [name, t] : inputs)
      staged.stage("input." + name + ".npy", [&](const std::filesystem::path& p) { writeNpy(p.string(), t); });
  staged.commit();
  for (const auto& [name, t] : results)
    std::cerr << fmt::format("wrote {}/{}.npy ({})\n", opts.outDir, name, t.describe());
  return kExitOk;
}

}  // namespace

namespace {
Command addRunCommand(CLI::App& root) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* app = root.add_subcommand("run", "Evaluate a program on concrete tensors; write each output as DIR/<name>.npy");
  app->add_option("file", opts->file, "the .dsl or .ir program")->required();
  app->add_option("--seed", opts->seed, "seed of the generated inputs and weights (default 1)");
  addInputFileOptions(app, opts->files);
  app->add_option("-o,--output-dir", opts->outDir, "directory for the output .npy files")->required();
  app->add_option("--via", opts->via, "evaluator: ir (skeleton IR, default), dsl (direct DSL), both (and compare)")
      ->check(CLI::IsMember({"ir", "dsl", "both"}));
  app->add_flag("--save-inputs", opts->saveInputs, "also write every input as DIR/input.<name>.npy");
  return {app, [opts] { return runRun(*opts); }};
}

}  // namespace

static const CommandRegistration kRegistration{30, addRunCommand};

}  // namespace skeleshare::tools
