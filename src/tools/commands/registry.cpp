#include <algorithm>
#include <utility>

#include "command.h"

namespace skeleshare::tools {

namespace {
// A function-local static, so registrations from other files' static initialisers
// never run before the vector exists.
std::vector<std::pair<int, CommandFactory>>& registry() {
  static std::vector<std::pair<int, CommandFactory>> r;
  return r;
}
}  // namespace

CommandRegistration::CommandRegistration(int order, CommandFactory factory) {
  registry().emplace_back(order, factory);
}

std::vector<Command> registerCommands(CLI::App& root) {
  auto entries = registry();
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Command> commands;
  for (const auto& [order, factory] : entries) commands.push_back(factory(root));
  return commands;
}

}  // namespace skeleshare::tools
