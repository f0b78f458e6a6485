#!/usr/bin/env python3
"""How a kernel's FFMAs read their operands, from `cuobjdump -sass` (issue 17, lab/18-fma-order-stalls).

For each function whose name contains FILTER and that has at least --min-ffma FFMAs, prints:
  - the share of FFMAs with a .reuse flag, and reused operands per FFMA;
  - the share whose source operands not marked .reuse include two in the same register bank,
    for banks taken as register index mod 2 and mod 4, and three in one bank (mod 2);
  - the share whose destination is not the register its accumulator came from (a renamed
    accumulator: ptxas moved the value instead of updating it in place).
The bank numbering is a model (Volta to Hopper register-file banks are not documented); step 18
measured that lowering these shares did not make K12 faster.

    cuobjdump -sass BINARY > k.sass
    lab/tools/sass_ffma_operands.py k.sass hoisted
"""
import argparse
import collections
import re

FFMA = re.compile(r"FFMA\s+(R\d+),\s*-?(R\d+)(\.reuse)?,\s*-?(R\d+)(\.reuse)?,\s*-?(R\d+)(\.reuse)?")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sass")
    parser.add_argument("filter")
    parser.add_argument("--min-ffma", type=int, default=500)
    args = parser.parse_args()
    with open(args.sass) as f:
        text = f.read()
    for chunk in text.split("Function : ")[1:]:
        name = chunk.partition("\n")[0].strip()
        if args.filter not in name:
            continue
        ffmas = FFMA.findall(chunk)
        if len(ffmas) < args.min_ffma:
            continue
        flagged = reused = two2 = two4 = three2 = renamed = 0
        for dest, a, ra, b, rb, c, rc in ffmas:
            flags = [bool(ra), bool(rb), bool(rc)]
            flagged += any(flags)
            reused += sum(flags)
            read = [int(r[1:]) for r, flag in zip((a, b, c), flags) if not flag]
            mod2 = collections.Counter(r % 2 for r in read)
            mod4 = collections.Counter(r % 4 for r in read)
            two2 += max(mod2.values(), default=0) >= 2
            two4 += max(mod4.values(), default=0) >= 2
            three2 += max(mod2.values(), default=0) >= 3
            renamed += dest != c
        n = len(ffmas)
        print(f"{name[:90]}\n  {n} FFMA: .reuse on {flagged / n:.1%} ({reused / n:.2f} operands each); "
              f"two unreused in one bank: {two2 / n:.1%} (mod 2), {two4 / n:.1%} (mod 4); "
              f"three in one bank (mod 2): {three2 / n:.1%}; accumulator renamed: {renamed / n:.1%}")


if __name__ == "__main__":
    main()
