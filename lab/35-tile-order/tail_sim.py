#!/usr/bin/env python3
"""How much of a persistent kernel's time its coarse tiles leave idle at the end, simulated.

The prediction of lab/35-tile-order: block tiles of BM x BN over an N x N C, taken from a queue by
`blocks` persistent blocks, two to a multiprocessor (a block alone there runs `solo` times faster);
a tile's work is a fixed `overhead` plus the K-blocks its gather lists, drawn as the segments generator
draws the headline's operands (each BM-row panel of A and BN-column panel of B keeps each K-block with
probability `density`; the tile lists the K-blocks both keep). Prints, for each order the queue could
hand the tiles out in, the multiprocessors' active share and the time against index order. It models
no memory system: the measured kernel lost to heaviest-first ordering what it gained in locality.

  lab/35-tile-order/tail_sim.py [--density 0.25] [--trials 3]     (numpy: /usr/bin/python3 on Debian)
"""
import argparse

import numpy as np


def simulate(work, sms, solo):
    """Time to finish `work` (in queue order) on `sms` multiprocessors of two block slots; active share."""
    queue = iter(work)
    remaining = np.zeros((sms, 2))
    busy = np.zeros((sms, 2), bool)
    for slot in np.ndindex(sms, 2):
        taken = next(queue, None)
        if taken is not None:
            remaining[slot], busy[slot] = taken, True
    time = active = 0.0
    while busy.any():
        speed = np.where(busy.sum(1) == 2, 1.0, solo)[:, None]
        step = np.where(busy, remaining / speed, np.inf).min()
        active += (busy.sum(1) > 0).sum() * step
        remaining = np.where(busy, remaining - step * speed, 0.0)
        time += step
        for slot in zip(*np.nonzero(busy & (remaining <= 1e-9))):
            taken = next(queue, None)
            if taken is None:
                busy[slot] = False
            else:
                remaining[slot] = taken
    return time, active / (sms * time)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--tile", type=int, default=128, help="BM = BN, and the segments' width")
    parser.add_argument("--density", type=float, default=0.25, help="of A and of B")
    parser.add_argument("--overhead", type=float, default=4.0, help="a tile's fixed work, in K-blocks")
    parser.add_argument("--sms", type=int, default=132)
    parser.add_argument("--solo", type=float, default=1.3)
    parser.add_argument("--split", type=int, default=132, help="the last tiles split in K")
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    panels, kblocks = args.size // args.tile, args.size // 8
    results = {}
    for _ in range(args.trials):
        a = rng.random((panels, kblocks)) < args.density
        b = rng.random((panels, kblocks)) < args.density
        work = np.array([(a[r] & b[c]).sum() for r in range(panels) for c in range(panels)], float) + args.overhead
        last = args.split  # two halves each, the second with a K-block's work of fix-up
        half = (work[-last:] - args.overhead) / 2 + args.overhead
        split = list(work[:-last]) + [h + fixup for h in half for fixup in (0.0, 1.0)]
        orders = {"index": work, "heaviest first": np.sort(work)[::-1], f"last {last} split in K": np.array(split)}
        for name, order in orders.items():
            results.setdefault(name, []).append(simulate(order, args.sms, args.solo))
    base = np.mean([t for t, _ in results["index"]])
    print(f"{'order':<24} {'active share':>12} {'time / index':>12}")
    for name, runs in results.items():
        print(f"{name:<24} {np.mean([s for _, s in runs]):12.3f} {np.mean([t for t, _ in runs]) / base:12.3f}")


if __name__ == "__main__":
    main()
