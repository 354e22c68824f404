#!/usr/bin/python3
"""Synthesise a `skeleshare compile` output with GHDL and yosys and report its resources.

    benchmarks/synth.py DIR [--ghdl-only] [--ghdl-timeout S] [--yosys-timeout S]
                            [--hierarchical | --per-module [--jobs N]] [--lut-mapper abc9|abc]
                            [--blocks-only | --dsps-only]
                            [--entity NAME [-g GENERIC=VALUE]...]

DIR is what `skeleshare compile FILE.dsl -o DIR` wrote: DIR/vhdl/files.txt (the VHDL files
in compile order) and DIR/report.json ("top", "device", "dsp_used", "lowered_dsps").

1. `ghdl synth --std=08 --out=verilog FILES... -e TOP` (GHDL 2.0 has no yosys plugin here,
   so the netlist goes to yosys as Verilog): DIR/synth/TOP.v, rewritten by
   `skeleshare fix-verilog` (--skeleshare) so that yosys reads what GHDL meant: string-
   literal constants (wider than 32 bits, which Verilog reads as ASCII) as sized binary,
   when/else as ?:, arithmetic shifts (printed as >>) as >>>, self-assignments dropped.
2. `yosys -p "read_verilog TOP.v; synth_intel_alm -family cyclone10gx -top TOP -noiopad; stat -json"`
   (no I/O buffers: they are not logic, and are not counted)
   (`--hierarchical`: `synth_intel_alm -noflatten` and `stat -json -top TOP`, the cells of
   every module times its instances: no optimisation across module boundaries, so an
   upper bound of the flattened run's figures.)
   (`--per-module`: the same as --hierarchical, but one yosys run per module of the netlist
   with its submodules as black boxes (benchmarks/verilog_modules.py splits it), `--jobs N`
   at once; a module whose text and script are unchanged keeps its DIR/synth/modules/
   result, so a stopped run resumes (text compared up to GHDL's net numbers and source
   comments, so a template edit re-runs only the modules it changes). The cells are summed times each module's instances,
   and also per template (report.json synth.by_template: where the logic is; a template's
   own cells, its submodules counted under theirs; "generated" = the design's top and units).)
   (`--lut-mapper abc`: the same script up to its map_luts step, then classic `abc -lut 6`
   and the ALM cell mapping: no timing model, but it finishes where abc9 runs for hours.)
   (`--blocks-only`: the same script up to its map_ffram step, so the DSP blocks, M20Ks and
   MLABs are mapped exactly as the full run maps them but no logic is: no ALM figures. The
   LUT mapping is most of a full design's yosys time; this measures the hard blocks of
   designs whose full synthesis takes hours. Written to DIR/synth/blocks/ and
   report.json["synth_blocks"], never to "synth", with dsp_agreement and ram_agreement:
   yosys's M20K blocks and MLAB cells against the compiler's hardware.m20k_blocks and
   mlab_cells.)
   (`--dsps-only`: --per-module --blocks-only for the modules that multiply, and only for
   them: every module is first read alone (`read_verilog; hierarchy; opt_expr; stat`,
   seconds), and one with no `$mul` cell left cannot hold a DSP block, so it is not mapped. A whole design's DSP blocks
   in minutes where --blocks-only takes hours (every read's line FIFO is a memory it
   maps). Written to DIR/synth/dsps/ and report.json["synth_dsps"], with dsp_agreement;
   no RAM figures.)
   (Cyclone 10 GX has the ALMs, M20Ks and variable-precision DSP blocks of Arria 10).
3. The cell counts of `stat` become DIR/report.json["synth"] (rewritten atomically), with
   percentages of the device named in report.json (rules/devices/<device>.json).
   --entity synthesises one entity of the design instead of the top (a unit, or a template
   with -g generics) and writes DIR/synth/<entity>/ and report.json["synth_entity"].

What is counted (yosys does not pack ALMs, so logic is an estimate from its cells):
  luts       every MISTRAL_ALUT* cell (ALUT2..ALUT6 and ALUT_ARITH, the carry-chain half-ALMs)
  ffs        MISTRAL_FF cells
  alms       ALUT6 + ceil(other LUTs / 2), at least ceil(ffs / 4), plus ceil(mlabs / 2): an ALM
             holds one 6-input or two smaller LUTs and four registers, so this is the
             perfectly packed estimate; an MLAB is a LAB of 10 ALMs used as 32 x 20 bits of
             RAM, i.e. half an ALM per MISTRAL_MLAB cell (32 x 1)
  mlabs      MISTRAL_MLAB cells (32 x 1 LUT-RAM each: the read caches)
  m20k       MISTRAL_M20K and altsyncram cells (yosys writes a mapped M20K as Quartus's
             altsyncram, one cell per block)
  dsp_mults  MISTRAL_MUL27X27 / MUL18X18 / MUL9X9 cells by kind
  dsps       DSP blocks: one per 27x27, one per two 18x18 or 9x9 (an Arria 10 block is
             one 27x27 or two 18x19 multipliers; 9x9 has no mode of its own there)
Exit 0 on success, 1 on bad input or a tool failure (with the tool's last lines).
"""

