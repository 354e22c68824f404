#pragma once
// Diagnostics in the `file:line:col: error: message` form, with the source line and a
// caret. Every stage that reads user text (DSL, IR text, rule files) reports through this.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "skeleshare/support/source.h"

namespace skeleshare {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;
  SourceLoc loc;
  std::string message;
  std::string sourceLine;  // the text of the offending line, for the caret display
};

/// Thrown by the engine once the error limit is reached, so that a parser stuck on
/// garbage stops instead of printing thousands of errors.
struct TooManyErrors {};

class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(size_t errorLimit = 20) : errorLimit_(errorLimit) {}

  void error(const SourceFile& file, SourceLoc loc, std::string message);
  void warning(const SourceFile& file, SourceLoc loc, std::string message);
  void note(const SourceFile& file, SourceLoc loc, std::string message);
  /// An error that has no source position (e.g. a file that cannot be opened).
  void error(std::string file, std::string message);

  bool hasErrors() const { return errorCount_ > 0; }
  size_t errorCount() const { return errorCount_; }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

  /// Prints every diagnostic: `file:line:col: error: msg`, the line, and a caret.
  void print(std::ostream& os) const;
  static void print(std::ostream& os, const Diagnostic& d);

 private:
  void add(Severity sev, const SourceFile& file, SourceLoc loc, std::string message);

  size_t errorLimit_;
  size_t errorCount_ = 0;
  std::vector<Diagnostic> diags_;
};

}  // namespace skeleshare
