#include "skeleshare/vhdl/netlist.h"

#include <cctype>
#include <fstream>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string_view>

namespace skeleshare::vhdl {
namespace {

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isBitChar(char c) { return c == '0' || c == '1' || c == 'x' || c == 'z' || c == 'X' || c == 'Z'; }

size_t skipSpaces(std::string_view s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

/// The identifier starting at `i` (empty if none).
std::string_view wordAt(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && isWordChar(s[j])) ++j;
  return s.substr(i, j - i);
}

/// `"0101"` -> `4'b0101` outside comments.
int64_t fixLiterals(std::string& line) {
  if (line.find('"') == std::string::npos) return 0;
  int64_t n = 0;
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '"') {
      size_t j = i + 1;
      while (j < line.size() && isBitChar(line[j])) ++j;
      if (j > i + 1 && j < line.size() && line[j] == '"') {
        out += std::to_string(j - i - 1) + "'b" + line.substr(i + 1, j - i - 1);
        i = j + 1;
        ++n;
        continue;
      }
    }
    out += line[i++];
  }
  if (n > 0) line = std::move(out);
  return n;
}

/// `<ws>x <= a when c else b;` -> `<ws>assign x = (c) ? a : b;`, every part non-empty;
/// with several " when " or " else ", the last ones that leave that possible (as the
/// greedy regular expression `^(\s*)(\w+) <= (.+) when (.+) else (.+);$` would).
int64_t fixSelection(std::string& line) {
  constexpr std::string_view kWhen = " when ", kElse = " else ";
  std::string_view s(line);
  if (s.size() < 2 || s.back() != ';') return 0;
  size_t ws = skipSpaces(s, 0);
  std::string_view name = wordAt(s, ws);
  size_t valueStart = ws + name.size() + 4;
  if (name.empty() || s.substr(ws + name.size(), 4) != " <= ") return 0;
  size_t end = s.size() - 1;  // the ';'
  if (end < valueStart + 1 + kWhen.size() + 1 + kElse.size() + 1) return 0;
  size_t e = s.rfind(kElse, end - kElse.size() - 1);                   // a value after it
  if (e == std::string_view::npos || e < valueStart + 1 + kWhen.size() + 1) return 0;
  size_t w = s.rfind(kWhen, e - kWhen.size() - 1);                     // a condition between
  if (w == std::string_view::npos || w < valueStart + 1) return 0;     // a value before it
  size_t cond = w + kWhen.size(), other = e + kElse.size();
  line = std::string(s.substr(0, ws)) + "assign " + std::string(name) + " = (" + std::string(s.substr(cond, e - cond)) +
         ") ? " + std::string(s.substr(valueStart, w - valueStart)) + " : " + std::string(s.substr(other, end - other)) + ";";
  return 1;
}

/// `$signed(...) >> n` -> `$signed(...) >>> n`.
int64_t fixShifts(std::string& line) {
  int64_t n = 0;
  for (size_t at = line.find(") >> "); at != std::string::npos; at = line.find(") >> ", at + 1)) {
    int depth = 0;
    size_t open = std::string::npos;
    for (size_t k = at + 1; k-- > 0;) {
      if (line[k] == ')') ++depth;
      else if (line[k] == '(' && --depth == 0) {
        open = k;
        break;
      }
    }
    constexpr std::string_view kSigned = "$signed";
    if (open == std::string::npos || open < kSigned.size() ||
        std::string_view(line).substr(open - kSigned.size(), kSigned.size()) != kSigned)
      continue;
    line.insert(at + 4, ">");
    ++n;
  }
  return n;
}

/// `<ws>assign x = x;` (any comment after it).
bool isSelfAssignment(std::string_view s) {
  size_t i = skipSpaces(s, 0);
  if (s.substr(i, 7) != "assign ") return false;
  std::string_view lhs = wordAt(s, i + 7);
  if (lhs.empty()) return false;
  size_t j = i + 7 + lhs.size();
  if (s.substr(j, 3) != " = ") return false;
  std::string_view rhs = wordAt(s, j + 3);
  return rhs == lhs && s.substr(j + 3 + rhs.size(), 1) == ";";
}

}  // namespace

NetlistFixes& NetlistFixes::operator+=(const NetlistFixes& o) {
  literals += o.literals;
  selections += o.selections;
  shifts += o.shifts;
  selfAssignments += o.selfAssignments;
  return *this;
}

bool fixGhdlVerilogLine(std::string& line, NetlistFixes& counts) {
  size_t first = skipSpaces(line, 0);
  if (line.compare(first, 2, "/*") == 0 || line.compare(first, 2, "//") == 0) return true;
  if (isSelfAssignment(line)) {
    ++counts.selfAssignments;
    return false;
  }
  counts.literals += fixLiterals(line);
  if (line.find(" when ") != std::string::npos && line.find(" else ") != std::string::npos) counts.selections += fixSelection(line);
  if (line.find(" >> ") != std::string::npos) counts.shifts += fixShifts(line);
  return true;
}

NetlistFixes fixGhdlVerilog(std::istream& in, std::ostream& out) {
  NetlistFixes counts;
  std::string line;
  while (std::getline(in, line)) {
    bool newline = !in.eof();
    if (fixGhdlVerilogLine(line, counts)) {
      out << line;
      if (newline) out << '\n';
    }
  }
  return counts;
}

NetlistFixes fixGhdlVerilogFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path.string() + "'");
  std::filesystem::path tmp = path;
  tmp += ".fixing";
  NetlistFixes counts;
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write '" + tmp.string() + "'");
    counts = fixGhdlVerilog(in, out);
    out.flush();
    if (!out) throw std::runtime_error("cannot write '" + tmp.string() + "'");
  }
  std::filesystem::rename(tmp, path);
  return counts;
}

}  // namespace skeleshare::vhdl
