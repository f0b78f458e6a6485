#!/usr/bin/env python3
"""Compares two recorded runs, measure by measure.

Usage: scripts/compare-results.py BASE NEW [--history FILE] [--device DEVICE] [--suite SUITE]

BASE and NEW are each a commit (a prefix of one, as `git log --oneline` prints it) found in
bench/results/history.jsonl, or a result file written by `tileskip bench --suite headline
--format json`. Runs are compared only on the same device and suite; where a commit has several
runs there, the newest is taken. For each measure: its value in BASE and in NEW and the relative
change (NEW / BASE - 1). Exit 0 after a comparison; 2 when a commit is not in the history (or is
ambiguous), a file cannot be read, or the two have no device and suite in common.

    scripts/compare-results.py b2c4e63 8a60a6f
    scripts/compare-results.py 8a60a6f headline.json --device h200
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_history import HISTORY, ResultError, entry_of, read_history  # noqa: E402


def runs_of(what, history_path):
    """The runs BASE or NEW names: a result file's one run, or every run of a commit."""
    if os.path.isfile(what):
        return [entry_of(what)]
    key = what.strip().lower()
    if not key:
        raise ResultError("an empty commit")
    runs = [e for e in read_history(history_path) if str(e.get("commit", "")).lower().startswith(key)]
    if not runs:
        raise ResultError(f"commit {what} is not in {os.path.relpath(history_path)} (and no file has that name)")
    commits = sorted({e["commit"].removesuffix("-dirty") for e in runs})
    if len(commits) > 1:
        raise ResultError(f"{what} is ambiguous in {os.path.relpath(history_path)}: " + ", ".join(commits))
    return runs


def newest(runs, device, suite):
    same = [e for e in runs if e.get("device") == device and e.get("suite") == suite]
    return max(same, key=lambda e: e.get("date") or "") if same else None


def number(value):
    if value is None:
        return "-"
    return f"{value:.4g}" if isinstance(value, (int, float)) else str(value)


def change(base, new):
    if not isinstance(base, (int, float)) or not isinstance(new, (int, float)) or base == 0:
        return ""
    return f"{(new / base - 1) * 100:+.1f} %"


def table(base, new):
    names = list(base["measures"]) + [n for n in new["measures"] if n not in base["measures"]]
    rows = [("measure", "base", "new", "change")]
    for name in names:
        b, n = base["measures"].get(name), new["measures"].get(name)
        rows.append((name, number(b), number(n), change(b, n)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = []
    for i, r in enumerate(rows):
        lines.append(f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}".rstrip())
        if i == 0:
            lines.append("-" * len(lines[0]))
    return "\n".join(lines)


def label(entry):
    return f"{entry['commit']} ({entry.get('date') or 'no date'}, {entry.get('record') or 'unnamed'})"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="commit (prefix) in the history, or a result JSON file")
    parser.add_argument("new", help="commit (prefix) in the history, or a result JSON file")
    parser.add_argument("--history", default=HISTORY, help="the history file (default: bench/results/history.jsonl)")
    parser.add_argument("--device", help="compare on this device only (h200, h100, ...)")
    parser.add_argument("--suite", help="compare this suite only (headline, ...)")
    args = parser.parse_args(argv)
    try:
        base_runs = runs_of(args.base, args.history)
        new_runs = runs_of(args.new, args.history)
    except ResultError as e:
        print(f"compare-results: {e}", file=sys.stderr)
        return 2
    pairs = sorted({(e["device"], e["suite"]) for e in base_runs} & {(e["device"], e["suite"]) for e in new_runs})
    pairs = [p for p in pairs if (not args.device or p[0] == args.device) and (not args.suite or p[1] == args.suite)]
    if not pairs:
        have = lambda runs: ", ".join(sorted({f"{e['device']} {e['suite']}" for e in runs}))  # noqa: E731
        print(f"compare-results: no device and suite in common: {args.base} has {have(base_runs)}; "
              f"{args.new} has {have(new_runs)}", file=sys.stderr)
        return 2
    for i, (device, suite) in enumerate(pairs):
        base, new = newest(base_runs, device, suite), newest(new_runs, device, suite)
        if i:
            print()
        print(f"{device} {suite}")
        print(f"  base: {label(base)}")
        print(f"  new:  {label(new)}")
        print(table(base, new))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
