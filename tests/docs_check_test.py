#!/usr/bin/env python3
"""scripts/check_docs.py on a small repository of its own: a tree where every citation resolves
passes, and the same tree broken in each way the check exists for fails, naming each problem with
its file and line.

Usage: docs_check_test.py CHECK_DOCS.py
Exit 0 when the check behaves, 1 naming what it missed or wrongly reported.
"""
import json
import os
import subprocess
import sys
import tempfile

README = """# fixture

Paths resolve: `kernels/parts/common.glsl`, [the guide](docs/guide.md), `core/model/catalogue.hpp`,
`common.glsl`, `core/model/catalogue` (a file pair by its stem), `kernels/kNN_*.cuh` and
`kernels/<source>.cuh`. Not repository paths: `build/bin/tileskip`, `W.npy`, `$OUT/x`, `.carry/`.
The notebook: [lab/01-present](lab/01-present/). The guide's docs/guide.md, "Usage".

```sh
kernels/parts/common.glsl build/release/bin/tileskip list
```

<!-- results table: rendered by scripts/results_table.py
  row h200-headline run dtype=fp32 generator=uniform
  row h200-blocksparse case A 0.25, 128-blocks
-->
| operands | M × N × K | dtype | fastest tileskip kernel | vs cuBLAS, same dtype | vs cuBLAS, per call | vs its teaching kernel | measured |
|---|---|---|---|---|---|---|---|
| dense | 4096³ | fp32 | `hoisted` | **0.97x** | 0.97x | 1.12x (K11) | [H200, 2026-11-28](bench/results/latest/h200-headline.json) |
| A at density 0.25 in 128 × 128 blocks, B dense | 4096³ | bf16 | `wgmma-queue-a-64` | **2.14x** | 2.00x | 6.29x (K13) | [H200, 2026-11-29](bench/results/latest/h200-blocksparse.json) |
<!-- end results table -->

## Later
"""

GUIDE = """# Guide

## Usage

The kernel list: `docs/kernels.md` "Kernels".
"""

KERNELS = """# The catalogue

## Kernels

`naive` (K1), `hoisted` (K12, the fastest dense kernel), `joint-8x32` (S7) and the baselines `cublas`,
`cusparse-csr` and `cpu`.

## Sources
"""

FINDINGS = """# Findings

The dense kernel reaches 0.97 of cuBLAS.

<!-- check headline h200
  "best dense CUDA kernel / cuBLAS SGEMM (TF32 off)" ~ 0.97 +- 0.005
  "best joint kernel / cuBLAS, A and B at density 0.50, 32-wide tiles" ~ 1.5 +- 0.05
  runs.0.cuda.pipelined.vs_baseline ~ 0.86 +- 0.005
-->
"""

# The lesson's own claims are scripts/check_teaching_claims.py's, never this check's.
TEACHING = """# Lesson

<!-- check recorded
  cuda.naive.gflops ~ 1 +- 1
-->
"""

DEVICES = ["cuda: NVIDIA H200, CUDA 13.0 runtime, compute capability 9.0"]

HEADLINE = {
    "schema": "tileskip.headline/1",
    "date": "2026-11-28T18:40:57Z",
    "devices": DEVICES,
    "measures": [
        {"measure": "best dense CUDA kernel / cuBLAS SGEMM (TF32 off)", "value": 0.9687},
        {"measure": "best joint kernel / cuBLAS, A and B at density 0.50, 128-wide tiles", "value": 3.64},
        {"measure": "same, 32-wide tiles", "value": 1.4846},  # named in full, as the history names it
    ],
    "runs": [{"dtype": "fp32",
              "problem": {"generator": "uniform", "density_a": 1.0, "density_b": 1.0, "block": 128,
                          "m": 4096, "n": 4096, "k": 4096},
              "rows": [{"backend": "cuda", "kernel": "pipelined", "vs_baseline": 0.864,
                        "end_to_end_vs_baseline": 0.864, "speedup_vs_dense": 1.0},
                       {"backend": "cuda", "kernel": "hoisted", "vs_baseline": 0.9687,
                        "end_to_end_vs_baseline": 0.9687, "speedup_vs_dense": 1.121},
                       {"backend": "cuda", "kernel": "cublas", "vs_baseline": 1.0,
                        "end_to_end_vs_baseline": 1.0, "speedup_vs_dense": None}]}],
}

