#include "skeleshare/support/random.h"

#include <stdexcept>
#include <string>

namespace skeleshare::rng {

Range defaultRange(int bits, Role role) {
  const bool w = role == Role::Weight;
  switch (bits) {
    case 8: return w ? Range{-7, 7} : Range{-128, 127};
    case 16: return w ? Range{-127, 127} : Range{-4096, 4095};
    case 32: return w ? Range{-1023, 1023} : Range{-65536, 65535};
    default: throw std::invalid_argument("defaultRange: element width must be 8, 16 or 32, got " + std::to_string(bits));
  }
}

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t streamState(uint64_t seed, std::string_view name) { return mix64(seed) ^ fnv1a64(name); }

Tensor randomTensor(uint64_t seed, std::string_view name, int bits, const std::vector<int64_t>& shape,
                    Range range) {
  Tensor t(bits, shape);  // validates the width and the shape
  const int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
  if (range.lo > range.hi || range.lo < lo || range.hi > hi)
    throw std::invalid_argument("randomTensor: range [" + std::to_string(range.lo) + ", " +
                                std::to_string(range.hi) + "] is empty or does not fit i" +
                                std::to_string(bits));
  const uint64_t span = static_cast<uint64_t>(int64_t{range.hi} - range.lo) + 1;
  SplitMix64 gen(streamState(seed, name));
  for (size_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<int32_t>(range.lo + static_cast<int64_t>(gen.next() % span));
  return t;
}

Tensor randomTensor(uint64_t seed, std::string_view name, int bits, const std::vector<int64_t>& shape,
                    Role role) {
  return randomTensor(seed, name, bits, shape, defaultRange(bits, role));
}

}  // namespace skeleshare::rng
