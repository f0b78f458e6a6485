#!/usr/bin/env python3
"""Recomputes the figures docs/teaching.md quotes and fails when one has drifted.

Usage: check_teaching_claims.py TEACHING.md TILESKIP [RECORDED.json]

The lesson states its figures in prose; beside each, an HTML comment (invisible on the rendered
page) says how the tool recomputes it:

    <!-- check: --kernel a-row --block 8 --density-a 0.5 --density-b 0.5 --size 1024 --teach
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
BACKEND.KERNEL (BACKEND-DTYPE.KERNEL for a 16-bit row: cuda-bf16.wgmma.gflops). Exits 1 naming every claim that no longer holds (with its line in the doc), 2 on a
malformed claim or a page with no claims at all. The claims' syntax and comparison are
scripts/doc_claims.py's, which scripts/check_docs.py shares for the docs' headline figures.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_claims import MalformedClaim, check_figures, claims_in, view_facts  # noqa: E402


def facts_of(tileskip, args, cache):
    if args not in cache:
        cache[args] = view_facts(tileskip, args)
    return cache[args]


def recorded_of(path):
    figures = json.load(open(path))
    keyed = {}
    # fp32 rows as cuda.pipelined.gflops; another precision's as cuda-bf16.wgmma.gflops.
    for row in figures["kernels"]:
        key = row["backend"] if row.get("dtype", "fp32") == "fp32" else f"{row['backend']}-{row['dtype']}"
        keyed.setdefault(key, {})[row["kernel"]] = row
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
    try:
        claims = claims_in(text, page)
    except MalformedClaim as error:
        print(error, file=sys.stderr)
        return 2
    cache, failures, checked = {}, [], 0
    for claim in claims:
        if claim.kind == "recorded":
            if recorded is None:
                print(f"{page}:{claim.line}: a 'check recorded' claim, but no RECORDED.json given", file=sys.stderr)
                return 2
            data, source = recorded, "recorded"
        elif claim.kind == "view":
            try:
                data, source = facts_of(tileskip, claim.args, cache), "view " + claim.args
            except RuntimeError as error:
                failures.append(f"{page}:{claim.line}: {error}")
                continue
        else:
            print(f"{page}:{claim.line}: 'check {claim.kind}' is no claim this page can make", file=sys.stderr)
            return 2
        count, wrong = check_figures(claim, data, source, page)
        checked += count
        failures += wrong
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
