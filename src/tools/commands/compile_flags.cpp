#include "compile_flags.h"

#include <fmt/format.h>

#include <map>

namespace skeleshare::tools {

void addCompileFlags(CLI::App& app, driver::CompileOptions& options) {
  app.add_option("--device", options.device, "device name in rules/devices/ or a .json file (default arria10_gx1150)");
  app.add_option("--dsp-budget", options.dspBudget, "DSP blocks available (default: the device's)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dsp-fraction", options.dspFraction, "fraction of the device's DSP blocks")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-conv-units", options.maxConvUnits, "hardware convolution units allowed (default 1)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--disable", options.disabled, "disable a rule group (repeatable), e.g. padding, tiling");
  app.add_flag("--no-sharing", options.noSharing, "share nothing: every use is a copy");
  app.add_flag("--single-abstraction", options.singleAbstraction,
                "share a unit only among skeletons of its own family (conv, mv, mm, conv1d)");
  app.add_flag("--paper-model", options.paperModel,
                "optimise the paper's cost model (compute alone) instead of the hardware's cycle model");
  addReadShapesOption(app, options.readShapes,
                      "how reads take their lanes: boxes, lines, or auto (default: boxes when the lowered design "
                      "confirms the predicted cycles, else lines)");
  app.add_option("--effort", options.effort,
                  fmt::format("extraction work limit: greedy steps + Z3 resource units, deterministic; 0 = unlimited "
                              "(default {})",
                              extract::kDefaultEffort));
  app.add_option("--timeout", options.timeout,
                  "extraction wall-clock safety limit in seconds; 0 = none (default; output then depends only on "
                  "the input and flags)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--saturation-seconds", options.saturationSeconds, "saturation time limit (default 60)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-nodes", options.maxNodes, "saturation e-node limit (default 500000)");
  app.add_option("--rules", options.rulesDir, "rule directory (default: the installed rules/)");
  app.add_flag("--no-greedy", options.noGreedy, "do not seed the solver with the greedy design");
  app.add_flag("--overlap,!--no-overlap", options.overlap, kOverlapHelp);
  app.add_flag("--as-written", options.asWritten,
                "lower the program as written: no saturation or extraction (its parallelism as given)");
}

CLI::Option* addReadShapesOption(CLI::App& app, driver::ReadShapes& shapes, const std::string& help) {
  std::map<std::string, driver::ReadShapes> names;
  for (driver::ReadShapes r : {driver::ReadShapes::Auto, driver::ReadShapes::Boxes, driver::ReadShapes::Lines})
    names.emplace(driver::readShapesName(r), r);
  return app.add_option("--read-shapes", shapes, help)->transform(CLI::CheckedTransformer(names));
}

}  // namespace skeleshare::tools
