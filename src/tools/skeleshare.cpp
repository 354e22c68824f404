// The skeleshare command line: one sub-command per job (check, ir, run, ...).

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "commands/command.h"

using namespace skeleshare::tools;

int main(int argc, char** argv) {
  CLI::App app{
      "skeleshare: compiles array programs to FPGA hardware that shares units across layers.\n"
      "Exit codes: 0 ok, 1 input error (diagnostics on stderr), 2 usage error, 3 no design fits,\n4 evaluators disagree (a compiler bug)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "skeleshare 0.1.0");

  std::vector<Command> commands = registerCommands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return c.run();
    } catch (const std::bad_alloc&) {
      std::cerr << "skeleshare: error: out of memory\n";
      return kExitInputError;
    } catch (const std::exception& e) {
      std::cerr << "skeleshare: error: " << e.what() << '\n';
      return kExitInputError;
    }
  }
  return kExitUsage;
}
