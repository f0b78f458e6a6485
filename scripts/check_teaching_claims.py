#!/usr/bin/env python3
"""Recomputes the figures docs/teaching.md quotes and fails when one has drifted.

Usage: check_teaching_claims.py TEACHING.md TILESKIP [RECORDED.json]

The lesson states its figures in prose; beside each, an HTML comment (invisible on the rendered
page) says how the tool recomputes it:

    <!-- check: --kernel a-row --granularity 8 --density-a 0.5 --density-b 0.5 --size 1024 --teach
      skip_map.joint_density ~ 0.50 +- 0.02
      teach.walk.divergent_steps > 0
    -->

runs `TILESKIP view --backend cpu ARGS --facts OUT.json` (the figures the viewer shows, computed
without drawing: deterministic, no GPU) and compares each dotted path of the JSON with its value:
`=` (numbers or words), `~ V +- T`, `<`, `>`, `<=`, `>=`. A claim's comment starts a line.

    <!-- check recorded
      cuda.naive.gflops ~ 972 +- 1
    -->

compares with the recorded GPU figures (RECORDED.json, made by scripts/recorded_figures.py), keyed
BACKEND.KERNEL. Exits 1 naming every claim that no longer holds (with its line in the doc), 2 on a
malformed claim or a page with no claims at all.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

CLAIM = re.compile(r"^<!--\s*check(?::\s*(?P<args>[^\n]*)|\s+(?P<recorded>recorded))\s*\n(?P<body>.*?)-->", re.S | re.M)
LINE = re.compile(r"^(?P<path>[\w.\[\]-]+)\s*(?P<op>=|~|<=|>=|<|>)\s*(?P<value>\S+)(?:\s*\+-\s*(?P<tol>\S+))?\s*$")


def lookup(data, path):
    for part in path.split("."):
        if isinstance(data, list):
            data = data[int(part)]
        else:
            data = data[part]
    return data


def holds(actual, op, value, tol):
    if op == "=":
        try:
            return float(actual) == float(value)
        except (TypeError, ValueError):
            return str(actual).lower() == value.lower()
    actual = float(actual)
    value = float(value)
    if op == "~":
        return abs(actual - value) <= float(tol or 0)
    return {"<": actual < value, ">": actual > value, "<=": actual <= value, ">=": actual >= value}[op]


def facts_of(tileskip, args, cache):
    if args in cache:
        return cache[args]
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "facts.json")
        command = [tileskip, "view", "--backend", "cpu", *shlex.split(args), "--facts", out]
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stdout.strip()}")
        with open(out) as f:
            cache[args] = json.load(f)
    return cache[args]


def recorded_of(path):
    figures = json.load(open(path))
    keyed = {}
    for row in figures["kernels"]:
        keyed.setdefault(row["backend"], {})[row["kernel"]] = row
    keyed["device"] = figures["device"]
    keyed["date"] = figures["date"]
    keyed["size"] = figures["size"]
    return keyed


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    page, tileskip = argv[1], argv[2]
    text = open(page, encoding="utf-8").read()
    recorded = recorded_of(argv[3]) if len(argv) == 4 else None
    cache, failures, checked = {}, [], 0
    for match in CLAIM.finditer(text):
        first_line = text.count("\n", 0, match.start()) + 1
        if match.group("recorded"):
            if recorded is None:
                print(f"{page}:{first_line}: a 'check recorded' claim, but no RECORDED.json given", file=sys.stderr)
                return 2
            data, source = recorded, "recorded"
        else:
            try:
                data, source = facts_of(tileskip, match.group("args").strip(), cache), "view " + match.group("args").strip()
            except RuntimeError as error:
                failures.append(f"{page}:{first_line}: {error}")
                continue
        body_start = first_line + 1
        for offset, raw in enumerate(match.group("body").splitlines()):
            line = raw.strip()
            if not line:
                continue
            parsed = LINE.match(line)
            if not parsed:
                print(f"{page}:{body_start + offset}: not a claim: '{line}'", file=sys.stderr)
                return 2
            checked += 1
            path, op, value, tol = parsed.group("path", "op", "value", "tol")
            try:
                actual = lookup(data, path)
            except (KeyError, IndexError, ValueError):
                failures.append(f"{page}:{body_start + offset}: {path} is not among the figures of {source}")
                continue
            if not holds(actual, op, value, tol):
                want = f"{op} {value}" + (f" +- {tol}" if tol else "")
                failures.append(f"{page}:{body_start + offset}: {path} is {actual}, the page says {want} ({source})")
    if checked == 0:
        print(f"{page}: no <!-- check: ... --> claims found", file=sys.stderr)
        return 2
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"check_teaching_claims: {checked - len(failures)} of {checked} claims hold "
          f"({len(cache)} views recomputed with {tileskip})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
