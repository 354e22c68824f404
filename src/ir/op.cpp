#include "skeleshare/ir/op.h"

#include <array>

namespace skeleshare::ir {

namespace {
constexpr OpInfo kOps[] = {
#define SKS_OP(Enum, Name, NP, Arity, Cat, PNames) {Name, NP, Arity, OpCategory::Cat, PNames},
#include "skeleshare/ir/ops.def"
};
}  // namespace

const OpInfo& opInfo(Op op) { return kOps[static_cast<size_t>(op)]; }

int opCount() { return static_cast<int>(std::size(kOps)); }

std::optional<Op> opByName(std::string_view name) {
  for (size_t i = 0; i < std::size(kOps); ++i)
    if (kOps[i].name == name) return static_cast<Op>(i);
  return std::nullopt;
}

}  // namespace skeleshare::ir
