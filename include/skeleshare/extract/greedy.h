#pragma once
// The greedy baseline extractor: tree costs, one node per class, no solver. It is the
// solver's warm start and the comparison point in report.json (docs/extraction.md,
// "Greedy baseline").
//
// For each weight lambda in a fixed list and each candidate convolution unit K (a shareable
// class from which hardware convolutions are reachable; "none" too), a Bellman-Ford style
// fixpoint picks in every class the node of least T + lambda * D, where a shareable child
// is assumed shared (its use costs T + COMMUNICATION_COST cycles and no DSPs) and
// convolution units are allowed only under K. Each candidate is evaluated exactly
// (selection.h); the fastest one within the limits wins (ties: fewer DSPs, then the first).

#include <cstdint>

#include "skeleshare/extract/selection.h"

namespace skeleshare::extract {

/// Limits on the greedy search, checked before each candidate (the first always runs).
struct GreedyLimits {
  uint64_t maxSteps = 0;   // steps (one node costed in one sweep); 0 = none (deterministic)
  double maxSeconds = 0;   // wall clock; 0 = none
};

struct GreedyResult {
  bool found = false;
  Selection selection;
  Evaluation evaluation;
  size_t candidates = 0;  // (lambda, K) pairs tried
  size_t totalCandidates = 0;  // pairs there were to try
  uint64_t steps = 0;
  bool stepsExhausted = false, timedOut = false;  // why candidates were left untried
  double seconds = 0;
};

GreedyResult greedyExtract(const Problem& p, int64_t dspBudget, int64_t maxConvUnits,
                           const GreedyLimits& limits = {});

/// A lower bound on the time of every design with at most `maxConvUnits` convolution units
/// (any DSP budget): the least tree time, and with a limit of 0 or 1 unit the least over the
/// ways of placing that unit (docs/extraction.md, "Lower bounds").
int64_t timeLowerBound(const Problem& p, int64_t maxConvUnits);

}  // namespace skeleshare::extract
