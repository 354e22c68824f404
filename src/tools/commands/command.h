#pragma once
// Sub-commands of the skeleshare tool. Each command registers its options on a CLI11
// sub-app and returns a function that runs it and yields the process exit code.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace skeleshare::tools {

/// Exit codes, documented in README.md and `skeleshare --help`.
enum ExitCode : int {
  kExitOk = 0,
  kExitInputError = 1,  // malformed program, rule file, input tensor, ...
  kExitUsage = 2,       // bad command line
  kExitNoDesign = 3,    // no design fits the budget (compile)
  kExitMismatch = 4,    // two evaluators disagree (run --via both): a compiler bug
};

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// A command registers itself from its own file, so that adding a command touches no
/// shared file:  static const CommandRegistration kReg{30, addFooCommand};
/// `order` fixes the order of the commands in --help (and of their registration).
using CommandFactory = Command (*)(CLI::App& root);
struct CommandRegistration {
  CommandRegistration(int order, CommandFactory factory);
};

/// Registers every command on `root`, in order.
std::vector<Command> registerCommands(CLI::App& root);

}  // namespace skeleshare::tools