import argparse
import collections
import concurrent.futures
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import verilog_modules

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILY = "cyclone10gx"


class SynthError(Exception):
    pass


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SynthError(f"{path}: cannot read: {e}")


def load_yosys_stat(path):
    """yosys 0.23's `stat -json -top TOP` writes its text hierarchy (`  module  count` lines)
    into the JSON between the modules and "design"; those lines are dropped."""
    try:
        with open(path) as f:
            lines = [l for l in f if not re.fullmatch(r"\s*[^\s\"{}:,]+\s+\d+\s*", l)]
        return json.loads("".join(lines))
    except (OSError, ValueError) as e:
        raise SynthError(f"{path}: cannot read: {e}")


def write_json_atomically(path, data):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".report.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def last_lines(paths, n):
    lines = []
    for p in paths:
        if os.path.isfile(p):
            with open(p, errors="replace") as f:
                lines += f.read().splitlines()[-n:]
    return "\n  ".join(lines)


def describe_exit(rc):
    """How a tool ended, from subprocess' return code (negative: killed by that signal).

    >>> describe_exit(1)
    'exit 1'
    >>> describe_exit(-9)
    "killed by SIGKILL (most likely the kernel's out-of-memory killer)"
    >>> describe_exit(-15)
    'killed by SIGTERM'
    """
    if rc >= 0:
        return f"exit {rc}"
    how = f"killed by {signal.Signals(-rc).name}"
    return how + (" (most likely the kernel's out-of-memory killer)" if -rc == signal.SIGKILL else "")


def run_tool(name, argv, cwd, stdout_path, log_path, timeout, progress_log=None):
    """Runs a tool, stdout to stdout_path, stderr to log_path; returns wall seconds.
    progress_log is the tool's own log, whose end says how far a stopped run got."""
    start = time.monotonic()
    try:
        with open(stdout_path, "w") as out, open(log_path, "w") as err:
            rc = subprocess.run(argv, cwd=cwd, stdout=out, stderr=err, timeout=timeout or None).returncode
    except FileNotFoundError:
        raise SynthError(f"{name}: not found ({argv[0]}); install the Debian package")
    except subprocess.TimeoutExpired:
        raise SynthError(f"{name}: stopped at the {timeout:g} s limit; it had got to:\n  "
                         + last_lines([progress_log or log_path], 5))
    seconds = time.monotonic() - start
    if rc != 0:
        # yosys runs quietly (-q): its own log says how far it got
        raise SynthError(f"{name} failed ({describe_exit(rc)}) after {seconds:.1f} s; last lines:\n  "
                         + last_lines([log_path, stdout_path] + ([progress_log] if progress_log else []), 15))
    return seconds


