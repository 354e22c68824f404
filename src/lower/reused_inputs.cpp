#include "skeleshare/lower/reused_inputs.h"

#include <cstdint>
#include <utility>

#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

namespace {

/// (unit, Read node) of every read of `buffer`, in schedule order.
std::vector<std::pair<size_t, uint32_t>> readsOf(const Program& prog, int buffer) {
  std::vector<std::pair<size_t, uint32_t>> reads;
  for (size_t u = 0; u < prog.units.size(); ++u)
    for (size_t i = 0; i < prog.units[u].nodes.size(); ++i) {
      const Node& n = prog.units[u].nodes[i];
      if (n.prim == Prim::Read && n.buffer == buffer) reads.push_back({u, static_cast<uint32_t>(i)});
    }
  return reads;
}

bool keepable(const Program& prog, int b) {
  const Buffer& buf = prog.buffers[b];
  if (buf.memory != Memory::OffChip || (buf.role != Role::Input && buf.role != Role::Weight)) return false;
  const auto reads = readsOf(prog, b);
  if (reads.size() < 2 || reads[1].first == reads[0].first) return false;
  // the first read must see every line once, in rising order, unmasked: what it reads is
  // then the buffer, line by line, and its copy is final line by line (so a later unit
  // beside it may read each line once written)
  const Node& read = prog.units[reads[0].first].nodes[reads[0].second];
  if (!read.addr.masks.empty() || read.type.streamSteps() * read.type.vectorLanes() != buf.elements()) return false;
  return writeLinesRise(read.addr, buf.bits / 8, read.type.vectorLanes());
}

}  // namespace

std::vector<int> reusedInputs(const Program& prog) {
  std::vector<int> kept;
  for (size_t b = 0; b < prog.buffers.size(); ++b)
    if (keepable(prog, static_cast<int>(b))) kept.push_back(static_cast<int>(b));
  return kept;
}

void keepOnChip(Program& prog, int buffer) {
  const Buffer buf = prog.buffers.at(buffer);
  const auto reads = readsOf(prog, buffer);
  prog.buffers.push_back({buf.name + "_kept", buf.bits, buf.shape, Memory::OnChip, Role::Intermediate});
  const int copy = static_cast<int>(prog.buffers.size() - 1);
  const auto [first, readNode] = reads.at(0);
  const AddrGen addr = prog.units[first].nodes[readNode].addr;
  UnitBuilder(prog, prog.units[first]).write(copy, addr, readNode);
  for (size_t r = 1; r < reads.size(); ++r) prog.units[reads[r].first].nodes[reads[r].second].buffer = copy;
}

}  // namespace skeleshare::lower
