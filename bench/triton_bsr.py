#!/usr/bin/env python3
"""The anchor a PyTorch user picks for block-sparse A: Triton BSR through torch.sparse.

Times C = A @ B on the GPU for the same .npy operands a `tileskip bench --a A.npy --b B.npy` run
reads (written by `tileskip gen`), in bf16 or fp16: dense torch.mm (cuBLAS), and A as a BSR
tensor in BLOCK x BLOCK blocks through torch.sparse's Triton kernel (bsr_dense_mm) and through
the `@` operator. Triton BSR exploits A's zeros only: B stays dense. Prints one JSON object.

  python3 bench/triton_bsr.py A.npy B.npy [--dtype bf16] [--block 64] [--repeat 20]
"""
import argparse
import json
import statistics
import sys

import numpy as np
import torch


def median_ms(fn, warmup, repeat):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def time_bsr(a, b, block, warmup, repeat):
    """C = A @ B for CUDA tensors A and B: dense torch.mm, then A as BSR in ``block``-blocks through
    torch's `@` and torch.sparse's Triton bsr_dense_mm, each checked against the float product.
    A row of JSON fields; a path torch refuses (a layout, a dtype, a missing Triton) is a field
    ``<path>_error``, a result rather than a crash."""
    m, k = a.shape
    n = b.shape[1]
    reference = a.float() @ b.float()
    report = {"m": m, "n": n, "k": k, "block": block,
              "density_a": float((a != 0).float().mean()), "density_b": float((b != 0).float().mean())}
    report["dense_ms"] = median_ms(lambda: torch.mm(a, b), warmup, repeat)

    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    a_bsr = a.to_sparse_bsr((block, block))
    stop.record()
    stop.synchronize()
    report["bsr_convert_ms"] = start.elapsed_time(stop)
    blocks = (m // block) * (k // block)
    report["bsr_block_density"] = a_bsr.values().shape[0] / blocks

    candidates = {"matmul": lambda: a_bsr @ b}
    try:
        from torch.sparse._triton_ops import bsr_dense_mm
        candidates["triton_bsr_dense_mm"] = lambda: bsr_dense_mm(a_bsr, b)
    except ImportError as e:
        report["triton_bsr_dense_mm_error"] = str(e)
    for name, fn in candidates.items():
        try:
            out = fn()
            error = float((out.float() - reference).abs().max() / reference.abs().max().clamp(min=1e-30))
            report[f"{name}_ms"] = median_ms(fn, warmup, repeat)
            report[f"{name}_max_rel_error"] = error
        except Exception as e:  # an unsupported layout or a missing Triton is a result, not a crash
            report[f"{name}_error"] = f"{type(e).__name__}: {e}"
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    a = torch.from_numpy(np.load(args.a)).to("cuda", dtype)
    b = torch.from_numpy(np.load(args.b)).to("cuda", dtype)
    report = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "dtype": args.dtype}
    report.update(time_bsr(a, b, args.block, args.warmup, args.repeat))
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