def fix_ghdl_verilog(skeleshare, path):
    """Rewrites GHDL 2.0's netlist at path in place with `skeleshare fix-verilog` (the one
    implementation of the fix-ups, shared with the Verilator simulation path: wide
    constants printed as strings, which Verilog reads as ASCII and which made yosys lose
    every multiplier feeding ss_unop's saturation; when/else in VHDL syntax; arithmetic
    shifts printed as logical ones; self-assignments). Returns its counts, a dict."""
    try:
        r = subprocess.run([skeleshare, "fix-verilog", "--json", path], capture_output=True, text=True)
    except FileNotFoundError:
        raise SynthError(f"skeleshare: not found ({skeleshare}); build it or pass --skeleshare")
    if r.returncode != 0:
        raise SynthError(f"skeleshare fix-verilog failed (exit {r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout)


def count_cells(cells):
    """Resource figures from yosys `stat -json` cell counts (see the module docstring)."""
    luts = {k: v for k, v in cells.items() if k.startswith("MISTRAL_ALUT")}
    lut6 = luts.get("MISTRAL_ALUT6", 0)
    small = sum(luts.values()) - lut6
    ffs = cells.get("MISTRAL_FF", 0)
    mults = {k: v for k, v in cells.items() if k.startswith("MISTRAL_MUL")}
    dsps = (mults.get("MISTRAL_MUL27X27", 0) + math.ceil(mults.get("MISTRAL_MUL18X18", 0) / 2)
            + math.ceil(mults.get("MISTRAL_MUL9X9", 0) / 2))
    return {
        "luts": sum(luts.values()),
        "luts_by_kind": dict(sorted(luts.items())),
        "ffs": ffs,
        "alms": max(lut6 + math.ceil(small / 2), math.ceil(ffs / 4)) + math.ceil(cells.get("MISTRAL_MLAB", 0) / 2),
        "mlabs": cells.get("MISTRAL_MLAB", 0),
        "m20k": cells.get("MISTRAL_M20K", 0) + cells.get("altsyncram", 0),
        "dsp_mults": dict(sorted(mults.items())),
        "dsps": dsps,
    }


# -noiopad: I/O buffers are not counted (not ALMs), and in a per-module run every port of
# a submodule would get one: 11,298 output buffers and 41 s of iopadmap for one wide read
SYNTH_FLAGS = "-noiopad"


def synth_command(args, top, flatten):
    cmd = f"synth_intel_alm -family {FAMILY} -top {top} {SYNTH_FLAGS} {flatten}".rstrip()
    if args.blocks_only:
        # begin, coarse (DSP inference and mapping), map_bram (M20K), map_lutram (MLAB):
        # the hard blocks as the full flow maps them; the later steps map only logic
        return cmd + " -run begin:map_ffram"
    if args.lut_mapper == "abc":
        # the same flow up to map_luts, then classic ABC and the ALM cell mapping that
        # synth_intel_alm applies after abc9
        cmd += " -run begin:map_luts; abc -lut 6; techmap -map +/intel_alm/common/alm_map.v; opt -fast; clean"
    return cmd


_TEMPLATE_MODULE = re.compile(r"(ss_[a-z_]+?)(_[0-9].*)?$")


def template_of(module):
    """The template a GHDL module name comes from (GHDL appends the generics), or
    "generated" for the design's own entities (its top and units).

    >>> template_of("ss_read_5_3_3_2_1_1408_8_0_1_64_4_ee88"), template_of("ss_mem_arbiter_15_8")
    ('ss_read', 'ss_mem_arbiter')
    >>> template_of("ss_reduce_vec_22_64_32_32_58d1"), template_of("vgg_cifar_u3")
    ('ss_reduce_vec', 'generated')
    """
    m = _TEMPLATE_MODULE.match(module)
    return m.group(1) if m else "generated"


YOSYS_USAGE = re.compile(r"CPU: user ([\d.]+)s system ([\d.]+)s, MEM: ([\d.]+) MB peak")


def yosys_usage(log_text):
    """(CPU seconds, peak MB) from the summary at the end of a yosys log, or None when
    there is none (a run that was stopped).

    >>> yosys_usage("End of script. Logfile hash: b39c, CPU: user 136.17s system 2.05s, MEM: 965.59 MB peak")
    (138.22, 965.59)
    >>> yosys_usage("2.22. Executing SHARE pass (SAT-based resource sharing).") is None
    True
    """
    m = YOSYS_USAGE.search(log_text)
    return (round(float(m.group(1)) + float(m.group(2)), 2), float(m.group(3))) if m else None


def logged_usage(log_path):
    """yosys_usage of a yosys log file (the summary is in its last lines), None without one."""
    if not os.path.isfile(log_path):
        return None
    with open(log_path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 4096))
        return yosys_usage(f.read().decode(errors="replace"))


