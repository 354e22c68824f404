#pragma once
// The compile pipeline as a library (docs/hardware.md): a skeleton-IR module is saturated
// with the rule set, the fastest design within the DSP budget is extracted and outlined,
// lowered to the mid-level IR and emitted as VHDL. `skeleshare compile` and
// `skeleshare sim` are thin commands around it.

#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "skeleshare/cost/device.h"
#include "skeleshare/extract/extractor.h"
#include "skeleshare/ir/context.h"
#include "skeleshare/lower/timing.h"
#include "skeleshare/lower/mir.h"
#include "skeleshare/vhdl/emitter.h"

namespace skeleshare::driver {

using Json = nlohmann::ordered_json;

/// How the lowered design's reads take their lanes, for the cycle model and the lowering
/// alike (docs/lowering.md, "Box reads"): box reads where they fit, line reads only, or
/// box reads when the lowered design confirms the model's prediction and line reads when
/// it does not.
enum class ReadShapes { Auto, Boxes, Lines };
const char* readShapesName(ReadShapes r);
inline ReadShapes readShapesOf(bool boxReads) { return boxReads ? ReadShapes::Boxes : ReadShapes::Lines; }
/// design.ir's comment line naming the read shapes it was compiled with, and its reader:
/// the read shapes that a program's leading comment lines name, if they name any.
std::string readShapesComment(bool boxReads);
std::optional<ReadShapes> readShapesNamedIn(std::istream& text);
/// A lowered design's estimate confirms a prediction when within this share of it.
inline constexpr double kConfirmTolerance = 0.15;

struct CompileOptions {
  std::string dataDir;             // holds rules/, rules/devices/ and src/vhdl/templates/
  std::string device = cost::kDefaultDevice;
  std::string rulesDir;            // default: dataDir/rules
  int64_t dspBudget = -1;          // -1: the device's
  double dspFraction = -1;         // -1: unused
  int64_t maxConvUnits = 1;
  std::vector<std::string> disabled;
  bool noSharing = false;
  bool singleAbstraction = false;
  uint64_t effort = extract::kDefaultEffort;
  double timeout = 0;
  double saturationSeconds = 60;
  size_t maxNodes = 500000;
  bool noGreedy = false;
  /// Lower the program as written, without saturation and extraction (its ParallelDot
  /// parallelism as given): the hardware of a hand-written design.
  bool asWritten = false;
  /// Optimise the paper's cost model (Fig. 14: compute alone) instead of the hardware's
  /// cycle model (docs/cost-model.md): to compare with the paper's predictions.
  bool paperModel = false;
  ReadShapes readShapes = ReadShapes::Auto;
  /// A unit that may start with the unit before it does, where its RAMs fit the device
  /// (lower/overlap.h). The lowering's estimate follows it, and so does the extractor's
  /// prediction where every unit calls one shared unit, which each hands over to the next
  /// (cost::NodeCost::overlap); elsewhere the prediction runs the units one after another.
  /// On by default since 2026-12-04 (`--no-overlap`: every unit once the one before it ends).
  bool overlap = true;
  std::string design = "design";  // the VHDL name prefix
  std::function<void(const std::string&)> progress;  // progress lines (may be empty)
};

enum class Status {
  Ok,         // a design, lowered and emitted
  NoDesign,   // extraction found no design within the budget (exit 3)
  BadInput,   // unknown rule group, unreadable rules or device, bad flags (message)
  NotLowered  // a design was extracted but the lowering or emitter cannot build it (message)
};

struct Compiled {
  Status status = Status::Ok;
  std::string message;
  Json report;                                  // report.json
  std::optional<ir::Module> design;             // the outlined design (extraction only)
  std::string designText;                       // design.ir
  std::optional<lower::Program> program;        // the mid-level program
  std::string programText;                      // its text form (design.shir)
  std::optional<vhdl::EmittedDesign> hardware;  // the VHDL
  int64_t predictedCycles = 0;                  // the cost model's (extraction or as written)
  int64_t estimatedCycles = 0;                  // the lowering's estimate
  // The lowering's estimate with its units one after another, as the prediction runs
  // them: equal to estimatedCycles unless units overlap (--overlap).
  int64_t sequentialCycles = 0;
};

/// What a program computes, from its DSL summary (frontend/summary.h): the MACs of the
/// GOPS figures, and per layer what the layer bound needs (report.json's
/// `layer_bound_cycles`, docs/cost-model.md, "Bounds").
struct Workload {
  struct Layer {
    uint64_t macs = 0;
    uint64_t weightBytes = 0;  // the weights it names: read at least once
  };
  uint64_t macs = 0;
  std::vector<Layer> layers;
};

/// Runs the pipeline. `work` (known for a DSL program) feeds the GOPS figures and bounds.
/// Throws only on internal errors; input problems come back as a status.
Compiled compile(const ir::Module& module, ir::Context& ctx, const std::optional<Workload>& work, const CompileOptions& options);

/// The cost model's cycles and DSP blocks for a module as written (its outputs one after
/// another), with the hardware's cycle model unless `paperModel`; with `overlap`, units that
/// all call one shared unit hand it over to the next (cost::NodeCost::overlap).
struct AsWrittenCost {
  int64_t cycles = 0;
  int64_t dsps = 0;
};
AsWrittenCost predictAsWritten(const ir::Module& module, const cost::Device& device, bool paperModel = false,
                               bool boxReads = false, bool overlap = false);

/// The files of a compile's output directory, relative paths to contents: design.ir,
/// report.json, and for an emitted design vhdl/*.vhd, vhdl/files.txt,
/// vhdl/<design>_quartus.tcl, vhdl/<design>_tb.vhd, vhdl/ss_avmm_model.vhd and
/// <design>_memory_map.h.
std::vector<std::pair<std::string, std::string>> outputFiles(const Compiled& compiled, const std::string& templateDir);

/// The templates' directory under a data directory.
std::string templateDir(const std::string& dataDir);

/// The memory map as report.json's "memory_map".
Json memoryMapJson(const vhdl::MemoryMap& map);
/// The cycle model's estimate unit by unit: name, cycles, busiest stage, lines, depth.
Json unitEstimatesJson(const lower::Program& prog, const lower::CycleEstimate& estimate);

}  // namespace skeleshare::driver
