#pragma once
// Writing results without leaving half-written files behind: every file is written to
// a temporary name and renamed into place only when all of a command's outputs are
// complete.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace skeleshare::tools {

class StagedOutputs {
 public:
  explicit StagedOutputs(std::filesystem::path dir) : dir_(std::move(dir)) {}
  ~StagedOutputs();  // removes whatever was staged but not committed

  /// Writes `name` (which may hold subdirectories) inside the output directory, to a
  /// temporary file for now.
  /// `write` receives the temporary path. Throws std::runtime_error on failure.
  void stage(const std::string& name, const std::function<void(const std::filesystem::path&)>& write);
  /// Renames every staged file into place.
  void commit();

 private:
  std::filesystem::path dir_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;  // tmp, final
  std::vector<std::filesystem::path> createdDirs_;  // outermost first
};

}  // namespace skeleshare::tools
