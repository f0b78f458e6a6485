#!/usr/bin/env python3
"""How far ahead of their first use a kernel's shared-memory loads are issued (issue 17, step 12).

Reads `cuobjdump -sass` output, finds each function whose name contains FILTER, and for every
loop of at least --min-ffma FFMAs (a backward branch) prints, for its LDS instructions, how many
FFMAs lie between the load and the first instruction that reads its result: the latency a warp
can hide by itself. A shared load takes some 30 cycles; a lead under ~16 FFMAs leaves a warp
waiting unless another warp of its scheduler has work.

    cuobjdump -sass BINARY > k.sass
    lab/tools/sass_load_distance.py k.sass hoisted
"""
import argparse
import re
import statistics
import sys

INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)\s*(.*?)\s*;")
REGISTER = re.compile(r"^\[?-?\|?R(\d+)")


def functions(text):
    """(name, [(address, opcode, operands)]) for each function in cuobjdump's output."""
    for chunk in text.split("Function : ")[1:]:
        name, _, body = chunk.partition("\n")
        instructions = []
        for line in body.splitlines():
            match = INSTRUCTION.match(line)
            if match:
                instructions.append((int(match.group(1), 16), match.group(2), match.group(3)))
        yield name.strip(), instructions


def first_register(operand):
    match = REGISTER.match(operand.strip())
    return int(match.group(1)) if match else None


def load_leads(body):
    """For each LDS of a loop body: FFMAs issued before the first reader of its result."""
    leads = []
    for i, (_, opcode, operands) in enumerate(body):
        if not opcode.startswith("LDS"):
            continue
        parts = [p.strip() for p in operands.split(",")]
        first = first_register(parts[0])
        if first is None:  # LDS RZ: a scheduling filler with no result
            continue
        width = 4 if ".128" in opcode else 2 if ".64" in opcode else 1
        written = set(range(first, first + width))
        ffmas = 0
        for _, later_opcode, later_operands in body[i + 1:]:
            sources = [first_register(p) for p in later_operands.split(",")[1:]]
            if any(r in written for r in sources if r is not None):
                break
            ffmas += later_opcode.startswith("FFMA")
        leads.append(ffmas)
    return leads


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sass", help="cuobjdump -sass output")
    parser.add_argument("filter", help="part of the (mangled) function name")
    parser.add_argument("--min-ffma", type=int, default=512, help="loops with fewer FFMAs are skipped")
    parser.add_argument("--short", type=int, default=16, help="a lead below this many FFMAs is counted as short")
    args = parser.parse_args()
    with open(args.sass, encoding="utf-8") as f:
        text = f.read()
    found = False
    for name, instructions in functions(text):
        if args.filter not in name:
            continue
        found = True
        print(name[:120])
        for end, (address, opcode, operands) in enumerate(instructions):
            target = re.search(r"0x([0-9a-f]+)", operands) if opcode.startswith("BRA") else None
            if not target or int(target.group(1), 16) >= address:
                continue
            start = int(target.group(1), 16)
            body = [ins for ins in instructions[: end + 1] if ins[0] >= start]
            ffma = sum(op.startswith("FFMA") for _, op, _ in body)
            if ffma < args.min_ffma:
                continue
            leads = load_leads(body)
            branches = sum(op.startswith("BRA") for _, op, _ in body)
            short = sorted(lead for lead in leads if lead < args.short)
            print(f"  loop {start:#x}-{address:#x}: {len(body)} instructions, {ffma} FFMA, {branches} BRA, "
                  f"{len(leads)} LDS; lead in FFMAs min {min(leads) if leads else '-'}, "
                  f"median {statistics.median(leads) if leads else '-'}, under {args.short}: {len(short)} {short}")
    if not found:
        sys.exit(f"no function matching {args.filter!r}")


if __name__ == "__main__":
    main()
