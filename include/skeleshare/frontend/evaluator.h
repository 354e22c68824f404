#pragma once
// The DSL-level reference evaluator: runs a checked program directly on tensors with
// naive loops, independently of the skeleton IR, as the oracle the IR interpreter and
// the generated hardware are compared against. Numeric semantics: docs/ir.md.

#include <map>
#include <string>

#include "skeleshare/frontend/ast.h"
#include "skeleshare/support/tensor.h"

namespace skeleshare::frontend {

/// Evaluates every output of `prog` (a program accepted by parseAndCheck). `inputs`
/// must hold exactly the program's inputs and weights, each with its declared element
/// width and shape and with values in range for that width; otherwise throws
/// std::runtime_error naming the offending input. Returns output name -> value.
std::map<std::string, Tensor> evaluate(const Program& prog, const std::map<std::string, Tensor>& inputs);

}  // namespace skeleshare::frontend
