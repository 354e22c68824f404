#pragma once
// One effort budget for a whole compile (`--effort`; docs/extraction.md, "Effort"): the
// phases that can grow with the program charge it in one unit, so that a compile's work is
// bounded by one deterministic number and the progress lines say where it went.
//
// The unit is the extractor's (a Z3 resource unit; a greedy step is 1/16 of one). The other
// phases are charged at rates measured on this project's benchmarks (a 2-core x86 machine):
// an e-node of saturation takes about 77 us (TinyYolo v2: 4,701 e-nodes in 0.36 s), Z3
// spends 0.5 to 1.1 units a microsecond, so an e-node is charged 64 units; one address-
// generator run walked by the cycle model takes about 1 us (TinyYolo v2: 13.7 M runs in
// 13.3 s) and is charged 1.

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace skeleshare::driver {

inline constexpr uint64_t kEffortPerENode = 64;
inline constexpr uint64_t kEffortPerWalkedRun = 1;

class EffortLedger {
 public:
  enum Phase { Saturation, Problem, Extraction, kPhases };
  /// `budget` 0 = unlimited.
  explicit EffortLedger(uint64_t budget) : budget_(budget) {}
  bool limited() const { return budget_ > 0; }
  void charge(Phase p, uint64_t units) { spent_[p] += units; }
  uint64_t spent() const;
  /// What the extractor may spend: 0 when unlimited, otherwise what is left but at least a
  /// third of the budget, so that a program whose problem was expensive to build still gets
  /// a search (its greedy share and solver queries), not only a "no design found". A
  /// compile's work is thus at most 4/3 of the budget.
  uint64_t forExtraction() const;
  /// "effort 1234 (0.0% of 30000000)" for one phase.
  std::string share(Phase p) const;
  /// Every phase's effort and share, and the total.
  std::string summary() const;
  /// {"budget", "saturation", "problem", "extraction"} for report.json.
  nlohmann::json json() const;

 private:
  uint64_t budget_;
  std::array<uint64_t, kPhases> spent_{};
};

}  // namespace skeleshare::driver
