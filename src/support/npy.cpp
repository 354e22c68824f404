#include "skeleshare/support/npy.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

namespace skeleshare {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// NumPy itself refuses headers above 10000 bytes by default; 1 MiB is far beyond any
// honest header and keeps garbage from making us scan gigabytes.
constexpr size_t kMaxHeader = size_t{1} << 20;
constexpr size_t kMaxRank = 32;

struct Dtype {
  int bytes = 0;
  bool isUnsigned = false;
};

/// A cursor over the header's Python dict literal, e.g.
/// {'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what) : s_(text), what_(what) {}

  void parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    expect('{');
    for (;;) {
      skipSpace();
      if (peek() == '}') break;
      std::string key = string();
      expect(':');
      if (key == "descr" && !haveDescr) {
        descr = string();
        haveDescr = true;
      } else if (key == "fortran_order" && !haveFortran) {
        fortran = boolean();
        haveFortran = true;
      } else if (key == "shape" && !haveShape) {
        shape = tuple();
        haveShape = true;
      } else {
        fail(fmt::format("unexpected or repeated key '{}'", key));
      }
      skipSpace();
      if (peek() == ',') ++i_;
      else if (peek() != '}') fail("expected ',' or '}'");
    }
    ++i_;
    skipSpace();
    if (i_ != s_.size()) fail("trailing characters after the header dict");
    if (!haveDescr || !haveFortran || !haveShape) fail("header lacks 'descr', 'fortran_order' or 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw NpyError(fmt::format("{}: malformed header at offset {}: {}", what_, i_, msg));
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++i_;
  }
  std::string string() {
    skipSpace();
    char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    size_t end = s_.find(q, i_ + 1);
    if (end == std::string_view::npos || end - i_ > 64) fail("unterminated or overlong string");
    std::string r(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return r;
  }
  bool boolean() {
    skipSpace();
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    fail("expected True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    for (;;) {
      skipSpace();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a dimension");
      int64_t d = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (d > (int64_t{1} << 40)) fail("dimension too large");
        d = d * 10 + (s_[i_++] - '0');
      }
      if (peek() == 'L') ++i_;  // Python 2 long literal, as old NumPy wrote it
      if (dims.size() >= kMaxRank) fail("too many dimensions");
      dims.push_back(d);
      skipSpace();
      if (peek() == ',') ++i_;
      else if (peek() != ')') fail("expected ',' or ')'");
    }
    ++i_;
    return dims;
  }

  std::string_view s_;
  const std::string& what_;
  size_t i_ = 0;
};

Dtype parseDtype(const std::string& descr, const std::string& what) {
  auto unsupported = [&](const char* why) {
    return NpyError(fmt::format("{}: unsupported dtype '{}': {}", what, descr, why));
  };
  if (descr.size() < 2 || descr.size() > 3) throw unsupported("expected int8, int16, int32, int64 or uint8");
  char order = descr.size() == 3 ? descr[0] : '|';
  std::string_view code = std::string_view(descr).substr(descr.size() - 2);
  Dtype d;
  if (code == "i1") d = {1, false};
  else if (code == "u1") d = {1, true};
  else if (code == "i2") d = {2, false};
  else if (code == "i4") d = {4, false};
  else if (code == "i8") d = {8, false};
  else throw unsupported("expected int8, int16, int32, int64 or uint8");
  if (d.bytes == 1) {
    if (order != '|' && order != '<' && order != '>' && order != '=') throw unsupported("bad byte-order character");
  } else if (order == '>') {
    throw unsupported("big-endian data is not supported");
  } else if (order != '<') {
    throw unsupported("expected little-endian ('<') data");
  }
  return d;
}

int64_t loadLittle(const unsigned char* p, const Dtype& d) {
  uint64_t u = 0;
  for (int b = d.bytes - 1; b >= 0; --b) u = (u << 8) | p[b];
  if (d.isUnsigned) return static_cast<int64_t>(u);
  const int shift = 64 - 8 * d.bytes;  // sign-extend
  return static_cast<int64_t>(u << shift) >> shift;
}

int naturalBits(const Dtype& d) {
  if (d.isUnsigned) return 16;
  return d.bytes >= 4 ? 32 : 8 * d.bytes;
}

}  // namespace