def read_black_boxes(kids):
    """The yosys commands that read a module's submodules as black boxes (ports only), from
    their NAME.bb.v copies (write_black_boxes). Not from NAME.v: that is the submodule's own
    input, and a parent rewriting it made the submodule's reuse check (its text unchanged,
    a statistics file there) pass with the statistics of its old text."""
    return "".join(f"read_verilog -lib {c}.bb.v\n" for c in sorted(kids))


def write_black_boxes(mdir, names, modules):
    """The texts of the modules that are some module's submodule, as NAME.bb.v: once per
    run, before any yosys run reads them."""
    for c in sorted(names):
        with open(os.path.join(mdir, c + ".bb.v"), "w") as f:
            f.write(modules[c])


def multiplies(args, name, mdir, kids):
    """Whether module `name` (DIR/synth/.../modules/NAME.v, its submodules black boxes) has
    a multiplier: a `$mul` cell once yosys has read it and simplified its expressions
    (opt_expr, which turns a product with a power of two, as in a line's byte address,
    into a shift). Only a `$mul` becomes a DSP block in synth_intel_alm, whose flow runs
    opt_expr before its DSP mapping and never makes a `$mul` of anything else, so a module
    without one maps to none. Returns (that, the read's wall seconds); the read is logged to
    NAME.log (a mapping run replaces it)."""
    script = read_black_boxes(kids) + f"read_verilog {name}.v\nhierarchy -top {name}\nopt_expr\ntee -q -o {name}.scan.json stat -json\n"
    with open(os.path.join(mdir, name + ".scan.ys"), "w") as f:
        f.write(script)
    seconds = run_tool(f"yosys (read {name})", [args.yosys, "-q", "-l", name + ".log", "-s", name + ".scan.ys"], mdir,
             os.path.join(mdir, name + ".out"), os.path.join(mdir, name + ".err"), args.yosys_timeout)
    stat = load_yosys_stat(os.path.join(mdir, name + ".scan.json"))
    own = stat.get("modules", {}).get("\\" + name) or stat.get("modules", {}).get(name)
    if not own or "num_cells_by_type" not in own:
        raise SynthError(f"{mdir}/{name}.scan.json: no cell statistics for {name}")
    return own["num_cells_by_type"].get("$mul", 0) > 0, seconds


def synth_per_module(args, verilog, top, work):
    """One yosys run per module of the netlist, its submodules read as black boxes (ports
    only): the same result as `-noflatten` in one run (no optimisation crosses a module
    boundary there either), but each run holds one module, several can run at once, and a
    module whose text and script are unchanged keeps its earlier result. Returns (yosys
    seconds summed over the runs, the hierarchy's cells, {"unique", "synthesised", "reused"},
    the figures of count_cells per template with its instances)."""
    with open(verilog) as f:
        modules = verilog_modules.split_modules(f.read())
    kids = verilog_modules.children(modules)
    try:
        counts = verilog_modules.instance_counts(top, kids)
    except ValueError as e:
        raise SynthError(f"{verilog}: {e}")
    mdir = os.path.join(work, "modules")
    os.makedirs(mdir, exist_ok=True)
    write_black_boxes(mdir, set().union(*kids.values()), modules)

    def unchanged(path, text, key=lambda t: t):
        if not os.path.isfile(path):
            return False
        with open(path) as f:
            return key(f.read()) == key(text)

    def run(name):
        """(seconds, reused) for one module; its cells are in modules/NAME.stat.json."""
        v, ys, stat = (os.path.join(mdir, name + ext) for ext in (".v", ".ys", ".stat.json"))
        script = read_black_boxes(kids[name]) + f"read_verilog {name}.v\n{synth_command(args, name, '-noflatten')}\ntee -q -o {name}.stat.json stat -json\n"
        if unchanged(v, modules[name], verilog_modules.canonical) and unchanged(ys, script) and os.path.isfile(stat):
            return 0.0, True
        if os.path.isfile(stat):
            os.unlink(stat)
        for path, text in ((v, modules[name]), (ys, script)):
            with open(path, "w") as f:
                f.write(text)
        if args.dsps_only:
            mul, seconds = multiplies(args, name, mdir, kids[name])
            if not mul:
                with open(stat, "w") as f:  # no multiplier, so no DSP block: nothing to map
                    json.dump({"modules": {name: {"num_cells_by_type": {}}}, "mapped": False}, f)
                return seconds, False
        seconds = run_tool(f"yosys ({name})", [args.yosys, "-q", "-l", name + ".log", "-s", name + ".ys"], mdir,
                           os.path.join(mdir, name + ".out"), os.path.join(mdir, name + ".err"), args.yosys_timeout,
                           progress_log=os.path.join(mdir, name + ".log"))
        return seconds, False

    names = sorted(counts, key=lambda n: -len(modules[n]))  # the largest first: they bound the wall time
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = dict(zip(names, pool.map(run, names)))
    cells = collections.Counter()
    by_template = collections.defaultdict(collections.Counter)
    instances = collections.Counter()
    usage = []  # the whole design's yosys cost, reused modules included (their logs are kept)
    for name in names:
        usage.append(logged_usage(os.path.join(mdir, name + ".log")))
        stat = load_yosys_stat(os.path.join(mdir, name + ".stat.json"))
        own = stat.get("modules", {}).get("\\" + name) or stat.get("modules", {}).get(name)
        if not own or "num_cells_by_type" not in own:
            raise SynthError(f"{mdir}/{name}.stat.json: no cell statistics for {name}")
        template = template_of(name)
        instances[template] += counts[name]
        for kind, n in own["num_cells_by_type"].items():
            if kind.lstrip("\\") not in modules:  # a submodule is counted as itself
                cells[kind] += n * counts[name]
                by_template[template][kind] += n * counts[name]
    reused = sum(1 for _, r in results.values() if r)
    done = {"unique": len(names), "synthesised": len(names) - reused, "reused": reused}
    if args.dsps_only:  # the modules read and found to have no multiplier were not mapped
        done["mapped"] = sum(1 for n in names if load_json(os.path.join(mdir, n + ".stat.json")).get("mapped", True))
    if all(usage):
        done.update({"cpu_seconds": round(sum(u[0] for u in usage), 1), "peak_mb": max(u[1] for u in usage)})
    breakdown = {t: {"instances": instances[t], **count_cells(c)} for t, c in sorted(by_template.items())}
    return sum(s for s, _ in results.values()), dict(sorted(cells.items())), done, breakdown


