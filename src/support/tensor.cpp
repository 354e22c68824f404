#include "skeleshare/support/tensor.h"

#include <stdexcept>

namespace skeleshare {

size_t shapeElements(const std::vector<int64_t>& shape) {
  constexpr int64_t kMax = int64_t{1} << 40;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::length_error("negative dimension");
    if (d != 0 && n > kMax / d) throw std::length_error("tensor too large");
    n *= d;
  }
  return static_cast<size_t>(n);
}

Tensor::Tensor(int bits, std::vector<int64_t> shape)
    : bits_(bits), shape_(std::move(shape)), data_(shapeElements(shape_), 0) {
  if (bits != 8 && bits != 16 && bits != 32) throw std::invalid_argument("bad element width");
}

size_t Tensor::offset(std::initializer_list<int64_t> idx) const {
  size_t off = 0, k = 0;
  for (int64_t i : idx) off = off * static_cast<size_t>(shape_[k++]) + static_cast<size_t>(i);
  return off;
}

std::string Tensor::describe() const {
  std::string s = "i" + std::to_string(bits_);
  for (int64_t d : shape_) s += "[" + std::to_string(d) + "]";
  return s;
}

}  // namespace skeleshare