Tensor parseNpy(std::string_view bytes, std::optional<int> bits, const std::string& what) {
  if (bits && *bits != 8 && *bits != 16 && *bits != 32)
    throw NpyError(fmt::format("{}: target width {} is not 8, 16 or 32", what, *bits));
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) throw NpyError(fmt::format("{}: not a .npy file (bad magic)", what));
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const int major = u[6], minor = u[7];
  size_t headerLen = 0, pos = 0;
  if (major == 1) {
    headerLen = size_t{u[8]} | (size_t{u[9]} << 8);
    pos = 10;
  } else if (major == 2) {
    if (bytes.size() < 12) throw NpyError(fmt::format("{}: truncated header", what));
    headerLen = size_t{u[8]} | (size_t{u[9]} << 8) | (size_t{u[10]} << 16) | (size_t{u[11]} << 24);
    pos = 12;
  } else {
    throw NpyError(fmt::format("{}: unsupported .npy format version {}.{} (1.0 and 2.0 are)", what, major, minor));
  }
  if (minor != 0) throw NpyError(fmt::format("{}: unsupported .npy format version {}.{}", what, major, minor));
  if (headerLen > kMaxHeader) throw NpyError(fmt::format("{}: header of {} bytes is implausibly large", what, headerLen));
  if (bytes.size() - pos < headerLen) throw NpyError(fmt::format("{}: truncated header", what));

  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser(bytes.substr(pos, headerLen), what).parse(descr, fortran, shape);
  pos += headerLen;
  const Dtype dt = parseDtype(descr, what);
  if (fortran) throw NpyError(fmt::format("{}: Fortran-order arrays are not supported (save with C order)", what));

  size_t count = 0;
  try {
    count = shapeElements(shape);
  } catch (const std::length_error&) {
    throw NpyError(fmt::format("{}: array too large", what));
  }
  const size_t have = bytes.size() - pos;
  if (count > have / static_cast<size_t>(dt.bytes) || have != count * static_cast<size_t>(dt.bytes))
    throw NpyError(fmt::format("{}: expected {} bytes of data for {} elements, found {}", what,
                               count > (size_t{1} << 40) ? 0 : count * static_cast<size_t>(dt.bytes), count, have));

  const int outBits = bits ? *bits : naturalBits(dt);
  Tensor t(outBits, shape);
  const int64_t lo = -(int64_t{1} << (outBits - 1)), hi = (int64_t{1} << (outBits - 1)) - 1;
  for (size_t i = 0; i < count; ++i) {
    int64_t v = loadLittle(u + pos + i * static_cast<size_t>(dt.bytes), dt);
    if (v < lo || v > hi)
      throw NpyError(fmt::format("{}: element {} is {}, which does not fit i{}", what, i, v, outBits));
    t[i] = static_cast<int32_t>(v);
  }
  return t;
}

std::string encodeNpy(const Tensor& t) {
  const int bytesPer = t.bits() / 8;
  const char* descr = t.bits() == 8 ? "|i1" : (t.bits() == 16 ? "<i2" : "<i4");
  std::string shape = "(";
  for (size_t i = 0; i < t.rank(); ++i) shape += std::to_string(t.dim(i)) + (t.rank() == 1 ? "," : (i + 1 < t.rank() ? ", " : ""));
  shape += ")";
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  // Pad with spaces and a final newline so that the data starts at a multiple of 64.
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string out(kMagic);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  const size_t len = dict.size();
  for (size_t b = 0; b < (v2 ? 4u : 2u); ++b) out.push_back(static_cast<char>((len >> (8 * b)) & 0xFF));
  out += dict;
  out.reserve(out.size() + t.size() * static_cast<size_t>(bytesPer));
  for (size_t i = 0; i < t.size(); ++i) {
    const uint32_t v = static_cast<uint32_t>(t[i]);
    for (int b = 0; b < bytesPer; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
  }
  return out;
}

Tensor readNpy(const std::string& path, std::optional<int> bits) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw NpyError(fmt::format("{}: cannot open for reading", path));
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw NpyError(fmt::format("{}: read error", path));
  return parseNpy(ss.str(), bits, path);
}

void writeNpy(const std::string& path, const Tensor& t) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw NpyError(fmt::format("{}: cannot open for writing", path));
  const std::string bytes = encodeNpy(t);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw NpyError(fmt::format("{}: write error", path));
}

}  // namespace skeleshare
