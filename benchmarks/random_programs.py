#!/usr/bin/env python3
"""Random well-typed DSL programs through the whole compiler (issue "Every well-typed program
gets a working design"): the property that every program either gets a design that
evaluates like the source and lowers, or an exit 3 that names the constraint.

The generator draws small programs of four kinds, with odd and prime sizes among the
shapes: convolution networks (chains, and DAGs where a skip connection adds two layers'
results; convolutions of kernel 1, 2, 3 or 5 with or without padding, max-pools of
several sizes and strides, requant, relu, leaky_relu, bias, and a flatten + mv head),
MLPs (mv chains), matrix programs (mm, transpose, element-wise operators, a row maximum
by map/reduce) and stencils (conv1d_w / conv1d_h with random taps and padding).

Each program is compiled twice with `compile --check-eval` (the source, the extracted
design and the lowered program evaluated on random inputs and compared bit for bit): at
a random DSP budget and at the full budget with the default one convolution unit.
Outcomes: `design` (exit 0), `no design` (exit 3, with its message), `mismatch` (exit 4),
`failed` (exit 1: a stage after extraction failed, or the program was rejected), `crash`
(anything else). With --sim N, the first N programs with a design are also simulated in
GHDL (`skeleshare sim`, bit-exact against the interpreter).

usage: benchmarks/random_programs.py [--count N] [--seed S] [--jobs J] [--sim N]
                                     [--out DIR] [--skeleshare PATH] [--keep]
Writes OUT/random_programs.md and .json (OUT defaults to results/random_programs) and the
programs under OUT/programs/. Exit 1 if any compile crashed, mismatched or failed after
extraction, or a simulation failed.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17]
CHANNELS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 16]
BUDGETS = [4, 8, 16, 32, 64, 100, 256, 379, 759, 1518]
DEVICE_DSPS = 1518


class Program:
    """A program under construction: declarations, let-bindings, fresh names."""

    def __init__(self):
        self.decls, self.lets, self.n = [], [], 0

    def fresh(self, stem):
        self.n += 1
        return f"{stem}{self.n}"

    def weight(self, shape):
        name = self.fresh("w")
        self.decls.append(f"weight {name} : i8{''.join(f'[{d}]' for d in shape)};")
        return name

    def let(self, expr, stem="t"):
        name = self.fresh(stem)
        self.lets.append(f"let {name} = {expr};")
        return name

    def text(self, header, output_expr):
        return "\n".join([header] + self.decls + self.lets + [f"output out = {output_expr};"]) + "\n"


def activation(rng, expr):
    """requant back to i8, then maybe an activation."""
    e = f"requant({expr}, {rng.randint(3, 9)})"
    r = rng.random()
    if r < 0.4:
        return f"relu({e})"
    if r < 0.55:
        return f"leaky_relu({e}, {rng.randint(1, 4)})"
    return e


def cnn(rng, p):
    h, w, c = rng.choice(SIZES[3:]), rng.choice(SIZES[3:]), rng.choice(CHANNELS[:8])
    p.decls.append(f"input x : i8[{h}][{w}][{c}];")
    cur, shape = "x", (h, w, c)
    history = []  # (name, shape) of i8 layer results, for skip connections
    for _ in range(rng.randint(1, 4)):
        h, w, c = shape
        r = rng.random()
        if r < 0.65:  # a convolution layer
            k = rng.choice([1, 2, 3, 3, 3, 5])
            pad = rng.random() < 0.6 and k > 1
            src, ph, pw = cur, h, w
            if pad:
                lo, hi = (k - 1) // 2, k // 2
                src, ph, pw = f"pad({cur}, {lo}, {hi}, {lo}, {hi})", h + k - 1, w + k - 1
            if ph < k or pw < k:
                continue
            oc = rng.choice(CHANNELS)
            wt = p.weight((oc, k, k, c))
            expr = f"conv({src}, {wt})"
            if rng.random() < 0.2:
                b = p.fresh("b")
                p.decls.append(f"weight {b} : i32[{oc}];")
                expr = f"bias({expr}, {b})"
            cur = p.let(activation(rng, expr), "c")
            shape = (ph - k + 1, pw - k + 1, oc)
        elif r < 0.85:  # a max-pool
            size = rng.choice([2, 2, 3])
            stride = rng.choice([1, size])
            if min(h, w) < size:
                continue
            cur = p.let(f"maxpool({cur}, {size}, {stride})", "p")
            shape = ((h - size) // stride + 1, (w - size) // stride + 1, c)
        else:  # a skip connection: add an earlier result of the same shape
            same = [n for n, s in history if s == shape and n != cur]
            if not same:
                continue
            op = rng.choice(["add", "max", "sub"])
            cur = p.let(f"requant({op}({cur}, {rng.choice(same)}), 1)", "s")
        history.append((cur, shape))
    if rng.random() < 0.5:
        n = shape[0] * shape[1] * shape[2]
        fc = p.weight((rng.choice(CHANNELS), n))
        return f"mv({fc}, flatten({cur}))"
    return cur


def mlp(rng, p):
    n = rng.choice(SIZES + [20, 31, 32, 64])
    p.decls.append(f"input x : i8[{n}];")
    cur = "x"
    layers = rng.randint(1, 3)
    for i in range(layers):
        m = rng.choice(SIZES + [10, 20, 32])
        wt = p.weight((m, n))
        expr = f"mv({wt}, {cur})"
        if i == layers - 1:
            return expr
        cur = p.let(activation(rng, expr), "f")
        n = m
    return cur


def matrix(rng, p):
    hgt, k = rng.choice(SIZES), rng.choice(SIZES)
    p.decls.append(f"input x : i8[{hgt}][{k}];")
    cur, shape = "x", (hgt, k)
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.6:
            wdt = rng.choice(SIZES)
            wt = p.weight((wdt, shape[1]))
            cur = p.let(activation(rng, f"mm({cur}, {wt})"), "m")
            shape = (shape[0], wdt)
        elif r < 0.8:
            cur = p.let(f"transpose({cur})", "tr")
            shape = (shape[1], shape[0])
        else:
            op = rng.choice(["add", "max", "min", "sub"])
            other = p.weight(shape)
            cur = p.let(f"requant({op}({cur}, {other}), 1)", "e")
    r = rng.random()
    if r < 0.3:  # a row maximum
        return f"map({cur}, \\row. reduce(row, -128, \\a v. max(a, v)))"
    if r < 0.45:  # a sum over the flattened tensor
        return f"reduce(flatten({cur}), 0, \\a v. a + v)"
    return cur


def stencil(rng, p):
    h, w = rng.choice(SIZES[2:] + [20, 32]), rng.choice(SIZES[2:] + [20, 32])
    p.decls.append(f"input x : i8[{h}][{w}];")
    cur = "x"
    for i in range(rng.randint(1, 4)):
        t = rng.randint(1, 7)
        along_w = rng.random() < 0.5
        pad = rng.random() < 0.7
        lo, hi = (t - 1) // 2, t // 2
        extent = (w if along_w else h) + (t - 1 if pad else 0)  # the convolved side, padded
        if extent < t:
            continue
        amounts = f"0, 0, {lo}, {hi}" if along_w else f"{lo}, {hi}, 0, 0"
        src = f"pad({cur}, {amounts})" if pad else cur
        f = p.weight((t,))
        cur = p.let(f"requant(conv1d_{'w' if along_w else 'h'}({src}, {f}), {rng.randint(1, 4)})", "s")
        if along_w:
            w = extent - t + 1
        else:
            h = extent - t + 1
    return cur


KINDS = [("cnn", cnn, 0.45), ("mlp", mlp, 0.15), ("matrix", matrix, 0.2), ("stencil", stencil, 0.2)]


def generate(seed):
    """Program number `seed`: its kind, its text and a random DSP budget (all from the seed)."""
    rng = random.Random(seed)
    x, acc = rng.random(), 0.0
    for kind, make, weight in KINDS:
        acc += weight
        if x < acc:
            break
    p = Program()
    out = make(rng, p)
    budget = rng.choice(BUDGETS)
    return {"seed": seed, "kind": kind, "budget": budget,
            "text": p.text(f"// random program {seed} ({kind}; benchmarks/random_programs.py)", out)}


def outcome(rc):
    return {0: "design", 3: "no design", 4: "mismatch", 1: "failed"}.get(rc, "crash")


def cycles(out):
    """The predicted and estimated cycles of a compile's design and the rule stage that found
    it (its report.json), or None."""
    try:
        with open(os.path.join(out, "report.json")) as f:
            r = json.load(f)
        return r["predicted_cycles"], r["hardware"]["estimated_cycles"], r["rule_stage"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def model_summary(recs, key, stage=None):
    """How far the cycle model's prediction is from the lowering's estimate over the designs of
    one budget (of one rule stage, if given): the estimate counts the lowered hardware and is
    what simulation confirms on the benchmarks (docs/cost-model.md), so the spread is the
    model's error outside them."""
    pairs = [(r[key]["predicted"], r[key]["estimated"]) for r in recs
             if "predicted" in r.get(key, {}) and stage in (None, r[key]["rule_stage"])]
    ratios = sorted(e / p for p, e in pairs if p > 0)
    if not ratios:
        return None
    zero = len(pairs) - len(ratios)
    off = sum(abs(x - 1) > 0.15 for x in ratios)

    def q(f):
        return ratios[min(len(ratios) - 1, int(f * len(ratios)))]
    return (f"- {key} budget, {len(ratios)} {stage + ' ' if stage else ''}designs: median {q(0.5):.2f}, 5th-95th percentile "
            f"{q(0.05):.2f}-{q(0.95):.2f}, range {ratios[0]:.2f}-{ratios[-1]:.2f}; {off} more than 15% off"
            + (f"; {zero} more predicted at 0 cycles" if zero else ""))


