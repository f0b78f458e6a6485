#!/usr/bin/env python3
"""Renders README.md's results table from the records in bench/results/latest/, and checks it.

Usage:
    results_table.py [--root ROOT]            prints the table README.md's rows render to now
    results_table.py [--root ROOT] --write    rewrites the table in README.md
    results_table.py [--root ROOT] --check    exit 1 when README.md's table is not what they render

The README holds the table between two comments; the first names its rows, one a line, each a
record of bench/results/latest/ (its file's stem) and one measured problem of it:

    <!-- results table (any prose)
      row h200-headline run dtype=fp32 generator=segments density_a=0.25 block=128
      row h200-blocksparse case A 0.25, 128-blocks
    -->
    | ... the table ... |
    <!-- end results table -->

`run KEY=VALUE ...` picks the one run of a headline record whose `dtype` and `problem` fields have
those values; `case NAME` the one case of a suite record (blocksparse, activations) of that name.
A row gives, for that problem: its operands (from the record's own fields), the fastest of
tileskip's kernels there (every kernel but the vendor's, VENDOR), its kernel time against cuBLAS in
the same dtype (the figure the reader compares with what they run today), the same with everything
it builds per call (patterns, copies), its time against the project's own dense teaching kernel in
that dtype on the same backend (K11 `pipelined` in fp32, K13 `mma` in 16-bit), and the device and
date of the record. CTest `docs_check` (scripts/check_docs.py) fails when the README's table differs
from this rendering, so a new record that moves a figure fails until the table is rendered again.
"""
import argparse
import json
import os
import re
import sys

START = re.compile(r"^<!--\s*results table\b")
END = re.compile(r"^<!--\s*end results table\s*-->\s*$")
ROW = re.compile(r"^\s*row\s+(?P<record>[\w.-]+)\s+(?P<how>run|case)\s+(?P<what>.+?)\s*$")
# The catalogue's vendor rows (those with no number): never one of tileskip's kernels.
VENDOR = {"cublas", "cusparse-csr", "cpu"}
# The teaching kernel each dtype's ratios divide by: the dense reference kernel (docs/design.md, "Vocabulary").
TEACHING = {"fp32": ("pipelined", "K11"), "tf32": ("mma", "K13"), "fp16": ("mma", "K13"), "bf16": ("mma", "K13")}
HEADER = ["operands", "M × N × K", "dtype", "fastest tileskip kernel", "vs cuBLAS, same dtype",
          "vs cuBLAS, per call", "vs its teaching kernel", "measured"]


class TableError(Exception):
    """What stops the table from being rendered, with the README line it concerns."""

    def __init__(self, line, what):
        super().__init__(what)
        self.line, self.what = line, what


class Block:
    """The table's place in the README: its rows (line, record, how, what), its table lines and
    where they are (0-based indices of the first and last comment lines)."""

    def __init__(self, start, end, rows, table):
        self.start, self.end, self.rows, self.table = start, end, rows, table


def block_of(text):
    """The results table of a README's text, or None where it has none."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if START.match(line):
            rows, j = [], i
            while "-->" not in lines[j]:
                j += 1
                if j == len(lines):
                    raise TableError(i + 1, "the results table's comment never ends")
                match = ROW.match(lines[j].replace("-->", ""))
                if match:
                    rows.append((j + 1, match.group("record"), match.group("how"), match.group("what")))
            end = j + 1
            while end < len(lines) and not END.match(lines[end]):
                end += 1
            if end == len(lines):
                raise TableError(i + 1, "no <!-- end results table --> after the results table")
            return Block(i, end, rows, lines[j + 1:end])
    return None


def times(value):
    return "—" if value is None else (f"{value:.1f}x" if value >= 9.95 else f"{value:.2f}x")


def size_of(m, n, k):
    return f"{m}³" if m == n == k else f"{m} × {n} × {k}"


def density(d):
    return f"{d:g}"


def kernel_name(kernel, backend):
    return f"`{kernel}`" + ("" if backend == "cuda" else f" ({'Vulkan' if backend == 'vulkan' else backend})")


def problem_words(problem):
    """A headline run's operands in words, from its problem's fields."""
    generator, da, db = problem["generator"], problem["density_a"], problem["density_b"]
    block = problem.get("block", problem.get("granularity"))
    if generator == "uniform" and da == 1 and db == 1:
        return "dense"
    both = f"A and B at density {density(da)}" if da == db else f"A at {density(da)}, B at {density(db)}"
    if generator == "segments":
        return f"{both}, zeros in {block}-wide segments"
    if generator == "blocks":
        return f"{both}, in {block} × {block} blocks"
    return f"{both}, `{generator}`"


def case_words(case):
    """A suite case's operands in words, from its fields."""
    if "block" in case:  # tileskip.blocksparse/1
        da, db, block = case["density_a"], case["density_b"], case["block"]
        if db == 1:
            return f"A at density {density(da)} in {block} × {block} blocks, B dense"
        both = f"A and B at density {density(da)}" if da == db else f"A at {density(da)}, B at {density(db)}"
        return f"{both} in {block} × {block} blocks"
    if "inactive" in case:  # tileskip.activations/1
        name = re.sub(r",?\s*\d+x\d+x\d+$", "", case["case"])
        return f"ReLU activations: {name}"
    return case["case"]


