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

### Kernels

`naive` (K1), `hoisted` (K12, the fastest dense kernel), `joint-8x32` (S7) and the baseline `cpu`.

<!-- check headline h200
  "best dense CUDA kernel / cuBLAS SGEMM (TF32 off)" ~ 0.97 +- 0.005
  "best joint kernel / cuBLAS, A and B at density 0.50, 32-wide tiles" ~ 1.5 +- 0.05
  runs.0.cuda.pipelined.vs_baseline ~ 0.86 +- 0.005
-->

## Later
"""

GUIDE = """# Guide

## Usage

The kernel list: `README.md` "Kernels".
"""

HEADLINE = {
    "schema": "tileskip.headline/1",
    "measures": [
        {"measure": "best dense CUDA kernel / cuBLAS SGEMM (TF32 off)", "value": 0.9687},
        {"measure": "best joint kernel / cuBLAS, A and B at density 0.50, 128-wide tiles", "value": 3.64},
        {"measure": "same, 32-wide tiles", "value": 1.4846},  # named in full, as the history names it
    ],
    "runs": [{"rows": [{"backend": "cuda", "kernel": "pipelined", "vs_baseline": 0.864}]}],
}

LIST = {"schema": "tileskip.list/1",
        "kernels": [{"id": "naive", "number": "K1"}, {"id": "hoisted", "number": "K12"},
                    {"id": "joint-8x32", "number": "S7"}, {"id": "cpu", "number": ""}]}

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
    ("README.md", "`hoisted` (K12,", "`hoisted` (K13,", "`hoisted` is K12 in the catalogue, the README says K13"),
    ("README.md", "`joint-8x32` (S7)", "`bogus-kernel` (S7)", "`bogus-kernel` in \"Kernels\" is no catalogue id"),
    ("README.md", "### Kernels", "### Kernels", "catalogue id `joint-8x32` (S7) is missing from \"Kernels\""),
    ("README.md", "~ 0.97 +- 0.005", "~ 0.99 +- 0.005",
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
        ".gitignore": "/build/\n/.carry/\n",
        "lab/README.md": "# The lab\n\n- [01-present](01-present/)\n",
        "lab/01-present/README.md": "# 01\n",
        "kernels/parts/common.glsl": "// parts\n",
        "kernels/k01_naive.cuh": "// K1\n",
        "core/model/catalogue.hpp": "// the rows\n",
        "core/model/catalogue.cpp": "// the rows' names\n",
        "bench/results/latest/h200-headline.json": json.dumps(HEADLINE),
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
