// The compile pipeline: saturate -> extract -> outline -> lower -> emit VHDL, with the
// report of every step (docs/extraction.md and docs/hardware.md describe report.json).

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <string_view>

#include "skeleshare/cost/cost_model.h"
#include "skeleshare/driver/driver.h"
#include "skeleshare/driver/effort.h"
#include "skeleshare/driver/skeleton_load.h"
#include "skeleshare/extract/outline.h"
#include "skeleshare/ir/printer.h"
#include "skeleshare/lower/lower.h"
#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/lower/replay_pool.h"
#include "skeleshare/lower/resources.h"
#include "skeleshare/lower/summary.h"
#include "skeleshare/rules/saturate.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/saturating.h"

namespace skeleshare::driver {
namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Seconds rounded to milliseconds, so the report stays readable.
double ms(double s) { return std::round(s * 1000.0) / 1000.0; }

void say(const CompileOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

constexpr std::string_view kReadShapesPrefix = "// read shapes: ";

/// Performance figures of a design taking `cycles` with `dsps` DSP blocks.
void performance(Json& j, const cost::Device& device, const std::optional<Workload>& work, bool ok, int64_t cycles,
                 int64_t dsps) {
  j["macs"] = work ? Json(work->macs) : Json(nullptr);
  double ghz = device.clockMhz / 1000.0;
  j["predicted_gops"] = ok && work && cycles > 0
                            ? Json(static_cast<double>(work->macs) * 2.0 * ghz / static_cast<double>(cycles))
                            : Json(nullptr);
  if (!(ok && work && dsps > 0)) {
    for (const char* key : {"dsp_bound_cycles", "dsp_efficiency", "layer_bound_cycles", "layer_bound_efficiency"})
      j[key] = nullptr;
    return;
  }
  // One MAC per multiplier per cycle, as many multipliers per block as 8-bit products
  // pack: no design with these DSP blocks can take fewer cycles.
  const int64_t lanes = dsps * std::max<int64_t>(1, device.productsPerBlock(8, 8));
  const int64_t bound = cost::computeCycles(work->macs, lanes);
  const auto efficiency = [&](int64_t b) { return static_cast<double>(b) / static_cast<double>(std::max<int64_t>(1, cycles)); };
  j["dsp_bound_cycles"] = bound;
  j["dsp_efficiency"] = efficiency(bound);
  // Layer by layer, the longer of its compute and its weights' traffic: no design that
  // runs its layers one after another on these blocks and this port can take fewer.
  const cost::MemorySystem memory = cost::memorySystem(device);
  int64_t layers = 0;
  for (const Workload::Layer& l : work->layers)
    layers = saturatingAdd(layers, cost::layerBoundCycles(l.macs, l.weightBytes, lanes, device.hostLineBits / 8, memory));
  const int64_t layerBound = std::max(layers, bound);  // a workload without its layers: the compute bound
  j["layer_bound_cycles"] = layerBound;
  j["layer_bound_efficiency"] = efficiency(layerBound);
}

/// Saturation, extraction and outlining: fills c.design and the report's extraction
/// fields. Returns false (with c.status set) when there is no design.
bool extractDesign(const ir::Module& module, ir::Context& ctx, const std::optional<Workload>& work, const CompileOptions& o,
                   const cost::Device& device, int64_t budget, bool boxReads, Compiled& c) {
  Json& j = c.report;
  std::string rulesDir = o.rulesDir.empty() ? o.dataDir + "/rules" : o.rulesDir;
  DiagnosticEngine diags;
  std::optional<rules::RuleSet> ruleSet = rules::loadRuleDir(rulesDir, diags);
  if (!ruleSet) {
    std::ostringstream os;
    diags.print(os);
    c.status = Status::BadInput;
    c.message = os.str();
    return false;
  }
  std::vector<std::string> groups = ruleSet->groups();
  for (const std::string& d : o.disabled) {
    if (std::find(groups.begin(), groups.end(), d) == groups.end()) {
      std::string known;
      for (const auto& g : groups) known += (known.empty() ? "" : ", ") + g;
      c.status = Status::BadInput;
      c.message = fmt::format("--disable {}: no such rule group (groups: {})", d, known);
      return false;
    }
  }

  // One effort budget for the whole compile: saturation may grow the e-graph only as far as
  // the budget pays for, building the problem (the cycle model's walks) is charged next, and
  // the extractor gets what is left.
  EffortLedger effort(o.effort);
  cost::CostModel model(device);
  SkeletonLoads loads(device, boxReads);
  loads.measureOverlap(o.overlap);
  if (!o.paperModel) model.setLoadOracle(SkeletonLoads::oracle(loads));
  model.setOverlap(o.overlap);
  extract::ProblemOptions po;
  po.sharing = !o.noSharing;
  po.singleAbstraction = o.singleAbstraction;

  // Two rule stages: the widening rules run only when the others give no design, so that a
  // program with a design keeps it (rules/widening.rules says why).
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  bool mayWiden = has(groups, rules::kWideningGroup) && !has(o.disabled, rules::kWideningGroup);
  std::vector<std::string> disabled = o.disabled;
  if (mayWiden) disabled.push_back(rules::kWideningGroup);
  std::string firstStageMessage;
  rules::Saturation sat;
  std::optional<extract::Problem> problem;
  extract::ExtractResult r;
  double satSeconds = 0;
  for (;;) {
    rules::SaturateOptions so;
    so.limits.maxSeconds = o.saturationSeconds;
    so.limits.maxNodes = effort.limited() ? std::min<uint64_t>(o.maxNodes, o.effort / kEffortPerENode) : o.maxNodes;
    so.disabledGroups = disabled;
    problem.reset();  // it refers to the previous stage's e-graph
    const auto satStart = std::chrono::steady_clock::now();
    sat = rules::saturateModule(ctx, module, *ruleSet, so);
    satSeconds = since(satStart);
    effort.charge(EffortLedger::Saturation, sat.graph->nodeCount() * kEffortPerENode);
    say(o, fmt::format("saturation: {} ({} e-nodes, {} e-classes, {:.2f} s; {})", egraph::toString(sat.report.stop),
                       sat.graph->nodeCount(), sat.graph->classCount(), satSeconds,
                       effort.share(EffortLedger::Saturation)));

    const auto problemStart = std::chrono::steady_clock::now();
    const uint64_t walkedBefore = loads.walkedRuns();
    problem.emplace(*sat.graph, model, sat.root, po);
    effort.charge(EffortLedger::Problem, (loads.walkedRuns() - walkedBefore) * kEffortPerWalkedRun);
    say(o, fmt::format("problem: cycle model of {} skeletons, {} address-generator runs walked ({:.2f} s; {})",
                       loads.measured(), loads.walkedRuns(), since(problemStart), effort.share(EffortLedger::Problem)));
    extract::ExtractOptions eo;
    eo.dspBudget = budget;
    eo.maxConvUnits = o.maxConvUnits;
    eo.effort = effort.forExtraction();
    eo.timeoutSeconds = o.timeout;
    eo.greedyWarmStart = !o.noGreedy;
    if (o.progress) eo.progress = [&o](const std::string& line) { o.progress("extract " + line); };
    r = extract::extractDesign(*problem, eo);
    effort.charge(EffortLedger::Extraction, r.effortSpent);
    // Widen only when the first stage proved that no design exists, not when it ran out of
    // effort: the second stage's e-graph is larger, so it would not do better.
    if (!mayWiden || r.status != extract::Status::NoSolution || r.stoppedBy != extract::Limit::None) break;
    mayWiden = false;
    firstStageMessage = r.message;
    disabled = o.disabled;
    say(o, fmt::format("no design with the default rules ({}); saturating again with the widening rules",
                       r.message));
  }
  j["rule_stage"] = firstStageMessage.empty() ? "default" : "widened";
  j["default_rules_message"] = firstStageMessage.empty() ? Json(nullptr) : Json(firstStageMessage);

  bool ok = r.status == extract::Status::Ok;
  j["status"] = extract::statusName(r.status);
  j["message"] = r.message;
  j["dsp_used"] = ok ? Json(r.evaluation.dsps()) : Json(nullptr);
  j["conv_units"] = ok ? Json(r.evaluation.convUnits()) : Json(nullptr);
  j["predicted_cycles"] = ok ? Json(r.evaluation.time()) : Json(nullptr);
  j["predicted_cycles_one_after_another"] = ok ? Json(r.evaluation.oneAfterAnother) : Json(nullptr);
  performance(j, device, work, ok, ok ? r.evaluation.time() : 0, ok ? r.evaluation.dsps() : 0);
  j["optimal"] = ok && r.optimal;
  j["stopped_by"] = extract::limitName(r.stoppedBy);
  j["effort_spent"] = effort.spent();
  j["effort"] = effort.json();
  say(o, fmt::format("effort: {}", effort.summary()));
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
  const auto& st = problem->stats();
  pj["reachable_nodes"] = st.reachableNodes;
  pj["reachable_classes"] = st.reachableClasses;
  pj["unlowerable_nodes"] = st.unlowerableNodes;
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
  Json shared = Json::array();
  if (ok) {
    extract::OutlinedDesign design = extract::outline(*problem, r.selection, r.evaluation, module);
    // The outlined design, costed on its own, must be what the extractor predicted.
    if (design.module.outputs.size() == 1) {
      cost::DesignCost dc = cost::designCost(model, design.module.outputs[0].term);
      if (dc.total(cost::kTime) != r.evaluation.time() || dc.total(cost::kDsp) != r.evaluation.dsps())
        throw std::logic_error(fmt::format("the outlined design costs {} cycles / {} DSPs, the extractor predicted {} / {}",
                                           dc.total(cost::kTime), dc.total(cost::kDsp), r.evaluation.time(),
                                           r.evaluation.dsps()));
    }
    for (size_t i = 0; i < design.units.size(); ++i) {
      const auto& u = design.units[i];
      Json e;
      e["let"] = i + 1;
      e["skeleton"] = u.skeleton;
      e["type"] = u.type;
      e["dsps"] = u.dsps;
      e["conv_units"] = u.convUnits;
      e["cycles_per_use"] = u.cyclesPerUse;
      e["uses"] = u.uses;
      e["used_by"] = u.usedBy;
      shared.push_back(std::move(e));
    }
    c.designText = design.header() + readShapesComment(boxReads) + ir::printModule(ctx, design.module);
    c.design = std::move(design.module);
    c.predictedCycles = r.evaluation.time();
    const int64_t t = r.evaluation.time();
    say(o, fmt::format("design: {} cycles, {} of {} DSPs, {} shared unit{}, {}", t, r.evaluation.dsps(), budget,
                       design.units.size(), design.units.size() == 1 ? "" : "s",
                       r.optimal ? std::string("optimal")
                                 : fmt::format("not proven optimal (gap {:.2f}% to the lower bound {})",
                                               extract::gapPercent(t, r.lowerBound), r.lowerBound)));
  }
  j["shared"] = shared;
  Json imp = Json::array();
  for (const auto& i : r.improvements)
    imp.push_back({{"seconds", ms(i.seconds)},
                   {"effort", i.effort},
                   {"predicted_cycles", i.time},
                   {"dsp_used", i.dsps},
                   {"source", i.source}});
  j["improvements"] = imp;
  Json opts;
  opts["sharing"] = !o.noSharing;
  opts["single_abstraction"] = o.singleAbstraction;
  opts["disabled_groups"] = o.disabled;
  opts["effort"] = o.effort;
  opts["timeout_seconds"] = o.timeout;
  opts["overlap"] = o.overlap;
  j["options"] = opts;
  if (!ok) {
    c.status = Status::NoDesign;
    c.message = r.message;
  }
  return ok;
}

/// The cost model's figures for a module as written.
void costAsWritten(const ir::Module& module, const std::optional<Workload>& work, const cost::Device& device, bool paperModel,
                   bool boxReads, bool overlap, Compiled& c) {
  const AsWrittenCost cost = predictAsWritten(module, device, paperModel, boxReads, overlap);
  const int64_t time = cost.cycles, dsps = cost.dsps;
  Json& j = c.report;
  j["status"] = "as_written";
  j["message"] = "lowered as written: no saturation or extraction";
  j["dsp_used"] = dsps;
  j["predicted_cycles"] = time;
  performance(j, device, work, true, time, dsps);
  c.predictedCycles = time;
}

}  // namespace

AsWrittenCost predictAsWritten(const ir::Module& module, const cost::Device& device, bool paperModel, bool boxReads,
                               bool overlap) {
  cost::CostModel model(device);
  SkeletonLoads loads(device, boxReads);
  loads.measureOverlap(overlap);
  if (!paperModel) model.setLoadOracle(SkeletonLoads::oracle(loads));
  model.setOverlap(overlap);
  AsWrittenCost c;
  for (const auto& out : module.outputs) {
    cost::DesignCost dc = cost::designCost(model, out.term);
    c.cycles += dc.total(cost::kTime);
    c.dsps += dc.total(cost::kDsp);
  }
  return c;
}

std::string templateDir(const std::string& dataDir) { return dataDir + "/src/vhdl/templates"; }

Json unitEstimatesJson(const lower::Program& prog, const lower::CycleEstimate& estimate) {
  Json units = Json::array();
  for (size_t i = 0; i < prog.units.size() && i < estimate.loads.size(); ++i)
    units.push_back({{"unit", prog.units[i].name},
                     {"cycles", estimate.perUnit[i]},
                     {"start", estimate.start[i]},
                     {"end", estimate.end[i]},
                     {"with_previous", prog.firstShared(i) != i},
                     {"busiest", estimate.loads[i].busiest},
                     {"lines", estimate.loads[i].lines},
                     {"depth", estimate.loads[i].depth}});
  return units;
}

Json memoryMapJson(const vhdl::MemoryMap& map) {
  Json buffers = Json::array();
  for (const auto& r : map.regions)
    buffers.push_back({{"name", r.name},
                       {"role", vhdl::roleName(r.role)},
                       {"bits", r.bits},
                       {"shape", r.shape},
                       {"base", r.base},
                       {"bytes", r.bytes},
                       {"on_chip", r.onChip}});
  return Json{{"line_bytes", vhdl::kLineBytes}, {"total_bytes", map.totalBytes}, {"buffers", buffers}};
}

const char* readShapesName(ReadShapes r) {
  switch (r) {
    case ReadShapes::Auto:
      return "auto";
    case ReadShapes::Boxes:
      return "boxes";
    case ReadShapes::Lines:
      return "lines";
  }
  return "?";
}

std::string readShapesComment(bool boxReads) {
  const char* name = readShapesName(readShapesOf(boxReads));
  return fmt::format("{}{} (lower it again with skeleshare lower --read-shapes {})\n", kReadShapesPrefix, name, name);
}

std::optional<ReadShapes> readShapesNamedIn(std::istream& text) {
  for (std::string line; std::getline(text, line) && line.starts_with("//");) {
    if (!line.starts_with(kReadShapesPrefix)) continue;
    const std::string_view named = std::string_view(line).substr(kReadShapesPrefix.size());
    for (ReadShapes r : {ReadShapes::Boxes, ReadShapes::Lines})
      if (named.starts_with(readShapesName(r))) return r;
  }
  return std::nullopt;
}

namespace {

/// The lowering's estimate that a compile's prediction is held to: with --overlap the
/// prediction starts units beside the one before them, and so does the estimate; without
/// it both run the units one after another.
int64_t heldTo(const Compiled& c, bool overlap) { return overlap ? c.estimatedCycles : c.sequentialCycles; }

/// Whether a compile's lowered design confirms its prediction (kConfirmTolerance).
bool confirms(const Compiled& c, bool overlap) {
  if (c.status != Status::Ok || c.predictedCycles <= 0) return false;
  const double p = static_cast<double>(c.predictedCycles), e = static_cast<double>(heldTo(c, overlap));
  return std::abs(e - p) <= kConfirmTolerance * p;
}

/// One compile with the given read shapes, from the options' checked prelude `c`: the
/// extraction (or the program as written) with the cycle model of those reads, then the
/// lowering with them and the VHDL.
Compiled compileWith(const ir::Module& module, ir::Context& ctx, const std::optional<Workload>& work, const CompileOptions& o,
                     const cost::Device& device, int64_t budget, bool boxReads, Compiled c) {
  Json& j = c.report;
  j["read_shapes"] = readShapesName(readShapesOf(boxReads));
  const ir::Module* toLower = &module;
  if (o.asWritten) {
    costAsWritten(module, work, device, o.paperModel, boxReads, o.overlap, c);
  } else {
    if (!extractDesign(module, ctx, work, o, device, budget, boxReads, c)) return c;
    toLower = &*c.design;
  }

  // Lowering and VHDL.
  Json hw;
  try {
    lower::LowerOptions lo = lower::lowerOptions(device, boxReads);
    lo.overlap = o.overlap;
    lower::LoweredDesign lowered = lower::lowerDesign(*toLower, ctx, lo);
    c.program = std::move(lowered.program);
    c.programText = std::move(lowered.text);
    lower::Resources res = lowered.resources;
    c.estimatedCycles = lowered.cycles.total;
    c.sequentialCycles = lowered.cycles.oneAfterAnother;
    // the lowering's numbers (docs/lowering.md, "report.json")
    j["lowered_dsps"] = res.dsps;
    j["lowered_dsp_lanes"] = res.dspLanes;
    j["onchip_memory_bits"] = res.onChipBits;
    j["lowered_m20k_blocks"] = res.m20kBlocks;
    j["lowered_mlab_cells"] = res.mlabCells;
    j["estimated_cycles"] = c.estimatedCycles;
    j["estimated_cycles_one_after_another"] = c.sequentialCycles;
    j["estimated_units"] = unitEstimatesJson(*c.program, lowered.cycles);
    j["lowered_units"] = c.program->units.size();
    j["lowered_calls"] = lowered.calls;
    vhdl::EmitOptions eo;
    eo.design = o.design;
    eo.templateDir = templateDir(o.dataDir);
    c.hardware = vhdl::emitDesign(*c.program, eo);
    hw["top"] = c.hardware->top;
    hw["units"] = c.program->units.size();
    hw["dsps"] = res.dsps;  // DSP blocks
    hw["dsp_multiplier_lanes"] = c.hardware->dspLanes;
    hw["estimated_cycles"] = c.estimatedCycles;
    hw["estimated_cycles_one_after_another"] = c.sequentialCycles;
    hw["memory_ports"] = c.hardware->linePorts;
    // the units' replay buffers and the RAMs they share (lower/replay_pool.h)
    const lower::ReplayPool pool = lower::planReplayPool(*c.program);
    hw["replay_buffers"] = {{"buffers", pool.slotOf.size()}, {"rams", pool.slots.size()}, {"bits", pool.bits()}};
    // the lowering's RAMs and the arbiter's FIFO of read ports, whose ports the emitter counts
    const lower::RamCells arbiter = lower::mapArbiterFifo(c.hardware->linePorts);
    const int64_t m20k = res.m20kBlocks + arbiter.m20k, mlab = res.mlabCells + arbiter.mlab;
    hw["m20k_blocks"] = m20k;
    hw["mlab_cells"] = mlab;  // LUT-RAM: the RAMs too shallow for an M20K
    hw["device_m20k_blocks"] = device.m20kBlocks;
    j["top"] = c.hardware->top;
    j["memory_map"] = memoryMapJson(c.hardware->map);
    say(o, fmt::format("hardware: {} unit(s), {} DSP blocks ({} multipliers), estimated {} cycles{}, top entity {}",
                       c.program->units.size(), res.dsps, c.hardware->dspLanes, c.estimatedCycles,
                       c.sequentialCycles != c.estimatedCycles
                           ? fmt::format(" ({} one unit after another)", c.sequentialCycles)
                           : std::string(),
                       c.hardware->top));
    say(o, fmt::format("on-chip memory: {} of the device's {} M20K blocks and {} MLAB cells ({} replay buffer(s) in {} RAM(s)){}",
                       m20k, device.m20kBlocks, mlab, pool.slotOf.size(), pool.slots.size(),
                       m20k > device.m20kBlocks ? ": more than the device has" : ""));
    // The cycle model prices the widening rules' designs less well (rules/widening.rules):
    // say so when the lowering's count disagrees, with the default rules' suggestion.
    if (j.value("rule_stage", "") == "widened" && c.predictedCycles > 0 &&
        static_cast<double>(heldTo(c, o.overlap)) > 1.15 * static_cast<double>(c.predictedCycles))
      say(o, fmt::format("note: the widening rules' design is estimated at {:.1f}x its predicted cycles; without "
                         "them: {}",
                         static_cast<double>(heldTo(c, o.overlap)) / static_cast<double>(c.predictedCycles),
                         j["default_rules_message"].get<std::string>()));
  } catch (const lower::LowerError& e) {
    c.status = Status::NotLowered;
    c.message = std::string("the design cannot be lowered: ") + e.what();
    j["lower_error"] = e.what();
    j["failed_stage"] = "lower";
  } catch (const vhdl::EmitError& e) {
    c.status = Status::NotLowered;
    c.message = std::string("the design cannot be emitted as VHDL: ") + e.what();
    j["failed_stage"] = "vhdl";
  }
  if (c.status != Status::Ok) {
    // The extraction's "ok" (or "as_written") was about the design; the compile failed.
    hw["error"] = c.message;
    j["status"] = "failed";
    j["message"] = c.message;
  }
  j["hardware"] = hw;
  return c;
}
}  // namespace

Compiled compile(const ir::Module& module, ir::Context& ctx, const std::optional<Workload>& work, const CompileOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  Compiled c;
  Json& j = c.report;
  cost::Device device;
  try {
    device = cost::findDevice(o.device, o.dataDir);
  } catch (const std::exception& e) {
    c.status = Status::BadInput;
    c.message = e.what();
    return c;
  }
  int64_t budget = device.dspBlocks;
  if (o.dspBudget >= 0 && o.dspFraction >= 0) {
    c.status = Status::BadInput;
    c.message = "give --dsp-budget or --dsp-fraction, not both";
    return c;
  }
  if (o.dspBudget >= 0) budget = o.dspBudget;
  if (o.dspFraction >= 0) {
    if (o.dspFraction > 1) {
      c.status = Status::BadInput;
      c.message = "--dsp-fraction must be in [0, 1]";
      return c;
    }
    budget = static_cast<int64_t>(std::floor(o.dspFraction * static_cast<double>(device.dspBlocks)));
  }
  j["status"] = nullptr;
  j["device"] = device.name;
  j["dsp_budget"] = budget;
  j["max_conv_units"] = o.maxConvUnits;

  // The paper's model prices no reads, so there is nothing to confirm: box reads, which
  // take a read's box only where it has fewer runs and no more lines.
  if (o.readShapes != ReadShapes::Auto || o.paperModel) {
    c = compileWith(module, ctx, work, o, device, budget, o.readShapes != ReadShapes::Lines, std::move(c));
    c.report["compile_seconds"] = ms(since(start));
    return c;
  }
  // Box reads where the lowered design confirms the cycle model's prediction, line reads
  // where it does not: the model prices a skeleton's reads alone or with a canonical
  // function, and a box found there is not always one the design's loops allow
  // (docs/lowering.md, "Box reads"). Line reads are what the model prices well.
  Json attempts = Json::array();
  const auto record = [&attempts, &o](const Compiled& a, double seconds) {
    const bool ok = a.status == Status::Ok;
    attempts.push_back({{"read_shapes", a.report.value("read_shapes", "")},
                        {"status", a.report.value("status", Json(nullptr))},
                        {"predicted_cycles", ok ? Json(a.predictedCycles) : Json(nullptr)},
                        {"estimated_cycles", ok ? Json(a.estimatedCycles) : Json(nullptr)},
                        {"estimated_cycles_one_after_another", ok ? Json(a.sequentialCycles) : Json(nullptr)},
                        {"confirmed", confirms(a, o.overlap)},
                        {"seconds", ms(seconds)}});
  };
  auto t0 = std::chrono::steady_clock::now();
  Compiled boxes = compileWith(module, ctx, work, o, device, budget, true, c);
  record(boxes, since(t0));
  // A budget no design fits is the same answer with either reads: the DSPs and the
  // convolution units do not depend on them.
  const bool provenNone = boxes.status == Status::NoDesign && boxes.report.value("stopped_by", "") == "none";
  if (boxes.status == Status::BadInput || provenNone || confirms(boxes, o.overlap)) {
    c = std::move(boxes);
  } else {
    say(o, boxes.status == Status::Ok
               ? fmt::format("read shapes: the box-read design is estimated at {} cycles, predicted {}: compiling "
                             "again with line reads",
                             heldTo(boxes, o.overlap), boxes.predictedCycles)
               : fmt::format("read shapes: no box-read design ({}): compiling again with line reads", boxes.message));
    t0 = std::chrono::steady_clock::now();
    Compiled lines = compileWith(module, ctx, work, o, device, budget, false, c);
    record(lines, since(t0));
    // The confirmed one; else the faster hardware of the two; else whichever has a design.
    const bool bothOk = boxes.status == Status::Ok && lines.status == Status::Ok;
    const bool takeLines = confirms(lines, o.overlap) || (bothOk && lines.estimatedCycles <= boxes.estimatedCycles) ||
                           (!bothOk && boxes.status != Status::Ok);
    c = takeLines ? std::move(lines) : std::move(boxes);
  }
  c.report["read_shape_attempts"] = attempts;
  c.report["compile_seconds"] = ms(since(start));
  return c;
}

std::vector<std::pair<std::string, std::string>> outputFiles(const Compiled& c, const std::string& tdir) {
  std::vector<std::pair<std::string, std::string>> files;
  if (!c.designText.empty()) files.emplace_back("design.ir", c.designText);
  if (c.hardware) {
    std::string list;
    for (const auto& f : c.hardware->files) {
      files.emplace_back("vhdl/" + f.name, f.text);
      list += f.name + "\n";
    }
    files.emplace_back("vhdl/files.txt", list);
    files.emplace_back("vhdl/" + c.hardware->design + "_quartus.tcl", vhdl::quartusScript(*c.hardware));
    vhdl::TestbenchFiles tb = vhdl::emitTestbench(*c.hardware, tdir);
    for (const auto& f : tb.files) files.emplace_back("vhdl/" + f.name, f.text);
    files.emplace_back("vhdl/" + tb.harness.name, tb.harness.text);
    files.emplace_back(c.hardware->design + "_memory_map.h", vhdl::cHeader(c.hardware->map, c.hardware->design));
  }
  files.emplace_back("report.json", c.report.dump(2) + "\n");
  return files;
}

}  // namespace skeleshare::driver
