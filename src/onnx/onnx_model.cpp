#include "onnx_model.h"

#include <fmt/format.h>

#include <cstring>

namespace skeleshare::onnximport::detail {

using DT = onnx::TensorProto_DataType;

std::string dtypeName(int32_t dtype) {
  if (onnx::TensorProto_DataType_IsValid(dtype)) return onnx::TensorProto_DataType_Name(static_cast<DT>(dtype));
  return fmt::format("type {}", dtype);
}

namespace {

template <class T>
std::vector<T> rawValues(const std::string& raw, size_t count, const std::string& where) {
  if (raw.size() != count * sizeof(T))
    throw ImportError(fmt::format("{}: raw_data holds {} bytes, its shape needs {}", where, raw.size(),
                                  count * sizeof(T)));
  std::vector<T> out(count);
  std::memcpy(out.data(), raw.data(), raw.size());  // ONNX raw_data is little endian, as x86 and Arm
  return out;
}

}  // namespace

ConstTensor decodeTensor(const onnx::TensorProto& t, const std::string& where) {
  ConstTensor c;
  c.name = t.name();
  c.dtype = t.data_type();
  c.dims.assign(t.dims().begin(), t.dims().end());
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    throw ImportError(fmt::format("{}: tensor '{}' keeps its data in an external file, which is not read", where, t.name()));
  size_t count = 1;
  for (int64_t d : c.dims) count *= static_cast<size_t>(d);
  const bool raw = t.has_raw_data();
  auto fromInts = [&](auto sample, const auto& field) {
    using T = decltype(sample);
    if (raw) {
      for (T v : rawValues<T>(t.raw_data(), count, where)) c.ints.push_back(v);
    } else {
      c.ints.assign(field.begin(), field.end());
    }
  };
  switch (c.dtype) {
    case DT::TensorProto_DataType_INT8: fromInts(int8_t{}, t.int32_data()); break;
    case DT::TensorProto_DataType_UINT8: fromInts(uint8_t{}, t.int32_data()); break;
    case DT::TensorProto_DataType_INT16: fromInts(int16_t{}, t.int32_data()); break;
    case DT::TensorProto_DataType_INT32: fromInts(int32_t{}, t.int32_data()); break;
    case DT::TensorProto_DataType_INT64: fromInts(int64_t{}, t.int64_data()); break;
    case DT::TensorProto_DataType_FLOAT:
      if (raw) {
        for (float v : rawValues<float>(t.raw_data(), count, where)) c.reals.push_back(v);
      } else {
        c.reals.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case DT::TensorProto_DataType_DOUBLE:
      if (raw) {
        c.reals = rawValues<double>(t.raw_data(), count, where);
      } else {
        c.reals.assign(t.double_data().begin(), t.double_data().end());
      }
      break;
    default:
      throw ImportError(fmt::format("{}: tensor '{}' has element type {}, which the importer does not read", where,
                                    t.name(), dtypeName(c.dtype)));
  }
  if (c.size() != count)
    throw ImportError(fmt::format("{}: tensor '{}' holds {} values, its shape needs {}", where, t.name(), c.size(), count));
  return c;
}

std::string describe(const onnx::NodeProto& n) {
  return fmt::format("node '{}' ({})", n.name().empty() ? n.output_size() ? n.output(0) : "?" : n.name(), n.op_type());
}

Attributes::Attributes(const onnx::NodeProto& n) : node_(n) {
  for (const auto& a : n.attribute()) byName_[a.name()] = &a;
}

int64_t Attributes::integer(const std::string& name, int64_t fallback) const {
  auto it = byName_.find(name);
  if (it == byName_.end()) return fallback;
  if (it->second->type() != onnx::AttributeProto_AttributeType_INT)
    throw ImportError(fmt::format("{}: attribute '{}' is not an integer", describe(node_), name));
  return it->second->i();
}

std::vector<int64_t> Attributes::integers(const std::string& name, std::vector<int64_t> fallback) const {
  auto it = byName_.find(name);
  if (it == byName_.end()) return fallback;
  if (it->second->type() != onnx::AttributeProto_AttributeType_INTS)
    throw ImportError(fmt::format("{}: attribute '{}' is not a list of integers", describe(node_), name));
  return {it->second->ints().begin(), it->second->ints().end()};
}

std::string Attributes::text(const std::string& name, std::string fallback) const {
  auto it = byName_.find(name);
  if (it == byName_.end()) return fallback;
  if (it->second->type() != onnx::AttributeProto_AttributeType_STRING)
    throw ImportError(fmt::format("{}: attribute '{}' is not a string", describe(node_), name));
  return it->second->s();
}

void Attributes::only(std::initializer_list<const char*> known) const {
  for (const auto& [name, attr] : byName_) {
    bool ok = false;
    for (const char* k : known) ok = ok || name == k;
    if (!ok) throw ImportError(fmt::format("{}: attribute '{}' is not supported", describe(node_), name));
  }
}

std::vector<int64_t> staticShape(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
    throw ImportError(fmt::format("graph input '{}': no tensor shape; the DSL needs static shapes", v.name()));
  std::vector<int64_t> dims;
  int i = 0;
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() <= 0)
      throw ImportError(fmt::format("graph input '{}': dimension {} is dynamic ('{}'); the DSL needs static shapes",
                                    v.name(), i, d.has_dim_param() ? d.dim_param() : "unknown"));
    dims.push_back(d.dim_value());
    ++i;
  }
  return dims;
}

}  // namespace skeleshare::onnximport::detail