BLOCKSPARSE = {
    "schema": "tileskip.blocksparse/1",
    "date": "2026-11-29T14:18:13Z",
    "devices": DEVICES,
    "dtype": "bf16",
    "size": 4096,
    "cases": [{"case": "A 0.25, 128-blocks", "baseline": "cublas", "block": 128, "density_a": 0.25,
               "density_b": 1.0, "cublas_ms": 0.2,
               "kernels": [{"backend": "cuda", "kernel": "cublas", "speedup": 1.0, "e2e_ms": 0.2},
                           {"backend": "cuda", "kernel": "mma", "speedup": 0.34, "e2e_ms": 0.588},
                           {"backend": "cuda", "kernel": "wgmma-queue-a-64", "speedup": 2.14, "e2e_ms": 0.1}]}],
}

LIST = {"schema": "tileskip.list/1",
        "kernels": [{"id": "naive", "number": "K1"}, {"id": "hoisted", "number": "K12"},
                    {"id": "joint-8x32", "number": "S7"}, {"id": "cublas", "number": ""},
                    {"id": "cusparse-csr", "number": ""}, {"id": "cpu", "number": ""}]}

# Each break: (file, text replaced, its replacement, what the check must say about the line).
# One break may draw several problems; a message listed twice is one break's second problem.
BREAKS = [
    ("README.md", "`kernels/parts/common.glsl`, [the guide]", "`kernels/parts/missing.glsl`, [the guide]",
     "path 'kernels/parts/missing.glsl' does not exist"),
    ("README.md", "[lab/01-present](lab/01-present/)", "[lab/02-missing](lab/02-missing/)",
     "lab entry 'lab/02-missing' does not exist"),
    ("README.md", "[lab/02-missing](lab/02-missing/)", "[lab/02-missing](lab/02-missing/)",
     "link 'lab/02-missing/' does not exist"),
    ("core/model/catalogue.hpp", "// the rows", "// the rows (lab/03-gone)",
     "lab entry 'lab/03-gone' does not exist"),
    ("README.md", "docs/guide.md, \"Usage\"", "docs/guide.md, \"Abuse\"",
     "section \"Abuse\" is no heading of docs/guide.md"),
    ("README.md", "| **0.97x** | 0.97x |", "| **0.99x** | 0.97x |",
     "the results table is not what scripts/results_table.py renders"),
    ("README.md", "## Later", "<!-- check recorded\n  x = 1\n-->\n## Later",
     "'check recorded ' is no claim this page can make"),
    ("docs/kernels.md", "`hoisted` (K12,", "`hoisted` (K13,",
     "`hoisted` is K12 in the catalogue, docs/kernels.md says K13"),
    ("docs/kernels.md", "`joint-8x32` (S7)", "`bogus-kernel` (S7)", "`bogus-kernel` in \"Kernels\" is no catalogue id"),
    ("docs/kernels.md", "## Kernels", "## Kernels", "catalogue id `joint-8x32` (S7) is missing from \"Kernels\""),
    ("docs/findings.md", "~ 0.97 +- 0.005", "~ 0.99 +- 0.005",
     "\"best dense CUDA kernel / cuBLAS SGEMM (TF32 off)\" is 0.9687, the page says ~ 0.99 +- 0.005"),
    ("docs/guide.md", "The kernel list:", "As DESIGN.md says, the kernel list:",
     "cites 'DESIGN.md', which is not in the repository"),
]


