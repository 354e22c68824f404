#include "program_inputs.h"

#include <filesystem>
#include <stdexcept>

#include "skeleshare/ir/interpreter.h"
#include "skeleshare/support/npy.h"

namespace skeleshare::tools {

namespace fs = std::filesystem;

void addInputFileOptions(CLI::App* app, InputFiles& files) {
  app->add_option("--input", files.inputs, "NAME=PATH.npy: use this tensor instead of a generated one (repeatable)");
  app->add_option("--weights", files.weightsDir,
                  "DIR: use DIR/NAME.npy for every input or weight NAME it holds (e.g. the weights/ of `skeleshare import`)");
}

namespace {

Tensor readDeclared(const LoadedProgram& prog, const std::string& name, const std::string& path, const std::string& what) {
  const ir::Decl* decl = prog.module.findDecl(name);
  if (!decl) throw std::runtime_error(what + ": the program declares no input or weight '" + name + "'");
  Tensor t;
  try {
    t = readNpy(path, decl->type->scalar()->bits());
  } catch (const NpyError& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
  ir::checkTensorType(t, decl->type, what);
  return t;
}

}  // namespace

std::map<std::string, Tensor> programInputs(const LoadedProgram& prog, uint64_t seed, const InputFiles& files) {
  std::map<std::string, Tensor> inputs = ir::randomInputs(prog.module, seed);
  if (!files.weightsDir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(files.weightsDir, ec))
      throw std::runtime_error("--weights " + files.weightsDir + ": not a directory");
    std::vector<fs::path> npys;
    for (const auto& entry : fs::directory_iterator(files.weightsDir))
      if (entry.path().extension() == ".npy") npys.push_back(entry.path());
    std::sort(npys.begin(), npys.end());
    for (const auto& p : npys) {
      std::string name = p.stem().string();
      inputs[name] = readDeclared(prog, name, p.string(), "--weights " + p.string());
    }
  }
  for (const std::string& spec : files.inputs) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw std::runtime_error("--input expects NAME=PATH.npy, got '" + spec + "'");
    std::string name = spec.substr(0, eq);
    inputs[name] = readDeclared(prog, name, spec.substr(eq + 1), "--input " + name);
  }
  return inputs;
}

}  // namespace skeleshare::tools
