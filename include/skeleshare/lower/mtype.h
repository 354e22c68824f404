#pragma once
// Types of the mid-level (SHIR-style) IR: a signed integer scalar of 8, 16 or 32 bits,
// nested in streams (one element per cycle) and vectors (all elements in the same cycle).
// Dimensions are listed outermost first; every stream dimension is outside every vector
// dimension (a stream of vectors, never a vector of streams), as in SHIR.

#include <cstdint>
#include <string>
#include <vector>

namespace skeleshare::lower {

enum class DimKind : uint8_t { Stream, Vector };

struct Dim {
  int64_t extent = 1;
  DimKind kind = DimKind::Stream;
  bool operator==(const Dim&) const = default;
};

struct MType {
  int bits = 32;           // 8, 16 or 32; 0 for the unit type of a Write
  std::vector<Dim> dims;   // outermost first

  bool operator==(const MType&) const = default;
  bool isUnit() const { return bits == 0; }
  /// The extents, outermost first.
  std::vector<int64_t> shape() const;
  /// Cycles the value takes to pass: the product of the stream extents (1 if none).
  int64_t streamSteps() const;
  /// Elements per cycle: the product of the vector extents (1 if none).
  int64_t vectorLanes() const;
  size_t numStreamDims() const;
  /// Empty when well formed; else why not (width, extents, a stream inside a vector).
  std::string check() const;
  /// "stm[4][3] vec[64] i8", "i32", "unit".
  std::string str() const;
};

MType makeType(int bits, std::vector<Dim> dims);

}  // namespace skeleshare::lower
