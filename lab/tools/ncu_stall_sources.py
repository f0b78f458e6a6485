#!/usr/bin/env python3
"""Where a kernel's warps wait, by stall reason and instruction (issue 17, lab/18-fma-order-stalls).

Reads Nsight Compute's source page as CSV (`ncu -i REPORT --page source --print-source sass
--csv`, as lab/18-fma-order-stalls/gpu_stall_sources.sh writes it) and prints each stall reason's share of all
warp-state samples with the opcodes that hold most of it; with --reason R, also every
instruction holding more than --min of all samples in that reason, beside the one before it.

    lab/tools/ncu_stall_sources.py stall-k12.csv
    lab/tools/ncu_stall_sources.py stall-k12.csv --reason stall_wait
"""
import argparse
import collections
import csv
import re


def opcode(source):
    return re.sub(r"^@!?U?P\w+\s+", "", source).split()[0] if source else "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("--reason")
    parser.add_argument("--min", type=float, default=0.001, help="share of all samples (default 0.001)")
    args = parser.parse_args()
    with open(args.csv, newline="") as f:
        rows = list(csv.reader(f))
    header = next(r for r in rows if "Source" in r and "Address" in r)
    index = {h: i for i, h in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    instructions = [r for r in rows[rows.index(header) + 1:] if len(r) >= len(header)]
    total = collections.Counter()
    by_opcode = collections.defaultdict(collections.Counter)
    for r in instructions:
        op = opcode(r[index["Source"]].strip())
        for reason in reasons:
            samples = int(r[index[reason]] or 0)
            total[reason] += samples
            by_opcode[reason][op] += samples
    all_samples = sum(total.values())
    print(f"{all_samples} samples")
    for reason, samples in total.most_common():
        if samples == 0:
            continue
        top = ", ".join(f"{op} {n / all_samples:.1%}" for op, n in by_opcode[reason].most_common(4))
        print(f"{reason:24s} {samples / all_samples:6.1%}   {top}")
    if args.reason:
        for i, r in enumerate(instructions):
            samples = int(r[index[args.reason]] or 0)
            if samples > args.min * all_samples:
                before = instructions[i - 1][index["Source"]].strip() if i else ""
                print(f"{i:5d} {samples / all_samples:6.2%}  {r[index['Source']].strip()[:60]:60s} after: {before[:50]}")


if __name__ == "__main__":
    main()
