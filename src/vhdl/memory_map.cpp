#include "skeleshare/vhdl/memory_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "skeleshare/support/random.h"

namespace skeleshare::vhdl {

std::string roleName(lower::Role role) {
  switch (role) {
    case lower::Role::Input: return "input";
    case lower::Role::Weight: return "weight";
    case lower::Role::Intermediate: return "intermediate";
    case lower::Role::Output: return "output";
  }
  return "?";
}

int64_t regionSpan(int64_t elements, int bits) {
  const int64_t bytesPer = std::max(1, bits / 8);
  const int64_t maxLines = std::numeric_limits<int64_t>::max() / kLineBytes;
  if (elements > maxLines / bytesPer) return std::numeric_limits<int64_t>::max();
  return (elements * bytesPer + kLineBytes - 1) / kLineBytes * kLineBytes;
}

MemoryMap layoutMemory(const lower::Program& prog) {
  MemoryMap map;
  int64_t next = 0;
  for (const auto& b : prog.buffers) {
    Region r;
    r.name = b.name;
    r.role = b.role;
    r.onChip = b.memory == lower::Memory::OnChip;
    r.bits = b.bits;
    r.shape = b.shape;
    r.base = next;
    r.bytes = b.elements() * (b.bits / 8);
    next += regionSpan(b.elements(), b.bits);
    map.regions.push_back(std::move(r));
  }
  map.totalBytes = next;
  return map;
}

namespace {

void putElement(std::vector<uint8_t>& mem, int64_t at, int bytes, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int k = 0; k < bytes; ++k) mem[static_cast<size_t>(at + k)] = static_cast<uint8_t>(u >> (8 * k));
}

int32_t getElement(const std::vector<uint8_t>& mem, int64_t at, int bytes) {
  uint32_t u = 0;
  for (int k = 0; k < bytes; ++k) u |= uint32_t{mem[static_cast<size_t>(at + k)]} << (8 * k);
  return wrapTo(static_cast<int64_t>(u), bytes * 8);
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::vector<uint8_t> poisonBytes(int64_t n, uint64_t seed) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  rng::SplitMix64 gen(rng::mix64(seed) ^ rng::fnv1a64("memory poison"));
  uint64_t word = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i % 8 == 0) word = gen.next();
    // Never 0: a skipped write of a zero (ReLU's most common output) must show.
    out[i] = static_cast<uint8_t>(word >> (8 * (i % 8))) | uint8_t{1};
  }
  return out;
}

std::string memoryImage(const MemoryMap& map, const std::map<std::string, Tensor>& contents, uint64_t poisonSeed) {
  // Everything the design may write (outputs, intermediates, the unused bytes of every
  // line) starts as poison; only the buffers given in `contents` are real data.
  std::vector<uint8_t> mem = poisonBytes(map.totalBytes, poisonSeed);
  for (const auto& r : map.regions) {
    auto it = contents.find(r.name);
    if (it == contents.end()) continue;
    const Tensor& t = it->second;
    if (t.bits() != r.bits || t.shape() != r.shape)
      throw std::runtime_error(fmt::format("buffer '{}': the tensor is {}, the buffer i{}", r.name, t.describe(), r.bits));
    int eb = r.bits / 8;
    for (size_t i = 0; i < t.size(); ++i) putElement(mem, r.base + static_cast<int64_t>(i) * eb, eb, t[i]);
  }
  std::string out;
  out.reserve(static_cast<size_t>(map.lines()) * 129);
  static const char* kHex = "0123456789abcdef";
  for (int64_t line = 0; line < map.lines(); ++line) {
    for (int64_t b = kLineBytes; b-- > 0;) {
      uint8_t v = mem[static_cast<size_t>(line * kLineBytes + b)];
      out += kHex[v >> 4];
      out += kHex[v & 15];
    }
    out += '\n';
  }
  return out;
}

std::map<std::string, Tensor> readOutputs(const MemoryMap& map, const std::string& dump) {
  std::vector<uint8_t> mem(static_cast<size_t>(map.totalBytes), 0);
  std::vector<bool> seen(static_cast<size_t>(map.lines()), false);
  std::istringstream in(dump);
  std::string text;
  int lineNo = 0;
  while (std::getline(in, text)) {
    ++lineNo;
    if (text.empty()) continue;
    std::istringstream ls(text);
    int64_t line = -1;
    std::string hex;
    ls >> line >> hex;
    if (line < 0 || line >= map.lines() || hex.size() != 2 * kLineBytes)
      throw std::runtime_error(fmt::format("memory dump line {}: malformed", lineNo));
    for (int64_t b = 0; b < kLineBytes; ++b) {
      // hex digits come byte 63 first
      size_t at = static_cast<size_t>(2 * (kLineBytes - 1 - b));
      int hi = hexValue(hex[at]), lo = hexValue(hex[at + 1]);
      if (hi < 0 || lo < 0) throw std::runtime_error(fmt::format("memory dump line {}: not hexadecimal", lineNo));
      mem[static_cast<size_t>(line * kLineBytes + b)] = static_cast<uint8_t>(hi * 16 + lo);
    }
    seen[static_cast<size_t>(line)] = true;
  }
  std::map<std::string, Tensor> out;
  for (const auto& r : map.regions) {
    if (r.role != lower::Role::Output) continue;
    for (int64_t l = r.firstLine(); l < r.endLine(); ++l)
      if (!seen[static_cast<size_t>(l)]) throw std::runtime_error(fmt::format("memory dump: line {} of '{}' missing", l, r.name));
    Tensor t(r.bits, r.shape);
    int eb = r.bits / 8;
    for (size_t i = 0; i < t.size(); ++i) t[i] = getElement(mem, r.base + static_cast<int64_t>(i) * eb, eb);
    out[r.name] = std::move(t);
  }
  return out;
}

namespace {
std::string macroName(const std::string& s) {
  std::string m;
  for (char c : s) m += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : '_';
  return m;
}
}  // namespace

std::string cHeader(const MemoryMap& map, const std::string& design) {
  std::string g = macroName(design);
  std::string s = fmt::format(
      "/* Memory map of the skeleshare design '{}' (generated; see docs/hardware.md).\n"
      " * Byte addresses in the memory behind the design's Avalon-MM master. Element i of a\n"
      " * buffer is at BASE + i * ELEM_BYTES, little-endian, row-major over SHAPE. */\n"
      "#ifndef {}_MEMORY_MAP_H\n#define {}_MEMORY_MAP_H\n\n",
      design, g, g);
  s += fmt::format("#define {}_MEMORY_BYTES {}u\n\n", g, map.totalBytes);
  for (const auto& r : map.regions) {
    std::string p = g + "_" + macroName(r.name);
    std::string shape;
    for (int64_t d : r.shape) shape += fmt::format("[{}]", d);
    s += fmt::format("/* {} {}: i{}{} */\n", roleName(r.role), r.name, r.bits, shape);
    s += fmt::format("#define {}_BASE 0x{:08x}u\n#define {}_BYTES {}u\n#define {}_ELEM_BYTES {}u\n\n", p, r.base, p,
                     r.bytes, p, r.bits / 8);
  }
  s += fmt::format("#endif /* {}_MEMORY_MAP_H */\n", g);
  return s;
}

}  // namespace skeleshare::vhdl
