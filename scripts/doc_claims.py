"""Figures a page states, each checked against where it comes from: what scripts/check_teaching_claims.py
(docs/teaching.md against the viewer's facts and the recorded teaching figures) and scripts/check_docs.py
(every doc page's headline figures against bench/results/latest/) share.

A page states a figure in prose; beside it, an HTML comment (invisible on the rendered page) that
starts a line says where the figure comes from and what it must be:

    <!-- check KIND REST
      PATH OP VALUE [+- TOLERANCE]
      ...
    -->

KIND is `:` followed by the arguments of a view (check_teaching_claims.py), or a word: `recorded`
(the recorded teaching figures), `headline DEVICE` (bench/results/latest/DEVICE-headline.json).
PATH is a dotted path into the figures (`cuda.naive.gflops`, `runs.0.cuda.pipelined.vs_baseline`;
a number indexes a list) or a name in double quotes, one key of the top level (a measure's name,
which holds spaces and dots). OP is `=` (numbers or words), `~ V +- T` (within T of V), `<`, `>`,
`<=` or `>=`. A tolerance matches the figure's printed rounding: `0.97` is `~ 0.97 +- 0.005`.
"""
import json
import os
import re
import shlex
import subprocess
import tempfile

CLAIM = re.compile(
    r"^<!--\s*check(?::\s*(?P<args>[^\n]*)|\s+(?P<kind>[\w-]+)(?P<rest>[^\n]*))\s*\n(?P<body>.*?)-->", re.S | re.M)
LINE = re.compile(
    r'^(?P<path>"[^"]+"|[\w.\[\]-]+)\s*(?P<op>=|~|<=|>=|<|>)\s*(?P<value>\S+)(?:\s*\+-\s*(?P<tol>\S+))?\s*$')


def view_facts(tileskip, args):
    """`tileskip view --backend cpu ARGS --facts`: the figures a view shows, computed without
    drawing (deterministic, no GPU). RuntimeError with the tool's output when it fails."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "facts.json")
        command = [tileskip, "view", "--backend", "cpu", *shlex.split(args), "--facts", out]
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stdout.strip()}")
        with open(out) as f:
            return json.load(f)


class MalformedClaim(Exception):
    """A claim line that does not parse (the page's fault: exit 2 in the checkers)."""


class Claim:
    """One comment: its kind ('view' with args, or the word after `check`), its line in the page
    and its figures as (line number, path, op, value, tolerance)."""

    def __init__(self, kind, args, line, figures):
        self.kind, self.args, self.line, self.figures = kind, args, line, figures


def claims_in(text, page):
    """Every claim comment of a page, in order. Raises MalformedClaim naming page:line."""
    claims = []
    for match in CLAIM.finditer(text):
        first_line = text.count("\n", 0, match.start()) + 1
        if match.group("kind"):
            kind, args = match.group("kind"), match.group("rest").strip()
        else:
            kind, args = "view", match.group("args").strip()
        figures = []
        for offset, raw in enumerate(match.group("body").splitlines()):
            line = raw.strip()
            if not line:
                continue
            parsed = LINE.match(line)
            if not parsed:
                raise MalformedClaim(f"{page}:{first_line + 1 + offset}: not a claim: '{line}'")
            figures.append((first_line + 1 + offset, *parsed.group("path", "op", "value", "tol")))
        claims.append(Claim(kind, args, first_line, figures))
    return claims


def lookup(data, path):
    """The figure at `path`: a quoted name is one key of the top level; otherwise each dotted part
    is a key, or an index into a list. Raises KeyError, IndexError or ValueError where none is."""
    if path.startswith('"'):
        return data[path[1:-1]]
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


def check_figures(claim, data, source, page):
    """The failures of one claim's figures against `data`, each 'page:line: what' ('source' names
    where the figures came from in the message). Returns (checked, failures)."""
    failures = []
    for line, path, op, value, tol in claim.figures:
        try:
            actual = lookup(data, path)
        except (KeyError, IndexError, ValueError, TypeError):
            failures.append(f"{page}:{line}: {path} is not among the figures of {source}")
            continue
        try:
            ok = holds(actual, op, value, tol)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            want = f"{op} {value}" + (f" +- {tol}" if tol else "")
            failures.append(f"{page}:{line}: {path} is {actual}, the page says {want} ({source})")
    return len(claim.figures), failures
