#include "skeleshare/egraph/enode.h"

#include <algorithm>
#include <stdexcept>

namespace skeleshare::egraph {

namespace {
inline uint64_t mix(uint64_t h, uint64_t v) {
  // A 64-bit multiply-xorshift combiner: cheap and well distributed.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 32);
}
}  // namespace

void ENode::init(size_t np, size_t nc) {
  if (np > 255) throw std::length_error("e-node: too many parameters");
  if (nc > UINT32_MAX / 2) throw std::length_error("e-node: too many children");
  np_ = static_cast<uint8_t>(np);
  nc_ = static_cast<uint32_t>(nc);
  if (isInline()) {
    std::fill(std::begin(inline_), std::end(inline_), 0);
  } else {
    heap_ = new uint64_t[words()]();
  }
}

ENode::ENode(ir::Op op, std::span<const int64_t> params, const ir::Type* annot,
             std::span<const ClassId> children)
    : op_(op), annot_(annot) {
  init(params.size(), children.size());
  uint64_t* d = data();
  if (!params.empty()) std::memcpy(d, params.data(), params.size() * sizeof(int64_t));
  if (!children.empty())
    std::memcpy(d + np_, children.data(), children.size() * sizeof(ClassId));
}

void ENode::copyFrom(const ENode& o) {
  op_ = o.op_;
  annot_ = o.annot_;
  init(o.np_, o.nc_);
  std::memcpy(data(), o.data(), words() * sizeof(uint64_t));
}

void ENode::moveFrom(ENode& o) noexcept {
  op_ = o.op_;
  annot_ = o.annot_;
  np_ = o.np_;
  nc_ = o.nc_;
  if (o.isInline()) {
    std::memcpy(inline_, o.inline_, sizeof(inline_));
  } else {
    heap_ = o.heap_;
  }
  o.np_ = 0;
  o.nc_ = 0;
}

uint64_t ENode::hash() const {
  uint64_t h = static_cast<uint64_t>(op_) * 0x100000001b3ULL + np_ + (uint64_t{nc_} << 8);
  h = mix(h, annot_ ? annot_->id() + 1 : 0);
  const uint64_t* d = data();
  for (size_t i = 0, n = words(); i < n; ++i) h = mix(h, d[i]);
  return h;
}

bool ENode::operator==(const ENode& o) const {
  return op_ == o.op_ && annot_ == o.annot_ && np_ == o.np_ && nc_ == o.nc_ &&
         std::memcmp(data(), o.data(), words() * sizeof(uint64_t)) == 0;
}

bool ENode::operator<(const ENode& o) const {
  if (op_ != o.op_) return op_ < o.op_;
  auto pa = params(), pb = o.params();
  if (!std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()))
    return std::lexicographical_compare(pa.begin(), pa.end(), pb.begin(), pb.end());
  int64_t ta = annot_ ? annot_->id() : -1, tb = o.annot_ ? o.annot_->id() : -1;
  if (ta != tb) return ta < tb;
  auto ca = children(), cb = o.children();
  return std::lexicographical_compare(ca.begin(), ca.end(), cb.begin(), cb.end());
}

std::string ENode::str() const {
  std::string s(ir::opName(op_));
  if (np_ > 0) {
    s += '[';
    auto p = params();
    for (size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
    s += ']';
  }
  if (nc_ > 0) {
    s += '(';
    auto c = children();
    for (size_t i = 0; i < c.size(); ++i) s += (i ? ", e" : "e") + std::to_string(c[i]);
    s += ')';
  }
  if (annot_) s += " : " + annot_->str();
  return s;
}

}  // namespace skeleshare::egraph
