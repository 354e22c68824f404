#pragma once
// Small helpers of the VHDL writers: generic values and template files.

#include <cstdint>
#include <string>
#include <vector>

#include "skeleshare/lower/mir.h"
#include "skeleshare/vhdl/memory_map.h"

namespace skeleshare::vhdl::detail {

/// An integer_vector aggregate: "(0 => 5)" for one value, "(1, 2, 3)" otherwise; at least
/// one value (callers pad empty lists). Throws EmitError past the 32-bit integer range.
std::string intVector(const std::vector<int64_t>& values);
/// A 32-bit VHDL integer literal, checked.
std::string intLiteral(int64_t v);

/// The contents of templateDir/name; throws std::runtime_error when it cannot be read.
std::string readTemplate(const std::string& templateDir, const std::string& name);

/// The templates every design uses, in compile order (ss_pkg first).
const std::vector<std::string>& designTemplates();

/// One generated unit entity.
struct EmittedUnit {
  std::string entity;
  std::string text;
  std::vector<bool> portIsWrite;  // per line port, in port order
  int64_t dspLanes = 0;
};

EmittedUnit emitUnit(const lower::Program& prog, const MemoryMap& map, size_t unitIndex, const std::string& design);

}  // namespace skeleshare::vhdl::detail
