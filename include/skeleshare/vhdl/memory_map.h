#pragma once
// The external-memory map of a generated design: where every buffer of a mid-level
// program lives in the memory behind the design's Avalon-MM master (docs/hardware.md).
//
// Buffers are laid out in program order, each starting on a 64-byte (512-bit) line;
// element i of a buffer of `bits`-bit elements occupies bits/8 bytes at
// base + i * bits/8, little-endian, row-major over the buffer's shape. Every buffer has a
// region, including the intermediates the lowering placed on chip: their reads and writes
// go to a RAM of the design's own (ss_line_ram) that keeps the same addresses, and their
// region in the external memory is not used (docs/hardware.md, "On-chip buffers").

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "skeleshare/lower/mir.h"
#include "skeleshare/lower/runs.h"
#include "skeleshare/support/tensor.h"

namespace skeleshare::vhdl {

using lower::kLineBytes;
/// The bytes the design's Avalon-MM master addresses.
inline constexpr int64_t kAddressableBytes = int64_t{1} << 31;

/// The bytes a buffer of `elements` elements of `bits` bits takes in the map: whole lines.
/// Saturates at INT64_MAX.
int64_t regionSpan(int64_t elements, int bits);

struct Region {
  std::string name;
  lower::Role role = lower::Role::Intermediate;
  bool onChip = false;  // kept in the design's block RAM, not in the external memory
  int bits = 8;
  std::vector<int64_t> shape;
  int64_t base = 0;   // byte address, a multiple of kLineBytes
  int64_t bytes = 0;  // elements * bits / 8
  int64_t firstLine() const { return base / kLineBytes; }
  /// One past the last line.
  int64_t endLine() const { return (base + bytes + kLineBytes - 1) / kLineBytes; }
};

struct MemoryMap {
  std::vector<Region> regions;  // one per buffer, in the program's buffer order
  int64_t totalBytes = 0;       // a multiple of kLineBytes
  int64_t lines() const { return totalBytes / kLineBytes; }
};

MemoryMap layoutMemory(const lower::Program& prog);

/// `n` bytes of the poison pattern of `seed`: SplitMix64 bytes with the low bit set, so
/// that no poisoned byte is 0.
std::vector<uint8_t> poisonBytes(int64_t n, uint64_t seed);

/// The memory image: one text line per 512-bit line, 128 hex digits, byte 63 first.
/// `contents` gives the initial value of buffers by name (inputs and weights). Every
/// other byte (outputs, intermediates, the padding after each region) is poison from
/// `poisonSeed` (poisonBytes), so an element the design fails to write differs from any
/// value it should have written with high probability, and from 0 always.
/// Throws std::runtime_error when a tensor's width or shape is not its buffer's.
std::string memoryImage(const MemoryMap& map, const std::map<std::string, Tensor>& contents, uint64_t poisonSeed);

/// Parses a testbench dump ("<line> <128 hex digits>" per line) and extracts every buffer
/// whose role is Output. Throws std::runtime_error on a malformed dump or a missing line.
std::map<std::string, Tensor> readOutputs(const MemoryMap& map, const std::string& dump);

/// A C header with the base address, size and shape of every buffer, for host programs.
std::string cHeader(const MemoryMap& map, const std::string& design);

std::string roleName(lower::Role role);

}  // namespace skeleshare::vhdl
