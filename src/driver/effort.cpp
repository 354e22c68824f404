#include "skeleshare/driver/effort.h"

#include <fmt/format.h>

#include <algorithm>

namespace skeleshare::driver {

namespace {
const char* phaseName(EffortLedger::Phase p) {
  switch (p) {
    case EffortLedger::Saturation: return "saturation";
    case EffortLedger::Problem: return "problem";
    case EffortLedger::Extraction: return "extraction";
    case EffortLedger::kPhases: break;
  }
  return "?";
}
}  // namespace

uint64_t EffortLedger::spent() const {
  uint64_t s = 0;
  for (uint64_t u : spent_) s += u;
  return s;
}

uint64_t EffortLedger::forExtraction() const {
  if (!limited()) return 0;
  return std::max<uint64_t>(std::max<uint64_t>(1, budget_ / 3), budget_ > spent() ? budget_ - spent() : 0);
}

std::string EffortLedger::share(Phase p) const {
  if (!limited()) return fmt::format("effort {}", spent_[p]);
  return fmt::format("effort {} ({:.1f}% of {})", spent_[p], 100.0 * static_cast<double>(spent_[p]) / static_cast<double>(budget_),
                     budget_);
}

std::string EffortLedger::summary() const {
  std::string s;
  for (int p = 0; p < kPhases; ++p) s += fmt::format("{}{} {}", p ? ", " : "", phaseName(Phase(p)), spent_[p]);
  if (!limited()) return s + fmt::format("; {} in all (no limit)", spent());
  return s + fmt::format("; {} of {} ({:.1f}%)", spent(), budget_, 100.0 * static_cast<double>(spent()) / static_cast<double>(budget_));
}

nlohmann::json EffortLedger::json() const {
  nlohmann::json j;
  j["budget"] = budget_;
  for (int p = 0; p < kPhases; ++p) j[phaseName(Phase(p))] = spent_[p];
  return j;
}

}  // namespace skeleshare::driver
