#pragma once
// Per-layer summary of a checked program and its multiply-accumulate count.

#include <cstdint>
#include <string>
#include <vector>

#include "skeleshare/frontend/ast.h"

namespace skeleshare::frontend {

struct LayerInfo {
  std::string op;       // the DSL operator, e.g. "conv"
  std::string binding;  // the let or output whose expression holds the operator
  SourceLoc loc;        // of the operator
  bool dsp = false;     // conv, mv, mm, conv1d_w, conv1d_h
  std::vector<ValueType> inputs;  // types of the value arguments
  ValueType output;
  /// How often the operator runs: 1, or the product of the lengths of the enclosing
  /// map/zip/reduce iterations when it sits in a lambda body.
  uint64_t calls = 1;
  uint64_t macs = 0;  // for all calls together
  /// Bytes of the weights named as its value arguments: memory it reads at least once.
  uint64_t weightBytes = 0;
};

/// MACs of one call of a DSP operator with the given argument types (0 otherwise):
/// conv OH*OW*OCH*KS*KS*ICH, mv M*N, mm H*W*K, conv1d_w H*(W-K+1)*K, conv1d_h (H-K+1)*W*K.
uint64_t macsOf(Builtin b, const std::vector<ValueType>& args);

/// Every operator of the live part of the program (what the outputs depend on), in
/// evaluation order: statements in source order, arguments before their operator. A
/// let is listed once however often it is used (it is computed once).
std::vector<LayerInfo> summarize(const Program& prog);

/// Sum of the MACs of all layers (saturating at UINT64_MAX).
uint64_t totalMacs(const std::vector<LayerInfo>& layers);

}  // namespace skeleshare::frontend
