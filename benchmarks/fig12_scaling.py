#!/usr/bin/env python3
"""Fig. 12a of the paper: e-graph size and saturation time for the first 1..14 layers of
VGG-CIFAR (13 convolutions, then the fully connected layer).

The truncated programs are generated from benchmarks/vgg_cifar.dsl: the first k
convolutions keep their declarations and `let`s (pools in between included) and the k-th
one becomes the output; k = 14 is the whole program. Each is saturated with
`skeleshare saturate --json`. Writes results/fig12a.csv and results/fig12a.png.

usage: benchmarks/fig12_scaling.py [--skeleshare PATH] [--rules DIR] [--out DIR]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def truncated(source, k):
    """VGG-CIFAR with its first k layers (k <= 13: convolutions; 14: everything)."""
    lines = source.splitlines()
    if k >= 14:
        return source
    out = []
    for line in lines:
        m = re.match(r"\s*weight\s+(w(\d+)|fc)\b", line)
        if m:
            if m.group(1) != "fc" and int(m.group(2)) <= k:
                out.append(line)
            continue
        m = re.match(r"\s*let\s+([cp])(\d+)\s*=", line)
        if m:
            idx = int(m.group(2))
            # c_i is layer i; p_j follows c_(2, 4, 7, 10, 13)[j-1].
            last_conv = {1: 2, 2: 4, 3: 7, 4: 10, 5: 13}[idx] if m.group(1) == "p" else idx
            if last_conv <= k and not (m.group(1) == "p" and last_conv == k):
                out.append(line)
            continue
        if re.match(r"\s*output\b", line):
            continue
        out.append(line)
    out.append(f"output out = c{k};")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skeleshare", default=os.path.join(ROOT, "build", "src", "skeleshare"))
    ap.add_argument("--rules", default=os.path.join(ROOT, "rules"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    args = ap.parse_args()
    with open(os.path.join(ROOT, "benchmarks", "vgg_cifar.dsl")) as f:
        source = f.read()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(1, 15):
            path = os.path.join(tmp, f"vgg_{k}.dsl")
            with open(path, "w") as f:
                f.write(truncated(source, k))
            r = subprocess.run([args.skeleshare, "saturate", path, "--json", "--rules", args.rules],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"layers {k}: skeleshare failed:\n{r.stderr}")
            j = json.loads(r.stdout)
            rows.append({"layers": k, "enodes": j["enodes"], "eclasses": j["eclasses"],
                         "iterations": j["iterations"], "stop_reason": j["stop_reason"],
                         "seconds": j["seconds"], "peak_memory_bytes": j["peak_memory_bytes"]})
            print(f"{k:2d} layers: {j['enodes']:6d} e-nodes {j['eclasses']:6d} e-classes "
                  f"{j['iterations']:3d} iterations {j['seconds']:.4f} s ({j['stop_reason']})")
    csv_path = os.path.join(args.out, "fig12a.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("matplotlib is missing: run with /usr/bin/python3 (python3-matplotlib); the CSV is written")
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [r["layers"] for r in rows]
    ax.plot(xs, [r["enodes"] for r in rows], "o-", color="tab:blue", label="e-nodes")
    ax.set_xlabel("number of VGG-CIFAR layers")
    ax.set_ylabel("e-nodes after saturation", color="tab:blue")
    ax.set_xticks(xs)
    ax2 = ax.twinx()
    ax2.plot(xs, [1000 * r["seconds"] for r in rows], "s--", color="tab:red", label="time")
    ax2.set_ylabel("saturation time (ms)", color="tab:red")
    ax.set_title("Fig. 12a: e-graph growth with VGG-CIFAR depth")
    fig.tight_layout()
    png = os.path.join(args.out, "fig12a.png")
    fig.savefig(png, dpi=120)
    print(f"wrote {csv_path} and {png}")


if __name__ == "__main__":
    main()
