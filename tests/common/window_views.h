#pragma once
// Address-generator views that tests of several stages build alike.

#include <cstdint>
#include <vector>

#include "skeleshare/lower/addrgen.h"

namespace skeleshare::test_support {

/// A convolution's zero-padded window over an input [rows][cols][3], the 3x3x3 window of
/// every output position flattened and padded with lanes of `tailFill` to 64, as a dot
/// reads it one window per step: counters [rows][cols][64], the last a vector.
inline lower::AddrGen paddedWindow(int64_t rows, int64_t cols, int32_t tailFill) {
  lower::AddrGen g = lower::AddrGen::identity({rows, cols, 3});
  g.pad(0, 1, 1, 0);
  g.pad(1, 1, 1, 0);
  g.slide(0, 3, 1);
  g.slide(2, 3, 1);
  g.transpose(1, 2);
  g.flatten(2);
  g.flatten(2);  // [rows][cols][27]
  g.pad(2, 0, 64 - 27, tailFill);
  g.counters[2].kind = lower::DimKind::Vector;
  return g;
}

/// paddedWindow's 64 lanes split as a partial dot's [16 chunks][4 lanes] over the same
/// flattened window (lane 4*chunk + l): the same elements in the same order.
inline lower::AddrGen paddedWindowInChunks(int64_t rows, int64_t cols, int32_t tailFill) {
  lower::AddrGen g = paddedWindow(rows, cols, tailFill);
  std::vector<lower::Affine> values;
  for (size_t i = 0; i < g.groups.size(); ++i) values.push_back(g.groups[i].value);
  values[2].coef = {0, 0, 4, 1};  // the window index: 4*chunk + lane
  values[0].coef.resize(4, 0);
  values[1].coef.resize(4, 0);
  g.regroup({{rows, lower::DimKind::Stream}, {cols, lower::DimKind::Stream}, {16, lower::DimKind::Vector},
             {4, lower::DimKind::Vector}},
            values);
  return g;
}

}  // namespace skeleshare::test_support
