#pragma once
// A target device: the resources the extractor budgets against. Devices are JSON files
// in rules/devices/ (docs/cost-model.md, "Device files"), read at start-up, so a new
// board is a new file, not a new build.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace skeleshare::cost {

/// One way a DSP block multiplies: `products` products per block of operands up to
/// `maxBits` wide (the narrower operand against maxBits[0], the wider against maxBits[1]).
struct DspMode {
  int maxBits[2] = {0, 0};
  int products = 1;
};

struct Device {
  std::string name;         // "arria10_gx1150"
  std::string description;  // free text
  int64_t dspBlocks = 0;    // the DSP budget at --dsp-fraction 1 (blocks, not multipliers)
  std::vector<DspMode> dspModes;  // how many products a block computes, by operand width
  int64_t alms = 0;
  int64_t m20kBlocks = 0;
  double clockMhz = 0;      // used for GOPS: MACs * 2 * (clock in GHz) / cycles
  int64_t hostLineBits = 0; // host interface width; the SIMD cap is hostLineBits / 8
  // The memory behind the host interface (the cycle model, docs/cost-model.md): the
  // sustained lines per cycle its port moves, and the cycles from a request to its data.
  double memoryLinesPerCycle = 0;
  int64_t memoryLatency = 0;

  /// The per-dot-product SIMD cap of the cost model: elements of one host line
  /// (512 bits / 8 = 64 for the paper's board).
  int64_t simdWidth() const { return hostLineBits / 8; }
  /// Products one DSP block computes for operands of these widths: the best mode that fits
  /// (Arria 10: two up to 18 x 19, one up to 27 x 27); 0 when none does.
  int64_t productsPerBlock(int aBits, int bBits) const;
  /// DSP blocks for `lanes` multipliers of these widths: lanes / products, rounded up
  /// (a product wider than every mode takes ceil(a/27) * ceil(b/27) blocks of the widest).
  int64_t dspBlocksFor(int64_t lanes, int aBits, int bBits) const;
};

/// Parses a device description (JSON text). Throws std::runtime_error naming `what` and the
/// offending field when a field is missing, of the wrong kind or out of range.
Device parseDevice(const std::string& jsonText, const std::string& what);

/// Reads a device file. Throws std::runtime_error (unreadable file, or parseDevice's errors).
Device loadDevice(const std::filesystem::path& file);

/// Finds a device by name in `<dataDir>/rules/devices/<name>.json`; a `name` that contains a
/// '/' or ends in ".json" is taken as a path instead.
Device findDevice(const std::string& name, const std::filesystem::path& dataDir);

/// The paper's board, the default target.
inline constexpr const char* kDefaultDevice = "arria10_gx1150";

}  // namespace skeleshare::cost
