// skeleshare compile FILE(.dsl|.ir) -o DIR [flags]: saturate the program with the rule set,
// extract the fastest design within the DSP budget (Z3), outline it into a let-bound
// skeleton program. Writes DIR/design.ir and DIR/report.json (docs/extraction.md).

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "output_files.h"
#include "program_loader.h"
#include "skeleshare/cost/cost_model.h"
#include "skeleshare/extract/extractor.h"
#include "skeleshare/extract/outline.h"
#include "skeleshare/ir/interpreter.h"
#include "skeleshare/ir/printer.h"
#include "skeleshare/lower/interpreter.h"
#include "skeleshare/lower/summary.h"
#include "skeleshare/rules/saturate.h"

namespace skeleshare::tools {

namespace {

struct CompileOptions {
  std::string file;
  std::string outDir;
  std::string device = cost::kDefaultDevice;
  std::string rulesDir;
  int64_t dspBudget = -1;
  double dspFraction = -1;
  int64_t maxConvUnits = 1;
  std::vector<std::string> disabled;
  bool noSharing = false;
  bool singleAbstraction = false;
  uint64_t effort = extract::kDefaultEffort;
  double timeout = 0;
  double saturationSeconds = 60;
  size_t maxNodes = 500000;
  bool quiet = false;
  bool noGreedy = false;
  bool checkEval = false;
  std::vector<std::string> emit;  // "shir": also lower the design (DIR/design.shir)
};

using Json = nlohmann::ordered_json;

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Seconds rounded to milliseconds, so the report stays readable.
double ms(double s) { return std::round(s * 1000.0) / 1000.0; }

void writeText(StagedOutputs& staged, const std::string& name, const std::string& text) {
  staged.stage(name, [&](const std::filesystem::path& p) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
  });
}

int runCompile(const CompileOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  auto say = [&](const std::string& line) {
    if (!o.quiet) std::cerr << line << '\n';
  };

  cost::Device device = cost::findDevice(o.device, SKELESHARE_DATA_DIR);
  int64_t budget = device.dspBlocks;
  if (o.dspBudget >= 0 && o.dspFraction >= 0) {
    std::cerr << "skeleshare compile: error: give --dsp-budget or --dsp-fraction, not both\n";
    return kExitUsage;
  }
  if (o.dspBudget >= 0) budget = o.dspBudget;
  if (o.dspFraction >= 0) {
    if (o.dspFraction > 1) {
      std::cerr << "skeleshare compile: error: --dsp-fraction must be in [0, 1]\n";
      return kExitUsage;
    }
    budget = static_cast<int64_t>(std::floor(o.dspFraction * static_cast<double>(device.dspBlocks)));
  }

  auto loaded = loadProgram(o.file, std::cerr);
  if (!loaded) return kExitInputError;
  ir::Context& ctx = *loaded->ctx;
  std::optional<uint64_t> macs;
  if (loaded->dsl) macs = frontend::totalMacs(frontend::summarize(*loaded->dsl));

  std::string rulesDir = o.rulesDir.empty() ? std::string(SKELESHARE_DATA_DIR) + "/rules" : o.rulesDir;
  DiagnosticEngine diags;
  std::optional<rules::RuleSet> ruleSet = rules::loadRuleDir(rulesDir, diags);
  if (!ruleSet) {
    diags.print(std::cerr);
    return kExitInputError;
  }
  std::vector<std::string> groups = ruleSet->groups();
  for (const std::string& d : o.disabled) {
    if (std::find(groups.begin(), groups.end(), d) == groups.end()) {
      std::string known;
      for (const auto& g : groups) known += (known.empty() ? "" : ", ") + g;
      std::cerr << fmt::format("skeleshare compile: error: --disable {}: no such rule group (groups: {})\n", d, known);
      return kExitUsage;
    }
  }

  // Saturation.
  rules::SaturateOptions so;
  so.limits.maxSeconds = o.saturationSeconds;
  so.limits.maxNodes = o.maxNodes;
  so.disabledGroups = o.disabled;
  const auto satStart = std::chrono::steady_clock::now();
  rules::Saturation sat = rules::saturateModule(ctx, loaded->module, *ruleSet, so);
  double satSeconds = since(satStart);
  say(fmt::format("saturation: {} ({} e-nodes, {} e-classes, {:.2f} s)", egraph::toString(sat.report.stop),
                  sat.graph->nodeCount(), sat.graph->classCount(), satSeconds));

  // Extraction.
  cost::CostModel model(device);
  extract::ProblemOptions po;
  po.sharing = !o.noSharing;
  po.singleAbstraction = o.singleAbstraction;
  extract::Problem problem(*sat.graph, model, sat.root, po);
  extract::ExtractOptions eo;
  eo.dspBudget = budget;
  eo.maxConvUnits = o.maxConvUnits;
  eo.effort = o.effort;
  eo.timeoutSeconds = o.timeout;
  eo.greedyWarmStart = !o.noGreedy;
  if (!o.quiet) eo.progress = [](const std::string& line) { std::cerr << "extract " << line << '\n'; };
  extract::ExtractResult r = extract::extractDesign(problem, eo);

  Json j;
  j["status"] = extract::statusName(r.status);
  j["message"] = r.message;
  j["file"] = o.file;
  j["device"] = device.name;
  j["dsp_budget"] = budget;
  j["max_conv_units"] = o.maxConvUnits;
  bool ok = r.status == extract::Status::Ok;
  j["dsp_used"] = ok ? Json(r.evaluation.dsps()) : Json(nullptr);
  j["conv_units"] = ok ? Json(r.evaluation.convUnits()) : Json(nullptr);
  j["predicted_cycles"] = ok ? Json(r.evaluation.time()) : Json(nullptr);
  j["macs"] = macs ? Json(*macs) : Json(nullptr);
  double ghz = device.clockMhz / 1000.0;
  if (ok && macs && r.evaluation.time() > 0) {
    j["predicted_gops"] = static_cast<double>(*macs) * 2.0 * ghz / static_cast<double>(r.evaluation.time());
  } else {
    j["predicted_gops"] = nullptr;
  }
  if (ok && macs && r.evaluation.dsps() > 0) {
    // One MAC per DSP per cycle: no design with these DSPs can take fewer cycles.
    int64_t bound = static_cast<int64_t>((*macs + static_cast<uint64_t>(r.evaluation.dsps()) - 1) /
                                         static_cast<uint64_t>(r.evaluation.dsps()));
    j["dsp_bound_cycles"] = bound;
    j["dsp_efficiency"] = static_cast<double>(bound) / static_cast<double>(std::max<int64_t>(1, r.evaluation.time()));
  } else {
    j["dsp_bound_cycles"] = nullptr;
    j["dsp_efficiency"] = nullptr;
  }
  j["optimal"] = ok && r.optimal;
  j["stopped_by"] = extract::limitName(r.stoppedBy);
  j["effort_spent"] = r.effortSpent;
  j["lower_bound_cycles"] = r.lowerBound;
  j["enodes"] = sat.graph->nodeCount();
  j["eclasses"] = sat.graph->classCount();
  j["saturation_stop"] = std::string(egraph::toString(sat.report.stop));
  j["saturation_iterations"] = sat.report.iterations.size();
  j["saturation_seconds"] = ms(satSeconds);
  j["extraction_seconds"] = ms(r.seconds);
  j["seconds_to_best"] = ms(r.secondsToBest);
  Json greedy;
  greedy["found"] = r.greedyFound;
  greedy["predicted_cycles"] = r.greedyFound ? Json(r.greedyTime) : Json(nullptr);
  greedy["dsp_used"] = r.greedyFound ? Json(r.greedyDsps) : Json(nullptr);
  j["greedy"] = greedy;
  Json pj;
  const auto& st = problem.stats();
  pj["reachable_nodes"] = st.reachableNodes;
  pj["reachable_classes"] = st.reachableClasses;
  pj["unextractable_nodes"] = st.unextractableNodes;
  pj["dominated_nodes"] = st.dominatedNodes;
  pj["nodes"] = st.nodes;
  pj["classes"] = st.classes;
  pj["free_classes"] = st.freeClasses;
  pj["absorbed_classes"] = st.absorbedClasses;
  pj["shareable_classes"] = st.shareableClasses;
  pj["cyclic_classes"] = st.cyclicClasses;
  pj["solver_bools"] = r.encodedBools;
  pj["solver_ints"] = r.encodedInts;
  pj["solver_queries"] = r.queries;
  pj["greedy_steps"] = r.greedySteps;
  j["problem"] = pj;
  Json opts;
  opts["sharing"] = !o.noSharing;
  opts["single_abstraction"] = o.singleAbstraction;
  opts["disabled_groups"] = o.disabled;
  opts["effort"] = o.effort;
  opts["timeout_seconds"] = o.timeout;
  j["options"] = opts;

  StagedOutputs staged(o.outDir);
  std::optional<extract::OutlinedDesign> design;
  if (ok) {
    design = extract::outline(problem, r.selection, r.evaluation, loaded->module);
    // The outlined design, costed on its own, must be what the extractor predicted.
    if (design->module.outputs.size() == 1) {
      cost::DesignCost dc = cost::designCost(model, design->module.outputs[0].term);
      if (dc.total(cost::kTime) != r.evaluation.time() || dc.total(cost::kDsp) != r.evaluation.dsps())
        throw std::logic_error(fmt::format("the outlined design costs {} cycles / {} DSPs, the extractor predicted {} / {}",
                                           dc.total(cost::kTime), dc.total(cost::kDsp), r.evaluation.time(),
                                           r.evaluation.dsps()));
    }
    Json shared = Json::array();
    for (size_t i = 0; i < design->units.size(); ++i) {
      const auto& u = design->units[i];
      Json e;
      e["let"] = i + 1;
      e["skeleton"] = u.skeleton;
      e["type"] = u.type;
      e["dsps"] = u.dsps;
      e["conv_units"] = u.convUnits;
      e["cycles_per_use"] = u.time + cost::kCommunicationCost;
      e["uses"] = u.uses;
      e["used_by"] = u.usedBy;
      shared.push_back(std::move(e));
    }
    j["shared"] = shared;
  } else {
    j["shared"] = Json::array();
  }
  Json imp = Json::array();
  for (const auto& i : r.improvements)
    imp.push_back({{"seconds", ms(i.seconds)},
                   {"effort", i.effort},
                   {"predicted_cycles", i.time},
                   {"dsp_used", i.dsps},
                   {"source", i.source}});
  j["improvements"] = imp;

  int exitCode = ok ? kExitOk : kExitNoDesign;
  std::map<std::string, Tensor> inputs, want;
  if (ok && o.checkEval) {
    inputs = ir::randomInputs(loaded->module, 1);
    want = ir::evaluateModule(loaded->module, ctx, inputs);
    auto got = ir::evaluateModule(design->module, ctx, inputs);
    bool same = want.size() == got.size();
    for (const auto& [name, t] : want) same = same && got.count(name) && got.at(name) == t;
    j["check_eval"] = same ? "equal" : "MISMATCH";
    say(fmt::format("check: the design {} the source on random inputs", same ? "evaluates like" : "DIFFERS FROM"));
    if (!same) exitCode = kExitMismatch;
  }
  // --emit shir: the lowered program and its numbers (docs/lowering.md, "report.json").
  std::optional<lower::LoweredDesign> lowered;
  bool emitShir = std::find(o.emit.begin(), o.emit.end(), "shir") != o.emit.end();
  if (design && emitShir) {
    try {
      lowered = lower::lowerDesign(design->module, ctx);
      j["lowered_dsps"] = lowered->resources.dsps;
      j["onchip_memory_bits"] = lowered->resources.onChipBits;
      j["estimated_cycles"] = lowered->cycles.total;
      j["lowered_units"] = lowered->program.units.size();
      j["lowered_calls"] = lowered->calls;
      if (o.checkEval) {  // the mid-level interpreter against the skeleton interpreter
        auto got = lower::run(lowered->program, inputs);
        bool same = got.size() == want.size();
        for (const auto& [name, t] : want) same = same && got.count(name) && got.at(name) == t;
        j["check_lowered"] = same ? "equal" : "MISMATCH";
        say(fmt::format("check: the lowered program {} the source", same ? "evaluates like" : "DIFFERS FROM"));
        if (!same) exitCode = kExitMismatch;
      }
    } catch (const lower::LowerError& e) {
      j["lower_error"] = e.what();
      std::cerr << "skeleshare compile: error: lowering: " << e.what() << '\n';
      exitCode = kExitInputError;
    }
  }
  j["compile_seconds"] = ms(since(start));

  if (design) writeText(staged, "design.ir", design->header() + ir::printModule(ctx, design->module));
  if (lowered) writeText(staged, "design.shir", lowered->text);
  writeText(staged, "report.json", j.dump(2) + "\n");
  staged.commit();
  if (!design) {
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(o.outDir) / "design.ir", ec);  // no stale design
  }
  if (!lowered) {
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(o.outDir) / "design.shir", ec);
  }
  if (ok) {
    say(fmt::format("design: {} cycles, {} of {} DSPs, {} shared unit{}, {}{}", r.evaluation.time(), r.evaluation.dsps(),
                    budget, design->units.size(), design->units.size() == 1 ? "" : "s",
                    r.optimal ? "optimal" : "not proven optimal",
                    j["predicted_gops"].is_null() ? "" : fmt::format(", {:.1f} GOPS", j["predicted_gops"].get<double>())));
  } else {
    std::cerr << "skeleshare compile: " << r.message << '\n';
  }
  return exitCode;
}

