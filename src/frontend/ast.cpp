#include "skeleshare/frontend/ast.h"

#include <fmt/format.h>

namespace skeleshare::frontend {

std::string ValueType::str() const {
  std::string s = fmt::format("i{}", bits);
  for (int64_t d : shape) s += fmt::format("[{}]", d);
  return s;
}

ValueType ValueType::elem() const {
  ValueType t{bits, {}};
  if (!shape.empty()) t.shape.assign(shape.begin() + 1, shape.end());
  return t;
}

std::vector<size_t> Program::outputs() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < stmts.size(); ++i)
    if (stmts[i].kind == StmtKind::Output) out.push_back(i);
  return out;
}

const char* stmtKindName(StmtKind k) {
  switch (k) {
    case StmtKind::Input: return "input";
    case StmtKind::Weight: return "weight";
    case StmtKind::Let: return "let";
    case StmtKind::Output: return "output";
  }
  return "let";
}

}  // namespace skeleshare::frontend
