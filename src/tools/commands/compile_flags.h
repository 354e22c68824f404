#pragma once
// The compile pipeline's flags, shared by every command that compiles (compile, sim), so
// that both accept the same flags with the same meaning and help text.

#include <CLI/CLI.hpp>

#include "skeleshare/driver/driver.h"

namespace skeleshare::tools {

/// Adds --device, --dsp-budget, --dsp-fraction, --max-conv-units, --disable, --no-sharing,
/// --single-abstraction, --effort, --timeout, --saturation-seconds, --max-nodes, --rules,
/// --no-greedy and --as-written, writing into `options`.
void addCompileFlags(CLI::App& app, driver::CompileOptions& options);

/// Adds --read-shapes (auto, boxes or lines), writing into `shapes`.
CLI::Option* addReadShapesOption(CLI::App& app, driver::ReadShapes& shapes, const std::string& help);

}  // namespace skeleshare::tools