def device_for(report, device_arg):
    path = device_arg or os.path.join(REPO, "rules", "devices", report.get("device", "arria10_gx1150") + ".json")
    dev = load_json(path)
    for key in ("alms", "m20k_blocks", "dsp_blocks"):
        if not isinstance(dev.get(key), int) or dev[key] <= 0:
            raise SynthError(f"{path}: no positive '{key}'")
    return dev


def dsp_agreement(synth, report):
    """Compares yosys' multipliers with the compiler's DSP count; returns a sentence."""
    # the lowered design's DSP multipliers (what the VHDL instantiates), else extraction's
    compiler = report.get("hardware", {}).get("dsps", report.get("lowered_dsps", report.get("dsp_used")))
    if compiler is None:
        return "report.json has no hardware.dsps / lowered_dsps / dsp_used to compare with"
    mults = sum(synth["dsp_mults"].values())
    if synth["dsps"] == compiler:
        return f"agree: {synth['dsps']} DSP blocks = compiler's {compiler}"
    return (f"differ: yosys {synth['dsps']} DSP blocks ({mults} multipliers: "
            f"{', '.join(f'{v} {k[8:]}' for k, v in synth['dsp_mults'].items()) or 'none'}) vs compiler's {compiler}"
            " (see docs/hardware.md, 'Synthesis and resources')")


def ram_agreement(synth, report):
    """Compares yosys' M20K blocks and MLAB cells with the compiler's count of the design's
    RAMs (lower/ram_mapping.h, the arbiter's FIFO of read ports included); returns a
    sentence."""
    hw = report.get("hardware", {})
    if "m20k_blocks" not in hw or "mlab_cells" not in hw:
        return "report.json has no hardware.m20k_blocks / mlab_cells to compare with"
    same = synth["m20k"] == hw["m20k_blocks"] and synth["mlabs"] == hw["mlab_cells"]
    verdict, eq = ("agree", "=") if same else ("differ", "vs")
    return (f"{verdict}: M20K {synth['m20k']} {eq} compiler's {hw['m20k_blocks']}, "
            f"MLAB cells {synth['mlabs']} {eq} compiler's {hw['mlab_cells']}")


DEVICE_KEY = {"alms": "alms", "m20k": "m20k_blocks", "dsps": "dsp_blocks"}  # figure -> the device's count


