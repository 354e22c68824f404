#include "skeleshare/onnx/import.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "graph_translator.h"
#include "skeleshare/frontend/frontend.h"

namespace skeleshare::onnximport {

namespace {

onnx::ModelProto readModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError("cannot open the file");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) throw ImportError("not an ONNX model (the protobuf does not parse)");
  if (!model.has_graph() || model.graph().node_size() == 0) throw ImportError("the model's graph has no nodes");
  for (const auto& opset : model.opset_import())
    if ((opset.domain().empty() || opset.domain() == "ai.onnx") && opset.version() < 10)
      throw ImportError(fmt::format("opset {}: QuantizeLinear needs opset 10 or later", opset.version()));
  return model;
}

/// The translation must give a program the frontend accepts, with weights of the declared
/// shapes; anything else is a bug of the importer, reported as such.
void checkProgram(const Imported& r, const std::string& path) {
  SourceFile file(path + " (imported)", r.program);
  DiagnosticEngine diags;
  auto prog = frontend::parseAndCheck(file, diags);
  if (!prog) {
    std::ostringstream os;
    diags.print(os);
    throw std::logic_error("the importer wrote a program the frontend rejects:\n" + os.str());
  }
  for (const auto& d : frontend::declarations(*prog)) {
    if (d.kind != frontend::DeclInfo::Kind::Weight) continue;
    auto it = r.weights.find(d.name);
    if (it == r.weights.end() || it->second.shape() != d.shape || it->second.bits() != d.bits)
      throw std::logic_error("the importer declared weight '" + d.name + "' unlike its values");
  }
}

}  // namespace

Imported importModel(const std::string& path, const ImportOptions& options) {
  onnx::ModelProto model = readModel(path);
  Imported r = detail::GraphTranslator(model.graph(), options).run();
  checkProgram(r, path);
  return r;
}

}  // namespace skeleshare::onnximport
