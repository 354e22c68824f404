#include "skeleshare/lower/verifier.h"

#include <fmt/format.h>

#include <set>

namespace skeleshare::lower {

std::vector<std::string> verify(const Program& prog) {
  std::vector<std::string> problems;
  std::set<std::string> names;
  std::vector<bool> written(prog.buffers.size(), false);
  for (size_t i = 0; i < prog.buffers.size(); ++i) {
    const auto& b = prog.buffers[i];
    if (!names.insert(b.name).second) problems.push_back(fmt::format("buffer '{}' declared twice", b.name));
    if (b.bits != 8 && b.bits != 16 && b.bits != 32) problems.push_back(fmt::format("buffer '{}' has width {}", b.name, b.bits));
    for (int64_t d : b.shape)
      if (d < 1) problems.push_back(fmt::format("buffer '{}' has extent {}", b.name, d));
    written[i] = b.role == Role::Input || b.role == Role::Weight;
  }
  for (const auto& u : prog.units) {
    bool writes = false;
    for (size_t i = 0; i < u.nodes.size(); ++i) {
      const Node& n = u.nodes[i];
      auto where = [&](const std::string& msg) { return fmt::format("unit '{}' %{}: {}", u.name, i, msg); };
      try {
        MType t = inferType(prog, u, n);
        if (t != n.type) problems.push_back(where(fmt::format("stored type {} but the rule gives {}", n.type.str(), t.str())));
      } catch (const MirError& e) {
        problems.push_back(where(e.what()));
        continue;
      }
      if (n.prim == Prim::Read && !written[static_cast<size_t>(n.buffer)])
        problems.push_back(where(fmt::format("reads '{}' before any unit writes it", prog.buffers[static_cast<size_t>(n.buffer)].name)));
      if (n.prim == Prim::Write) {
        writes = true;
        const auto& b = prog.buffers[static_cast<size_t>(n.buffer)];
        if (b.role == Role::Input || b.role == Role::Weight) problems.push_back(where(fmt::format("writes the {} '{}'", b.role == Role::Input ? "input" : "weight", b.name)));
      }
    }
    for (const auto& n : u.nodes)
      if (n.prim == Prim::Write && n.buffer >= 0 && static_cast<size_t>(n.buffer) < written.size()) written[static_cast<size_t>(n.buffer)] = true;
    if (!writes) problems.push_back(fmt::format("unit '{}' writes no buffer", u.name));
  }
  for (const auto& u : prog.units)
    if (u.call && (u.call->instance < 0 || static_cast<size_t>(u.call->instance) >= prog.instances.size()))
      problems.push_back(fmt::format("unit '{}' calls a missing instance {}", u.name, u.call->instance));
  std::set<std::string> instanceNames;
  for (size_t i = 0; i < prog.instances.size(); ++i) {
    if (!instanceNames.insert(prog.instances[i].name).second)
      problems.push_back(fmt::format("instance '{}' declared twice", prog.instances[i].name));
    std::string why = checkInstanceCalls(prog, i);
    if (!why.empty()) problems.push_back(why);
  }
  for (size_t i = 0; i < prog.buffers.size(); ++i)
    if (prog.buffers[i].role == Role::Output && !written[i]) problems.push_back(fmt::format("output '{}' is never written", prog.buffers[i].name));
  return problems;
}

}  // namespace skeleshare::lower
