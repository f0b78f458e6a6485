#!/usr/bin/env python3
"""Makes the viewer's recorded GPU figures from a bench/results/latest record, or checks them.

Usage: recorded_figures.py RECORD.md OUT.json        write OUT.json
       recorded_figures.py RECORD.md OUT.json --check  exit 1 when OUT.json differs from RECORD.md

The record (bench/results/latest/*-ladder.md) has a "- device:" and a "- date:" line, then fenced
`tileskip bench` tables under "## part1 BACKEND: ..." headings (the dense kernels in fp32) and
"## part3 BACKEND DTYPE: ..." headings (the tensor-core kernels in DTYPE), each beside cuBLAS.
The JSON keeps what teaching mode shows where no GPU is present: per backend, precision and
kernel, the median time and effective GFLOPS at the recorded size, named with the device, the
date and the record it came from; a section keeps only its own backend's rows. Kernel numbers
are not kept: the viewer takes them from the catalogue, so a renumbering cannot leave a stale
one. The build embeds the JSON in the viewer (ui/CMakeLists.txt); the test
`recorded_figures_current` runs --check, so the JSON cannot drift from its record.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source_of(path):
    """The record's path from the repository's root, as the viewer names it."""
    relative = os.path.relpath(os.path.abspath(path), ROOT).replace(os.sep, "/")
    return relative if not relative.startswith("../") else "bench/results/latest/" + os.path.basename(path)


def parse(path):
    text = open(path, encoding="utf-8").read()
    device_line = re.search(r"^- device: (.+)$", text, re.M)
    date_line = re.search(r"^- date: (\d{4}-\d{2}-\d{2})", text, re.M)
    size = re.search(r"at (\d+)\u00b3", text)
    if not device_line or not date_line or not size:
        raise ValueError(f"{path}: needs '- device:', '- date:' lines and a size written as N\u00b3")
    kernels = []
    section = None  # (part, backend, dtype)
    for line in text.splitlines():
        heading = re.match(r"^## (part1|part3) (\w+)(?: (fp32|tf32|fp16|bf16))?:", line)
        if heading:
            section = (heading.group(1), heading.group(2), heading.group(3) or "fp32")
            continue
        if line.startswith("## "):
            section = None
        if section is None:
            continue
        # backend  id [(Kn)] [*]  verified  median  min  max  prep  effective GFLOPS ...
        row = re.match(r"^(\w+)\s+([\w-]+)(?: \(K\d+\))?(?: \*)?\s+(yes|no)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+\S+\s+([\d.]+)", line)
        if row and row.group(3) == "yes" and row.group(1) == section[1]:
            kernels.append({"backend": row.group(1), "kernel": row.group(2), "dtype": section[2],
                            "ms": float(row.group(4)), "gflops": float(row.group(5))})
    if not kernels:
        raise ValueError(f"{path}: no verified rows under '## part1 BACKEND:' or '## part3 BACKEND DTYPE:' headings")
    return {
        "source": source_of(path),
        "device": device_line.group(1).split(",")[0].strip(),
        "device_line": device_line.group(1).strip(),
        "date": date_line.group(1),
        "size": int(size.group(1)),
        "what": "docs/teaching.md's dense (Part 1, fp32) and tensor-core (Part 3) kernels beside cuBLAS at M = N = K = size, median of 10, verified",
        "kernels": kernels,
    }


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    figures = parse(argv[1])
    text = json.dumps(figures, indent=2) + "\n"
    if len(argv) == 4:
        current = open(argv[2], encoding="utf-8").read()
        if current != text:
            print(f"{argv[2]} differs from what {argv[1]} gives: rerun scripts/recorded_figures.py {argv[1]} {argv[2]}",
                  file=sys.stderr)
            return 1
        return 0
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
