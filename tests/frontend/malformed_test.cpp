// The malformed-program corpus: every file in tests/frontend/malformed/ must be
// rejected with exactly the diagnostic it announces, without crashing or hanging.
//
// Each NAME.dsl announces its first error either on its first line,
//   // expect: LINE:COL: error: MESSAGE
// or, when the file cannot hold a comment (the empty file), in NAME.expect.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace skeleshare::frontend {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(SKELESHARE_SOURCE_DIR) / "tests/frontend/malformed";

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The announced diagnostic, "LINE:COL: error: MESSAGE", or "" when there is none.
std::string expectation(const fs::path& dsl) {
  fs::path sidecar = dsl;
  sidecar.replace_extension(".expect");
  std::string text = fs::exists(sidecar) ? readAll(sidecar) : readAll(dsl);
  const std::string tag = fs::exists(sidecar) ? "" : "// expect: ";
  if (text.compare(0, tag.size(), tag) != 0) return "";
  std::string line = text.substr(tag.size(), text.find('\n') - tag.size());
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kCorpus))
    if (e.path().extension() == ".dsl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Malformed, CorpusIsLargeAndSelfDescribing) {
  auto files = corpus();
  EXPECT_GE(files.size(), 25u);
  for (const auto& f : files) EXPECT_NE(expectation(f), "") << f << " announces no diagnostic";
}

TEST(Malformed, EveryFileGivesItsDiagnostic) {
  for (const auto& path : corpus()) {
    SCOPED_TRACE(path.filename().string());
    std::string error;
    auto file = SourceFile::read(path.string(), error);
    ASSERT_TRUE(file) << error;
    DiagnosticEngine diags;
    auto prog = parseAndCheck(*file, diags);
    EXPECT_FALSE(prog);
    std::string first;
    for (const Diagnostic& d : diags.diagnostics()) {
      if (d.severity != Severity::Error) continue;
      EXPECT_EQ(d.file, path.string());
      first = std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": error: " + d.message;
      break;
    }
    EXPECT_EQ(first, expectation(path));
    // Printing (with the caret line) must cope with whatever bytes the file holds.
    std::ostringstream os;
    diags.print(os);
    EXPECT_NE(os.str().find(": error: "), std::string::npos);
  }
}

}  // namespace
}  // namespace skeleshare::frontend
