#pragma once
// Text form of a mid-level program: buffers, then units in schedule order, one node a
// line: `%3 : stm[16][3] vec[2][64] i32 = Mul[1](%1, %2)`. Shared instances are listed
// (`instance let1 : ...;`) before the units; a call of one prints as `call NAME of let1 {`
// with its datapath nodes marked `*` instead of indented. Deterministic.

#include <string>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

std::string printProgram(const Program& prog);
std::string printNode(const Program& prog, const Node& node, size_t index);

}  // namespace skeleshare::lower
