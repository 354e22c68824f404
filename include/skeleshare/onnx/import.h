#pragma once
// Importing an integer-quantised ONNX model as a DSL program and its weights
// (docs/onnx.md). The model is read with ONNX's own protobuf classes (libonnx-dev); the
// translation maps each supported node to one DSL statement, converts NCHW to the DSL's
// HWC layout, and turns power-of-two scales into requant_even shifts.

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "skeleshare/support/tensor.h"

namespace skeleshare::onnximport {

/// A model that cannot be imported: the message names the node (or tensor), its operator
/// and why, e.g. "node 'softmax1' (Softmax): operator not supported"; the caller adds the
/// file's name.
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ImportOptions {
  /// Accept scales that are not powers of two by rounding each to the nearest one (in
  /// log2); every rounding is listed in Imported::roundings.
  bool roundScales = false;
};

struct Imported {
  std::string program;                     // the DSL text, ready to write as model.dsl
  std::map<std::string, Tensor> weights;   // weight name -> values, in the DSL's layout
  std::vector<std::string> roundings;      // one line per scale --round-scales changed
};

/// Reads and translates `path`. Throws ImportError for an unsupported or malformed model.
Imported importModel(const std::string& path, const ImportOptions& options = {});

}  // namespace skeleshare::onnximport
