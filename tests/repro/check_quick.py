#!/usr/bin/env python3
"""ctest `repro_quick`: runs `benchmarks/reproduce.py --quick --skip-hw` into a scratch
directory and checks that Table III has a row for every experiment, in the paper's order,
with the qualitative outcomes the paper reports for the ablations and self-consistent
fields (DSPs within the budget, GOPS from MACs and cycles, the stencil's budget derived
from its unshared design), and that the figures' CSVs are complete. Timing values are
never checked.

usage: check_quick.py --skeleshare PATH --out DIR
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED_IDS = ["1", "3", "6", "8", "9", "10", "11", "12", "13", "14", "15", "17"]
DESIGN_IDS = {"1", "3", "6", "8", "9", "14", "15", "17"}
NO_SOLUTION_IDS = {"10", "11", "12"}
DEVICE_DSPS = 1518

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def check_row(x, by_id):
    i = x["id"]
    check(x["exit_code"] in (0, 3), f"exp {i}: compile exited {x['exit_code']}: {x['message']}")
    check(isinstance(x["enodes"], int) and x["enodes"] > 0, f"exp {i}: e-nodes {x['enodes']}")
    check(x["paper"]["outcome"] in ("design", "no solution found", "not synthesizable"), f"exp {i}: paper outcome")
    if i in DESIGN_IDS:
        check(x["status"] == "ok" and x["exit_code"] == 0, f"exp {i}: expected a design, got {x['result']}")
        if x["status"] != "ok":
            return
        used, budget, cycles = x["dsp_used"], x["dsp_budget"], x["predicted_cycles"]
        check(0 < used <= budget, f"exp {i}: {used} DSPs used of a budget of {budget}")
        check(abs(x["dsp_percent"] - 100.0 * used / DEVICE_DSPS) < 1e-9, f"exp {i}: DSP % {x['dsp_percent']}")
        check(cycles > 0 and x["lower_bound_cycles"] <= cycles, f"exp {i}: cycles {cycles}, bound {x['lower_bound_cycles']}")
        check(abs(x["predicted_gops"] - x["macs"] * 2 * 0.2 / cycles) < 1e-6 * x["predicted_gops"],
              f"exp {i}: GOPS {x['predicted_gops']} is not MACs * 0.4 / cycles")
        check(x["result"].startswith("design"), f"exp {i}: result text {x['result']}")
        if x["simulated_cycles"]:  # not under --skip-hw; reproduce.py without it fills the column
            check(abs(x["simulated_gops"] - x["macs"] * 2 * 0.2 / x["simulated_cycles"]) < 1e-6 * x["simulated_gops"],
                  f"exp {i}: simulated GOPS {x['simulated_gops']} is not MACs * 0.4 / simulated cycles")
        else:
            check(x["simulated_gops"] is None, f"exp {i}: simulated GOPS {x['simulated_gops']} without a simulation")
    elif i in NO_SOLUTION_IDS:
        check(x["status"] == "no_solution" and x["exit_code"] == 3 and x["result"] == "no solution found",
              f"exp {i}: expected 'no solution found', got {x['result']} ({x['message']})")
    elif i == "13":
        check(x["status"] == "no_solution" and x["result"] == "does not fit",
              f"exp 13: expected 'does not fit', got {x['result']} ({x['message']})")
    if i == "8" and "9" in by_id and by_id["9"]["dsp_used"]:
        quarter = by_id["9"]["dsp_used"] // 4
        check(x["dsp_budget"] == quarter, f"exp 8: budget {x['dsp_budget']}, want 1/4 of exp 9's = {quarter}")
    if i == "6":
        check(x["dsp_budget"] == 1024, f"exp 6: budget {x['dsp_budget']}, the paper's 1,024")
    if i == "15":
        check(x["dsp_budget"] == DEVICE_DSPS // 4, f"exp 15: budget {x['dsp_budget']}")
    if i == "17":
        check(x["dsp_budget"] == DEVICE_DSPS // 2, f"exp 17: budget {x['dsp_budget']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skeleshare", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    cmd = [sys.executable, os.path.join(ROOT, "benchmarks", "reproduce.py"), "--quick", "--skip-hw",
           "--skeleshare", args.skeleshare, "--out", args.out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"reproduce.py exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    with open(os.path.join(args.out, "table3.json")) as f:
        table = json.load(f)
    rows = table["rows"]
    check([x["id"] for x in rows] == EXPECTED_IDS, f"rows {[x['id'] for x in rows]}, want {EXPECTED_IDS}")
    by_id = {x["id"]: x for x in rows}
    for x in rows:
        check_row(x, by_id)
    with open(os.path.join(args.out, "table3.md")) as f:
        md = f.read()
    for i in EXPECTED_IDS:
        check(f"\n| {i} | " in md, f"table3.md has no row {i}")
    check("| GOPS ours (simulated) / ours (predicted) / paper |" in md, "table3.md has no simulated GOPS column")
    with open(os.path.join(args.out, "fig12.csv")) as f:
        fig12 = list(csv.DictReader(f))
    check([int(x["layers"]) for x in fig12] == list(range(1, 15)), "fig12.csv: layers 1..14")
    enodes = [int(x["enodes"]) for x in fig12]
    check(all(e > 0 for e in enodes) and enodes[-1] > enodes[0], f"fig12.csv: e-nodes {enodes}")
    check(int(fig12[-1]["enodes"]) == by_id["1"]["enodes"], "fig12.csv: 14 layers is the whole VGG of exp 1")
    with open(os.path.join(args.out, "fig13.csv")) as f:
        fig13 = list(csv.DictReader(f))
    for bench, i in (("VGG-CIFAR", "1"), ("TinyYolo v2", "3")):
        series = [x for x in fig13 if x["benchmark"] == bench]
        check(len(series) >= 2 and int(series[-1]["predicted_cycles"]) == by_id[i]["predicted_cycles"],
              f"fig13.csv: the {bench} series ends at exp {i}'s design")
        cycles = [int(x["predicted_cycles"]) for x in series]
        check(cycles == sorted(cycles, reverse=True), f"fig13.csv: {bench} improvements {cycles} do not improve")
    if failures:
        sys.exit("repro_quick failed:\n  " + "\n  ".join(failures))
    print(f"repro_quick: {len(rows)} experiments and both figures check out")


if __name__ == "__main__":
    main()
