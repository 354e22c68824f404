#include "skeleshare/support/source.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace skeleshare {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

std::optional<SourceFile> SourceFile::read(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  return SourceFile(path, buf.str());
}

SourceLoc SourceFile::locate(size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  size_t line = static_cast<size_t>(it - lineStarts_.begin());  // 1-based
  size_t col = offset - lineStarts_[line - 1] + 1;
  return SourceLoc{static_cast<uint32_t>(line), static_cast<uint32_t>(col)};
}

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  size_t begin = lineStarts_[line - 1];
  size_t end = line < lineStarts_.size() ? lineStarts_[line] - 1 : text_.size();
  std::string_view s(text_.data() + begin, end - begin);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

}  // namespace skeleshare