def device_percent(figures, dev, keys):
    """{key: figures[key] as a percentage of the device's count} for `keys`."""
    return {k: round(100 * figures[k] / dev[DEVICE_KEY[k]], 2) for k in keys}


def report_logic(synth, cells, dev, report, args):
    """A full synthesis' figures into synth (report.json["synth"]), printed."""
    synth.update(count_cells(cells))
    synth["percent"] = device_percent(synth, dev, ("alms", "m20k", "dsps"))
    synth["device"] = dev.get("name", "")
    synth["dsp_agreement"] = (dsp_agreement(synth, report) if not args.entity
                              else "not compared (one entity, not the design)")
    p = synth["percent"]
    print(f"yosys: {synth['yosys_seconds']:.1f} s; {dev.get('name', 'device')}: ALMs ~{synth['alms']} ({p['alms']}%) "
          f"[{synth['luts']} LUTs, {synth['ffs']} FFs, {synth['mlabs']} MLABs], M20K {synth['m20k']} ({p['m20k']}%), "
          f"DSP {synth['dsps']} ({p['dsps']}%)")
    print(f"DSPs {synth['dsp_agreement']}")
    for t, f in synth.get("by_template", {}).items():
        print(f"  {t:16} x{f['instances']:<4} ALMs ~{f['alms']:>8}  LUTs {f['luts']:>8} "
              f"(carry {f['luts_by_kind'].get('MISTRAL_ALUT_ARITH', 0)})  FFs {f['ffs']:>8}  "
              f"MLABs {f['mlabs']:>6}  DSP {f['dsps']}")


BLOCK_KEYS = ("m20k", "mlabs", "dsp_mults", "dsps")


def report_blocks(synth, cells, dev, report):
    """A --blocks-only run's figures (hard blocks, no logic) into synth, printed. A memory
    that neither M20K nor MLAB took is still a $mem_v2 cell here (the full flow makes it
    flip-flops): counted as memories_in_logic."""
    synth.update({k: v for k, v in count_cells(cells).items() if k in BLOCK_KEYS})
    synth["memories_in_logic"] = cells.get("$mem_v2", 0)
    synth["percent"] = device_percent(synth, dev, ("m20k", "dsps"))
    synth["device"] = dev.get("name", "")
    synth["dsp_agreement"] = dsp_agreement(synth, report)
    synth["by_template"] = {t: {"instances": f["instances"], **{k: f[k] for k in BLOCK_KEYS}}
                            for t, f in synth.get("by_template", {}).items()}
    synth["ram_agreement"] = ram_agreement(synth, report)
    p = synth["percent"]
    print(f"yosys (hard blocks only): {synth['yosys_seconds']:.1f} s; {dev.get('name', 'device')}: "
          f"M20K {synth['m20k']} ({p['m20k']}%), DSP {synth['dsps']} ({p['dsps']}%), {synth['mlabs']} MLABs, "
          f"{synth['memories_in_logic']} memories left to logic")
    print(f"DSPs {synth['dsp_agreement']}")
    print(f"RAMs {synth['ram_agreement']}")
    for t, f in synth["by_template"].items():
        if f["m20k"] or f["mlabs"] or f["dsps"]:
            print(f"  {t:16} x{f['instances']:<4} M20K {f['m20k']:>6}  MLABs {f['mlabs']:>6}  DSP {f['dsps']}")


