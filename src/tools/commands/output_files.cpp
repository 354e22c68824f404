#include "output_files.h"

#include <stdexcept>
#include <system_error>

namespace skeleshare::tools {

namespace fs = std::filesystem;

StagedOutputs::~StagedOutputs() {
  std::error_code ec;
  for (auto& [tmp, final] : staged_) fs::remove(tmp, ec);
  // Directories this object made for files it never committed: removed when empty, so
  // that a failed command leaves nothing behind (fs::remove fails on a non-empty one).
  for (auto it = createdDirs_.rbegin(); it != createdDirs_.rend(); ++it) fs::remove(*it, ec);
}

void StagedOutputs::stage(const std::string& name, const std::function<void(const fs::path&)>& write) {
  fs::path final = dir_ / name;  // `name` may hold subdirectories ("weights/w1.npy")
  std::vector<fs::path> missing;
  for (fs::path d = final.parent_path(); !d.empty() && !fs::exists(d); d = d.parent_path()) missing.push_back(d);
  std::error_code ec;
  fs::create_directories(final.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot create directory '" + final.parent_path().string() + "': " + ec.message());
  createdDirs_.insert(createdDirs_.end(), missing.rbegin(), missing.rend());
  fs::path tmp = final.parent_path() / ("." + final.filename().string() + ".partial");
  staged_.emplace_back(tmp, final);
  write(tmp);
}

void StagedOutputs::commit() {
  for (auto& [tmp, final] : staged_) {
    std::error_code ec;
    fs::rename(tmp, final, ec);
    if (ec) throw std::runtime_error("cannot write '" + final.string() + "': " + ec.message());
  }
  staged_.clear();
  createdDirs_.clear();
}

}  // namespace skeleshare::tools
