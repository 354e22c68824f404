#include "skeleshare/cost/device.h"

#include <fmt/format.h>

#include <algorithm>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace skeleshare::cost {

namespace {

int64_t positiveInt(const nlohmann::json& j, const char* key, const std::string& what) {
  if (!j.contains(key)) throw std::runtime_error(fmt::format("{}: missing field \"{}\"", what, key));
  const auto& v = j.at(key);
  if (!v.is_number_integer())
    throw std::runtime_error(fmt::format("{}: field \"{}\" must be an integer", what, key));
  int64_t x = v.get<int64_t>();
  if (x <= 0 || x > (int64_t{1} << 40))
    throw std::runtime_error(fmt::format("{}: field \"{}\" must be positive, got {}", what, key, x));
  return x;
}

}  // namespace

Device parseDevice(const std::string& jsonText, const std::string& what) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(jsonText);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", what, e.what()));
  }
  if (!j.is_object()) throw std::runtime_error(fmt::format("{}: expected a JSON object", what));
  Device d;
  if (!j.contains("name") || !j.at("name").is_string())
    throw std::runtime_error(fmt::format("{}: missing string field \"name\"", what));
  d.name = j.at("name").get<std::string>();
  if (j.contains("description") && j.at("description").is_string())
    d.description = j.at("description").get<std::string>();
  d.dspBlocks = positiveInt(j, "dsp_blocks", what);
  d.alms = positiveInt(j, "alms", what);
  d.m20kBlocks = positiveInt(j, "m20k_blocks", what);
  if (!j.contains("clock_mhz") || !j.at("clock_mhz").is_number() || j.at("clock_mhz").get<double>() <= 0)
    throw std::runtime_error(fmt::format("{}: field \"clock_mhz\" must be a positive number", what));
  d.clockMhz = j.at("clock_mhz").get<double>();
  d.hostLineBits = positiveInt(j, "host_line_bits", what);
  if (d.hostLineBits % 8 != 0)
    throw std::runtime_error(fmt::format("{}: field \"host_line_bits\" must be a multiple of 8, got {}", what,
                                         d.hostLineBits));
  const nlohmann::json* rate = j.contains("memory_lines_per_cycle") ? &j.at("memory_lines_per_cycle") : nullptr;
  if (!rate || !rate->is_number() || rate->get<double>() <= 0 || rate->get<double>() > 1)
    throw std::runtime_error(fmt::format("{}: field \"memory_lines_per_cycle\" must be a number in (0, 1]", what));
  d.memoryLinesPerCycle = rate->get<double>();
  d.memoryLatency = positiveInt(j, "memory_latency_cycles", what);
  if (!j.contains("dsp_modes") || !j.at("dsp_modes").is_array() || j.at("dsp_modes").empty())
    throw std::runtime_error(fmt::format("{}: field \"dsp_modes\" must be a non-empty array", what));
  for (const auto& m : j.at("dsp_modes")) {
    const auto& b = m.contains("max_bits") ? m.at("max_bits") : nlohmann::json();
    if (!m.is_object() || !b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer() ||
        b[0].get<int>() <= 0 || b[1].get<int>() < b[0].get<int>() || !m.contains("products") ||
        !m.at("products").is_number_integer() || m.at("products").get<int>() <= 0)
      throw std::runtime_error(fmt::format(
          "{}: every \"dsp_modes\" entry needs \"max_bits\": [narrow, wide] (0 < narrow <= wide) and "
          "\"products\" > 0",
          what));
    d.dspModes.push_back({{b[0].get<int>(), b[1].get<int>()}, m.at("products").get<int>()});
  }
  return d;
}

int64_t Device::productsPerBlock(int aBits, int bBits) const {
  const int lo = std::min(aBits, bBits), hi = std::max(aBits, bBits);
  int64_t best = 0;
  for (const DspMode& m : dspModes)
    if (lo <= m.maxBits[0] && hi <= m.maxBits[1]) best = std::max<int64_t>(best, m.products);
  return best;
}

int64_t Device::dspBlocksFor(int64_t lanes, int aBits, int bBits) const {
  const int64_t k = productsPerBlock(aBits, bBits);
  if (k > 0) return (lanes + k - 1) / k;
  int widest = 1;
  for (const DspMode& m : dspModes) widest = std::max(widest, m.maxBits[0]);
  return lanes * ((aBits + widest - 1) / widest) * ((bBits + widest - 1) / widest);
}

Device loadDevice(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read device file '{}'", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return parseDevice(ss.str(), file.string());
}

Device findDevice(const std::string& name, const std::filesystem::path& dataDir) {
  bool isPath = name.find('/') != std::string::npos ||
                (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
  if (isPath) return loadDevice(name);
  std::filesystem::path p = dataDir / "rules" / "devices" / (name + ".json");
  if (!std::filesystem::exists(p))
    throw std::runtime_error(fmt::format("unknown device '{}' (no file '{}')", name, p.string()));
  return loadDevice(p);
}

}  // namespace skeleshare::cost
