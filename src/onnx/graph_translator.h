#pragma once
// Private to the importer: translating a quantised ONNX graph, node by node, into DSL
// statements (docs/onnx.md "The translation").

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "onnx_model.h"
#include "skeleshare/onnx/import.h"

namespace skeleshare::onnximport::detail {

/// An activation: a named DSL value. Its real value (ONNX's float) is the integer times
/// 2^exp, exactly, because every scale is a power of two.
struct Act {
  std::string name;                // DSL identifier: an input or a let
  std::vector<int64_t> dims;       // ONNX shape with the batch: [1, C, H, W] or [1, N]
  int bits = 8;                    // DSL element width
  int exp = 0;
  bool scaled = false;             // false: an integer graph input no scale has named yet
  bool pendingRelu = false;        // a Relu not written yet (the next requantisation writes it)
  std::vector<int64_t> flatOrder;  // after Flatten of an image: DSL element i is ONNX element
                                   // flatOrder[i]; empty: the same order
  bool isImage() const { return dims.size() == 4; }
};

/// A constant (an initializer or a Constant node's value), with the scale of the
/// DequantizeLinear that read it, if one did.
struct Const {
  ConstTensor t;
  int exp = 0;
  bool scaled = false;
};

/// A float graph input that only a QuantizeLinear may read.
struct FloatInput {
  std::string name;
  std::vector<int64_t> dims;
};

using Value = std::variant<Act, Const, FloatInput>;

class GraphTranslator {
 public:
  GraphTranslator(const onnx::GraphProto& g, const ImportOptions& options);

  /// Translates every node and the graph outputs; throws ImportError.
  Imported run();

 private:
  // one handler per supported operator
  void quantize(const onnx::NodeProto& n);
  void dequantize(const onnx::NodeProto& n);
  void conv(const onnx::NodeProto& n);
  void qlinearConv(const onnx::NodeProto& n);
  void matmul(const onnx::NodeProto& n);  // MatMul and Gemm
  void qlinearMatmul(const onnx::NodeProto& n);
  void relu(const onnx::NodeProto& n);
  void maxpool(const onnx::NodeProto& n);
  void pad(const onnx::NodeProto& n);
  void flatten(const onnx::NodeProto& n);  // Flatten and Reshape
  void add(const onnx::NodeProto& n);

  struct QLinearOperands {
    Act x;
    Const w;
    int yexp, ybits;
  };
  QLinearOperands qlinearOperands(const onnx::NodeProto& n);
  /// The DSL convolution of a Conv or QLinearConv node and its ONNX output shape.
  std::pair<std::string, std::vector<int64_t>> convolution(const onnx::NodeProto& n, const Act& x, const Const& w);

  // values
  const Value& value(const onnx::NodeProto& n, int input) const;
  bool hasInput(const onnx::NodeProto& n, int input) const;
  /// Input `input` as an activation with a known scale, its pending Relu written.
  Act act(const onnx::NodeProto& n, int input);
  const Const& constant(const onnx::NodeProto& n, int input, const char* what) const;
  /// A constant weight read through a DequantizeLinear (QDQ form).
  const Const& scaledWeight(const onnx::NodeProto& n, int input, const char* what) const;
  void define(const onnx::NodeProto& n, Value v);

  // scales and zero points
  int scaleExponent(const onnx::NodeProto& n, int input);
  /// Checks that the zero point (if present) is all zeros; returns the width it gives
  /// QuantizeLinear's output (8 or 32; no zero point means uint8, an error).
  int zeroPointBits(const onnx::NodeProto& n, int input, bool forOutput) const;

  // DSL text
  std::string freshName(const std::string& wanted);
  std::string emitLet(const onnx::NodeProto& n, const std::string& expr, const std::string& note);
  /// The DSL weight for a constant in the given layout (written once per layout).
  std::string weight(const onnx::NodeProto& n, const Const& c, const Tensor& values, const std::string& role);
  /// x requantised from 2^from to the i8 scale 2^to, with a pending Relu.
  std::string requantExpr(const Act& x, int to, const onnx::NodeProto& n) const;
  Act writeAccumulator(const onnx::NodeProto& n, const std::string& expr, std::vector<int64_t> dims, int exp,
                       const Const* bias, const std::string& what);
  Act requantiseTo(const onnx::NodeProto& n, Act acc, int exp, int bits);

  const onnx::GraphProto& graph_;
  ImportOptions options_;
  std::map<std::string, Value> values_;
  std::set<std::string> usedNames_;
  std::map<std::string, std::string> weightNames_;  // tensor name + role -> DSL name
  std::map<std::string, std::string> outputNames_;  // graph output -> DSL output name
  std::vector<std::string> decls_, lets_;
  Imported out_;
};

}  // namespace skeleshare::onnximport::detail
