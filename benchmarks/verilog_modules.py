"""The module structure of a `ghdl synth --out=verilog` netlist, for synthesising it one
module at a time (benchmarks/synth.py --per-module).

GHDL writes one uniquified module per entity and generic set, each from a `module NAME`
line to an `endmodule` line, and instantiates submodules as `  NAME INSTANCE (` lines
without parameters. That is all this relies on.

>>> netlist = "".join(line + chr(10) for line in [
...     "module leaf", "  (input a);", "endmodule",
...     "module mid", "  (input a);", "  leaf l0 (", "    .a(a));", "  leaf l1 (", "    .a(a));", "endmodule",
...     "module top", "  (input a);", "  mid m0 (", "    .a(a));", "  mid m1 (", "    .a(a));",
...     "  leaf l2 (", "    .a(a));", "endmodule"])
>>> modules = split_modules(netlist)
>>> list(modules)
['leaf', 'mid', 'top']
>>> kids = children(modules)
>>> dict(kids["top"]), dict(kids["leaf"])
({'mid': 2, 'leaf': 1}, {})
>>> sorted(instance_counts("top", kids).items())
[('leaf', 5), ('mid', 2), ('top', 1)]
>>> sorted(instance_counts("mid", kids).items())
[('leaf', 2), ('mid', 1)]
"""

import collections
import re

_INSTANCE = re.compile(r"^\s+([A-Za-z_][A-Za-z0-9_$]*)\s+[A-Za-z_\\][^\s(]*\s*\(\s*$")


def split_modules(text):
    """{name: text} of every module, in the netlist's order."""
    modules = {}
    name, lines = None, []
    for line in text.splitlines(keepends=True):
        if name is None:
            if line.startswith("module "):
                name, lines = line.split()[1].rstrip("("), [line]
            continue
        lines.append(line)
        if line.startswith("endmodule"):
            modules[name] = "".join(lines)
            name = None
    if name is not None:
        raise ValueError(f"module {name} has no endmodule")
    return modules


def children(modules):
    """{name: Counter(submodule name -> instances)} over the given modules."""
    result = {}
    for name, text in modules.items():
        count = collections.Counter()
        for line in text.splitlines():
            m = _INSTANCE.match(line)
            if m and m.group(1) in modules:
                count[m.group(1)] += 1
        result[name] = count
    return result


def instance_counts(top, kids):
    """How many times each module occurs in the hierarchy under top (top: once)."""
    order, seen = [], set()

    def visit(name):  # post-order, so a module comes after everything it instantiates
        if name in seen:
            return
        seen.add(name)
        for child in kids[name]:
            visit(child)
        order.append(name)

    if top not in kids:
        raise ValueError(f"no module {top} in the netlist")
    visit(top)
    counts = collections.Counter({top: 1})
    for name in reversed(order):  # parents before children
        for child, n in kids[name].items():
            counts[child] += counts[name] * n
    return counts


_NET = re.compile(r"\bn(\d+)_")
_COMMENT = re.compile(r"/\*.*?\*/")


def canonical(text):
    """A module's text as its synthesis sees it: without GHDL's source-location comments,
    its numbered nets (`n8287_o`) renumbered from 0 in order of appearance. GHDL numbers
    nets across the whole netlist and its comments name template lines, so an edit in one
    template changes the text of every module after it, not their netlists.

    >>> canonical("  wire n87_o; /* a.vhd:27:47  */" + chr(10) + "  assign n87_o = n5_q | n87_o;")
    '  wire n0_o; \\n  assign n0_o = n1_q | n0_o;'
    >>> canonical("wire n3_o; assign n3_o = a;") == canonical("wire n9_o; assign n9_o = a;")
    True
    """
    numbers = {}
    return _NET.sub(lambda m: f"n{numbers.setdefault(m.group(1), len(numbers))}_", _COMMENT.sub("", text))
