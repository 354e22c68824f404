#pragma once
// Small helpers of the VHDL writers: generic values and template files.

#include <cstdint>
#include <string>
#include <map>
#include <set>
#include <vector>

#include "skeleshare/lower/mir.h"
#include "skeleshare/vhdl/memory_map.h"

namespace skeleshare::vhdl::detail {

/// An integer_vector aggregate: "(0 => 5)" for one value, "(1, 2, 3)" otherwise; at least
/// one value (callers pad empty lists). Throws EmitError past the 32-bit integer range.
std::string intVector(const std::vector<int64_t>& values);
/// A 32-bit VHDL integer literal, checked.
std::string intLiteral(int64_t v);

/// An ss_replay_ram instance `name` of `words` words of `width` bits, its ports the
/// signals `name`_we, _waddr, _wdata, _re, _raddr and its read data to `rdata`; sliced as
/// lower::replayRamSliceWidth says. Written in `beats` beats (> 1: also its port
/// `name`_wmask).
std::string replayRamInstance(const std::string& name, int64_t width, int64_t words, const std::string& rdata,
                              int64_t beats = 1);

/// The contents of templateDir/name; throws std::runtime_error when it cannot be read.
std::string readTemplate(const std::string& templateDir, const std::string& name);

/// The templates every design uses, in compile order (ss_pkg first).
const std::vector<std::string>& designTemplates();

/// One generated unit entity.
struct EmittedUnit {
  std::string entity;
  std::string text;
  std::vector<bool> portIsWrite;  // per line port, in port order
  std::vector<int> portBuffer;    // the buffer each line port accesses
  /// The line ports that read an on-chip buffer, in port order: the k-th gets its lines on
  /// slice k of the unit's `l_odata` input (the others share `l_rdata`, the arbiter's).
  std::vector<size_t> onChipReads;
  int64_t dspLanes = 0;
};

/// What one generated entity contains: a subset of a unit's nodes, with streams entering
/// and leaving through ports. A plain unit emits all its nodes and has the memory ports;
/// a call unit emits its call site (the datapath comes in and goes out through ports to
/// the shared instance); an instance emits a datapath (its ports are its operands).
struct EntitySpec {
  std::string entity;
  std::string comment;
  std::vector<bool> emit;                                // per node of the unit
  std::map<uint32_t, std::string> sources;               // node outside the entity -> input port prefix
  std::vector<std::pair<uint32_t, std::string>> sinks;   // node -> output port prefix
  std::map<uint32_t, std::string> lenInputs;             // ReduceStm node -> its runtime length input
  std::map<uint32_t, int64_t> maxLen;                    // ReduceStm node -> the largest length of any call
  std::vector<std::pair<std::string, int64_t>> lenOutputs;  // output port -> constant length of this call
  std::map<uint32_t, std::string> replayPorts;           // Repeat node -> port prefix of its RAM (the top's pool)
  /// Pooled Repeats written in beats (lower::ReplayPool::beatsOf, only those whose RAM has
  /// more than one): the beats it writes and its RAM's. Its Read delivers a beat per vector.
  std::map<uint32_t, std::pair<int64_t, int64_t>> replayBeats;
  /// Sinks whose data is the read data of a replay-pool RAM (through splits and joins):
  /// their ports carry valid and ready only, and the top takes the data from the RAM.
  std::set<uint32_t> sinksFromPool;
  // Units that run at the same time (lower/overlap.h): a Read that waits for the lines its
  // writer in the unit before has written (ss_read GATED), and the input port of that
  // writer's progress; a Write whose progress such a read follows, and its output port.
  std::map<uint32_t, std::string> gatedReads;
  std::map<uint32_t, std::string> progressOutputs;
  bool memory = true;                                    // line ports and done
};

EmittedUnit emitEntity(const MemoryMap& map, const lower::Unit& unit, EntitySpec spec);

}  // namespace skeleshare::vhdl::detail
