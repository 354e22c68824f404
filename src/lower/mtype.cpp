#include "skeleshare/lower/mtype.h"

#include <fmt/format.h>

namespace skeleshare::lower {

std::vector<int64_t> MType::shape() const {
  std::vector<int64_t> s;
  for (const auto& d : dims) s.push_back(d.extent);
  return s;
}

int64_t MType::streamSteps() const {
  int64_t n = 1;
  for (const auto& d : dims)
    if (d.kind == DimKind::Stream) n *= d.extent;
  return n;
}

int64_t MType::vectorLanes() const {
  int64_t n = 1;
  for (const auto& d : dims)
    if (d.kind == DimKind::Vector) n *= d.extent;
  return n;
}

size_t MType::numStreamDims() const {
  size_t n = 0;
  for (const auto& d : dims) n += d.kind == DimKind::Stream;
  return n;
}

std::string MType::check() const {
  if (bits == 0) return dims.empty() ? "" : "the unit type has no dimensions";
  if (bits != 8 && bits != 16 && bits != 32) return fmt::format("bad element width {}", bits);
  bool seenVector = false;
  for (const auto& d : dims) {
    if (d.extent < 1) return fmt::format("non-positive extent {}", d.extent);
    if (d.kind == DimKind::Vector) seenVector = true;
    else if (seenVector) return "a stream dimension inside a vector dimension";
  }
  return "";
}

std::string MType::str() const {
  if (bits == 0) return "unit";
  std::string s;
  DimKind last = DimKind::Stream;
  bool first = true;
  for (const auto& d : dims) {
    if (first || d.kind != last) {
      if (!first) s += ' ';
      s += d.kind == DimKind::Stream ? "stm" : "vec";
    }
    s += fmt::format("[{}]", d.extent);
    last = d.kind;
    first = false;
  }
  if (!s.empty()) s += ' ';
  return s + fmt::format("i{}", bits);
}

MType makeType(int bits, std::vector<Dim> dims) { return MType{bits, std::move(dims)}; }

}  // namespace skeleshare::lower
