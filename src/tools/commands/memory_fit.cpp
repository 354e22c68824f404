#include "memory_fit.h"

#include <fmt/format.h>

#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/saturating.h"
#include "skeleshare/vhdl/memory_map.h"

namespace skeleshare::tools {

namespace {

struct Tensor {
  std::string what;  // "input 'image'"
  std::string name;
  const ir::Type* type = nullptr;
  int64_t span = 0;
};

int64_t elementsOf(const ir::Type* t) {
  int64_t n = 1;
  for (int64_t d : t->shape()) n = saturatingMul(n, d);
  return n;
}

}  // namespace

bool interfaceFitsMemory(const LoadedProgram& program, std::ostream& err) {
  std::vector<Tensor> tensors;
  for (const ir::Decl& d : program.module.decls)
    tensors.push_back({fmt::format("{} '{}'", d.kind == ir::Decl::Kind::Input ? "input" : "weight", d.name), d.name, d.type, 0});
  for (const ir::Output& o : program.module.outputs)
    tensors.push_back({fmt::format("output '{}'", o.name), o.name, o.term->type(), 0});
  int64_t total = 0;
  const Tensor* largest = nullptr;
  for (Tensor& t : tensors) {
    if (!t.type || !t.type->isIntTensor()) continue;
    t.span = vhdl::regionSpan(elementsOf(t.type), t.type->scalar()->bits());
    total = saturatingAdd(total, t.span);
    if (!largest || t.span > largest->span) largest = &t;
  }
  if (total <= vhdl::kAddressableBytes || !largest) return true;
  const std::string bytes =
      total == std::numeric_limits<int64_t>::max() ? std::string("more than 2^63") : fmt::format("{}", total);
  const std::string message = fmt::format(
      "the program's inputs, weights and outputs need {} bytes of external memory, the design addresses {} (2 GiB); "
      "the largest is {}, {}: {} bytes",
      bytes, vhdl::kAddressableBytes, largest->what, largest->type->str(), largest->span);
  DiagnosticEngine diags;
  bool located = false;
  if (program.dsl)
    for (const frontend::Stmt& s : program.dsl->stmts)
      if (!located && s.name == largest->name &&
          (s.kind == frontend::StmtKind::Input || s.kind == frontend::StmtKind::Weight ||
           s.kind == frontend::StmtKind::Output)) {
        diags.error(*program.source, s.nameLoc, message);
        located = true;
      }
  if (!located) diags.error(program.source ? program.source->path() : std::string("program"), message);
  diags.print(err);
  return false;
}

}  // namespace skeleshare::tools
