#pragma once
// Private to the importer: reading what a translation needs out of ONNX's protobuf
// classes (tensors, attributes, shapes), with errors that name the node.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "skeleshare/onnx/import.h"

namespace skeleshare::onnximport::detail {

/// A constant tensor of the model (an initializer or a Constant node's value).
struct ConstTensor {
  std::string name;
  int32_t dtype = 0;                 // onnx::TensorProto_DataType
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;         // integer types
  std::vector<double> reals;         // FLOAT / DOUBLE
  bool isInteger() const { return reals.empty() && dtype != onnx::TensorProto_DataType_FLOAT &&
                                  dtype != onnx::TensorProto_DataType_DOUBLE; }
  size_t size() const { return isInteger() ? ints.size() : reals.size(); }
};

/// "INT8", "FLOAT", ... for messages.
std::string dtypeName(int32_t dtype);

/// Decodes a TensorProto (typed fields or raw_data, little endian). Throws ImportError
/// for external data and element types the importer does not read.
ConstTensor decodeTensor(const onnx::TensorProto& t, const std::string& where);

/// "node 'conv1' (Conv)": how messages name a node.
std::string describe(const onnx::NodeProto& n);

/// A node's attributes by name, with defaults; a wrong type is an ImportError.
class Attributes {
 public:
  explicit Attributes(const onnx::NodeProto& n);
  int64_t integer(const std::string& name, int64_t fallback) const;
  std::vector<int64_t> integers(const std::string& name, std::vector<int64_t> fallback) const;
  std::string text(const std::string& name, std::string fallback) const;
  /// Throws unless every attribute of the node is in `known`.
  void only(std::initializer_list<const char*> known) const;

 private:
  const onnx::NodeProto& node_;
  std::map<std::string, const onnx::AttributeProto*> byName_;
};

/// The static dimensions of a graph input; dynamic or unknown ones are an ImportError.
std::vector<int64_t> staticShape(const onnx::ValueInfoProto& v);

}  // namespace skeleshare::onnximport::detail
