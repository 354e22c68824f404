#pragma once
// The compile pipeline's flags, shared by every command that compiles (compile, sim), so
// that both accept the same flags with the same meaning and help text.

#include <CLI/CLI.hpp>

#include "skeleshare/driver/driver.h"

namespace skeleshare::tools {

/// Adds --device, --dsp-budget, --dsp-fraction, --max-conv-units, --disable, --no-sharing,
/// --single-abstraction, --effort, --timeout, --saturation-seconds, --max-nodes, --rules,
/// --no-greedy, --overlap (--no-overlap) and --as-written, writing into `options`.
void addCompileFlags(CLI::App& app, driver::CompileOptions& options);

/// The help of --overlap and --no-overlap (compile, sim, lower).
inline constexpr const char* kOverlapHelp =
    "a unit starts with the unit before it where it may and its RAMs fit the device (its reads wait for the "
    "lines they need); the estimate counts it, and so does the extractor's prediction where every unit calls one "
    "shared unit and hands it over to the next (docs/lowering.md, docs/cost-model.md); on by default, --no-overlap runs "
    "the units one after another";

/// Adds --read-shapes (auto, boxes or lines), writing into `shapes`.
CLI::Option* addReadShapesOption(CLI::App& app, driver::ReadShapes& shapes, const std::string& help);

}  // namespace skeleshare::tools
