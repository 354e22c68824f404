#!/usr/bin/env python3
"""Reproduce the SkeleShare paper's evaluation (CGO 2026, Section VI) with one command:
Table III (every experiment a compiler can run), Fig. 12 (e-graph size and compile time
against the number of VGG-CIFAR layers) and Fig. 13 (predicted cycles of the best VGG
design against solver time).

Each experiment is one `skeleshare compile` run (its report.json is kept under
OUT/runs/); the table puts our numbers beside the paper's. Hardware columns (lowered or
estimated cycles, simulated cycles, yosys Logic/RAM/DSP) are read from report.json or
`skeleshare sim` when the tool provides them and are "n/a" otherwise: nothing is
invented. See docs/reproducing.md.

usage: benchmarks/reproduce.py [--quick] [--skip-hw] [--synth | --synth-blocks] [--no-figures] [--out DIR]
                               [--skeleshare PATH] [--effort N] [--timeout S]
                               [--simulator auto|ghdl|verilator] [--only ID,ID...]
Every design is simulated (`skeleshare sim`, bit-exact against the interpreter), and its
simulated cycles give the "GOPS ours (simulated)" column beside the predicted and the
paper's; --quick skips designs predicted to take more than 200,000 cycles.
Writes OUT/table3.md, OUT/table3.json, OUT/fig12.csv/.png, OUT/fig13.csv/.png
(OUT defaults to results/). Needs only the standard library; the PNGs need matplotlib
(/usr/bin/python3 with python3-matplotlib) and are skipped with a note without it.
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from fig12_scaling import truncated  # noqa: E402  (the same VGG slices as Fig. 12a)

# Effort of --quick (the compile default is 30,000,000, at most about a minute of one core
# per experiment; the effort pays for saturation and the cycle model's walks too, 66 M of it
# for TinyYolo v2 at 76%, so the extraction gets its minimum share): enough for every
# benchmark's greedy design and a few solver queries, so the whole table takes a few
# minutes. At 20 M TinyYolo's greedy share ran out before its paired first layer's design
# (2,342,277 cycles found instead of 1,255,149).
QUICK_EFFORT = 25_000_000
# --quick simulates only rows whose design is predicted to take at most this many cycles
# (the full designs of VGG and TinyYolo take long in either simulator); the full
# run simulates every design (`sim --simulator auto`, GHDL; --simulator verilator to choose).
QUICK_SIM_MAX_CYCLES = 200_000
# GOPS at the paper's clock: MACs * 2 operations / (cycles / 200 MHz).
CLOCK_GHZ = 0.2

# Table III of the paper (Arria 10 GX1150, measured on the board), copied from
# shared/reference/benchmarks.md ("Table III of the paper"), which copies the paper's
# table (papers/skeleshare-cgo26.txt, Section VI). Logic = % of 427,200 ALMs, RAM = % of
# 2,713 M20K blocks, DSPs = % of 1,518 DSP blocks, GOPS = MACs * 2 * 0.2 / measured cycles.
# "prior" is the paper's row for prior (hand-made) work on the same benchmark, if any.
PAPER = {
    "1": {"outcome": "design", "logic": 49, "ram": 35, "dsps": 76, "gops": 163,
          "prior": "exp. 2, [15] manual: 48% / 33% / 76%, 166 GOPS"},
    "3": {"outcome": "design", "logic": 38, "ram": 24, "dsps": 76, "gops": 647,
          "prior": "exp. 4, [15]: 76% DSPs, 608 GOPS; exp. 5, [33]: 58%, 500 GOPS"},
    "6": {"outcome": "design", "logic": 35, "ram": 29, "dsps": 67, "gops": 648,
          "prior": "exp. 7, [18] (Virtex UltraScale+, 1,024 DSPs): 583 GOPS"},
    "8": {"outcome": "design", "logic": 10, "ram": 7, "dsps": 6, "gops": 61, "prior": None},
    "9": {"outcome": "design", "logic": 11, "ram": 7, "dsps": 25, "gops": 63, "prior": None},
    "10": {"outcome": "no solution found", "prior": None},
    "11": {"outcome": "no solution found", "prior": None},
    "12": {"outcome": "no solution found", "prior": None},
    "13": {"outcome": "not synthesizable", "prior": None},
    "14": {"outcome": "design", "logic": 45, "ram": 35, "dsps": 72, "gops": 125, "prior": None},
    "15": {"outcome": "design", "logic": 42, "ram": 35, "dsps": 19, "gops": 65,
           "prior": "exp. 16, [15] manual: 40% / 33% / 19%, 69 GOPS"},
    "17": {"outcome": "design", "logic": 40, "ram": 35, "dsps": 38, "gops": 123,
           "prior": "exp. 18, [15] manual: 42% / 33% / 38%, 136 GOPS"},
}


def rule_groups(rules_dir):
    """Every rule group named in rules/*.rules (`rule NAME group a, b:`)."""
    groups = set()
    for name in sorted(os.listdir(rules_dir)):
        if name.endswith(".rules"):
            with open(os.path.join(rules_dir, name)) as f:
                for m in re.finditer(r"^\s*rule\s+\S+\s+group\s+([^:]+):", f.read(), re.M):
                    groups.update(g.strip() for g in m.group(1).split(","))
    return sorted(groups)


def experiments(rules_dir):
    """Table III's compiler experiments, in the paper's row order. `budget_from` names
    the experiment whose DSP count (divided by `budget_divisor`) is this one's budget."""
    vgg, yolo = "benchmarks/vgg_cifar.dsl", "benchmarks/tinyyolo_v2.dsl"
    att, sten = "benchmarks/self_attention.dsl", "benchmarks/stencil4.dsl"
    direct = ["--no-sharing", "--max-conv-units", "13"]
    for g in rule_groups(rules_dir):
        direct += ["--disable", g]
    return [
        {"id": "1", "name": "VGG, SkeleShare", "program": vgg, "flags": []},
        {"id": "3", "name": "TinyYolo, SkeleShare", "program": yolo, "flags": []},
        # Table III's footnote: "Both self-attention designs use 1024 DSPs".
        {"id": "6", "name": "Self-attention, SkeleShare (1,024 DSPs)", "program": att,
         "flags": ["--dsp-budget", "1024"]},
        {"id": "8", "name": "4-stage stencil, SkeleShare (1/4 of exp. 9's DSPs)", "program": sten,
         "flags": [], "budget_from": "9", "budget_divisor": 4},
        {"id": "9", "name": "4-stage stencil, baseline (no sharing)", "program": sten, "flags": ["--no-sharing"]},
        {"id": "10", "name": "VGG, SkeleShare, no sharing", "program": vgg, "flags": ["--no-sharing"]},
        {"id": "11", "name": "VGG, SkeleShare, no padding", "program": vgg, "flags": ["--disable", "padding"]},
        {"id": "12", "name": "VGG, SkeleShare, no tiling", "program": vgg, "flags": ["--disable", "tiling"]},
        # The paper's "baseline, no sharing": a design that implements VGG directly. Here:
        # no sharing, one convolution unit per layer (13), and no rewriting at all (every
        # rule group disabled), so each layer is the program's own skeleton at its own
        # parallelism; the question is whether it fits the device's DSPs.
        {"id": "13", "name": "VGG, baseline, no sharing (direct: no rewrites, 13 units)", "program": vgg,
         "flags": direct, "fit_check": True},
        {"id": "14", "name": "VGG, SkeleShare, 1 abstraction level", "program": vgg,
         "flags": ["--single-abstraction"]},
        {"id": "15", "name": "VGG, SkeleShare, 1/4 DSPs", "program": vgg, "flags": ["--dsp-fraction", "0.25"]},
        {"id": "17", "name": "VGG, SkeleShare, 1/2 DSPs", "program": vgg, "flags": ["--dsp-fraction", "0.5"]},
    ]


def run_order(exps):
    """Experiments whose budget comes from another one run after it."""
    done, order = set(), []
    pending = list(exps)
    while pending:
        for e in pending:
            if e.get("budget_from") is None or e["budget_from"] in done or \
                    e["budget_from"] not in {x["id"] for x in exps}:
                order.append(e)
                done.add(e["id"])
                pending.remove(e)
                break
    return order


class Tool:
    """The skeleshare executable and what this build of it offers."""

    def __init__(self, path, rules, resume=False, device_dsps=None, overlap=True):
        self.path, self.rules, self.resume, self.device_dsps = path, rules, resume, device_dsps
        self.overlap = overlap
        self.overlap_flags = [] if overlap else ["--no-overlap"]  # compile, lower and sim alike
        self.reused = 0
        top = subprocess.run([path, "--help"], capture_output=True, text=True).stdout
        self.has_sim = re.search(r"^\s+sim\s", top, re.M) is not None
        self.has_lower = re.search(r"^\s+lower\s", top, re.M) is not None
        self.compile_help = subprocess.run([path, "compile", "--help"], capture_output=True, text=True).stdout
        self.sim_help = (subprocess.run([path, "sim", "--help"], capture_output=True, text=True).stdout
                         if self.has_sim else "")
        m = re.search(r"--effort\b.*?\(default (\d+)\)", self.compile_help)
        self.default_effort = int(m.group(1)) if m else None

    def matches(self, report, program, flags, limits):
        """Whether an existing report.json was made from these settings (for --resume):
        the program, sharing, abstraction, disabled groups, limits, DSP budget, units."""
        def value(opts, name, default):
            return opts[opts.index(name) + 1] if name in opts else default
        o = report.get("options") or {}
        disabled = sorted(flags[i + 1] for i, f in enumerate(flags) if f == "--disable")
        budget = self.device_dsps
        if "--dsp-budget" in flags:
            budget = int(value(flags, "--dsp-budget", 0))
        elif "--dsp-fraction" in flags:
            budget = int(float(value(flags, "--dsp-fraction", 0)) * self.device_dsps)
        return (os.path.abspath(report.get("file", "")) == os.path.abspath(os.path.join(ROOT, program)) and
                o.get("sharing") == ("--no-sharing" not in flags) and
                o.get("single_abstraction") == ("--single-abstraction" in flags) and
                sorted(o.get("disabled_groups", [])) == disabled and
                o.get("effort") == int(value(limits, "--effort", self.default_effort)) and
                float(o.get("timeout_seconds", -1)) == float(value(limits, "--timeout", 0)) and
                report.get("dsp_budget") == budget and
                report.get("max_conv_units") == int(value(flags, "--max-conv-units", 1)) and
                o.get("overlap", False) == self.overlap)

    def compile(self, program, out_dir, flags, limits):
        """Runs `skeleshare compile`; returns (exit code, report or None, wall seconds, stderr)."""
        cmd = [self.path, "compile", os.path.join(ROOT, program), "-o", out_dir, "--quiet",
               "--rules", self.rules] + limits + flags + self.overlap_flags
        if self.resume:
            try:
                with open(os.path.join(out_dir, "report.json")) as f:
                    old = json.load(f)
                if self.matches(old, program, flags, limits):
                    rc = {"ok": 0, "no_solution": 3, "timeout_no_solution": 3}.get(old.get("status"))
                    self.reused += 1
                    return rc, old, old.get("compile_seconds", 0.0), "", cmd
            except (OSError, ValueError):
                pass
        if os.path.isdir(out_dir):
            shutil.rmtree(out_dir)
        start = time.monotonic()
        r = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - start
        report = None
        try:
            with open(os.path.join(out_dir, "report.json")) as f:
                report = json.load(f)
        except (OSError, ValueError):
            pass
        return r.returncode, report, wall, r.stderr.strip(), cmd

    def lower(self, design_ir, out_dir):
        """`skeleshare lower` of an extracted design: DIR/lower.json as a dict (or why not)."""
        if not self.has_lower:
            return {"skipped": "this skeleshare has no `lower` command"}
        r = subprocess.run([self.path, "lower", design_ir, "-o", out_dir] + self.overlap_flags, capture_output=True, text=True)
        try:
            with open(os.path.join(out_dir, "lower.json")) as f:
                j = json.load(f)
        except (OSError, ValueError):
            return {"skipped": f"lower exited {r.returncode}: {r.stderr.strip()[:300]}"}
        j["exit_code"] = r.returncode
        return j

    def synthesise(self, out_dir, timeout, jobs, blocks_only=False):
        """benchmarks/synth.py on a compiled design (one yosys run per module, classic ABC:
        the mode that finishes on full designs); it adds "synth" to DIR/report.json, or with
        blocks_only "synth_blocks" (DSP blocks and M20Ks, no logic). Returns the new report,
        or None and why not."""
        mode = ["--blocks-only"] if blocks_only else ["--lut-mapper", "abc"]
        cmd = [sys.executable, os.path.join(ROOT, "benchmarks", "synth.py"), out_dir, "--per-module",
               *mode, "--jobs", str(jobs), "--yosys-timeout", f"{timeout:g}", "--skeleshare", self.path]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return None, f"synth.py exited {r.returncode}: {r.stderr.strip()[-300:]}"
        try:
            with open(os.path.join(out_dir, "report.json")) as f:
                return json.load(f), None
        except (OSError, ValueError) as e:
            return None, f"synth.py wrote no report: {e}"

    def simulate(self, design_ir, out_dir, timeout, simulator):
        """`skeleshare sim` of an extracted design, lowered as written; a dict or None."""
        if not self.has_sim or "--as-written" not in self.sim_help:
            return {"skipped": "this skeleshare has no `sim --as-written`"}
        cmd = [self.path, "sim", design_ir, "--as-written", "--json", "--quiet", "-o", out_dir,
               "--rules", self.rules] + self.overlap_flags
        if "--simulator" in self.sim_help:
            cmd += ["--simulator", simulator]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"skipped": f"simulation did not finish within {timeout:g} s"}
        try:
            j = json.loads(r.stdout)
        except ValueError:
            return {"skipped": f"sim exited {r.returncode}: {r.stderr.strip()[:300]}"}
        j["exit_code"] = r.returncode
        return j


def first_key(d, names):
    """(name, value) of the first of `names` present in dict d with a non-null value."""
    if isinstance(d, dict):
        for n in names:
            if d.get(n) is not None:
                return n, d[n]
    return None, None


def hardware_columns(report):
    """The lowering / VHDL / synthesis fields of report.json that this build writes:
    top level or under "hardware"; absent ones are None."""
    hw = report.get("hardware") if isinstance(report.get("hardware"), dict) else {}
    synth = report.get("synth") or hw.get("synth")
    blocks = report.get("synth_blocks")  # synth.py --blocks-only: DSP blocks and M20Ks, no logic

    def pick(names):
        for d in (report, hw):
            _, v = first_key(d, names)
            if v is not None:
                return v
        return None

    cols = {
        "lowered_dsps": pick(["lowered_dsps"]) if report.get("lowered_dsps") is not None else hw.get("dsps"),
        "estimated_cycles": pick(["estimated_cycles"]),
        "onchip_memory_bits": pick(["onchip_memory_bits"]),
        # the compiler's count of the design's RAMs in M20K blocks, and the device's
        "m20k_blocks": pick(["m20k_blocks", "lowered_m20k_blocks"]),
        "device_m20k_blocks": pick(["device_m20k_blocks"]),
        # and the RAMs too shallow for an M20K, in LUT-RAM (MLAB cells of 32 x 1 bits)
        "mlab_cells": pick(["mlab_cells", "lowered_mlab_cells"]),
        "synth": None,
    }
    if isinstance(synth, dict):
        cols["synth"] = {
            "logic": first_key(synth, ["logic", "alms", "luts", "lut", "logic_cells", "cells"]),
            "ram": first_key(synth, ["ram", "m20k", "ram_blocks", "brams", "memory_bits", "ram_bits"]),
            "dsp": first_key(synth, ["dsp", "dsps", "dsp_blocks", "multipliers"]),
            "raw": synth,
        }
        with_device_percent(cols["synth"], synth)
    elif isinstance(blocks, dict):
        cols["synth"] = {"logic": None, "ram": None, "dsp": None, "raw": blocks}
        with_device_percent(cols["synth"], blocks)
    return cols


def with_device_percent(cells, figures):
    """Sets the Logic/RAM/DSP cells to synth.py's figures with the device percentages
    Table III gives, for those of them `figures` (report.json "synth" or "synth_blocks") has."""
    pct = figures.get("percent") if isinstance(figures.get("percent"), dict) else {}
    for col, key, name in (("logic", "alms", "ALMs"), ("ram", "m20k", "M20K"), ("dsp", "dsps", "DSP blocks")):
        if isinstance(figures.get(key), (int, float)) and pct.get(key) is not None:
            cells[col] = (name, f"{figures[key]:,} ({pct[key]:g}%)")


def status_text(exp, rc, report, stderr):
    if report is None:
        return f"error (exit {rc}): {stderr[:200]}"
    st = report.get("status")
    if st == "ok":
        return "design (proven optimal)" if report.get("optimal") else "design"
    if st == "no_solution":
        return "does not fit" if exp.get("fit_check") else "no solution found"
    if st == "timeout_no_solution":
        return "no solution found (within the limits)"
    return f"{st} (exit {rc})"


def run_experiments(args, tool, exps, limits):
    results, by_id = {}, {}
    for exp in run_order(exps):
        flags = list(exp["flags"])
        note = None
        if exp.get("budget_from"):
            base = by_id.get(exp["budget_from"])
            used = base and base["report"] and base["report"].get("dsp_used")
            if not used:
                results[exp["id"]] = {"exp": exp, "rc": None, "report": None, "wall": 0.0,
                                      "stderr": f"experiment {exp['budget_from']} has no design to take 1/"
                                                f"{exp['budget_divisor']} of its DSPs from", "cmd": []}
                continue
            budget = used // exp["budget_divisor"]
            flags += ["--dsp-budget", str(budget)]
            note = f"budget {budget} = {used} // {exp['budget_divisor']}"
        out_dir = os.path.join(args.out, "runs", f"exp{int(exp['id']):02d}")
        rc, report, wall, stderr, cmd = tool.compile(exp["program"], out_dir, flags, limits)
        res = {"exp": exp, "rc": rc, "report": report, "wall": wall, "stderr": stderr, "cmd": cmd,
               "note": note, "sim": None, "lowered": None}
        if report and report.get("status") == "ok":
            res["lowered"] = tool.lower(os.path.join(out_dir, "design.ir"), os.path.join(out_dir, "lowered"))
        wanted = "synth" if args.synth else "synth_blocks" if args.synth_blocks else None
        if wanted and report and report.get("status") == "ok" and not report.get(wanted):
            synthesised, why = tool.synthesise(out_dir, args.synth_timeout, args.synth_jobs, blocks_only=not args.synth)
            if synthesised:
                res["report"] = report = synthesised
            else:
                res["note"] = "; ".join(x for x in (note, why) if x)
        if not args.skip_hw and report and report.get("status") == "ok":
            cycles = report.get("predicted_cycles") or 0
            if args.sim_max_cycles is not None and cycles > args.sim_max_cycles:
                res["sim"] = {"skipped": f"predicted {cycles} cycles > --sim-max-cycles {args.sim_max_cycles}"}
            else:
                res["sim"] = tool.simulate(os.path.join(out_dir, "design.ir"), os.path.join(out_dir, "sim"),
                                           args.sim_timeout, args.simulator)
        results[exp["id"]] = res
        by_id[exp["id"]] = res
        r = report or {}
        print(f"exp {exp['id']:>2} {exp['name'][:48]:48} {status_text(exp, rc, report, stderr):24} "
              f"dsp={r.get('dsp_used')} cycles={r.get('predicted_cycles')} {wall:.1f}s", file=sys.stderr, flush=True)
    return [results[e["id"]] for e in exps if e["id"] in results]


def fmt_int(v):
    return "n/a" if v is None else f"{v:,}"


def fmt_num(v, digits=1):
    return "n/a" if v is None else f"{v:,.{digits}f}"


def row_record(res, device_dsps):
    """One table row as plain data (the JSON), compile-side and hardware columns."""
    exp, r = res["exp"], res["report"] or {}
    used = r.get("dsp_used")
    hw = hardware_columns(r)  # every column None for a missing report
    sim = res.get("sim") or {}
    lowered = res.get("lowered") or {}
    # `lower` and `sim` lower the extracted design themselves: their numbers fill the
    # columns that this build's compile report lacks.
    for key, sim_key in (("estimated_cycles", "estimated_cycles"), ("lowered_dsps", "dsp_multipliers"),
                         ("onchip_memory_bits", None), ("m20k_blocks", None), ("mlab_cells", None)):
        if hw[key] is None:
            low = lowered.get(key) if lowered.get(key) is not None else lowered.get("lowered_" + key)
            hw[key] = low if low is not None else sim.get(sim_key)
    rec = {
        "id": exp["id"], "experiment": exp["name"], "program": exp["program"],
        "flags": exp["flags"], "command": res["cmd"], "note": res.get("note"),
        "exit_code": res["rc"], "status": r.get("status"),
        "result": status_text(exp, res["rc"], res["report"], res["stderr"]),
        "message": r.get("message") or res["stderr"] or None,
        "dsp_budget": r.get("dsp_budget"), "dsp_used": used,
        "dsp_percent": None if used is None else 100.0 * used / device_dsps,
        "conv_units": r.get("conv_units"), "predicted_cycles": r.get("predicted_cycles"),
        "macs": r.get("macs"), "predicted_gops": r.get("predicted_gops"),
        "optimal": r.get("optimal"), "stopped_by": r.get("stopped_by"),
        "lower_bound_cycles": r.get("lower_bound_cycles"),
        "enodes": r.get("enodes"), "eclasses": r.get("eclasses"),
        "saturation_seconds": r.get("saturation_seconds"), "extraction_seconds": r.get("extraction_seconds"),
        "compile_seconds": r.get("compile_seconds", res["wall"]), "wall_seconds": res["wall"],
        "shared": [{"skeleton": s.get("skeleton"), "dsps": s.get("dsps"), "uses": s.get("uses")}
                   for s in r.get("shared") or []],
        "lowered_dsps": hw["lowered_dsps"], "estimated_cycles": hw["estimated_cycles"],
        "onchip_memory_bits": hw["onchip_memory_bits"],
        "m20k_blocks": hw["m20k_blocks"], "device_m20k_blocks": hw["device_m20k_blocks"],
        "mlab_cells": hw["mlab_cells"],
        "synth": hw["synth"]["raw"] if hw["synth"] else None,
        "synth_logic": hw["synth"]["logic"] if hw["synth"] else None,
        "synth_ram": hw["synth"]["ram"] if hw["synth"] else None,
        "synth_dsp": hw["synth"]["dsp"] if hw["synth"] else None,
        "simulated_cycles": sim.get("simulated_cycles") if sim.get("result") == "PASS" else None,
        "simulated_gops": (r["macs"] * 2 * CLOCK_GHZ / sim["simulated_cycles"]
                           if sim.get("result") == "PASS" and r.get("macs") and sim.get("simulated_cycles") else None),
        "simulation": sim or None,
        "lowering": lowered or None,
        "paper": PAPER[exp["id"]],
    }
    paper_design = PAPER[exp["id"]]["outcome"] == "design"
    rec["agrees_with_paper"] = (r.get("status") == "ok") == paper_design
    return rec


def synth_cell(pair):
    if not pair or pair[1] is None:
        return "n/a"
    name, v = pair
    return f"{v:,} {name}" if isinstance(v, (int, float)) else f"{v} {name}"


def markdown(rows, meta):
    out = [f"# Table III, reproduced ({meta['mode']} run)", "",
           f"skeleshare {meta['commit']}, {meta['effort_text']}; {meta['date']}; whole run "
           f"{meta['total_seconds']:.0f} s" +
           (f" ({meta['reused_runs']} runs reused from an earlier run; all compiles together "
            f"{meta['compile_seconds_total']:.0f} s)" if meta["reused_runs"] else "") + ".", "",
           "GOPS ours (simulated): MACs * 2 / the RTL simulation's cycles at 200 MHz (`skeleshare sim`, "
           "bit-exact, 25% memory wait states; n/a: not simulated, see the messages). GOPS ours (predicted): "
           "the cost model's prediction at 200 MHz (no board). Paper: measured on the Arria 10 GX1150. "
           "DSP % of 1,518.", "",
           "| # | experiment | ours | paper | DSPs (ours) | DSP % ours / paper | predicted cycles | "
           "GOPS ours (simulated) / ours (predicted) / paper | optimal | e-nodes | compile s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        p = x["paper"]
        pd = f"{p['dsps']}%" if "dsps" in p else "-"
        pg = f"{p['gops']}" if "gops" in p else "-"
        if x["status"] != "ok":
            opt = "-"
        else:
            opt = "yes" if x["optimal"] else f"no (bound {fmt_int(x['lower_bound_cycles'])})"
        ours_pct = "n/a" if x["dsp_percent"] is None else f"{x['dsp_percent']:.1f}%"
        out.append(f"| {x['id']} | {x['experiment']} | {x['result']} | {p['outcome']} | {fmt_int(x['dsp_used'])} | "
                   f"{ours_pct} / {pd} | {fmt_int(x['predicted_cycles'])} | "
                   f"{fmt_num(x['simulated_gops'], 2)} / {fmt_num(x['predicted_gops'])} / {pg} | {opt} | "
                   f"{fmt_int(x['enodes'])} | "
                   f"{fmt_num(x['compile_seconds'])} |")
    out += ["", "## Hardware columns", "",
            "Lowered design and open-source estimates (n/a: not provided by this build or not run; "
            "see table3.json for why). Paper: Logic % of ALMs / RAM % of M20K, measured by Quartus.", "",
            "| # | lowered DSPs | on-chip memory bits | M20K blocks + MLAB cells (compiler) | estimated cycles | simulated cycles | "
            "yosys logic | yosys RAM | yosys DSP | paper Logic / RAM |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        p = x["paper"]
        plr = f"{p['logic']}% / {p['ram']}%" if "logic" in p else "-"
        m20k = fmt_int(x["m20k_blocks"])
        if x["m20k_blocks"] is not None and x["device_m20k_blocks"]:
            m20k += f" ({100.0 * x['m20k_blocks'] / x['device_m20k_blocks']:.0f}%)"
        if x["mlab_cells"]:
            m20k += f" + {fmt_int(x['mlab_cells'])} MLAB"
        out.append(f"| {x['id']} | {fmt_int(x['lowered_dsps'])} | {fmt_int(x['onchip_memory_bits'])} | {m20k} | "
                   f"{fmt_int(x['estimated_cycles'])} | {fmt_int(x['simulated_cycles'])} | "
                   f"{synth_cell(x['synth_logic'])} | {synth_cell(x['synth_ram'])} | {synth_cell(x['synth_dsp'])} | "
                   f"{plr} |")
    out += ["", "Messages:", ""]
    for x in rows:
        msg = x["message"] or ""
        if x["note"]:
            msg = f"{x['note']}; {msg}"
        low = x["lowering"] or {}
        if low.get("skipped"):
            msg += f"; not lowered: {low['skipped']}"
        sim = x["simulation"] or {}
        if sim.get("skipped"):
            msg += f"; not simulated: {sim['skipped']}"
        elif sim.get("result"):
            msg += (f"; {sim.get('simulator', 'GHDL')} simulation: {sim['result']}"
                    + (" (outputs bit-exact)" if sim["result"] == "PASS" else ""))
        out.append(f"- {x['id']}: {msg}")
    out += ["", "Prior work in the paper's table (not run here):", ""]
    for x in rows:
        if x["paper"].get("prior"):
            out.append(f"- beside {x['id']}: {x['paper']['prior']}")
    return "\n".join(out) + "\n"


def figure12(args, tool, limits, whole_vgg):
    """Fig. 12: e-nodes and compile time of the first 1..14 VGG-CIFAR layers (compile runs).
    14 layers is the whole program: experiment 1's run (same flags and limits) when given."""
    with open(os.path.join(ROOT, "benchmarks", "vgg_cifar.dsl")) as f:
        source = f.read()
    slices = os.path.join(args.out, "runs", "fig12")
    os.makedirs(slices, exist_ok=True)
    rows = []
    for k in range(1, 15):
        path = os.path.join(slices, f"vgg_{k}.dsl")
        with open(path, "w") as f:
            f.write(truncated(source, k))
        if k == 14 and whole_vgg is not None:
            r, wall = whole_vgg, whole_vgg.get("compile_seconds")
        else:
            rc, r, wall, stderr, _ = tool.compile(path, os.path.join(slices, f"vgg_{k}"), [], limits)
        if r is None:
            sys.exit(f"fig. 12, {k} layers: compile failed (exit {rc}): {stderr}")
        rows.append({"layers": k, "enodes": r.get("enodes"), "eclasses": r.get("eclasses"), "status": r.get("status"),
                     "optimal": r.get("optimal"), "predicted_cycles": r.get("predicted_cycles"),
                     "saturation_seconds": r.get("saturation_seconds"),
                     "extraction_seconds": r.get("extraction_seconds"),
                     "compile_seconds": r.get("compile_seconds", wall)})
        print(f"fig12 {k:2d} layers: {r.get('enodes')} e-nodes, compile {rows[-1]['compile_seconds']:.2f} s",
              file=sys.stderr, flush=True)
    write_csv(os.path.join(args.out, "fig12.csv"), rows)

    def draw(plt):
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
        xs = [x["layers"] for x in rows]
        a.plot(xs, [x["enodes"] for x in rows], "o-")
        a.set_xlabel("number of VGG-CIFAR layers")
        a.set_ylabel("e-nodes after saturation")
        a.set_title("(a) e-graph size")
        a.set_xticks(xs)
        b.plot(xs, [x["compile_seconds"] for x in rows], "o-", label="compile (total)")
        b.plot(xs, [x["extraction_seconds"] for x in rows], "s--", label="extraction")
        b.plot(xs, [x["saturation_seconds"] for x in rows], "^:", label="saturation")
        b.set_xlabel("number of VGG-CIFAR layers")
        b.set_ylabel("seconds")
        b.set_title("(b) compile time")
        b.set_xticks(xs)
        b.legend()
        fig.tight_layout()
        return fig
    return rows, plot(os.path.join(args.out, "fig12.png"), draw)


def figure13(args, reports):
    """Fig. 13: predicted cycles of the best design against solver time, from the
    improvements of an extraction (a step function ending when the extraction ends).
    `reports`: (benchmark, report.json) pairs; the paper's figure is VGG (experiment 1),
    TinyYolo (experiment 3) is drawn beside it when it ran."""
    rows = []
    for name, report in reports:
        if not report:
            continue
        series = [{"benchmark": name, "seconds": i.get("seconds"), "effort": i.get("effort"),
                   "predicted_cycles": i.get("predicted_cycles"), "dsp_used": i.get("dsp_used"),
                   "source": i.get("source")} for i in report.get("improvements") or []]
        if series and report.get("extraction_seconds") is not None:
            series.append(dict(series[-1], seconds=report["extraction_seconds"], effort=report.get("effort_spent"),
                               source="end of extraction"))
        rows += series
    if not rows:
        return rows, "no improvements in experiment 1's or 3's report: no fig13.csv or PNG"
    write_csv(os.path.join(args.out, "fig13.csv"), rows)
    names = [n for n, _ in reports if any(x["benchmark"] == n for x in rows)]

    def draw(plt):
        fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 3.8), squeeze=False)
        for ax, name in zip(axes[0], names):
            pts = [x for x in rows if x["benchmark"] == name]
            ax.step([x["seconds"] for x in pts], [x["predicted_cycles"] for x in pts], where="post", marker="o")
            ax.set_xlabel("extraction time (s)")
            ax.set_ylabel("predicted cycles of the best design")
            ax.set_title(f"{name}: best design over solver time")
            ax.set_ylim(bottom=0)
            if min(x["seconds"] for x in pts) > 0:
                ax.set_xscale("log")  # improvements come early and the search runs long
        fig.tight_layout()
        return fig
    return rows, plot(os.path.join(args.out, "fig13.png"), draw)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def plot(png, draw):
    """Draws with matplotlib if it is there; returns None or why no PNG was written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is missing (use /usr/bin/python3 with python3-matplotlib): no PNG"
    fig = draw(plt)
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return None


def solver_limits(effort, timeout):
    """compile's flags for an effort and a timeout (None: compile's default)."""
    return (["--effort", str(effort)] if effort is not None else []) + \
        (["--timeout", str(timeout)] if timeout is not None else [])


def git_commit():
    r = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def default_tool():
    for b in ("build-release", "build"):
        p = os.path.join(ROOT, b, "src", "skeleshare")
        if os.access(p, os.X_OK):
            return p
    return os.path.join(ROOT, "build", "src", "skeleshare")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skeleshare", default=default_tool(), help="the executable (default: build-release/ or build/)")
    ap.add_argument("--rules", default=os.path.join(ROOT, "rules"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results"), help="output directory (default results/)")
    ap.add_argument("--quick", action="store_true", help=f"short solver limits (--effort {QUICK_EFFORT:,}): a few minutes")
    ap.add_argument("--effort", type=int, help="extraction effort of every compile (default: compile's own)")
    ap.add_argument("--timeout", type=float, help="extraction wall-clock limit of every compile (makes results load-dependent)")
    ap.add_argument("--skip-hw", action="store_true", help="no simulation (hardware columns come only from report.json)")
    ap.add_argument("--sim-timeout", type=float, help="seconds per simulation (default 600 with --quick, else 10800)")
    ap.add_argument("--sim-max-cycles", type=int,
                    help=f"simulate only designs predicted to take at most this many cycles (default: "
                         f"{QUICK_SIM_MAX_CYCLES:,} with --quick, else every design)")
    ap.add_argument("--simulator", choices=["auto", "ghdl", "verilator"], default="auto",
                    help="`skeleshare sim --simulator` (default auto: GHDL, measured faster on every benchmark)")
    ap.add_argument("--synth", action="store_true",
                    help="synthesise every design with benchmarks/synth.py --per-module --lut-mapper abc "
                         "(Logic/RAM/DSP columns; hours for VGG and TinyYolo)")
    ap.add_argument("--synth-blocks", action="store_true",
                    help="map only the designs' DSP blocks and M20Ks (synth.py --per-module --blocks-only: RAM/DSP "
                         "columns, no Logic; a fraction of --synth's time)")
    ap.add_argument("--synth-timeout", type=float, default=3600.0, help="yosys seconds per module (default 3600)")
    ap.add_argument("--synth-jobs", type=int, default=1, help="yosys runs at once (default 1)")
    ap.add_argument("--no-figures", action="store_true", help="only Table III")
    ap.add_argument("--fig12-effort", type=int,
                    help="extraction effort of the Fig. 12 slices (default: that of the table)")
    ap.add_argument("--resume", action="store_true",
                    help="reuse OUT/runs/*/report.json made with the same settings (by the same build!)")
    ap.add_argument("--only", help="comma-separated experiment ids (e.g. 1,10); default: all")
    ap.add_argument("--no-overlap", dest="overlap", action="store_false",
                    help="compile, lower and simulate with --no-overlap: every unit starts once the unit before it has "
                         "ended, and the prediction runs them one after another (docs/cost-model.md); by default a "
                         "unit may start beside the unit before it, and the prediction credits a shared unit's handovers")
    args = ap.parse_args()
    if args.synth and args.synth_blocks:
        ap.error("--synth maps the hard blocks too: give one of --synth and --synth-blocks")
    if args.sim_max_cycles is None and args.quick:
        args.sim_max_cycles = QUICK_SIM_MAX_CYCLES
    if args.sim_timeout is None:
        args.sim_timeout = 600.0 if args.quick else 10800.0
    if not os.access(args.skeleshare, os.X_OK):
        sys.exit(f"reproduce.py: no skeleshare executable at {args.skeleshare} (build it, or give --skeleshare)")
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    effort = args.effort if args.effort is not None else (QUICK_EFFORT if args.quick else None)
    limits = solver_limits(effort, args.timeout)
    fig12_effort = args.fig12_effort if args.fig12_effort is not None else effort
    effort_text = (f"extraction effort {effort:,}" if effort is not None else "compile's default extraction effort") + \
        (f", timeout {args.timeout:g} s" if args.timeout is not None else "") + ("" if args.overlap else ", --no-overlap")

    start = time.monotonic()
    device_dsps = json.load(open(os.path.join(args.rules, "devices", "arria10_gx1150.json")))["dsp_blocks"]
    tool = Tool(args.skeleshare, args.rules, args.resume, device_dsps, args.overlap)
    exps = experiments(args.rules)
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in {e["id"] for e in exps}]
        if unknown:
            sys.exit(f"reproduce.py: no experiment {', '.join(unknown)} (have {', '.join(e['id'] for e in exps)})")
        exps = [e for e in exps if e["id"] in wanted]
    results = run_experiments(args, tool, exps, limits)
    rows = [row_record(res, device_dsps) for res in results]

    def write_outputs(figures):
        total = time.monotonic() - start
        compile_total = sum(x["compile_seconds"] or 0 for x in rows) + sum(
            x["compile_seconds"] or 0 for x in figures.get("fig12", {}).get("rows", [])[:13])
        meta = {"mode": "quick" if args.quick else "full", "commit": git_commit(), "effort": effort,
                "effort_text": effort_text, "fig12_effort": fig12_effort, "timeout": args.timeout,
                "skip_hw": args.skip_hw, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "total_seconds": total, "compile_seconds_total": compile_total, "reused_runs": tool.reused,
                "skeleshare": args.skeleshare, "device_dsps": device_dsps}
        md = markdown(rows, meta)
        with open(os.path.join(args.out, "table3.md"), "w") as f:
            f.write(md)
        with open(os.path.join(args.out, "table3.json"), "w") as f:
            json.dump({"meta": meta, "rows": rows, "figures": figures}, f, indent=2)
            f.write("\n")
        return md, total

    # The table is written before the figures, which take as long again.
    write_outputs({})
    figures = {}
    if not args.no_figures:
        vgg = next((res["report"] for res in results if res["exp"]["id"] == "1"), None)
        yolo = next((res["report"] for res in results if res["exp"]["id"] == "3"), None)
        f13_rows, f13_note = figure13(args, [("VGG-CIFAR", vgg), ("TinyYolo v2", yolo)])
        figures["fig13"] = {"rows": f13_rows, "png_note": f13_note}
        f12_limits = solver_limits(fig12_effort, args.timeout)
        f12_rows, f12_note = figure12(args, tool, f12_limits, vgg if f12_limits == limits else None)
        figures["fig12"] = {"rows": f12_rows, "png_note": f12_note}
    md, total = write_outputs(figures)
    print(md)
    for name, fig in figures.items():
        if fig["png_note"]:
            print(f"{name}: {fig['png_note']}")
    print(f"wrote {args.out}/table3.md, table3.json" + ("" if args.no_figures else ", fig12.csv/png, fig13.csv/png") +
          f"; whole run {total:.0f} s" + (f" ({tool.reused} runs reused)" if tool.reused else ""))


if __name__ == "__main__":
    main()
