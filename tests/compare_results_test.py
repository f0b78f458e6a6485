#!/usr/bin/env python3
"""scripts/compare-results.py on the repository's own bench/results/history.jsonl: two recorded
headline runs of one device side by side (every measure named, both commits shown, exit 0), a
result file against a commit, and a commit the history does not hold (a clear message, exit 2).

Usage: compare_results_test.py COMPARE_RESULTS.py HISTORY.jsonl BASE_COMMIT NEW_COMMIT
"""
import json
import os
import subprocess
import sys
import tempfile


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    script, history, base, new = argv[1:]
    failures = []

    def check(what, ok, detail=""):
        if not ok:
            failures.append(what + (f"\n{detail}" if detail else ""))

    lines = [json.loads(line) for line in open(history, encoding="utf-8") if line.strip()]
    base_run = next(e for e in lines if e["commit"].startswith(base))
    new_run = next(e for e in lines if e["commit"].startswith(new))

    both = run(script, base, new, "--history", history)
    check("two commits: exit 0", both.returncode == 0, both.stderr)
    for name in list(base_run["measures"]) + list(new_run["measures"]):
        check(f"two commits: the measure '{name}' is listed", name in both.stdout, both.stdout)
    check("two commits: both commits named", base_run["commit"] in both.stdout and new_run["commit"] in both.stdout,
          both.stdout)
    check("two commits: a relative change per measure", " %" in both.stdout, both.stdout)

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"date": "2099-01-01T00:00:00Z", "suite": new_run["suite"], "size": new_run["size"],
                   "devices": [f"cuda: NVIDIA {new_run['device'].upper()}, a test"], "tool": {"commit": "feedface"},
                   "measures": [{"measure": name, "value": value} for name, value in new_run["measures"].items()]}, f)
    from_file = run(script, base, f.name, "--history", history)
    os.unlink(f.name)
    check("a commit against a result file: exit 0", from_file.returncode == 0, from_file.stderr)
    check("a commit against a result file: the file's commit named", "feedface" in from_file.stdout, from_file.stdout)

    missing = run(script, "0123456789ab", new, "--history", history)
    check("a commit not in the history: exit 2", missing.returncode == 2, f"rc {missing.returncode}")
    check("a commit not in the history: says so, naming it",
          "0123456789ab" in missing.stderr and "not in" in missing.stderr, missing.stderr)
    check("a commit not in the history: nothing on stdout", missing.stdout == "", missing.stdout)

    for failure in failures:
        print("FAIL " + failure)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