def report_dsps(synth, cells, dev, report):
    """A --dsps-only run's figures (DSP blocks, nothing else) into synth, printed."""
    synth.update({k: v for k, v in count_cells(cells).items() if k in ("dsp_mults", "dsps")})
    synth["percent"] = device_percent(synth, dev, ("dsps",))
    synth["device"] = dev.get("name", "")
    synth["dsp_agreement"] = dsp_agreement(synth, report)
    synth["by_template"] = {t: {"instances": f["instances"], "dsps": f["dsps"]}
                            for t, f in synth.get("by_template", {}).items() if f["dsps"]}
    m = synth.get("modules", {})
    print(f"yosys (DSP blocks only): {synth['yosys_seconds']:.1f} s, {m.get('mapped')} of {m.get('unique')} modules "
          f"mapped (the rest have no multiplier); {dev.get('name', 'device')}: DSP {synth['dsps']} ({synth['percent']['dsps']}%)")
    print(f"DSPs {synth['dsp_agreement']}")
    for t, f in synth["by_template"].items():
        print(f"  {t:16} x{f['instances']:<4} DSP {f['dsps']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="output directory of `skeleshare compile`")
    ap.add_argument("--device", help="device .json (default: rules/devices/<report.json device>.json)")
    ap.add_argument("--ghdl", default="ghdl")
    ap.add_argument("--skeleshare", default=os.environ.get("SKELESHARE", os.path.join(REPO, "build", "src", "skeleshare")),
                    help="the skeleshare executable, for `fix-verilog` (default: $SKELESHARE, else build/src/skeleshare)")
    ap.add_argument("--yosys", default="yosys")
    ap.add_argument("--ghdl-only", action="store_true", help="stop after `ghdl synth` (Verilog written, no yosys)")
    ap.add_argument("--ghdl-timeout", type=float, default=0, help="seconds; 0 = none")
    ap.add_argument("--yosys-timeout", type=float, default=0, help="seconds; 0 = none")
    ap.add_argument("--hierarchical", action="store_true",
                    help="synthesise every module on its own (synth_intel_alm -noflatten) and sum over the hierarchy")
    ap.add_argument("--lut-mapper", choices=["abc9", "abc"], default="abc9",
                    help="LUT mapping: synth_intel_alm's own abc9 (default), or classic `abc -lut 6` after its "
                         "map_ffs step (no timing model; finishes on designs where abc9 does not)")
    ap.add_argument("--per-module", action="store_true",
                    help="like --hierarchical, but one yosys run per module (submodules as black boxes), "
                         "reusing the results of modules whose text and script are unchanged")
    ap.add_argument("--blocks-only", action="store_true",
                    help="map DSP blocks, M20Ks and MLABs only (synth_intel_alm up to map_ffram): exact hard-block "
                         "counts in a fraction of the time, no logic figures; report.json[\"synth_blocks\"]")
    ap.add_argument("--dsps-only", action="store_true",
                    help="--per-module --blocks-only for the modules with a multiplier only (each module is read first): "
                         "a whole design's DSP blocks in minutes; report.json[\"synth_dsps\"]")
    ap.add_argument("--jobs", type=int, default=1, help="--per-module: yosys runs at once (default 1)")
    ap.add_argument("--entity", help="synthesise this entity instead of report.json's top")
    ap.add_argument("-g", dest="generics", action="append", default=[], metavar="NAME=VALUE",
                    help="a top-level generic for --entity (repeatable)")
    args = ap.parse_args()

    d = os.path.abspath(args.dir)
    report_path = os.path.join(d, "report.json")
    report = load_json(report_path)
    top = report.get("top")
    if not isinstance(top, str) or not top:
        raise SynthError(f"{report_path}: no \"top\" (was it written by `skeleshare compile` with VHDL?)")
    files_txt = os.path.join(d, "vhdl", "files.txt")
    try:
        with open(files_txt) as f:
            files = [os.path.join(d, "vhdl", line.strip()) for line in f if line.strip()]
    except OSError as e:
        raise SynthError(f"{files_txt}: cannot read: {e}")
    if not files:
        raise SynthError(f"{files_txt}: lists no files")
    for p in files:
        if not os.path.isfile(p):
            raise SynthError(f"{files_txt}: {os.path.basename(p)} does not exist")
    dev = device_for(report, args.device)
    if args.generics and not args.entity:
        raise SynthError("-g needs --entity (the design's top has no generics)")
    key = "synth"
    work = os.path.join(d, "synth")
    if args.dsps_only:
        if args.blocks_only or args.hierarchical:
            raise SynthError("--dsps-only is a --per-module --blocks-only run of its own: it takes neither")
        args.blocks_only = args.per_module = True
    if args.blocks_only:
        flag = "--dsps-only" if args.dsps_only else "--blocks-only"
        if args.entity or args.ghdl_only or args.lut_mapper != "abc9":
            raise SynthError(f"{flag} maps no logic: it takes neither --entity, --ghdl-only nor --lut-mapper")
        key, work = ("synth_dsps", os.path.join(work, "dsps")) if args.dsps_only else \
            ("synth_blocks", os.path.join(work, "blocks"))
    if args.entity:
        top, key, work = args.entity, "synth_entity", os.path.join(work, args.entity)
    os.makedirs(work, exist_ok=True)
    verilog = os.path.join(work, top + ".v")
    # relative paths: GHDL writes them into the netlist's comments, and a netlist that does
    # not depend on where DIR is lets --per-module reuse its runs in a copy of DIR
    ghdl_s = run_tool("ghdl synth", [args.ghdl, "synth", "--std=08", "--out=verilog", *(f"-g{g}" for g in args.generics),
                                    *(os.path.relpath(p, work) for p in files), "-e", top], work, verilog,
                      os.path.join(work, "ghdl.log"), args.ghdl_timeout)
    fixed = fix_ghdl_verilog(args.skeleshare, verilog)
    synth = {"entity": top, "generics": args.generics, "tool": "ghdl synth --std=08 --out=verilog",
             "ghdl_seconds": round(ghdl_s, 1), "verilog_bytes": os.path.getsize(verilog),
             "ghdl_string_literals_fixed": fixed["literals"], "ghdl_when_else_fixed": fixed["selections"],
             "ghdl_signed_shifts_fixed": fixed["shifts"], "ghdl_self_assignments_removed": fixed["self_assignments"]}
    print(f"ghdl synth: {ghdl_s:.1f} s, {synth['verilog_bytes']} bytes of Verilog "
          f"({fixed['literals']} bit-string literals rewritten as sized binary, {fixed['selections']} when/else lines "
          f"as ?:, {fixed['shifts']} signed shifts as >>>, {fixed['self_assignments']} self-assignments removed)",
          flush=True)

    if not args.ghdl_only:
        flatten = "-noflatten" if args.hierarchical or args.per_module else ""
        if args.per_module:
            yosys_s, cells, done, breakdown = synth_per_module(args, verilog, top, work)
            synth.update({"modules": done, "by_template": breakdown})
        else:
            stat_json = os.path.join(work, "stat.json")
            stat_top = f" -top {top}" if args.hierarchical else ""
            script = f"read_verilog {top}.v; {synth_command(args, top, flatten)}; tee -q -o stat.json stat -json{stat_top}"
            yosys_s = run_tool("yosys", [args.yosys, "-q", "-l", "yosys.log", "-p", script], work,
                               os.path.join(work, "yosys.out"), os.path.join(work, "yosys.err"), args.yosys_timeout,
                               progress_log=os.path.join(work, "yosys.log"))
            stat = load_yosys_stat(stat_json)
            module = (stat.get("design") if args.hierarchical else None) \
                or stat.get("modules", {}).get("\\" + top) or stat.get("design")
            if not module or "num_cells_by_type" not in module:
                raise SynthError(f"{stat_json}: no cell statistics for {top}")
            cells = module["num_cells_by_type"]
        mapper = (" (LUTs: abc -lut 6)" if args.lut_mapper == "abc" else "") + \
            (" -run begin:map_ffram (hard blocks only)" if args.blocks_only else "") + \
            (", the modules with a $mul cell only" if args.dsps_only else "")
        how = " (one run per module)" if args.per_module else ""
        synth.update({"tool": synth["tool"] + f" + yosys synth_intel_alm -family {FAMILY} {SYNTH_FLAGS} {flatten}".rstrip() + mapper
                      + how, "yosys_seconds": round(yosys_s, 1), "cells": cells})
        if args.dsps_only:
            report_dsps(synth, cells, dev, report)
        elif args.blocks_only:
            report_blocks(synth, cells, dev, report)
        else:
            report_logic(synth, cells, dev, report, args)
        if "cpu_seconds" in synth.get("modules", {}):
            m = synth["modules"]
            done = f"{m['synthesised']} read" if "mapped" in m else f"{m['synthesised']} synthesised"
            mapped = f"; {m['mapped']} of all {m['unique']} mapped" if "mapped" in m else ""
            print(f"modules: {m['unique']} ({done}, {m['reused']} reused{mapped}); yosys CPU over all of "
                  f"them {m['cpu_seconds']:.0f} s, at most {m['peak_mb']:.0f} MB in one")

    report[key] = synth
    write_json_atomically(report_path, report)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SynthError as e:
        print(f"synth.py: error: {e}", file=sys.stderr)
        sys.exit(1)
