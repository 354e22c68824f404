#include "skeleshare/frontend/frontend.h"

#include "skeleshare/frontend/parser.h"
#include "skeleshare/frontend/sema.h"

namespace skeleshare::frontend {

std::optional<Program> parseAndCheck(const SourceFile& file, DiagnosticEngine& diags) {
  try {
    size_t before = diags.errorCount();
    Program prog = parse(file, diags);
    // Sema runs even after syntax errors: it reports the independent mistakes of the
    // statements that did parse, and stays silent about uses of broken ones.
    bool ok = check(prog, file, diags);
    if (!ok || diags.errorCount() != before) return std::nullopt;
    return prog;
  } catch (const TooManyErrors&) {
    return std::nullopt;
  }
}

std::vector<DeclInfo> declarations(const Program& prog) {
  std::vector<DeclInfo> out;
  for (const Stmt& s : prog.stmts) {
    if (s.kind != StmtKind::Input && s.kind != StmtKind::Weight) continue;
    DeclInfo d;
    d.name = s.name;
    d.kind = s.kind == StmtKind::Input ? DeclInfo::Kind::Input : DeclInfo::Kind::Weight;
    d.bits = s.declType.bits;
    d.shape = s.declType.shape;
    d.loc = s.nameLoc;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace skeleshare::frontend
