#include "program_loader.h"

#include <ostream>

#include "skeleshare/frontend/summary.h"
#include "skeleshare/ir/parser.h"
#include "skeleshare/ir/verifier.h"
#include "skeleshare/support/diagnostics.h"

namespace skeleshare::tools {

SourceKind sourceKindOf(const std::string& path) {
  return path.size() >= 3 && path.compare(path.size() - 3, 3, ".ir") == 0 ? SourceKind::Ir
                                                                          : SourceKind::Dsl;
}

std::unique_ptr<LoadedProgram> loadProgram(const std::string& path, std::ostream& err) {
  auto loaded = std::make_unique<LoadedProgram>();
  loaded->ctx = std::make_unique<ir::Context>();
  DiagnosticEngine diags;

  std::string readError;
  auto file = SourceFile::read(path, readError);
  if (!file) {
    diags.error(path, readError);
    diags.print(err);
    return nullptr;
  }
  loaded->source = std::make_unique<SourceFile>(std::move(*file));

  try {
    if (sourceKindOf(path) == SourceKind::Ir) {
      auto module = ir::parseModule(*loaded->ctx, *loaded->source, diags);
      if (!module) {
        diags.print(err);
        return nullptr;
      }
      // A .ir file may be hand-written: check the De Bruijn annotations and that the
      // declarations agree with the uses, not only the local type rules.
      ir::VerifyOptions opts;
      opts.allowApp = true;
      auto problems = ir::verifyModule(*loaded->ctx, *module, opts);
      if (!problems.empty()) {
        for (const auto& p : problems) err << path << ": error: " << p.message << '\n';
        return nullptr;
      }
      loaded->module = std::move(*module);
    } else {
      auto prog = frontend::parseAndCheck(*loaded->source, diags);
      if (!prog) {
        diags.print(err);
        return nullptr;
      }
      diags.print(err);  // warnings, if any
      loaded->module = frontend::translate(*prog, *loaded->ctx);
      loaded->dsl = std::move(prog);
    }
  } catch (const TooManyErrors&) {
    diags.print(err);
    return nullptr;
  }
  return loaded;
}

std::optional<driver::Workload> workloadOf(const LoadedProgram& program) {
  if (!program.dsl) return std::nullopt;
  const auto layers = frontend::summarize(*program.dsl);
  driver::Workload work;
  work.macs = frontend::totalMacs(layers);
  // Only the DSP layers: each is its own unit (or units), so their bounds add up; an
  // element-wise layer may run inside one of them.
  for (const frontend::LayerInfo& l : layers)
    if (l.dsp) work.layers.push_back({l.macs, l.weightBytes});
  return work;
}

}  // namespace skeleshare::tools
