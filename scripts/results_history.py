"""What scripts/compare-results.py and scripts/record-result.py share: how a recorded run becomes one
line of bench/results/history.jsonl, and how that history is read.

A line is one JSON object:
  {"commit": "8a60a6facf16", "device": "h200", "date": "2026-11-27T04:54:39Z", "suite": "headline",
   "size": 4096, "record": "2026-11-27-h200-headline-kept-work.json", "measures": {NAME: VALUE, ...}}
`commit` is the tool's commit as the run reported it ("-dirty" when the build had uncommitted
changes); `record` names the file the run was written to; `note`, where present, says what the
run's own fields got wrong. Measures are the suite's ratios by name; a suite line that reads
"same, ..." repeats the line before it with its last clause replaced, and is named in full here.
"""
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HISTORY = os.path.join(ROOT, "bench", "results", "history.jsonl")
LATEST = os.path.join(ROOT, "bench", "results", "latest")


class ResultError(Exception):
    """A result or history that cannot be read, or a run that is not there (exit 2)."""


def device_of(devices):
    """'h200' from the run's device lines ('cuda: NVIDIA H200, CUDA 13.0 ...'): the GPU's model,
    lower case; 'cpu' when no GPU ran."""
    for line in devices or []:
        m = re.search(r"NVIDIA ([A-Z]+\d+)", line)
        if m:
            return m.group(1).lower()
    return "cpu"


def measures_of(document):
    """Measure name -> value, in the suite's order, with the "same, ..." lines named in full."""
    measures = {}
    previous = None
    for m in document.get("measures", []):
        name = m["measure"]
        if name.startswith("same, ") and previous:
            name = previous.rsplit(", ", 1)[0] + ", " + name[len("same, "):]
        else:
            previous = name
        value = m.get("value")
        measures[name] = round(value, 6) if isinstance(value, float) else value
    return measures


# The suites whose cases are measured against a packed ceiling (core/measure/ceiling.hpp).
CEILING_SCHEMAS = ("tileskip.blocksparse/1", "tileskip.activations/1")


def blocksparse_measures(document):
    """Measure name -> value of a `bench --suite blocksparse` or `--suite activations` run: per
    case, what the packed ceiling allows over the vendor GEMM (and the live fraction, for
    activations), per kernel its speedup over the vendor GEMM, its fraction of the ceiling and its
    end-to-end speedup (its preparation included) and, where the speed model has a row for it, how
    far inspect's predicted speedup lies from the measured one; and where a case ran its whole MLP layer, the
    layer's speedup over the same layer by the vendor GEMM twice."""
    measures = {}
    for case in document.get("cases", []):
        name = case["case"]
        baseline = case["baseline"]
        if "live_fraction" in case:
            measures[f"{name}: live fraction"] = round(case["live_fraction"], 6)
        measures[f"{name}: packed ceiling / {baseline}"] = round(case["baseline_ms"] / case["ceiling_ms"], 6)
        for k in case["kernels"]:
            if k["kernel"] == baseline:
                continue
            kernel = k["kernel"]
            measures[f"{name}: {kernel} / {baseline}"] = round(k["speedup"], 6)
            measures[f"{name}: {kernel} / packed ceiling"] = round(k["ceiling_fraction"], 6)
            measures[f"{name}: {kernel} end to end / {baseline}"] = round(case["baseline_ms"] / k["e2e_ms"], 6)
            if k.get("predicted_speedup"):
                measures[f"{name}: {kernel} predicted / measured speedup"] = round(k["predicted_speedup"] / k["speedup"], 6)
        for layer in case.get("layers", []):
            if layer.get("baseline_ms"):
                measures[f"{name}: whole layer / {layer['baseline']} twice"] = round(layer["baseline_ms"] / layer["mlp_ms"], 6)
    return measures


def entry_of(path, commit=None, note=None):
    """The history line for a result file written by `tileskip bench --suite ... --format json`."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except (OSError, ValueError) as e:
        raise ResultError(f"cannot read {path}: {e}")
    blocksparse = isinstance(document, dict) and document.get("schema") in CEILING_SCHEMAS
    if not isinstance(document, dict) or ("measures" not in document and not blocksparse):
        raise ResultError(f"{path} is not a suite result (no 'measures'): record a `bench --suite headline`, "
                          "`--suite blocksparse` or `--suite activations` JSON")
    run_commit = commit or (document.get("tool") or {}).get("commit")
    if not run_commit:
        raise ResultError(f"{path} names no commit (tool.commit): give it with --commit")
    entry = {
        "commit": run_commit,
        "device": device_of(document.get("devices")),
        "date": document.get("date"),
        "suite": document.get("suite"),
        "size": document.get("size"),
        "record": os.path.basename(path),
        "measures": blocksparse_measures(document) if blocksparse else measures_of(document),
    }
    if note:
        entry["note"] = note
    return entry


def read_history(path=HISTORY):
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line for line in f if line.strip()]
    except OSError as e:
        raise ResultError(f"cannot read the history {path}: {e}")
    entries = []
    for number, line in enumerate(lines, 1):
        try:
            entries.append(json.loads(line))
        except ValueError as e:
            raise ResultError(f"{path}:{number}: not a JSON object: {e}")
    return entries


def line_of(entry):
    return json.dumps(entry, ensure_ascii=False, separators=(", ", ": ")) + "\n"
