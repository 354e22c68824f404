#include "skeleshare/lower/printer.h"

#include <fmt/format.h>

#include <algorithm>

namespace skeleshare::lower {

std::string printNode(const Program& prog, const Node& n, size_t index) {
  std::string s = n.prim == Prim::Write ? "  " : fmt::format("  %{} : {} = ", index, n.type.str());
  s += primName(n.prim);
  if (!n.params.empty()) {
    s += "[";
    for (size_t i = 0; i < n.params.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", n.params[i]);
    s += "]";
  }
  s += "(";
  for (size_t i = 0; i < n.operands.size(); ++i) s += fmt::format("{}%{}", i ? ", " : "", n.operands[i]);
  s += ")";
  if (n.prim == Prim::Read || n.prim == Prim::Write) {
    const char* name = n.buffer >= 0 && static_cast<size_t>(n.buffer) < prog.buffers.size()
                           ? prog.buffers[static_cast<size_t>(n.buffer)].name.c_str()
                           : "?";
    s += fmt::format(" {} @{} {}", n.prim == Prim::Read ? "from" : "to", name, n.addr.str());
  }
  return s;
}

std::string printProgram(const Program& prog) {
  static const char* roles[] = {"input", "weight", "buffer", "output"};
  std::string s;
  for (const auto& b : prog.buffers) {
    s += fmt::format("{} {} : i{}", roles[static_cast<int>(b.role)], b.name, b.bits);
    for (int64_t d : b.shape) s += fmt::format("[{}]", d);
    s += b.memory == Memory::OnChip ? " on-chip;\n" : " off-chip;\n";
  }
  for (const auto& in : prog.instances) s += fmt::format("instance {} : {};\n", in.name, in.description);
  for (const auto& u : prog.units) {
    if (u.call) {
      // `call NAME of INSTANCE`; the instance's datapath nodes are marked `*`.
      const auto& c = *u.call;
      bool known = c.instance >= 0 && static_cast<size_t>(c.instance) < prog.instances.size();
      s += fmt::format("call {} of {} {{\n", u.name, known ? prog.instances[static_cast<size_t>(c.instance)].name : "?");
    } else {
      s += fmt::format("unit {} {{\n", u.name);
    }
    for (size_t i = 0; i < u.nodes.size(); ++i) {
      std::string line = printNode(prog, u.nodes[i], i);
      if (u.call && std::binary_search(u.call->datapath.begin(), u.call->datapath.end(), static_cast<uint32_t>(i)))
        line[0] = '*';
      s += line + "\n";
    }
    s += "}\n";
  }
  return s;
}

}  // namespace skeleshare::lower
