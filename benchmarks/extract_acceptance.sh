#!/usr/bin/env bash
# The extractor's acceptance runs (issue 4): VGG-CIFAR at the full budget, its ablations
# (no sharing, no padding, no tiling, single abstraction), 1/4 and 1/2 of the DSPs, and
# TinyYolo v2, self-attention and the stencil at the full budget, the stencil also at 1/4
# of its unshared design's DSPs, and experiment 14 (single abstraction) at the full and
# the half budget. Writes one directory per run under $OUT and a summary table on stdout.
# The extraction is bounded by compile's default effort (deterministic); TIMEOUT_SECONDS
# (default 0 = none) adds a wall-clock safety limit.
#   benchmarks/extract_acceptance.sh [BUILD_DIR] [TIMEOUT_SECONDS]
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build-extract}"
TIMEOUT="${2:-0}"
OUT="${OUT:-$ROOT/build-extract/acceptance}"
TOOL="$BUILD/src/skeleshare"
mkdir -p "$OUT"

run() {  # name file flags...
  local name="$1" file="$2"
  shift 2
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f "%U" -o "$OUT/$name.user" \
    "$TOOL" compile "$ROOT/$file" -o "$OUT/$name" --timeout "$TIMEOUT" --quiet "$@" 2>"$OUT/$name.stderr"
  local rc=$?
  end=$(date +%s.%N)
  /usr/bin/python3 - "$OUT/$name/report.json" "$name" "$rc" "$start" "$end" "$OUT/$name.user" <<'PY'
import json, sys
path, name, rc, start, end, userfile = sys.argv[1:]
try:
    user = float(open(userfile).read().split()[-1])
except Exception:
    user = float("nan")
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name:24} rc={rc} {r['status']:12} budget={f('dsp_budget'):>5} dsp={f('dsp_used'):>5} "
      f"cycles={f('predicted_cycles'):>9} gops={f('predicted_gops'):>6} dspbound={f('dsp_bound_cycles'):>9} "
      f"optimal={r['optimal']} lb={r['lower_bound_cycles']} greedy={g.get('predicted_cycles')} "
      f"enodes={r['enodes']} eclasses={r['eclasses']} sat={f('saturation_seconds')}s "
      f"extract={f('extraction_seconds')}s best@{f('seconds_to_best')}s wall={float(end)-float(start):.1f}s "
      f"user={user:.1f}s shared={len(r['shared'])}  {r['message'] if r['status'] != 'ok' else ''}")
PY
}

run vgg_full benchmarks/vgg_cifar.dsl
run vgg_no_sharing benchmarks/vgg_cifar.dsl --no-sharing
run vgg_no_padding benchmarks/vgg_cifar.dsl --disable padding
run vgg_no_tiling benchmarks/vgg_cifar.dsl --disable tiling
run vgg_single_abstraction benchmarks/vgg_cifar.dsl --single-abstraction
run vgg_half_single benchmarks/vgg_cifar.dsl --dsp-fraction 0.5 --single-abstraction
run vgg_quarter benchmarks/vgg_cifar.dsl --dsp-fraction 0.25
run vgg_half benchmarks/vgg_cifar.dsl --dsp-fraction 0.5
run tinyyolo benchmarks/tinyyolo_v2.dsl
run self_attention benchmarks/self_attention.dsl
run stencil benchmarks/stencil4.dsl
run stencil_unshared benchmarks/stencil4.dsl --no-sharing
UNSHARED=$(/usr/bin/python3 -c "import json;r=json.load(open('$OUT/stencil_unshared/report.json'));print(r['dsp_used'] or 0)")
run stencil_quarter benchmarks/stencil4.dsl --dsp-budget $(( UNSHARED / 4 ))
