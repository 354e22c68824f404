#pragma once
// Identifiers of the e-graph: every e-node added gets a fresh NodeId, which is also the id
// of the e-class it creates. Union-find works over these ids; the canonical id of a class
// is the root of its set.

#include <cstdint>
#include <limits>

namespace skeleshare::egraph {

using ClassId = uint32_t;
using NodeId = uint32_t;

inline constexpr ClassId kNoClass = std::numeric_limits<ClassId>::max();

}  // namespace skeleshare::egraph