def device_of(document, backend):
    for entry in document.get("devices", []):
        name, _, rest = entry.partition(": ")
        if name == backend:
            return rest.split(",")[0]
    return "?"


def measured(document, backend, record):
    device = device_of(document, backend).replace("NVIDIA ", "")
    return f"[{device}, {document['date'][:10]}](bench/results/latest/{record}.json)"


def matches(value, wanted):
    try:
        return float(value) == float(wanted)
    except (TypeError, ValueError):
        return str(value) == wanted


def from_run(document, record, what, line):
    wanted = {}
    for pair in what.split():
        key, sep, value = pair.partition("=")
        if not sep:
            raise TableError(line, f"'{pair}' is no KEY=VALUE")
        wanted[key] = value
    found = [run for run in document.get("runs", [])
             if all(matches(run.get("dtype") if key == "dtype" else run.get("problem", {}).get(key), value)
                    for key, value in wanted.items())]
    if len(found) != 1:
        raise TableError(line, f"{record}: {len(found)} runs have {what}, not one")
    run = found[0]
    ours = [r for r in run["rows"] if r["kernel"] not in VENDOR and r.get("vs_baseline") is not None]
    if not ours:
        raise TableError(line, f"{record}: the run with {what} times none of tileskip's kernels against cuBLAS")
    best = max(ours, key=lambda r: r["vs_baseline"])
    problem = run["problem"]
    return [problem_words(problem), size_of(problem["m"], problem["n"], problem["k"]), run["dtype"],
            kernel_name(best["kernel"], best["backend"]), f"**{times(best['vs_baseline'])}**",
            times(best.get("end_to_end_vs_baseline")), teaching(run["dtype"], best.get("speedup_vs_dense")),
            measured(document, best["backend"], record)]


def from_case(document, record, what, line):
    found = [case for case in document.get("cases", []) if case["case"] == what]
    if len(found) != 1:
        raise TableError(line, f"{record}: {len(found)} cases named '{what}', not one")
    case = found[0]
    if case.get("baseline") != "cublas":
        raise TableError(line, f"{record}: case '{what}' is measured against {case.get('baseline')}, not cuBLAS")
    ours = [k for k in case["kernels"] if k["kernel"] not in VENDOR]
    if not ours:
        raise TableError(line, f"{record}: case '{what}' times none of tileskip's kernels")
    best = max(ours, key=lambda k: k["speedup"])
    dtype = document["dtype"]
    kernel, _ = TEACHING[dtype]
    teacher = [k for k in case["kernels"] if k["kernel"] == kernel and k["backend"] == best["backend"]]
    over_teacher = best["speedup"] / teacher[0]["speedup"] if teacher else None
    m = case.get("m", document.get("size"))
    n = case.get("n", document.get("size"))
    k = case.get("k", document.get("size"))
    return [case_words(case), size_of(m, n, k), dtype, kernel_name(best["kernel"], best["backend"]),
            f"**{times(best['speedup'])}**", times(case["cublas_ms"] / best["e2e_ms"]),
            teaching(dtype, over_teacher), measured(document, best["backend"], record)]


def teaching(dtype, value):
    if value is None:
        return "—"
    kernel, number = TEACHING[dtype]
    return f"{times(value)} ({number})"


def render(root, rows):
    """The table's lines for `rows` (as block_of gives them), from ROOT's bench/results/latest/."""
    cache, out = {}, []
    for line, record, how, what in rows:
        if record not in cache:
            path = os.path.join(root, "bench", "results", "latest", f"{record}.json")
            try:
                with open(path, encoding="utf-8") as f:
                    cache[record] = json.load(f)
            except (OSError, ValueError) as e:
                raise TableError(line, f"no record bench/results/latest/{record}.json: {e}")
        try:
            cells = (from_run if how == "run" else from_case)(cache[record], record, what, line)
        except (KeyError, TypeError, ZeroDivisionError) as e:
            raise TableError(line, f"{record}: '{what}' lacks a field the table needs ({e!r})")
        out.append(cells)
    if not out:
        raise TableError(0, "the results table names no row")
    return ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)] + ["| " + " | ".join(r) + " |" for r in out]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="rewrite the table in README.md")
    action.add_argument("--check", action="store_true", help="exit 1 when README.md's table differs")
    args = parser.parse_args(argv)
    readme = os.path.join(args.root, "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    try:
        block = block_of(text)
        if block is None:
            print("results_table: README.md has no <!-- results table ... --> comment", file=sys.stderr)
            return 2
        table = render(args.root, block.rows)
    except TableError as e:
        print(f"results_table: README.md:{e.line}: {e.what}", file=sys.stderr)
        return 2
    if args.check:
        if block.table != table:
            print("results_table: README.md's table is not what bench/results/latest/ renders; "
                  "run scripts/results_table.py --write", file=sys.stderr)
            return 1
        print(f"results_table: {len(table) - 2} rows current")
        return 0
    if args.write:
        lines = text.split("\n")
        lines[block.end - len(block.table):block.end] = table
        with open(readme, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"results_table: wrote {len(table) - 2} rows to README.md")
        return 0
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
