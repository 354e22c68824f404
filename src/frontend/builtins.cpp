#include "skeleshare/frontend/builtins.h"

#include <array>

namespace skeleshare::frontend {

namespace {
// In the order of the Builtin enum.
constexpr std::array<BuiltinInfo, 24> kBuiltins = {{
    {"conv", 2, 2, 2, true, false, "conv(input, weights)"},
    {"mv", 2, 2, 2, true, false, "mv(matrix, vector)"},
    {"mm", 2, 2, 2, true, false, "mm(a, b)"},
    {"conv1d_w", 2, 2, 2, true, false, "conv1d_w(image, weights)"},
    {"conv1d_h", 2, 2, 2, true, false, "conv1d_h(image, weights)"},
    {"pad", 2, 5, 1, false, false, "pad(x, p) or pad(x, top, bottom, left, right), optional fill=v"},
    {"maxpool", 2, 3, 1, false, false, "maxpool(x, size) or maxpool(x, size, stride)"},
    {"relu", 1, 1, 1, false, false, "relu(x)"},
    {"leaky_relu", 2, 2, 1, false, false, "leaky_relu(x, shift)"},
    {"requant", 2, 2, 1, false, false, "requant(x, shift)"},
    {"requant_even", 2, 2, 1, false, false, "requant_even(x, shift)"},
    {"bias", 2, 2, 2, false, false, "bias(x, b)"},
    {"add", 2, 2, 2, false, true, "add(x, y)"},
    {"sub", 2, 2, 2, false, true, "sub(x, y)"},
    {"mul", 2, 2, 2, false, true, "mul(x, y)"},
    {"max", 2, 2, 2, false, true, "max(x, y)"},
    {"min", 2, 2, 2, false, true, "min(x, y)"},
    {"shr", 2, 2, 1, false, false, "shr(x, k)"},
    {"cast", 2, 2, 1, false, false, "cast(x, type)"},
    {"flatten", 1, 1, 1, false, false, "flatten(x)"},
    {"transpose", 1, 1, 1, false, false, "transpose(x)"},
    {"map", 2, 2, 1, false, false, "map(x, \\v. e)"},
    {"zip", 3, 3, 2, false, false, "zip(x, y, \\a b. e)"},
    {"reduce", 3, 3, 2, false, false, "reduce(x, init, \\acc v. e)"},
}};
static_assert(static_cast<size_t>(Builtin::Reduce) + 1 == kBuiltins.size());
}  // namespace

const BuiltinInfo& builtinInfo(Builtin b) { return kBuiltins[static_cast<size_t>(b)]; }

std::optional<Builtin> builtinByName(std::string_view name) {
  for (size_t i = 0; i < kBuiltins.size(); ++i)
    if (kBuiltins[i].name == name) return static_cast<Builtin>(i);
  return std::nullopt;
}

}  // namespace skeleshare::frontend
