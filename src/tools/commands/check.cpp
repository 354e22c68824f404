// skeleshare check FILE.dsl [--json]: parse and type-check; print a per-layer summary
// (operator, shapes, MACs) and the total.

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "program_loader.h"

namespace skeleshare::tools {

namespace {

struct CheckOptions {
  std::string file;
  bool json = false;
};

std::string joinTypes(const std::vector<frontend::ValueType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].str();
  return s;
}

int runCheck(const CheckOptions& opts) {
  if (sourceKindOf(opts.file) != SourceKind::Dsl) {
    std::cerr << opts.file << ": error: check takes a .dsl program\n";
    return kExitUsage;
  }
  auto loaded = loadProgram(opts.file, std::cerr);
  if (!loaded) return kExitInputError;
  const frontend::Program& prog = *loaded->dsl;
  auto layers = frontend::summarize(prog);
  uint64_t total = frontend::totalMacs(layers);

  if (opts.json) {
    nlohmann::ordered_json j;
    j["file"] = opts.file;
    j["macs"] = total;
    auto& jl = j["layers"] = nlohmann::ordered_json::array();
    for (const auto& l : layers) {
      nlohmann::ordered_json e;
      e["op"] = l.op;
      e["binding"] = l.binding;
      e["line"] = l.loc.line;
      e["col"] = l.loc.col;
      e["dsp"] = l.dsp;
      auto& in = e["inputs"] = nlohmann::ordered_json::array();
      for (const auto& t : l.inputs) in.push_back(t.str());
      e["output"] = l.output.str();
      e["calls"] = l.calls;
      e["macs"] = l.macs;
      jl.push_back(std::move(e));
    }
    auto& decls = j["declarations"] = nlohmann::ordered_json::array();
    for (const auto& d : frontend::declarations(prog)) {
      ir::Context tmp;
      nlohmann::ordered_json e;
      e["name"] = d.name;
      e["kind"] = d.kind == frontend::DeclInfo::Kind::Input ? "input" : "weight";
      e["type"] = frontend::ValueType{d.bits, d.shape}.str();
      decls.push_back(std::move(e));
    }
    auto& outs = j["outputs"] = nlohmann::ordered_json::array();
    for (const auto& o : loaded->module.outputs)
      outs.push_back({{"name", o.name}, {"type", o.term->type()->str()}});
    std::cout << j.dump(2) << '\n';
    return kExitOk;
  }

  std::cout << fmt::format("{}: {} layer(s), {} output(s)\n", opts.file, layers.size(),
                           loaded->module.outputs.size());
  std::cout << fmt::format("  {:<12} {:<12} {:<8} {:<40} {:<22} {:>14}\n", "op", "binding", "line",
                           "inputs", "output", "MACs");
  for (const auto& l : layers) {
    std::string ins = joinTypes(l.inputs);
    if (ins.size() > 40) ins = ins.substr(0, 37) + "...";
    std::cout << fmt::format("  {:<12} {:<12} {:<8} {:<40} {:<22} {:>14}\n", l.op, l.binding,
                             fmt::format("{}:{}", l.loc.line, l.loc.col), ins, l.output.str(),
                             l.macs ? std::to_string(l.macs) : std::string("-"));
  }
  std::cout << fmt::format("total MACs: {}\n", total);
  return kExitOk;
}

}  // namespace

namespace {
Command addCheckCommand(CLI::App& root) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* app = root.add_subcommand("check", "Parse and type-check a .dsl program; print its layers and MACs");
  app->add_option("file", opts->file, "the .dsl program")->required();
  app->add_flag("--json", opts->json, "print one JSON object (fields: file, macs, layers, declarations, outputs)");
  return {app, [opts] { return runCheck(*opts); }};
}

}  // namespace

static const CommandRegistration kRegistration{10, addCheckCommand};

}  // namespace skeleshare::tools
