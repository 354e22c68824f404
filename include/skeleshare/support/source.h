#pragma once
// A source file held in memory, with line lookup for diagnostics.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skeleshare {

/// A 1-based line/column position in a source file. Columns count bytes.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
  bool valid() const { return line != 0; }
};

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  /// Reads a file; returns nullopt and sets `error` when it cannot be read.
  static std::optional<SourceFile> read(const std::string& path, std::string& error);

  const std::string& path() const { return path_; }
  std::string_view text() const { return text_; }

  /// The location of byte `offset` (clamped to the end of the text).
  SourceLoc locate(size_t offset) const;
  /// The text of 1-based line `line`, without its newline; empty when out of range.
  std::string_view lineText(uint32_t line) const;

 private:
  std::string path_;
  std::string text_;
  std::vector<size_t> lineStarts_;
};

}  // namespace skeleshare
