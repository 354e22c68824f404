// skeleshare fix-verilog FILE.v [--json]
// Rewrites a netlist written by `ghdl synth --out=verilog` (GHDL 2.0) in place so that
// Verilog tools read what GHDL meant (include/skeleshare/vhdl/netlist.h): wide constants
// printed as strings, VHDL-style when/else, arithmetic shifts printed as logical ones,
// self-assignments. benchmarks/synth.py runs it before yosys; `sim --simulator verilator`
// applies the same fix-ups before Verilator.

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "skeleshare/vhdl/netlist.h"

namespace skeleshare::tools {
namespace {

struct FixVerilogOptions {
  std::string file;
  bool json = false;
};

int runFixVerilog(const FixVerilogOptions& o) {
  vhdl::NetlistFixes f;
  try {
    f = vhdl::fixGhdlVerilogFile(o.file);
  } catch (const std::exception& e) {
    std::cerr << "skeleshare fix-verilog: error: " << e.what() << '\n';
    return kExitInputError;
  }
  if (o.json) {
    nlohmann::ordered_json j{{"literals", f.literals},
                             {"selections", f.selections},
                             {"shifts", f.shifts},
                             {"self_assignments", f.selfAssignments}};
    std::cout << j.dump() << '\n';
  } else {
    std::cout << fmt::format(
        "{}: {} bit-string literals rewritten as sized binary, {} when/else lines as ?:, {} signed shifts as >>>, {} "
        "self-assignments removed\n",
        o.file, f.literals, f.selections, f.shifts, f.selfAssignments);
  }
  return kExitOk;
}

Command addFixVerilogCommand(CLI::App& root) {
  auto o = std::make_shared<FixVerilogOptions>();
  CLI::App* app = root.add_subcommand("fix-verilog", "Rewrite GHDL's Verilog netlist in place so that Verilog tools read it as GHDL meant");
  app->add_option("file", o->file, "the netlist (ghdl synth --out=verilog)")->required();
  app->add_flag("--json", o->json, "print the counts as JSON");
  return {app, [o] { return runFixVerilog(*o); }};
}

}  // namespace

static const CommandRegistration kRegistration{57, addFixVerilogCommand};

}  // namespace skeleshare::tools
