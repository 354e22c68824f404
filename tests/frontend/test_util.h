#pragma once
// Helpers shared by the frontend tests: run the frontend on a string.

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

#include "skeleshare/frontend/frontend.h"

namespace skeleshare::frontend::test {

struct Checked {
  SourceFile file;
  DiagnosticEngine diags;
  std::optional<Program> prog;

  explicit Checked(std::string text, std::string path = "t.dsl")
      : file(std::move(path), std::move(text)), diags(20) {
    prog = parseAndCheck(file, diags);
  }
  /// All diagnostics as printed (file:line:col: severity: message + caret lines).
  std::string printed() const {
    std::ostringstream os;
    diags.print(os);
    return os.str();
  }
  /// "line:col: error: message" of the first error, or "" when there is none.
  std::string firstError() const {
    for (const Diagnostic& d : diags.diagnostics())
      if (d.severity == Severity::Error)
        return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": error: " + d.message;
    return "";
  }
};

/// Tensor from values (values are taken as already in range).
inline Tensor tensor(int bits, std::vector<int64_t> shape, std::vector<int32_t> values) {
  Tensor t(bits, std::move(shape));
  EXPECT_EQ(t.size(), values.size()) << "test bug: wrong number of values";
  t.values() = std::move(values);
  return t;
}

}  // namespace skeleshare::frontend::test
