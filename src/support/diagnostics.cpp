#include "skeleshare/support/diagnostics.h"

namespace skeleshare {

namespace {
const char* severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}
}  // namespace

void DiagnosticEngine::add(Severity sev, const SourceFile& file, SourceLoc loc,
                           std::string message) {
  Diagnostic d;
  d.severity = sev;
  d.file = file.path();
  d.loc = loc;
  d.message = std::move(message);
  d.sourceLine = std::string(file.lineText(loc.line));
  diags_.push_back(std::move(d));
  if (sev == Severity::Error && ++errorCount_ >= errorLimit_) throw TooManyErrors{};
}

void DiagnosticEngine::error(const SourceFile& file, SourceLoc loc, std::string message) {
  add(Severity::Error, file, loc, std::move(message));
}
void DiagnosticEngine::warning(const SourceFile& file, SourceLoc loc, std::string message) {
  add(Severity::Warning, file, loc, std::move(message));
}
void DiagnosticEngine::note(const SourceFile& file, SourceLoc loc, std::string message) {
  add(Severity::Note, file, loc, std::move(message));
}
void DiagnosticEngine::error(std::string file, std::string message) {
  Diagnostic d;
  d.file = std::move(file);
  d.message = std::move(message);
  diags_.push_back(std::move(d));
  ++errorCount_;
}

void DiagnosticEngine::print(std::ostream& os, const Diagnostic& d) {
  os << d.file;
  if (d.loc.valid()) os << ':' << d.loc.line << ':' << d.loc.col;
  os << ": " << severityName(d.severity) << ": " << d.message << '\n';
  if (!d.loc.valid()) return;
  // Non-printable bytes (binary input) are shown as '?' so the terminal stays sane;
  // tabs are kept so the caret lines up.
  std::string line;
  line.reserve(d.sourceLine.size());
  for (unsigned char c : d.sourceLine) line.push_back((c == '\t' || (c >= 32 && c < 127)) ? char(c) : '?');
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  os << "  " << line << '\n' << "  ";
  for (uint32_t i = 1; i < d.loc.col && i <= line.size(); ++i) os << (line[i - 1] == '\t' ? '\t' : ' ');
  os << "^\n";
}

void DiagnosticEngine::print(std::ostream& os) const {
  for (const auto& d : diags_) print(os, d);
  if (errorCount_ >= errorLimit_) os << "too many errors emitted, stopping now\n";
}

}  // namespace skeleshare
