#!/usr/bin/env bash
# Builds and runs the e-graph stress benchmark (benchmarks/egraph_stress/main.cpp).
# Usage: benchmarks/egraph_stress.sh [addac|halve|all] [maxNodes] [maxSeconds]
# Environment: BUILD_DIR (default build-egraph-bench, a RelWithDebInfo build of the
# libraries), CXX (default c++). Extra: PROFILE=callgrind runs it under callgrind.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-egraph-bench}"
CXX="${CXX:-c++}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C "$BUILD_DIR" skeleshare_egraph >/dev/null
BIN="$BUILD_DIR/egraph_stress"
"$CXX" -std=c++20 -O2 -g -DNDEBUG -Wall -Wextra -I"$ROOT/include" \
  "$ROOT/benchmarks/egraph_stress/main.cpp" \
  "$BUILD_DIR/src/libskeleshare_egraph.a" "$BUILD_DIR/src/libskeleshare_ir.a" \
  "$BUILD_DIR/src/libskeleshare_support.a" -lfmt -o "$BIN"
if [ "${PROFILE:-}" = callgrind ]; then
  exec valgrind --tool=callgrind --callgrind-out-file="$BUILD_DIR/callgrind.out" "$BIN" "$@"
fi
exec "$BIN" "$@"