def write(root, relative, text):
    path = os.path.join(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def make_tree(root, files):
    for relative, text in files.items():
        write(root, relative, text)


def good_files():
    return {
        "README.md": README,
        "docs/guide.md": GUIDE,
        "docs/kernels.md": KERNELS,
        "docs/findings.md": FINDINGS,
        "docs/teaching.md": TEACHING,
        ".gitignore": "/build/\n/.carry/\n",
        "lab/README.md": "# The lab\n\n- [01-present](01-present/)\n",
        "lab/01-present/README.md": "# 01\n",
        "kernels/parts/common.glsl": "// parts\n",
        "kernels/k01_naive.cuh": "// K1\n",
        "core/model/catalogue.hpp": "// the rows\n",
        "core/model/catalogue.cpp": "// the rows' names\n",
        "bench/results/latest/h200-headline.json": json.dumps(HEADLINE),
        "bench/results/latest/h200-blocksparse.json": json.dumps(BLOCKSPARSE),
        "build/bin/ignored.md": "a build output: DESIGN.md and lab/99-nothing are never read here\n",
    }


def run(check, root, listing):
    done = subprocess.run([sys.executable, check, "--root", root, "--list-json", listing],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return done.returncode, done.stdout


def line_of(text, needle):
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"fixture: '{needle}' not found")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    check = argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        listing = os.path.join(scratch, "list.json")
        with open(listing, "w", encoding="utf-8") as f:
            json.dump(LIST, f)

        good = os.path.join(scratch, "good")
        make_tree(good, good_files())
        code, output = run(check, good, listing)
        if code != 0:
            failures.append(f"the tree where everything resolves: exit {code}, not 0:\n{output}")

        files = good_files()
        for relative, old, new, _ in BREAKS:
            if old not in files[relative]:
                raise AssertionError(f"fixture: '{old}' not in {relative}")
            files[relative] = files[relative].replace(old, new, 1)
        broken = os.path.join(scratch, "broken")
        make_tree(broken, files)
        code, output = run(check, broken, listing)
        if code != 1:
            failures.append(f"the broken tree: exit {code}, not 1:\n{output}")
        for relative, _, new, message in BREAKS:
            where = f"{relative}:{line_of(files[relative], new.splitlines()[0])}: {message}"
            if where not in output:
                failures.append(f"not reported: {where}")
        reported = [line for line in output.splitlines() if ": " in line and not line.startswith("check_docs:")]
        if len(reported) != len(BREAKS):
            failures.append(f"{len(reported)} problems reported for {len(BREAKS)} breaks:\n{output}")

        # Each of these alone: exactly the problems listed, each with its file and line.
        gone = good_files()
        table = gone["README.md"][gone["README.md"].index("<!-- results table"):]
        table = table[:table.index("<!-- end results table -->\n") + len("<!-- end results table -->\n")]
        gone["README.md"] = gone["README.md"].replace(table, "")
        gone["docs/findings.md"] = FINDINGS[:FINDINGS.index("<!-- check")]
        gone["docs/guide.md"] = GUIDE.replace("The kernel list: `docs/kernels.md` \"Kernels\".", "The kernel list.")
        del gone["docs/kernels.md"]
        scenarios = [
            ("the table, the marks and the kernel page quietly gone", gone, LIST, [
                ("README.md", 1, "no results table"),
                ("docs/findings.md", 1, "no headline figure is marked"),
                ("docs/kernels.md", 1, "no \"Kernels\" section to hold the kernel list")]),
            ("a baseline results_table.py does not know", good_files(),
             dict(LIST, kernels=LIST["kernels"] + [{"id": "cutlass", "number": ""}]), [
                ("README.md", line_of(README, "<!-- results table"), "scripts/results_table.py takes ['cpu', "
                 "'cublas', 'cusparse-csr'] for the vendor's kernels, the catalogue's baselines are"),
                ("docs/kernels.md", line_of(KERNELS, "## Kernels"), "catalogue id `cutlass` is missing from \"Kernels\"")]),
            ("a table row that names no run", dict(good_files(), **{"README.md": README.replace(
                "row h200-headline run dtype=fp32 generator=uniform", "row h200-headline run dtype=fp16")}), LIST, [
                ("README.md", line_of(README, "row h200-headline"), "h200-headline: 0 runs have dtype=fp16, not one")]),
        ]
        for number, (name, tree, catalogue, expected) in enumerate(scenarios):
            root = os.path.join(scratch, f"scenario{number}")
            make_tree(root, tree)
            other = os.path.join(scratch, f"list{number}.json")
            with open(other, "w", encoding="utf-8") as f:
                json.dump(catalogue, f)
            code, output = run(check, root, other)
            if code != 1:
                failures.append(f"{name}: exit {code}, not 1:\n{output}")
            for relative, line, message in expected:
                if f"{relative}:{line}: {message}" not in output:
                    failures.append(f"{name}: not reported: {relative}:{line}: {message}\n{output}")
            reported = [line for line in output.splitlines() if ": " in line and not line.startswith("check_docs:")]
            if len(reported) != len(expected):
                failures.append(f"{name}: {len(reported)} problems reported for {len(expected)}:\n{output}")

        # No catalogue at all is the check's own failure (exit 2), never a pass.
        code, output = run(check, good, os.path.join(scratch, "missing.json"))
        if code != 2:
            failures.append(f"a missing catalogue: exit {code}, not 2:\n{output}")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"docs_check_test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