def run(cmd, timeout):
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc, err = r.returncode, r.stderr.strip()
    except subprocess.TimeoutExpired:
        rc, err = None, f"killed after {timeout} s"
    last = err.splitlines()[-1] if err else ""
    return rc, last, round(time.monotonic() - t0, 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1, help="first program's seed; program i has seed S + i")
    ap.add_argument("--seeds", help="comma-separated seeds to run instead of --count/--seed (the regression set)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sim", type=int, default=0, help="simulate the first N programs that get a design")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "random_programs"))
    ap.add_argument("--skeleshare", default=os.path.join(ROOT, "build", "src", "skeleshare"))
    ap.add_argument("--keep", action="store_true", help="keep every compile's output directory")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    if not os.access(args.skeleshare, os.X_OK):
        sys.exit(f"random_programs.py: {args.skeleshare} is not an executable (build first, or pass --skeleshare)")
    os.makedirs(os.path.join(args.out, "programs"), exist_ok=True)
    work = tempfile.mkdtemp(prefix="random_programs_")
    seeds = ([int(x) for x in args.seeds.split(",") if x.strip()] if args.seeds
             else [args.seed + i for i in range(args.count)])
    progs = [generate(s) for s in seeds]
    for g in progs:
        g["path"] = os.path.join(args.out, "programs", f"p{g['seed']:05d}.dsl")
        with open(g["path"], "w") as f:
            f.write(g["text"])

    def one(g):
        rec = {k: g[k] for k in ("seed", "kind", "budget")}
        rc, msg, _ = run([args.skeleshare, "check", g["path"]], args.timeout)
        rec["check"] = {"exit": rc, "message": msg}
        if rc != 0:
            rec["random"] = rec["full"] = {"outcome": "ill-typed (generator bug)", "exit": rc, "message": msg}
            return rec
        for key, flags in (("random", ["--dsp-budget", str(g["budget"])]), ("full", [])):
            out = os.path.join(work, f"p{g['seed']}_{key}")
            rc, msg, secs = run([args.skeleshare, "compile", g["path"], "-o", out, "-q", "--check-eval"] + flags,
                                args.timeout)
            rec[key] = {"outcome": outcome(rc), "exit": rc, "message": msg, "seconds": secs}
            c = cycles(out) if rc == 0 else None
            if c:
                rec[key]["predicted"], rec[key]["estimated"], rec[key]["rule_stage"] = c
            if not args.keep:
                shutil.rmtree(out, ignore_errors=True)
        return rec

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        recs = list(pool.map(one, progs))
    sims = []
    for g, rec in zip(progs, recs):
        if len(sims) >= args.sim:
            break
        if rec["random"]["outcome"] != "design":
            continue
        rc, msg, secs = run([args.skeleshare, "sim", g["path"], "--dsp-budget", str(g["budget"]), "-o",
                             os.path.join(work, f"sim{g['seed']}")], args.timeout)
        rec["sim"] = {"exit": rc, "message": msg, "seconds": secs}
        sims.append(rec)
    wall = time.monotonic() - t0
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)

    bad = []
    for r in recs:
        for key in ("random", "full"):
            if r[key]["outcome"] not in ("design", "no design"):
                bad.append(f"p{r['seed']:05d} ({r['kind']}) {key} budget: {r[key]['outcome']} "
                           f"(exit {r[key]['exit']}): {r[key]['message']}")
        if "sim" in r and r["sim"]["exit"] != 0:
            bad.append(f"p{r['seed']:05d} ({r['kind']}) simulation: exit {r['sim']['exit']}: {r['sim']['message']}")
    with open(os.path.join(args.out, "random_programs.json"), "w") as f:
        json.dump({"seeds": seeds, "wall_seconds": round(wall, 1), "programs": recs}, f, indent=1)
    kinds = [k for k, _, _ in KINDS]
    which = (f"seeds {args.seeds}" if args.seeds else f"seeds {args.seed}..{args.seed + args.count - 1}")
    md = [f"# {len(seeds)} random programs ({which})", "",
          f"Each compiled with --check-eval at a random DSP budget and at the full budget (one convolution unit); "
          f"{args.jobs} at a time, {wall:.0f} s in all.", "",
          "| kind | programs | random budget: design / no design / other | full budget: design / no design / other |",
          "|---|---:|---:|---:|"]
    for kind in kinds + ["all"]:
        rs = [r for r in recs if kind == "all" or r["kind"] == kind]
        if not rs:
            continue

        def cnt(key):
            d = sum(r[key]["outcome"] == "design" for r in rs)
            n = sum(r[key]["outcome"] == "no design" for r in rs)
            return f"{d} / {n} / {len(rs) - d - n}"
        md.append(f"| {kind} | {len(rs)} | {cnt('random')} | {cnt('full')} |")
    full_ok = sum(r["full"]["outcome"] == "design" for r in recs)
    widened = {key: sum(r[key].get("rule_stage") == "widened" for r in recs) for key in ("random", "full")}
    md += ["", f"Designs at the full budget with one convolution unit: {full_ok} of {len(recs)} "
           f"({100.0 * full_ok / max(1, len(recs)):.1f}%), {widened['full']} of them found by the widening rules "
           f"(rules/widening.rules; {widened['random']} at the random budget)."]
    if sims:
        md.append(f"Simulated in GHDL: {sum(r['sim']['exit'] == 0 for r in sims)} of {len(sims)} bit-exact.")
    model = [line for line in (model_summary(recs, k, st) for k in ("random", "full") for st in (None, "widened"))
             if line]
    if model:
        md += ["", "Cycle model: estimated / predicted cycles of the designs (the lowering's count of the "
               "hardware against the extractor's prediction):", ""] + model
    reasons = {}
    for r in recs:
        for key in ("random", "full"):
            if r[key]["outcome"] == "no design":
                m = r[key]["message"].split(": ", 1)[-1]
                reasons[m] = reasons.get(m, 0) + 1
    if reasons:
        md += ["", "Exit-3 reasons (count):", ""]
        md += [f"- {n}: {m}" for m, n in sorted(reasons.items(), key=lambda x: -x[1])[:30]]
    if bad:
        md += ["", "Failures:", ""] + [f"- {b}" for b in bad]
    with open(os.path.join(args.out, "random_programs.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
