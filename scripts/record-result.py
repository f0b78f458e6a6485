#!/usr/bin/env python3
"""Records a GPU run's result: results are regenerated, not accumulated.

Usage: scripts/record-result.py RESULT [--device D] [--suite S] [--commit C] [--note TEXT]

A suite result (`tileskip bench --suite headline|blocksparse|activations --format json --out FILE.json`) is copied to
bench/results/latest/<device>-<suite>.json, replacing the one before, and one line goes to the end
of bench/results/history.jsonl (commit, device, date, suite, size, the file's name and every
measure), so that scripts/compare-results.py can set any two runs side by side. The device and
suite come from the file; --commit overrides a missing or wrong tool.commit, --note says why.
Any other file of a run (the sweep's CSV, its plot, a write-up) is only copied, to
bench/results/latest/<device>-<suite>.<extension>, and needs --device and --suite.
Exit 0 when recorded, 2 when the file cannot be read or the run is already in the history.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_history import HISTORY, LATEST, ResultError, entry_of, line_of, read_history  # noqa: E402


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result")
    parser.add_argument("--device", help="h200, h100, ...: the file's own device when it names one")
    parser.add_argument("--suite", help="headline, sweep, ...: the file's own suite when it names one")
    parser.add_argument("--commit", help="the commit the run was built from, where the file lacks it or has it wrong")
    parser.add_argument("--note", help="why --commit (or anything else) differs from the file")
    parser.add_argument("--history", default=HISTORY)
    parser.add_argument("--latest", default=LATEST)
    args = parser.parse_args(argv)
    extension = os.path.splitext(args.result)[1]
    try:
        entry = entry_of(args.result, args.commit, args.note) if extension == ".json" else None
        device = args.device or (entry and entry["device"])
        suite = args.suite or (entry and entry["suite"])
        if not device or not suite:
            raise ResultError(f"{args.result}: give --device and --suite for a file that is not a suite's JSON")
        if entry:
            history = read_history(args.history) if os.path.exists(args.history) else []
            if any((e.get("commit"), e.get("date"), e.get("device"), e.get("suite")) ==
                   (entry["commit"], entry["date"], device, suite) for e in history):
                raise ResultError(f"{args.result}: this run ({entry['commit']}, {entry['date']}) is already in the history")
    except ResultError as e:
        print(f"record-result: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.latest, exist_ok=True)
    target = os.path.join(args.latest, f"{device}-{suite}{extension}")
    shutil.copyfile(args.result, target)
    print(f"wrote {os.path.relpath(target)}")
    if entry:
        entry["device"], entry["suite"] = device, suite
        with open(args.history, "a", encoding="utf-8") as f:
            f.write(line_of(entry))
        print(f"appended {entry['commit']} {device} {suite} to {os.path.relpath(args.history)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
