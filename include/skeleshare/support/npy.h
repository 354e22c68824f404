#pragma once
// NumPy .npy files (format versions 1.0 and 2.0) holding integer tensors.
//
// Reading accepts C-order arrays of dtype int8, int16, int32 (little endian: '<i1',
// '|i1', '<i2', '<i4'), and, converting, uint8 ('|u1') and int64 ('<i8'). Without a
// target width the natural one is used: int8 -> i8, int16 -> i16, int32 -> i32,
// uint8 -> i16 (the narrowest signed width that holds 0..255), int64 -> i32 when every
// value fits. With a target width every value must fit it. Scalars (shape ()) give
// rank-0 tensors. Everything else (Fortran order, big endian, floats, other versions,
// truncated or trailing data, malformed or absurd headers) is rejected with NpyError.
//
// Writing uses the tensor's own width (i8 -> '|i1', i16 -> '<i2', i32 -> '<i4'),
// version 1.0 (2.0 only if the header would not fit), header padded to 64 bytes as
// NumPy does.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "skeleshare/support/tensor.h"

namespace skeleshare {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Decodes the bytes of a .npy file; `what` names the source in error messages.
Tensor parseNpy(std::string_view bytes, std::optional<int> bits = std::nullopt,
                const std::string& what = "npy data");
/// Encodes a tensor as the bytes of a .npy file.
std::string encodeNpy(const Tensor& t);

/// Reads a .npy file; throws NpyError (naming the path) on any problem.
Tensor readNpy(const std::string& path, std::optional<int> bits = std::nullopt);
/// Writes a .npy file; throws NpyError if the file cannot be written.
void writeNpy(const std::string& path, const Tensor& t);

}  // namespace skeleshare
