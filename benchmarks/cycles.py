#!/usr/bin/env python3
"""Predicted, estimated and simulated cycles side by side, for every benchmark and budget
(issue 17, acceptance 3; docs/hardware.md, "Measured").

For each design: `skeleshare compile` gives the cost model's prediction (the extractor's
figure) and the lowering's estimate (the same cycle model counted on the lowered units);
`skeleshare sim` (where the design is small enough to simulate, or with --sim-all) gives
the cycles the RTL takes in GHDL, bit-exact against the interpreter, 25% memory wait
states. Beside them: the compute bound (MACs over the budget's multiplier lanes: no design
within the budget does better), the memory bound (every input, weight and output byte
crosses the one 512-bit port once, at the device's sustained lines per cycle) and the
compiler's layer bound (report.json's layer_bound_cycles: layer by layer the longer of its
compute and its weights' traffic, for the design's DSP blocks; docs/cost-model.md, "Bounds").

usage: benchmarks/cycles.py [--quick] [--sim-all] [--no-sim] [--only NAME,...]
                            [--out DIR] [--skeleshare PATH] [--jobs N]
Writes OUT/cycles.md and OUT/cycles.json (OUT defaults to results/).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, program, compile flags, simulate by default)
DESIGNS = [
    ("stencil4_small @1518", "benchmarks/small/stencil4_small.dsl", ["--dsp-budget", "1518"], True),
    ("stencil4_small @8", "benchmarks/small/stencil4_small.dsl", ["--dsp-budget", "8"], True),
    ("self_attention_small @400", "benchmarks/small/self_attention_small.dsl", ["--dsp-budget", "400"], True),
    ("self_attention_small @8", "benchmarks/small/self_attention_small.dsl", ["--dsp-budget", "8"], True),
    ("vgg_cifar_small @512", "benchmarks/small/vgg_cifar_small.dsl", ["--dsp-budget", "512"], True),
    ("vgg_cifar_small @256", "benchmarks/small/vgg_cifar_small.dsl", ["--dsp-budget", "256"], True),
    ("tinyyolo_v2_small @1024", "benchmarks/small/tinyyolo_v2_small.dsl",
     ["--dsp-budget", "1024", "--max-conv-units", "16", "--effort", "30000000"], True),
    ("tinyyolo_v2_small @512", "benchmarks/small/tinyyolo_v2_small.dsl",
     ["--dsp-budget", "512", "--max-conv-units", "16", "--effort", "30000000"], True),
    ("tinyyolo_v2_full_small (as written)", "benchmarks/small/tinyyolo_v2_full_small.dsl", ["--as-written"], True),
    ("conv_chain @1518", "benchmarks/shapes/conv_chain.dsl", ["--dsp-budget", "1518"], True),
    ("conv_chain @64", "benchmarks/shapes/conv_chain.dsl", ["--dsp-budget", "64"], True),
    ("mlp @1518", "benchmarks/shapes/mlp.dsl", ["--dsp-budget", "1518"], True),
    ("mlp @32", "benchmarks/shapes/mlp.dsl", ["--dsp-budget", "32"], True),
    ("filter_pair @1518", "benchmarks/shapes/filter_pair.dsl", ["--dsp-budget", "1518", "--max-conv-units", "2"], True),
    ("filter_pair @64", "benchmarks/shapes/filter_pair.dsl", ["--dsp-budget", "64", "--max-conv-units", "2"], True),
    ("attention_small @1518", "benchmarks/shapes/attention_small.dsl", ["--dsp-budget", "1518"], True),
    ("attention_small @64", "benchmarks/shapes/attention_small.dsl", ["--dsp-budget", "64"], True),
    ("stencil4 @1518", "benchmarks/stencil4.dsl", ["--dsp-budget", "1518"], True),
    ("stencil4 @192", "benchmarks/stencil4.dsl", ["--dsp-budget", "192"], True),
    ("self_attention @1024", "benchmarks/self_attention.dsl", ["--dsp-budget", "1024"], True),
    ("self_attention @1518", "benchmarks/self_attention.dsl", ["--dsp-budget", "1518"], True),
    ("vgg_cifar @1/4", "benchmarks/vgg_cifar.dsl", ["--dsp-fraction", "0.25"], False),
    ("vgg_cifar @1/2", "benchmarks/vgg_cifar.dsl", ["--dsp-fraction", "0.5"], False),
    ("vgg_cifar @full", "benchmarks/vgg_cifar.dsl", [], False),
    ("tinyyolo_v2 @1/4", "benchmarks/tinyyolo_v2.dsl", ["--dsp-fraction", "0.25"], False),
    ("tinyyolo_v2 @1/2", "benchmarks/tinyyolo_v2.dsl", ["--dsp-fraction", "0.5"], False),
    ("tinyyolo_v2 @full", "benchmarks/tinyyolo_v2.dsl", [], False),
]
QUICK = {n for n, _, _, sim in DESIGNS if "small" in n or n.split()[0] in ("conv_chain", "mlp", "filter_pair")}


def default_tool():
    for b in ("build-release", "build"):
        p = os.path.join(ROOT, b, "src", "skeleshare")
        if os.path.exists(p):
            return p
    return os.path.join(ROOT, "build", "src", "skeleshare")


def device():
    with open(os.path.join(ROOT, "rules", "devices", "arria10_gx1150.json")) as f:
        return json.load(f)


def run(cmd):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return p, time.time() - t0


def gops(macs, cycles, mhz):
    return macs * 2 * mhz / 1000.0 / cycles if cycles else None


def measure(tool, name, prog, flags, simulate, out, dev):
    d = os.path.join(out, "runs", name.replace(" ", "_").replace("@", "at").replace("/", "_").replace("(", "").replace(")", ""))
    os.makedirs(d, exist_ok=True)
    row = {"name": name, "program": prog, "flags": flags}
    if simulate:
        p, secs = run([tool, "sim", prog, *flags, "--seed", "3", "--json", "-q", "-o", d])
        row["sim_seconds"] = round(secs, 1)
        if p.returncode not in (0, 4):
            row["error"] = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["failed"]
            return row
        j = json.loads(p.stdout)
        row["result"] = j["result"]
        row["simulated"] = j["simulated_cycles"] if j["result"] == "PASS" else None
    else:
        p, secs = run([tool, "compile", prog, *flags, "-q", "-o", d])
        row["compile_seconds"] = round(secs, 1)
        if p.returncode != 0:
            row["error"] = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["failed"]
            return row
    with open(os.path.join(d, "report.json")) as f:
        rep = json.load(f)
    row["macs"] = rep.get("macs")
    row["dsps"] = rep.get("lowered_dsps") or rep.get("hardware", {}).get("dsps")
    row["budget"] = rep.get("dsp_budget")
    row["predicted"] = rep.get("predicted_cycles")
    row["estimated"] = rep.get("estimated_cycles") or rep.get("hardware", {}).get("estimated_cycles")
    # i8 x i8 products per DSP block: the device's best mode for 8-bit operands
    per_block = max((m["products"] for m in dev.get("dsp_modes", []) if min(m["max_bits"]) >= 8), default=1)
    lanes = (rep.get("dsp_budget") or dev["dsp_blocks"]) * per_block
    if row["macs"]:
        row["compute_bound"] = math.ceil(row["macs"] / lanes)
    moved = sum(b["bytes"] for b in rep["memory_map"]["buffers"] if b["role"] != "intermediate")
    row["memory_bound"] = math.ceil(moved / 64 / dev["memory_lines_per_cycle"])
    row["layer_bound"] = rep.get("layer_bound_cycles")
    return row


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def fmt(n):
    return f"{n:,}" if isinstance(n, int) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the small designs only")
    ap.add_argument("--sim-all", action="store_true", help="simulate the full VGG and TinyYolo designs too (hours)")
    ap.add_argument("--no-sim", action="store_true", help="compile only: no simulated column")
    ap.add_argument("--only", help="comma-separated names (prefixes)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    ap.add_argument("--skeleshare", default=default_tool())
    ap.add_argument("--jobs", type=int, default=1, help="designs measured at once")
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)  # the tool runs in the source tree
    dev = device()
    selected = []  # (name, program, flags, simulate) of each design to measure
    for name, prog, flags, sim in DESIGNS:
        if a.quick and name not in QUICK:
            continue
        if a.only and not any(name.startswith(o.strip()) for o in a.only.split(",")):
            continue
        selected.append((name, prog, flags, (sim or a.sim_all) and not a.no_sim))
    os.makedirs(a.out, exist_ok=True)
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        rows = list(ex.map(lambda t: measure(a.skeleshare, *t, a.out, dev), selected))
    mhz = dev["clock_mhz"]
    lines = ["| design | DSP blocks | predicted | estimated | simulated | sim / pred | sim / est | est / pred |"
             " compute bound | memory bound | layer bound | GOPS pred / est / sim |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | {' '.join(r['error'])} ||||||||||")
            continue
        g = [gops(r["macs"], r.get(k), mhz) if r.get("macs") else None for k in ("predicted", "estimated", "simulated")]
        gs = " / ".join(f"{x:.1f}" if x else "-" for x in g)
        lines.append(f"| {r['name']} | {fmt(r.get('dsps'))} | {fmt(r.get('predicted'))} | {fmt(r.get('estimated'))} | "
                     f"{fmt(r.get('simulated'))} | {ratio(r.get('simulated'), r.get('predicted'))} | "
                     f"{ratio(r.get('simulated'), r.get('estimated'))} | {ratio(r.get('estimated'), r.get('predicted'))} | "
                     f"{fmt(r.get('compute_bound'))} | {fmt(r.get('memory_bound'))} | {fmt(r.get('layer_bound'))} | {gs} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "cycles.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "cycles.json"), "w") as f:
        json.dump(rows, f, indent=2)
    print(text)


if __name__ == "__main__":
    main()
