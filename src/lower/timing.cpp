// The cycle model applied to lowered units (docs/cost-model.md, "The hardware's cycles"): what each
// node keeps busy, and how deep the pipeline is. Every template takes one transfer per
// cycle and registers its output; a Read or Write takes one run per cycle; a Repeat takes
// the next block while it plays the current one (two banks).

#include "skeleshare/lower/timing.h"

#include <algorithm>
#include <map>

#include "skeleshare/lower/line_rams.h"
#include "skeleshare/lower/overlap.h"
#include "skeleshare/lower/runs.h"

namespace skeleshare::lower {

namespace {

/// Registered stages a template adds to the path through it. A Read: the request, the
/// arbiter's command register, the returned line's register, the line window and the
/// vector being assembled, which is also its output (the memory's own latency is the
/// device's); a Write: the line buffer, its output register and the arbiter's command
/// register.
constexpr int64_t kReadStages = 5;

int64_t stages(const Node& n) {
  switch (n.prim) {
    case Prim::Read: return kReadStages;
    case Prim::Write: return 3;
    case Prim::Repeat: return 2;  // written, then read back
    case Prim::Const:
    case Prim::SplitStm:
    case Prim::JoinStm:
    case Prim::SplitVec:
    case Prim::JoinVec:
    case Prim::Broadcast:
    case Prim::PermuteVec:
    case Prim::Slide:
    case Prim::SelectLanes: return 0;  // wires
    default: return 1;
  }
}

int elementBytes(const Program& prog, const Node& n) { return prog.buffers.at(static_cast<size_t>(n.buffer)).bits / 8; }

bool onChip(const Program& prog, const Node& n) {
  return prog.buffers.at(static_cast<size_t>(n.buffer)).memory == Memory::OnChip;
}

/// The cycles a Read keeps its stage busy: a run a cycle, and, from an on-chip buffer,
/// no faster than that buffer's port moves lines, one a cycle (ss_line_ram has one read
/// port). A run may take two lines (L and L + 1, docs/hardware.md "Runs"): self-attention's
/// last product reads transpose(V)'s 64 x 32 blocks in 64 runs of 128 lines, which its
/// replay buffer waited 128 cycles for (simulated 270 cycles, estimated 210 before).
/// Off-chip lines are the memory port's, which the unit's port term counts.
int64_t readBusy(const Program& prog, const Node& read, const AccessCount& a) {
  return onChip(prog, read) ? std::max(a.runs, a.lines) : a.runs;
}

/// Elements a read may have for firstStepAtLastLine to walk them (a quarter second at most).
constexpr int64_t kMaxWalkedElements = int64_t{1} << 20;

/// The first stream step of `read` at which it touches the last line of its buffer (the
/// lanes of a step are read together), or -1 when it never does or has more than
/// kMaxWalkedElements elements to walk. A read in the buffer's order touches it at its
/// end; a transposed one, whose every vector takes an element of every line, at once.
int64_t firstStepAtLastLine(const Program& prog, const Node& read) {
  const Buffer& b = prog.buffers.at(static_cast<size_t>(read.buffer));
  const AddrGen& g = read.addr;
  int64_t elements = 1;
  for (const Counter& c : g.counters) {
    if (c.extent <= 0) return -1;
    elements *= c.extent;
    if (elements > kMaxWalkedElements) return -1;
  }
  const int64_t lastLine = bufferLines(b) - 1;
  int64_t first = -1;
  forEachIndex(g.counters, [&](std::span<const int64_t> value, int64_t) {
    const Access a = g.at(value);
    if (!a.valid || a.address * b.bits / (kLineBytes * 8) < lastLine) return;
    int64_t step = 0;
    for (size_t c = 0; c < value.size(); ++c)
      if (g.counters[c].kind == DimKind::Stream) step = step * g.counters[c].extent + value[c];
    first = first < 0 ? step : std::min(first, step);
  });
  return first;
}

/// The words of a Repeat's block (its replayed dimensions) and its blocks.
std::pair<int64_t, int64_t> repeatBlocks(const Unit& unit, const Node& repeat) {
  const MType& in = unit.nodes[repeat.operands[0]].type;
  int64_t words = 1;
  for (size_t d = static_cast<size_t>(repeat.params[1]); d < in.numStreamDims(); ++d) words *= in.dims[d].extent;
  return {words, in.streamSteps() / words};
}

/// A replayed read fed by the unit before it: the replay's steps left when the read's
/// last line is written. The block holding it, and every block after it, is replayed
/// after it (a block is replayed once whole); 0 when no Repeat replays the read, or its
/// order is not known.
int64_t replayAfterLastLine(const Program& prog, const Unit& unit, uint32_t read) {
  for (const Node& node : unit.nodes) {
    if (node.prim != Prim::Repeat || node.operands[0] != read) continue;
    const int64_t first = firstStepAtLastLine(prog, unit.nodes[read]);
    if (first < 0) return 0;
    const auto [words, blocks] = repeatBlocks(unit, node);
    if (blocks <= 0) return 0;
    return (blocks - first / words) * (node.type.streamSteps() / blocks);
  }
  return 0;
}

}  // namespace

std::vector<bool> stallingStages(const Program& prog, const Unit& unit) {
  std::vector<bool> stalls(unit.nodes.size(), false);
  for (size_t i = 0; i < unit.nodes.size(); ++i) {
    const Node& node = unit.nodes[i];
    switch (node.prim) {
      case Prim::Read: stalls[i] = !onChip(prog, node); break;
      case Prim::Repeat:
        // Played twice or more, a block arrives in one bank while the other plays the
        // block before it: what follows waits for the block's first words, not for its lines.
        stalls[i] = node.params[0] < 2 && stalls[node.operands[0]];
        break;
      default:
        // An off-chip write waits for the port to take its lines.
        stalls[i] = node.prim == Prim::Write && !onChip(prog, node);
        for (uint32_t o : node.operands) stalls[i] = stalls[i] || stalls[o];
        break;
    }
  }
  return stalls;
}

cost::UnitLoad unitLoad(const Program& prog, const Unit& unit, AccessCounter& counts, const cost::MemorySystem& memory) {
  cost::UnitLoad load;
  const size_t n = unit.nodes.size();
  std::vector<int64_t> busy(n, 0), depth(n, 0);
  std::vector<int64_t> portLines(n, 0);  // a Read's lines over the memory port
  const std::vector<bool> stalls = stallingStages(prog, unit);
  // An intermediate kept on chip has a port of its own: its lines do not cross the memory's.
  std::map<int, int64_t> onChipLines;  // buffer -> lines this unit moves through its port
  auto addLines = [&](const Node& node, int64_t lines) {
    if (onChip(prog, node))
      onChipLines[node.buffer] += lines;
    else
      load.lines += lines;
  };
  for (size_t i = 0; i < n; ++i) {
    const Node& node = unit.nodes[i];
    int64_t upstream = 0, deepest = 0;
    for (uint32_t o : node.operands) {
      upstream = std::max(upstream, busy[o]);
      deepest = std::max(deepest, depth[o]);
    }
    depth[i] = deepest + stages(node);
    switch (node.prim) {
      case Prim::Read: {
        AccessCount a = counts.read(node.addr, elementBytes(prog, node), node.type.vectorLanes(), keptLines(node));
        busy[i] = readBusy(prog, node, a);
        addLines(node, a.lines);
        if (!onChip(prog, node)) portLines[i] = a.lines;
        break;
      }
      case Prim::Write: {
        const MType& in = unit.nodes[node.operands[0]].type;
        AccessCount a = counts.write(node.addr, elementBytes(prog, node), in.vectorLanes());
        busy[i] = std::max(upstream, a.runs);
        addLines(node, a.lines);
        break;
      }
      case Prim::Repeat: {
        // Double-buffered: a block arrives while the one before is replayed, so after the
        // first block the slower of the two sides sets the pace. The first block's passes
        // after the first wait for it to arrive: its input time (the upstream's per block,
        // or, read from memory, the port's time for its lines, whichever is longer) and
        // then the rest of the output, less the words the first pass already gave.
        // (VGG-CIFAR's 512-channel layers at a quarter of the DSPs: a block of 4,608
        // weight lines takes 6,583 cycles of the port and 4,752 runs; simulated, the layer
        // takes 61,548 cycles, its steps 55,296.)
        const MType& in = unit.nodes[node.operands[0]].type;
        const auto [words, blocks] = repeatBlocks(unit, node);
        const int64_t arrival = std::max({upstream, in.streamSteps(), cost::portCycles(portLines[node.operands[0]], memory)});
        const int64_t first = arrival / blocks;
        busy[i] = std::max(upstream, first + node.type.streamSteps() - words);
        load.replayFill = std::max(load.replayFill, first - words);
        break;
      }
      default:
        busy[i] = std::max(upstream, node.type.streamSteps());
        break;
    }
    load.busiest = std::max(load.busiest, busy[i]);
    if (stalls[i]) load.stalled = std::max(load.stalled, busy[i]);
    load.depth = std::max(load.depth, depth[i]);
  }
  for (const auto& [buffer, lines] : onChipLines) load.onChipLines = std::max(load.onChipLines, lines);
  return load;
}

int64_t freshReadRuns(const Program& prog, const Unit& unit, AccessCounter& counts) {
  std::vector<bool> replayed(unit.nodes.size(), false);
  for (const Node& node : unit.nodes)
    if (node.prim == Prim::Repeat) replayed[node.operands[0]] = true;
  int64_t runs = 0;
  for (size_t i = 0; i < unit.nodes.size(); ++i) {
    const Node& node = unit.nodes[i];
    if (node.prim == Prim::Read && !replayed[i])
      runs = std::max(runs, readBusy(prog, node, counts.read(node.addr, elementBytes(prog, node), node.type.vectorLanes(), keptLines(node))));
  }
  return runs;
}

int64_t drainCycles(const cost::UnitLoad& load, const cost::MemorySystem& memory) {
  return load.depth - kReadStages + memory.latency;
}

cost::OverlappingUnit overlapQuantities(const Unit& unit, const cost::UnitLoad& load, int64_t cycles,
                                        const cost::MemorySystem& memory) {
  cost::OverlappingUnit o;
  o.cycles = cycles;
  o.lead = load.replayFill + kReadStages + memory.latency;
  o.fill = load.replayFill;
  // a call's steps: one per result of its instance
  o.steps = unit.call ? unit.nodes.at(unit.call->datapath.back()).type.streamSteps() : 0;
  o.drain = drainCycles(load, memory);
  o.port = cost::portCycles(load.lines, memory);
  o.portTail = load.depth + memory.latency;
  o.stalled = load.stalled;
  return o;
}

FedTail fedTail(const Program& prog, const Unit& unit, const std::vector<uint32_t>& reads, const cost::UnitLoad& load,
                const cost::MemorySystem& memory) {
  int64_t fedLines = 0, fedLatency = 0, replayLeft = 0;
  for (uint32_t read : reads) {
    const Buffer& b = prog.buffers.at(static_cast<size_t>(unit.nodes.at(read).buffer));
    fedLines = fedLines == 0 ? bufferLines(b) : std::min(fedLines, bufferLines(b));
    if (b.memory == Memory::OffChip) fedLatency = memory.latency;
    replayLeft = std::max(replayLeft, replayAfterLastLine(prog, unit, read));
  }
  if (fedLines == 0) return {};
  return {fedLines, std::max((load.busiest + fedLines - 1) / fedLines, replayLeft), load.depth + fedLatency};
}

CycleEstimate estimateCycles(const Program& prog, const cost::MemorySystem& memory) {
  AccessCounter counts;
  return estimateCycles(prog, memory, counts);
}

CycleEstimate estimateCycles(const Program& prog, const cost::MemorySystem& memory, AccessCounter& counts) {
  CycleEstimate e;
  // Each unit's start and end: one after another, a switch between them, except a unit
  // that starts with the one before it (lower/overlap.h), once every unit before that one
  // has ended (cost::overlappedEnd).
  std::vector<int64_t>& start = e.start;
  std::vector<int64_t>& end = e.end;
  // per unit: when its instance has taken all its steps, and the port all its lines, at
  // the earliest
  std::vector<int64_t> taken, ported;
  for (size_t i = 0; i < prog.units.size(); ++i) {
    const Unit& u = prog.units[i];
    e.loads.push_back(unitLoad(prog, u, counts, memory));
    e.perUnit.push_back(cost::unitCycles(e.loads.back(), memory));
    const int64_t cycles = e.perUnit.back();
    const cost::UnitLoad& load = e.loads.back();
    e.oneAfterAnother += cycles + cost::kUnitSwitch;
    cost::OverlappingUnit unit = overlapQuantities(u, load, cycles, memory);
    if (prog.firstShared(i) == i) {
      unit.start = i == 0 ? 0 : end.back() + cost::kUnitSwitch;
      start.push_back(unit.start);
      end.push_back(unit.start + cycles);
      taken.push_back(cost::stepsTaken(unit, {}));
      ported.push_back(cost::portDone(unit, {}));
      continue;
    }
    unit.start = std::max(start[i - 1], i >= 2 ? end[i - 2] + cost::kUnitSwitch : 0);
    const Unit& prev = prog.units[i - 1];
    const bool handover = u.call && prev.call && u.call->instance == prev.call->instance;
    cost::Neighbour prevUnit;
    prevUnit.end = end[i - 1];
    // Fed by the neighbour, the unit's last inputs wait for its last line (fedTail).
    std::vector<uint32_t> fed;
    for (const auto& [read, write] : gatedReads(prog, i)) fed.push_back(read);
    prevUnit.feeds = !fed.empty();
    unit.tail = fedTail(prog, u, fed, load, memory).cycles();
    prevUnit.sharesInstance = handover;
    // handed over stream by stream, the instance is free once the neighbour's last input
    // is in: its stages after the reads and the memory's latency are left
    if (handsOverStreams(prog, i)) prevUnit.drain = drainCycles(e.loads[i - 1], memory);
    // interleaved step by step, the unit takes the steps its neighbour leaves free
    prevUnit.interleaves = interleavesSteps(prog, i);
    prevUnit.stepsTaken = taken[i - 1];
    prevUnit.portDone = ported[i - 1];
    start.push_back(unit.start);
    end.push_back(cost::overlappedEnd(unit, prevUnit));
    taken.push_back(cost::stepsTaken(unit, prevUnit));
    ported.push_back(cost::portDone(unit, prevUnit));
  }
  for (size_t i = 0; i < end.size(); ++i) e.total = std::max(e.total, end[i] + cost::kUnitSwitch);
  return e;
}

}  // namespace skeleshare::lower
