#pragma once
// The verifier of the mid-level IR: every node's type re-derived by its type rule (which
// also checks every address generator: sizes, and coordinates that may leave their
// buffer unguarded by a mask), buffers well formed, every unit writes something, and no
// unit reads an intermediate buffer before an earlier unit of the schedule wrote it; every
// shared instance has calls, and they agree on one datapath (checkInstanceCalls).

#include <string>
#include <vector>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

/// Problems, each "unit 'name' %i: message"; empty when the program is well formed.
std::vector<std::string> verify(const Program& prog);

}  // namespace skeleshare::lower
