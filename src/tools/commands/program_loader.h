#pragma once
// Loading a program for a command: a .dsl file goes through the frontend (and is
// translated to the skeleton IR), a .ir file through the IR parser and verifier.
// Diagnostics go to `err`; a failed load returns null (the command exits with 1).

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "skeleshare/driver/driver.h"
#include "skeleshare/frontend/frontend.h"
#include "skeleshare/ir/context.h"
#include "skeleshare/support/source.h"

namespace skeleshare::tools {

struct LoadedProgram {
  std::unique_ptr<SourceFile> source;
  /// Set for .dsl input only.
  std::optional<frontend::Program> dsl;
  std::unique_ptr<ir::Context> ctx;
  ir::Module module;
};

enum class SourceKind { Dsl, Ir };

/// .ir files are skeleton IR; everything else is DSL.
SourceKind sourceKindOf(const std::string& path);

std::unique_ptr<LoadedProgram> loadProgram(const std::string& path, std::ostream& err);

/// What a DSL program computes (its MACs, and its DSP layers' MACs and weights); nothing
/// for a .ir program, whose layers the IR does not name.
std::optional<driver::Workload> workloadOf(const LoadedProgram& program);

}  // namespace skeleshare::tools
