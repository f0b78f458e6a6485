#!/usr/bin/env python3
"""Fits the speed model of core/measure/speed_model.hpp from `tileskip bench --format json` runs.

Each verified row of a skipping kernel (or any kernel) carries the features the model reads
(dense_tiles D, loads L, work W, partial P) and the measured speedup over the dense reference
kernel of its backend. The model says

    time / dense time = dense * D + fixed * (1 - D) + load * L + work * W + partial * P

so 1 / speedup is linear in the five coefficients: a non-negative least-squares fit per kernel
and backend, of the relative error (each run weighted by 1 / its time), so that the fast runs,
where auto chooses between skipping kernels, count as much as the slow ones. Prints the
calibration rows for core/measure/speed_model.cpp and, per row, the predicted and
measured speedup with the relative error, so a lab entry or a results write-up can quote how good
the model is.

A run is a `bench --format json` document, or a suite's (`--suite blocksparse`, `headline`), whose
bench runs are read but for those that time no skipping kernel (the packed ceilings). A 16-bit run
fits the tensor-core kernels relative to that precision's dense reference, `mma`.

Usage: bench/calibrate_model.py RUN.json [RUN.json ...] [--backend cuda] [--name "H200 CUDA, calibrated YYYY-MM-DD"]
"""
import argparse
import json
import math
import sys

import numpy as np

COEFFICIENTS = ["dense", "fixed", "load", "work", "partial"]
SKIP_MARGIN = 1.05  # core/measure/inspect.hpp's kSkipMargin
SKIPPING = {"a-row", "a-warp", "b-group8", "b-warp", "joint-64x32", "joint-32x32", "joint-8x32", "warp-joint-64x64",
            "warp-joint-32x32", "mma-joint-64x32", "wgmma-joint-64x64", "wgmma-queue-joint-64x64",
            "wgmma-queue-wide-64x64", "wgmma-queue-a-64", "wgmma-queue-b-64"}


def design_row(features):
    d = features["dense_tiles"]
    return [d, 1.0 - d, features["loads"], features["work"], features["partial"]]


def nnls(matrix, target, ridge=1e-4, prior=None):
    """Non-negative least squares by projected coordinate descent, with a small ridge toward
    `prior` so that a coefficient the runs do not pin down keeps its default."""
    a = np.asarray(matrix, dtype=float)
    b = np.asarray(target, dtype=float)
    n = a.shape[1]
    p = np.zeros(n) if prior is None else np.asarray(prior, dtype=float)
    x = p.copy()
    gram = a.T @ a + ridge * np.eye(n)
    rhs = a.T @ b + ridge * p
    for _ in range(5000):
        previous = x.copy()
        for i in range(n):
            rest = rhs[i] - gram[i] @ x + gram[i, i] * x[i]
            x[i] = max(0.0, rest / gram[i, i])
        if np.max(np.abs(x - previous)) < 1e-12:
            break
    return x


def load_rows(paths, backend):
    rows = []
    for path in paths:
        with open(path) as f:
            document = json.load(f)
        # A suite's document (blocksparse, headline) holds its bench runs; a run of the packed
        # ceilings times dense kernels on another K, which is no problem the model ranks kernels on.
        reports = document["runs"] if "runs" in document else [document]
        for index, report in enumerate(reports):
            if "runs" in document and not any(row["kernel"] in SKIPPING for row in report["rows"]):
                continue
            problem = report["problem"]
            label = f"{problem.get('a', problem.get('generator'))} | {problem.get('b', '')}"
            for row in report["rows"]:
                if backend and row["backend"] != backend:
                    continue
                if not row["verified"] or row.get("speedup_vs_dense") is None or "features" not in row:
                    continue
                rows.append({"kernel": row["kernel"], "backend": row["backend"], "device": row["device"],
                             "features": row["features"], "speedup": row["speedup_vs_dense"],
                             "predicted": row.get("predicted_speedup"), "problem": label, "file": f"{path}#{index}"})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--backend", default=None)
    parser.add_argument("--name", default="calibrated")
    args = parser.parse_args()
    rows = load_rows(args.runs, args.backend)
    if not rows:
        sys.exit("calibrate_model: no verified rows with features and a speedup over the dense reference")
    kernels = sorted({r["kernel"] for r in rows}, key=lambda k: [r["kernel"] for r in rows].index(k))
    fitted = {}
    for kernel in kernels:
        mine = [r for r in rows if r["kernel"] == kernel]
        target = [1.0 / r["speedup"] for r in mine]
        # Relative errors: each row divided by its own time, so a slow case does not outweigh the
        # fast ones, where the choice between skipping kernels is made.
        matrix = [[v / t for v in design_row(r["features"])] for r, t in zip(mine, target)]
        dense_runs = [t for r, t in zip(mine, target) if r["features"]["dense_tiles"] == 1.0]
        prior = [np.median(dense_runs) if dense_runs else 1.0, 0.03, 0.45, 0.55, 0.4]
        fitted[kernel] = nnls(matrix, [1.0] * len(mine), prior=prior)

    device = rows[0]["device"]
    print(f"// {args.name}: fitted by bench/calibrate_model.py from {len(rows)} rows on {device}")
    print("//  kernel              dense   fixed   load    work    partial")
    for kernel in kernels:
        c = fitted[kernel]
        print(f'  {{"{kernel}",' + " " * max(1, 18 - len(kernel)) + ", ".join(f"{v:6.3f}" for v in c) + "},")

    print("\n| kernel | problem | predicted x (fitted) | measured x | error |")
    print("|---|---|---|---|---|")
    errors = {}
    for r in rows:
        c = fitted[r["kernel"]]
        predicted = 1.0 / max(float(np.dot(design_row(r["features"]), c)), 1e-3)
        error = predicted / r["speedup"] - 1.0
        errors.setdefault(r["kernel"], []).append(abs(error))
        print(f"| {r['kernel']} | {r['problem']} | {predicted:.2f} | {r['speedup']:.2f} | {100 * error:+.1f} % |")
    # What auto would pick with the fitted model (core/measure/inspect.cpp's rule: a skipping kernel must
    # beat the best non-skipping one by SKIP_MARGIN), against the fastest kernel measured.
    print("\n| problem | auto (fitted) | its measured x | fastest measured | its x | auto / fastest |")
    print("|---|---|---|---|---|---|")
    for problem in sorted({r["file"] for r in rows}):
        mine = [r for r in rows if r["file"] == problem]
        def predicted(r):
            return 1.0 / max(float(np.dot(design_row(r["features"]), fitted[r["kernel"]])), 1e-3)
        skipping = [r for r in mine if r["kernel"] in SKIPPING]
        dense = [r for r in mine if r["kernel"] not in SKIPPING]
        best_dense = max(dense, key=predicted) if dense else None
        best_skip = max(skipping, key=predicted) if skipping else None
        choice = best_dense
        if best_skip and (best_dense is None or predicted(best_skip) > SKIP_MARGIN * predicted(best_dense)):
            choice = best_skip
        fastest = max(mine, key=lambda r: r["speedup"])
        print(f"| {mine[0]['problem']} | {choice['kernel']} | {choice['speedup']:.2f} | {fastest['kernel']} | "
              f"{fastest['speedup']:.2f} | {choice['speedup'] / fastest['speedup']:.3f} |")

    print("\n| kernel | runs | mean abs error | max abs error |")
    print("|---|---|---|---|")
    for kernel in kernels:
        e = errors[kernel]
        print(f"| {kernel} | {len(e)} | {100 * sum(e) / len(e):.1f} % | {100 * max(e):.1f} % |")


if __name__ == "__main__":
    main()
