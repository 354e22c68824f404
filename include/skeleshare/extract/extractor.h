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
// reported as an improvement. The search stops when the bounds meet (optimal), when the
// effort (a deterministic work budget: greedy steps plus Z3 resource units) is spent, or at
// the optional wall-clock timeout. Z3's seeds are fixed and every limit but the timeout is a
// count, so without a timeout (or when the effort runs out first) the result is a pure
// function of the problem and the options.

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

/// What ended the search: nothing (bounds met, or infeasibility proven), the effort budget,
/// the wall-clock timeout, the query cap, or Z3 giving up on a query with budget left.
enum class Limit { None, Effort, Timeout, QueryCap, Solver };
const char* limitName(Limit s);  // "none", "effort", "timeout", "query_cap", "solver"

/// Default effort of a whole compile (driver/effort.h): at most about a minute on one core of
/// this project's 2-core x86 machine, where Z3 spends 0.5 to 1.1 million resource units a
/// second on the benchmarks' encodings (VGG-CIFAR's slowest, TinyYolo v2's fastest).
inline constexpr uint64_t kDefaultEffort = 30'000'000;
/// Greedy steps per effort unit: a step is about 16 times cheaper than a Z3 resource unit.
inline constexpr uint64_t kGreedyStepsPerEffort = 16;
/// The query that asks for anything better than the best design (the one that closes a
/// part) may spend this many times ExtractOptions::queryRlimit.
inline constexpr uint64_t kFinalQueryFactor = 2;

struct ExtractOptions {
  int64_t dspBudget = 0;
  int64_t maxConvUnits = 1;
  /// Deterministic work budget for the whole extraction; 0 = unlimited. The greedy warm start
  /// may spend up to a tenth of it in steps (one node costed in one sweep;
  /// kGreedyStepsPerEffort steps = one unit), the solver the rest in Z3 resource units (rlimit count, each query's rlimit is capped by
  /// what is left). With the same problem and options the result depends on nothing else.
  uint64_t effort = kDefaultEffort;
  /// Outer wall-clock safety limit in seconds; 0 (or infinity) = none. When it cuts the
  /// search the result depends on the machine's speed and load.
  double timeoutSeconds = 0;
  /// Solver queries at most (each lazy-acyclicity repeat counts); 0 = no cap.
  size_t maxQueries = 0;
  /// Seed the search with the greedy extractor's design.
  bool greedyWarmStart = true;
  /// Z3 resource units per bisection query before it counts as inconclusive (deterministic);
  /// 0 = only the effort left. Five million is 5 to 10 s: a query that needs more is almost
  /// always a proof that the last fraction of a percent of the gap holds no design (VGG-CIFAR
  /// at 1/4 of the DSPs spent 78 s on 147 cycles of 709,431 before it gave up).
  uint64_t queryRlimit = 5'000'000;
  /// Acyclicity by forbidding the cycles that appear in models (true) or by integer labels
  /// on the classes of every cycle of the e-graph (false).
  bool lazyAcyclicity = true;
  /// Called with one line of progress (no newline) at every event; null = quiet.
  std::function<void(const std::string&)> progress;
};

struct Improvement {
  double seconds = 0;  // since the extraction started
  uint64_t effort = 0;  // effort spent when it was found (deterministic)
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
  /// Which limit stopped the search (None when it completed).
  Limit stoppedBy = Limit::None;
  /// Effort spent: greedy steps / kGreedyStepsPerEffort + Z3 resource units (deterministic).
  uint64_t effortSpent = 0, greedySteps = 0;
  size_t queries = 0;
  size_t encodedBools = 0, encodedInts = 0;
  size_t cycleCuts = 0;  // cycles forbidden lazily
  size_t parts = 0;  // parts of the search (placements of the convolution unit) within the limits
};

ExtractResult extractDesign(const Problem& p, const ExtractOptions& opts);

/// How far a design of `time` cycles may be from the optimum, in percent of its time:
/// (time - lowerBound) / time (0 for a design at or below the bound, or of no time).
double gapPercent(int64_t time, int64_t lowerBound);

}  // namespace skeleshare::extract
