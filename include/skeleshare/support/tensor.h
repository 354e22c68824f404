#pragma once
// Dense integer tensors: the values that programs compute on.
//
// Every element type of the DSL is a signed two's-complement integer of 8, 16 or 32 bits.
// Elements are stored widened to int32_t; `wrap` reduces a wider intermediate result to
// the tensor's width exactly as the hardware does (keep the low `bits` bits, sign-extend).

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace skeleshare {

/// Reduces `v` modulo 2^bits into the signed range of a `bits`-wide integer.
inline int32_t wrapTo(int64_t v, int bits) {
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1);
  uint64_t u = static_cast<uint64_t>(v) & mask;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int32_t>(static_cast<int64_t>((u ^ sign) - sign));
}

/// Clamps `v` into the signed range of a `bits`-wide integer.
inline int32_t saturateTo(int64_t v, int bits) {
  const int64_t hi = (int64_t{1} << (bits - 1)) - 1;
  const int64_t lo = -(int64_t{1} << (bits - 1));
  return static_cast<int32_t>(v < lo ? lo : (v > hi ? hi : v));
}

/// `v / 2^s` rounded half up, exactly (`s = 0`: `v`): the DSL's `requant` before it saturates.
inline int64_t roundShiftHalfUp(int64_t v, int64_t s) { return s == 0 ? v : (v + (int64_t{1} << (s - 1))) >> s; }

/// `v / 2^s` rounded half to even, exactly (`s = 0`: `v`): ONNX QuantizeLinear's rounding, the
/// DSL's `requant_even` before it saturates.
inline int64_t roundShiftHalfEven(int64_t v, int64_t s) {
  if (s == 0) return v;
  const int64_t q = v >> s;                           // floor
  const int64_t rest = v - (q << s);                  // 0 .. 2^s - 1
  const int64_t half = int64_t{1} << (s - 1);
  return q + (rest > half || (rest == half && (q & 1) != 0) ? 1 : 0);
}

class Tensor {
 public:
  Tensor() = default;
  /// A zero-filled tensor with element width `bits` (8, 16 or 32) and `shape`
  /// (outermost dimension first; empty for a scalar).
  Tensor(int bits, std::vector<int64_t> shape);

  int bits() const { return bits_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t dim(size_t i) const { return shape_[i]; }
  size_t size() const { return data_.size(); }

  int32_t* data() { return data_.data(); }
  const int32_t* data() const { return data_.data(); }
  std::vector<int32_t>& values() { return data_; }
  const std::vector<int32_t>& values() const { return data_; }

  int32_t operator[](size_t i) const { return data_[i]; }
  int32_t& operator[](size_t i) { return data_[i]; }
  /// Element at a multi-index (row-major).
  int32_t at(std::initializer_list<int64_t> idx) const { return data_[offset(idx)]; }
  int32_t& at(std::initializer_list<int64_t> idx) { return data_[offset(idx)]; }
  size_t offset(std::initializer_list<int64_t> idx) const;

  /// Stores `v` wrapped to this tensor's width.
  void setWrapped(size_t i, int64_t v) { data_[i] = wrapTo(v, bits_); }

  bool operator==(const Tensor& o) const {
    return bits_ == o.bits_ && shape_ == o.shape_ && data_ == o.data_;
  }
  bool operator!=(const Tensor& o) const { return !(*this == o); }

  /// "i8[2][3]"-style description of element type and shape.
  std::string describe() const;

 private:
  int bits_ = 32;
  std::vector<int64_t> shape_;
  std::vector<int32_t> data_;
};

/// Number of elements of a shape; throws std::length_error past 2^40.
size_t shapeElements(const std::vector<int64_t>& shape);

// ---- shape manipulation (used by the interpreter's data-transform skeletons) ---------
// All of these copy; each throws std::out_of_range with a message on bad arguments.

/// The sub-tensor t[i] along the outermost dimension (rank - 1).
Tensor subTensor(const Tensor& t, int64_t i);
/// The same elements (row-major) under another shape with the same element count.
Tensor reshaped(const Tensor& t, std::vector<int64_t> shape);
/// The block of extent `shape` whose first element is t[begin...] (one entry per dim).
Tensor extractBlock(const Tensor& t, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& shape);
/// Copies `src` into `dst` at `begin`; same rank, block within bounds. Values are copied
/// unchanged, so src's width must not exceed dst's.
void insertBlock(Tensor& dst, const std::vector<int64_t>& begin, const Tensor& src);
/// `t` enlarged to `shape` (every dimension at least t's): new elements, appended at the
/// end of each dimension, are `fill`.
Tensor padTo(const Tensor& t, const std::vector<int64_t>& shape, int32_t fill = 0);
/// Swaps the two outermost dimensions: out[j][i][...] = t[i][j][...].
Tensor transposeOuter(const Tensor& t);

}  // namespace skeleshare
