#include "output_files.h"

#include <stdexcept>
#include <system_error>

namespace skeleshare::tools {

namespace fs = std::filesystem;

StagedOutputs::~StagedOutputs() {
  std::error_code ec;
  for (auto& [tmp, final] : staged_) fs::remove(tmp, ec);
}

void StagedOutputs::stage(const std::string& name, const std::function<void(const fs::path&)>& write) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("cannot create directory '" + dir_.string() + "': " + ec.message());
  fs::path final = dir_ / name;
  fs::path tmp = dir_ / ("." + name + ".partial");
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
}

}  // namespace skeleshare::tools
