#!/usr/bin/env python3
"""Compile time on variants of the benchmarks (issue "The whole DSL reaches hardware, in
bounded time", acceptance 2): does the default `compile` finish every program like ours
in at most a minute, with a design (exit 0) or a reason (exit 3)?

Each variant is one of the four Table III programs with one change drawn from a fixed
seed: other tap counts (the stencil's four filters, the convolutions' kernel size), other
channel counts (per block of VGG-CIFAR, per layer of TinyYolo v2, the attention's
sequence length and width), or an extra layer (a convolution, a stencil stage, a
projection). Every variant is compiled with the default flags at 1/4 and at the full DSP
budget; the wall time of each compile (the whole command: saturation, problem, extraction,
lowering, VHDL) is measured here.

usage: benchmarks/variants.py [--count N] [--seed S] [--jobs J] [--out DIR]
                              [--skeleshare PATH] [--limit SECONDS]
Writes OUT/variants.md (the time distribution, exits, proven optimal) and OUT/variants.json
(one record per compile); the programs are in OUT/programs/. OUT defaults to
results/variants. Exit status 1 when a compile exits other than 0 or 3 or takes longer than
--limit (default 60 s).
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETS = ["0.25", "1"]


# --- the four families ----------------------------------------------------------------

def vgg(rng, change):
    """VGG-CIFAR: five blocks of 3x3 convolutions (2, 2, 3, 3, 3) and 2x2 max-pools, one fc."""
    blocks = [[64, 64], [128, 128], [256, 256, 256], [512, 512, 512], [512, 512, 512]]
    k = 3
    what = ""
    if change == "channels":
        factors = [rng.choice([0.25, 0.5, 0.75, 1.0, 1.25]) for _ in blocks]
        blocks = [[max(1, int(c * f)) for c in b] for b, f in zip(blocks, factors)]
        what = "block channels " + "/".join(str(b[0]) for b in blocks)
    elif change == "taps":
        k = rng.choice([1, 5])
        what = f"{k}x{k} kernels"
    else:
        b = rng.randrange(len(blocks))
        blocks[b].append(blocks[b][-1])
        what = f"extra conv in block {b + 1}"
    lines = ["input image : i8[32][32][3];"]
    body, prev, n, cin = [], "image", 0, 3
    for bi, b in enumerate(blocks):
        for c in b:
            n += 1
            lines.append(f"weight w{n} : i8[{c}][{k}][{k}][{cin}];")
            src = f"pad({prev}, {k // 2})" if k > 1 else prev
            body.append(f"let c{n} = relu(requant(conv({src}, w{n}), 7));")
            prev, cin = f"c{n}", c
        body.append(f"let p{bi + 1} = maxpool({prev}, 2);")
        prev = f"p{bi + 1}"
    lines.append(f"weight fc : i8[10][{cin}];")
    body.append(f"output logits = mv(fc, flatten({prev}));")
    return what, lines + body


def tinyyolo(rng, change):
    """TinyYolo v2: seven 3x3 convolutions with max-pools, a 125-channel head."""
    chans = [16, 32, 64, 128, 256, 512, 1024]
    size = 416
    extra = None
    what = ""
    if change == "channels":
        f = rng.choice([0.5, 0.75, 1.25])
        chans = [max(4, int(c * f)) for c in chans]
        size = rng.choice([208, 416])
        what = f"channels x{f}, {size}x{size} input"
    elif change == "taps":
        size = rng.choice([208, 320, 416])
        what = f"{size}x{size} input"
    else:
        extra = rng.randrange(len(chans))
        what = f"extra conv after layer {extra + 1}"
    lines = [f"input image : i8[{size}][{size}][3];"]
    body, prev, cin, n, h = [], "image", 3, 0, size
    for i, c in enumerate(chans):
        layers = [c, c] if extra == i else [c]
        for cc in layers:
            n += 1
            lines.append(f"weight w{n} : i8[{cc}][3][3][{cin}];")
            body.append(f"let c{n} = leaky_relu(requant(conv(pad({prev}, 1), w{n}), 7), 3);")
            prev, cin = f"c{n}", cc
        if i < 5:
            body.append(f"let p{i + 1} = maxpool({prev}, 2);")
            prev = f"p{i + 1}"
            h //= 2
        elif i == 5:
            body.append(f"let p6 = maxpool(pad({prev}, 0, 1, 0, 1, fill=-128), 2, 1);")
            prev = "p6"
    lines.append(f"weight head : i8[125][3][3][{cin}];")
    body.append(f"output detections = conv(pad({prev}, 1), head);")
    return what, lines + body


def stencil(rng, change):
    """The 4-stage stencil: conv1d along the width, the height, the width, the height."""
    taps = [3, 3, 3, 3]
    size = 64
    if change == "taps":
        taps = [rng.randint(2, 16) for _ in taps]
        what = "taps " + "/".join(map(str, taps))
    elif change == "channels":  # the stencil has no channels: other image sizes
        size = rng.choice([32, 48, 100, 128])
        what = f"{size}x{size} image"
    else:
        taps.append(rng.randint(2, 9))
        what = f"a fifth stage of {taps[-1]} taps"
    lines = [f"input image : i8[{size}][{size}];"]
    body, prev = [], "image"
    for i, t in enumerate(taps):
        lo, hi = (t - 1) // 2, t // 2
        lines.append(f"weight f{i + 1} : i8[{t}];")
        if i % 2 == 0:
            expr = f"conv1d_w(pad({prev}, 0, 0, {lo}, {hi}), f{i + 1})"
        else:
            expr = f"conv1d_h(pad({prev}, {lo}, {hi}, 0, 0), f{i + 1})"
        last = i == len(taps) - 1
        body.append(f"{'output' if last else 'let'} s{i + 1} = requant({expr}, 3);")
        prev = f"s{i + 1}"
    return what, lines + body


def attention(rng, change):
    """Self-attention: Q, K, V projections, scores, the weighted sum."""
    s, d = 64, 64
    extra = False
    if change in ("channels", "taps"):
        s, d = rng.choice([32, 48, 64, 96, 128]), rng.choice([32, 48, 64, 96, 128])
        what = f"S={s}, D={d}"
    else:
        extra = True
        what = "an output projection"
    lines = [f"input x : i8[{s}][{d}];"] + [f"weight w{n}_t : i8[{d}][{d}];" for n in "qkv"]
    body = ["let q = requant(mm(x, wq_t), 6);", "let k = requant(mm(x, wk_t), 6);",
            "let v = requant(mm(x, wv_t), 6);", "let a = relu(requant(mm(q, k), 9));"]
    if extra:
        lines.append(f"weight wo_t : i8[{d}][{d}];")
        body += ["let o = requant(mm(a, transpose(v)), 8);", "output out = requant(mm(o, wo_t), 7);"]
    else:
        body.append("output out = requant(mm(a, transpose(v)), 8);")
    return what, lines + body


FAMILIES = [("vgg_cifar", vgg), ("tinyyolo_v2", tinyyolo), ("stencil4", stencil), ("self_attention", attention)]
CHANGES = ["taps", "channels", "extra_layer"]


def variants(count, seed):
    rng = random.Random(seed)
    out = []
    for i in range(count):
        family, make = FAMILIES[i % len(FAMILIES)]
        change = CHANGES[(i // len(FAMILIES)) % len(CHANGES)]
        what, lines = make(rng, change)
        name = f"{family}_v{i:03d}"
        text = f"// {name}: {family} with {what} (benchmarks/variants.py, seed {seed})\n" + "\n".join(lines) + "\n"
        out.append({"name": name, "family": family, "change": change, "what": what, "text": text})
    return out


# --- running --------------------------------------------------------------------------

def compile_one(tool, program, out_dir, fraction, limit):
    cmd = [tool, "compile", program, "-o", out_dir, "--dsp-fraction", fraction, "-q"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=max(10 * limit, 600))
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = None, "killed after 10x the limit"
    seconds = time.monotonic() - t0
    rec = {"fraction": fraction, "exit": rc, "seconds": round(seconds, 2), "message": err.strip().splitlines()[-1] if err.strip() else ""}
    try:
        with open(os.path.join(out_dir, "report.json")) as f:
            r = json.load(f)
        rec.update({k: r.get(k) for k in ("status", "predicted_cycles", "lower_bound_cycles", "optimal", "stopped_by",
                                          "effort_spent", "saturation_seconds", "extraction_seconds", "enodes")})
        rec["effort"] = r.get("effort")
    except (OSError, ValueError):
        pass
    return rec


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "variants"))
    ap.add_argument("--skeleshare", default=os.path.join(ROOT, "build", "src", "skeleshare"))
    ap.add_argument("--limit", type=float, default=60.0)
    args = ap.parse_args()
    if not os.access(args.skeleshare, os.X_OK):
        sys.exit(f"variants.py: {args.skeleshare} is not an executable (build first, or pass --skeleshare)")
    progs = os.path.join(args.out, "programs")
    os.makedirs(progs, exist_ok=True)
    vs = variants(args.count, args.seed)
    jobs = []
    for v in vs:
        path = os.path.join(progs, v["name"] + ".dsl")
        with open(path, "w") as f:
            f.write(v["text"])
        for fr in BUDGETS:
            jobs.append((v, path, fr))

    def run(job):
        v, path, fr = job
        rec = compile_one(args.skeleshare, path, os.path.join(args.out, "designs", f"{v['name']}@{fr}"), fr, args.limit)
        rec.update({k: v[k] for k in ("name", "family", "change", "what")})
        print(f"{rec['name']} @{fr}: exit {rec['exit']}, {rec['seconds']:.1f} s, {rec.get('status')}", file=sys.stderr,
              flush=True)
        return rec

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        recs = list(pool.map(run, jobs))
    wall = time.monotonic() - t0
    with open(os.path.join(args.out, "variants.json"), "w") as f:
        json.dump({"seed": args.seed, "count": args.count, "jobs": args.jobs, "wall_seconds": round(wall, 1),
                   "compiles": recs}, f, indent=1)

    bad = [r for r in recs if r["exit"] not in (0, 3) or r["seconds"] > args.limit]
    secs = [r["seconds"] for r in recs]
    md = [f"# Compile time on {args.count} benchmark variants (seed {args.seed})", "",
          f"{len(recs)} compiles (each variant at --dsp-fraction {' and '.join(BUDGETS)}), default effort, "
          f"{args.jobs} at a time; {wall:.0f} s in all.", "",
          "| family | compiles | exit 0 | exit 3 | other | optimal | min s | median s | p90 s | max s |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for fam in [f for f, _ in FAMILIES] + ["all"]:
        rs = [r for r in recs if fam == "all" or r["family"] == fam]
        if not rs:
            continue
        s = [r["seconds"] for r in rs]
        md.append(f"| {fam} | {len(rs)} | {sum(r['exit'] == 0 for r in rs)} | {sum(r['exit'] == 3 for r in rs)} | "
                  f"{sum(r['exit'] not in (0, 3) for r in rs)} | {sum(bool(r.get('optimal')) for r in rs)} | "
                  f"{min(s):.1f} | {statistics.median(s):.1f} | {percentile(s, 0.9):.1f} | {max(s):.1f} |")
    gaps = [(r["predicted_cycles"] - r["lower_bound_cycles"]) / r["predicted_cycles"] for r in recs
            if r["exit"] == 0 and not r.get("optimal") and r.get("predicted_cycles") and r.get("lower_bound_cycles")]
    md += ["", f"Time distribution: {sum(x <= 1 for x in secs)} at most 1 s, {sum(1 < x <= 10 for x in secs)} in (1, 10] s, "
           f"{sum(10 < x <= 30 for x in secs)} in (10, 30] s, {sum(30 < x <= args.limit for x in secs)} in (30, {args.limit:g}] s, "
           f"{sum(x > args.limit for x in secs)} over {args.limit:g} s."]
    if gaps:
        md.append(f"Designs not proven optimal: {len(gaps)}; gap to the lower bound median {100 * statistics.median(gaps):.2f}%, "
                  f"max {100 * max(gaps):.2f}%.")
    threes = sorted({r["message"] for r in recs if r["exit"] == 3})
    if threes:
        md += ["", "Exit 3 messages:", ""] + [f"- {m}" for m in threes]
    if bad:
        md += ["", "Failures (exit other than 0 or 3, or over the limit):", ""]
        md += [f"- {r['name']} ({r['what']}) @{r['fraction']}: exit {r['exit']}, {r['seconds']} s: {r['message']}" for r in bad]
    with open(os.path.join(args.out, "variants.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
