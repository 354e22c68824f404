#pragma once
// DSL programs translated to the skeleton IR, for tests of any stage after the frontend.
// Failures are reported as gtest failures (with the diagnostics), and an empty module
// comes back.

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "skeleshare/frontend/frontend.h"
#include "skeleshare/support/diagnostics.h"
#include "skeleshare/support/source.h"

namespace skeleshare::test_support {

struct DslModule {
  std::unique_ptr<ir::Context> ctx = std::make_unique<ir::Context>();
  ir::Module module;
};

inline DslModule translateDsl(const SourceFile& file) {
  DslModule m;
  DiagnosticEngine diags;
  auto prog = frontend::parseAndCheck(file, diags);
  std::ostringstream os;
  diags.print(os);
  EXPECT_TRUE(prog.has_value()) << os.str();
  if (prog) m.module = frontend::translate(*prog, *m.ctx);
  return m;
}

inline DslModule loadDsl(const std::string& path) {
  std::string err;
  auto file = SourceFile::read(path, err);
  EXPECT_TRUE(file.has_value()) << path << ": " << err;
  if (!file) return DslModule{};
  return translateDsl(*file);
}

inline DslModule loadDslText(const std::string& text) { return translateDsl(SourceFile("test.dsl", text)); }

}  // namespace skeleshare::test_support
