#pragma once
// The Z3 extractor (paper Section III-C, IV-C; docs/extraction.md): chooses one node per
// class and which classes are shared units, minimising the root's algorithmic time subject
// to the DSP budget and at most one hardware convolution unit.
//
// Flow: shrink the e-graph (problem.h), run the greedy extractor (warm start: its time is
// the first upper bound), encode the selection/sharing/cost constraints once, then search
// on the time bound: each query asks for a design with use_T(root) <= q, q between the best
// lower bound and the best design so far (bisection; a query that runs out of its resource
// share moves q towards the best design). Every design found is re-evaluated exactly and
// reported as an improvement. The search stops when the bounds meet (optimal) or at the
// timeout. Z3's seeds are fixed and per-query limits are resource counts (rlimit), not
// seconds, so the result is deterministic unless the wall-clock timeout cuts the search.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "skeleshare/extract/greedy.h"
#include "skeleshare/extract/problem.h"
#include "skeleshare/extract/selection.h"

namespace skeleshare::extract {

enum class Status { Ok, NoSolution, TimeoutNoSolution };
const char* statusName(Status s);  // "ok", "no_solution", "timeout_no_solution"

struct ExtractOptions {
  int64_t dspBudget = 0;
  int64_t maxConvUnits = 1;
  double timeoutSeconds = 60;
  /// Seed the search with the greedy extractor's design.
  bool greedyWarmStart = true;
  /// Z3 resource units per query before it counts as inconclusive (deterministic); 0 = none.
  uint64_t queryRlimit = 20'000'000;
  /// Acyclicity by forbidding the cycles that appear in models (true) or by integer labels
  /// on the classes of every cycle of the e-graph (false).
  bool lazyAcyclicity = true;
  /// Called with one line of progress (no newline) at every event; null = quiet.
  std::function<void(const std::string&)> progress;
};

struct Improvement {
  double seconds = 0;  // since the extraction started
  int64_t time = 0;
  int64_t dsps = 0;
  std::string source;  // "greedy" or "solver"
};

struct ExtractResult {
  Status status = Status::NoSolution;
  /// Why there is no design (which limit could not be met), or a note on the search.
  std::string message;
  Selection selection;
  Evaluation evaluation;
  bool optimal = false;
  /// Proven lower bound on the time of any design within the limits.
  int64_t lowerBound = 0;
  std::vector<Improvement> improvements;
  bool greedyFound = false;
  int64_t greedyTime = 0, greedyDsps = 0;
  double seconds = 0, secondsToBest = 0;
  size_t queries = 0;
  size_t encodedBools = 0, encodedInts = 0;
  size_t cycleCuts = 0;  // cycles forbidden lazily
};

ExtractResult extractDesign(const Problem& p, const ExtractOptions& opts);

}  // namespace skeleshare::extract
