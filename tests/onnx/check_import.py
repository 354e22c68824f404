#!/usr/bin/env python3
"""End-to-end test of `skeleshare import` (issue 21, docs/onnx.md).

make_models.py builds quantised ONNX models and evaluates them with NumPy by the ONNX
operators' own definitions. This script imports each one and checks:
  1. the imported program, run on the model's weights and input, gives the NumPy result
     bit for bit; its design simulates bit-exact in GHDL (one at a shared budget too);
  2. the VGG-CIFAR-shaped QDQ model gives benchmarks/vgg_cifar.dsl's layer table and MAC
     count, and the same design at the full budget;
  3. every unsupported model fails with exit 1, names its node and operator, and writes
     nothing; --round-scales accepts a scale that is not a power of two and says so.

usage: check_import.py --skeleshare BIN --work DIR [--no-sim]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def tool(args, **kw):
    return subprocess.run([ARGS.skeleshare] + args, capture_output=True, text=True, **kw)


def imported(models, name, out):
    shutil.rmtree(out, ignore_errors=True)
    r = tool(["import", os.path.join(models, name + ".onnx"), "-o", out])
    check(r.returncode == 0, "%s: imports (%s)" % (name, r.stderr.strip().splitlines()[-1] if r.stderr else ""))
    return os.path.join(out, "model.dsl")


def declared(dsl, kind):
    return [m.group(1) for m in re.finditer(r"^%s (\w+)" % kind, open(dsl).read(), re.M)]


# Extra compile flags per model: misc_qdq's 2-channel convolution and its matrix cannot
# share one convolution unit, which `sim` says with this suggestion.
SIM_FLAGS = {"misc_qdq": ["--max-conv-units", "2"]}


def good_model(models, work, name, entry, sim_budgets):
    out = os.path.join(work, "import", name)
    dsl = imported(models, name, out)
    (inp,), (outp,) = declared(dsl, "input"), declared(dsl, "output")
    feed = ["--weights", os.path.join(out, "weights"), "--input", "%s=%s" % (inp, os.path.join(models, entry["input"]))]
    run_dir = os.path.join(work, "run", name)
    r = tool(["run", dsl, "--via", "both", "-o", run_dir] + feed)
    check(r.returncode == 0, "%s: runs, the DSL and IR evaluators agree" % name)
    if r.returncode == 0:
        got = np.load(os.path.join(run_dir, outp + ".npy"))
        want = np.load(os.path.join(models, entry["expected"]))
        same = got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
        check(same, "%s: output %s %s equals the NumPy evaluation of the ONNX graph bit for bit" % (name, got.dtype, got.shape))
    for budget in sim_budgets:
        args = ["sim", dsl, "--seed", "3", "-q", "--json", "-o", os.path.join(work, "sim", "%s_%s" % (name, budget))]
        r = tool(args + (["--dsp-budget", str(budget)] if budget else []) + SIM_FLAGS.get(name, []) + feed)
        report = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
        check(r.returncode == 0 and report.get("result") == "PASS",
              "%s: simulates bit-exact at %s (%s simulated / %s predicted cycles)"
              % (name, "%s DSP blocks" % budget if budget else "the full budget",
                 report.get("simulated_cycles"), report.get("predicted_cycles")))


def normalised_layers(dsl):
    r = tool(["check", "--json", dsl])
    j = json.loads(r.stdout)
    layers = [(l["op"].replace("requant_even", "requant"), l["inputs"], l["output"], l["macs"]) for l in j["layers"]]
    return j["macs"], layers


def vgg(models, work):
    dsl = imported(models, "vgg_qdq", os.path.join(work, "import", "vgg_qdq"))
    bench = os.path.join(ROOT, "benchmarks", "vgg_cifar.dsl")
    (m1, l1), (m2, l2) = normalised_layers(dsl), normalised_layers(bench)
    check(m1 == m2 and l1 == l2, "vgg_qdq: %d MACs and %d layers, as vgg_cifar.dsl (requant_even for requant)" % (m1, len(l1)))
    designs = []
    for src, d in ((dsl, "vgg_qdq"), (bench, "vgg_cifar")):
        out = os.path.join(work, "compile", d)
        r = tool(["compile", src, "-q", "-o", out])
        check(r.returncode == 0, "%s: compiles at the full budget" % d)
        rep = json.load(open(os.path.join(out, "report.json")))
        ir = open(os.path.join(out, "design.ir")).read().replace("RequantEven", "Requant")
        names = {"x": "image", "wfc": "fc", "y": "logits"}  # the model's names for the benchmark's
        ir = re.sub(r"(?<=[@ ])(x|wfc|y)\b", lambda m: names[m.group(1)], ir) if d == "vgg_qdq" else ir
        designs.append((rep["predicted_cycles"], rep["dsp_used"], rep["hardware"]["estimated_cycles"], ir))
    check(designs[0] == designs[1], "vgg_qdq: the same design as vgg_cifar.dsl at the full budget (%s cycles, %s DSP blocks)"
          % designs[1][:2])


def bad_models(models, work, manifest):
    for name, entry in manifest["bad"].items():
        out = os.path.join(work, "bad", name)
        shutil.rmtree(out, ignore_errors=True)
        r = tool(["import", os.path.join(models, entry["onnx"]), "-o", out])
        where = "node '%s' (%s)" % (entry["node"], entry["op"]) if entry["op"] else "graph input '%s'" % entry["node"]
        check(r.returncode == 1 and where in r.stderr and "error:" in r.stderr and not os.path.exists(out),
              "%s: exit 1, names %s, writes nothing: %s" % (name, where, r.stderr.strip()))
    out = os.path.join(work, "bad", "rounded")
    r = tool(["import", os.path.join(models, "bad_scale.onnx"), "-o", out, "--round-scales"])
    check(r.returncode == 0 and "off by 16.7%" in r.stderr and "off by 16.7%" in open(os.path.join(out, "model.dsl")).read(),
          "bad_scale with --round-scales: imported, the rounding reported and recorded in model.dsl")
    r = tool(["import", os.path.join(HERE, "make_models.py"), "-o", os.path.join(work, "bad", "notonnx")])
    check(r.returncode == 1 and "not an ONNX model" in r.stderr, "a file that is not ONNX: exit 1 (%s)" % r.stderr.strip())
    # --weights names only what the program declares
    stray = os.path.join(work, "stray")
    shutil.copytree(os.path.join(work, "import", "mlp_qdq", "weights"), stray, dirs_exist_ok=True)
    shutil.copy(os.path.join(models, "mlp_qdq.input.npy"), os.path.join(stray, "nothing.npy"))
    r = tool(["run", os.path.join(work, "import", "mlp_qdq", "model.dsl"), "--weights", stray, "-o", os.path.join(work, "stray_out")])
    check(r.returncode == 1 and "declares no input or weight 'nothing'" in r.stderr,
          "run --weights with a file the program does not declare: exit 1 (%s)" % r.stderr.strip())


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--skeleshare", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--no-sim", action="store_true")
    ARGS = p.parse_args()
    models = os.path.join(ARGS.work, "models")
    shutil.rmtree(ARGS.work, ignore_errors=True)
    os.makedirs(models)
    subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), models], check=True, stderr=subprocess.DEVNULL)
    manifest = json.load(open(os.path.join(models, "manifest.json")))
    for name, entry in manifest["models"].items():
        if entry["expected"]:
            budgets = [] if ARGS.no_sim else [None] + ([32] if name == "conv_qdq" else [])  # 32: two shared units
            good_model(models, ARGS.work, name, entry, budgets)
    vgg(models, ARGS.work)
    bad_models(models, ARGS.work, manifest)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
