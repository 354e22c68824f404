#pragma once
// The tensors a command evaluates or simulates a program on: generated from a seed, then
// replaced by the files the user names (--input NAME=PATH.npy, --weights DIR). One copy
// for run and sim.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "program_loader.h"
#include "skeleshare/support/tensor.h"

namespace skeleshare::tools {

struct InputFiles {
  std::vector<std::string> inputs;  // NAME=PATH.npy
  std::string weightsDir;           // every DIR/NAME.npy for a declared NAME
};

/// Registers --input and --weights on a command.
void addInputFileOptions(CLI::App* app, InputFiles& files);

/// The program's inputs and weights. Throws std::runtime_error for a file that does not
/// match its declaration, names nothing the program declares, or cannot be read.
std::map<std::string, Tensor> programInputs(const LoadedProgram& prog, uint64_t seed, const InputFiles& files);

}  // namespace skeleshare::tools
