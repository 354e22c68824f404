#pragma once
// The interpreter of the mid-level IR: runs a program's units in schedule order on
// integer tensors. It is checked against the skeleton interpreter (ir::evaluateModule).

#include <map>
#include <string>

#include "skeleshare/lower/mir.h"
#include "skeleshare/support/tensor.h"

namespace skeleshare::lower {

/// The value of one node given its operands' values (Read and Write excluded): exposed so
/// that primitives can be tested one by one.
Tensor evalNode(const Node& node, const std::vector<const Tensor*>& operands);

/// Reads `src` (whose shape is gen.space) through `gen`: a tensor of the counters' extents.
Tensor readThrough(const AddrGen& gen, const Tensor& src);
/// Writes `x` (the counters' extents) into `dst` through `gen`; masked elements are skipped.
void writeThrough(const AddrGen& gen, const Tensor& x, Tensor& dst);

/// Runs every unit in order. `inputs` gives every Input and Weight buffer by name (checked
/// against the buffer's width and shape); returns the Output buffers by name. Throws
/// std::runtime_error on a missing or mistyped input.
std::map<std::string, Tensor> run(const Program& prog, const std::map<std::string, Tensor>& inputs);

}  // namespace skeleshare::lower
