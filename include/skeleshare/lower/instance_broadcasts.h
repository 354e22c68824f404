#pragma once
// A call's Broadcast moves into its shared instance (a pass after the lowering's templates).
//
// A dot's operand that every row uses (a convolution's window, a matrix-vector product's
// vector) is one vector Broadcast to the rows' lanes: 512 bits of window become 16,384
// for 32 rows of 64 lanes. At the call site that Broadcast made the instance's port, and
// the top's multiplexer over the calls, as wide as the multipliers: for full VGG-CIFAR's
// 13 calls a 16,384-bit, 13-way multiplexer, and in simulation three copies of the wide
// vector for every one it carried. Inside the instance the port carries the narrow vector
// and the wiring is built once. Nothing else changes: a Broadcast is wires (no cycles, no
// resources), so the cycle model and the resources are the same.
//
// A Broadcast moves when every node that consumes it is in the datapath, and only when it
// moves in every call of the instance (the calls must keep one datapath:
// checkInstanceCalls).

#include <cstddef>

#include "skeleshare/lower/mir.h"

namespace skeleshare::lower {

/// Moves the Broadcasts as above. Returns the number of calls whose datapath grew.
size_t absorbBroadcasts(Program& prog);

}  // namespace skeleshare::lower