Command addCompileCommand(CLI::App& root) {
  auto o = std::make_shared<CompileOptions>();
  CLI::App* app = root.add_subcommand(
      "compile", "Saturate, extract the fastest design within the DSP budget, write DIR/design.ir and DIR/report.json");
  app->add_option("file", o->file, "the .dsl (or .ir) program")->required();
  app->add_option("-o,--output", o->outDir, "output directory")->required();
  app->add_option("--device", o->device, "device name in rules/devices/ or a .json file (default arria10_gx1150)");
  app->add_option("--dsp-budget", o->dspBudget, "DSP blocks available (default: the device's)")->check(CLI::NonNegativeNumber);
  app->add_option("--dsp-fraction", o->dspFraction, "fraction of the device's DSP blocks")->check(CLI::NonNegativeNumber);
  app->add_option("--max-conv-units", o->maxConvUnits, "hardware convolution units allowed (default 1)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--disable", o->disabled, "disable a rule group (repeatable), e.g. padding, tiling");
  app->add_flag("--no-sharing", o->noSharing, "share nothing: every use is a copy");
  app->add_flag("--single-abstraction", o->singleAbstraction,
                "share a unit only among skeletons of its own family (conv, mv, mm, conv1d)");
  app->add_option("--effort", o->effort,
                  fmt::format("extraction work limit: greedy steps + Z3 resource units, deterministic; 0 = unlimited "
                              "(default {})",
                              extract::kDefaultEffort));
  app->add_option("--timeout", o->timeout,
                  "extraction wall-clock safety limit in seconds; 0 = none (default; output then depends only on "
                  "the input and flags)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--saturation-seconds", o->saturationSeconds, "saturation time limit (default 60)")
      ->check(CLI::PositiveNumber);
  app->add_option("--max-nodes", o->maxNodes, "saturation e-node limit (default 500000)");
  app->add_option("--rules", o->rulesDir, "rule directory (default: the installed rules/)");
  app->add_flag("--no-greedy", o->noGreedy, "do not seed the solver with the greedy design");
  app->add_flag("--check-eval", o->checkEval,
                "evaluate the source and the design on random inputs and compare (exit 4 if they differ)");
  app->add_option("--emit", o->emit, "also write a lowered form: shir (DIR/design.shir, the mid-level IR)")
      ->check(CLI::IsMember({"shir"}));
  app->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
  return {app, [o] { return runCompile(*o); }};
}

}  // namespace

static const CommandRegistration kRegistration{50, addCompileCommand};

}  // namespace skeleshare::tools
