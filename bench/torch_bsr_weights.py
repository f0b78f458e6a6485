#!/usr/bin/env python3
"""What a PyTorch user runs instead, on the weights suite's own cases: torch.sparse BSR beside cuBLAS.

Usage: torch_bsr_weights.py WEIGHTS.json OUT.json [--warmup 3] [--repeat 20]

For each case of a `tileskip bench --suite weights --format json` record (schema tileskip.weights/1),
the same weight W (the suite's generator and seed: tileskip.generate) times X (k x n tokens) in the
record's dtype on CUDA: dense torch.mm (cuBLAS, C in the input dtype), W as a torch.sparse_bsr tensor
through torch's `@` (cuSPARSE's BSR product where torch sends it) and through torch.sparse's Triton
bsr_dense_mm (triton_bsr.time_bsr), each checked against the float product. Beside each, the fastest
verified tileskip kernel of the case and the case's bounds from the record, so one file compares
them on one GPU. bench/README.md lists it; a GPU session runs it after the suite.
"""
import argparse
import json
import sys
import time

import torch

import tileskip
from triton_bsr import time_bsr

TORCH_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def fastest_tileskip(case):
    verified = [k for k in case["kernels"] if k.get("ms")]
    if not verified:
        return None
    best = min(verified, key=lambda k: k["ms"])
    return {"backend": best["backend"], "kernel": best["kernel"], "ms": best["ms"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", help="a tileskip.weights/1 record")
    parser.add_argument("out", help="the JSON to write")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with open(args.weights) as f:
        record = json.load(f)
    if record.get("schema") != "tileskip.weights/1":
        sys.exit(f"{args.weights}: not a weights suite record (schema {record.get('schema')!r})")
    if record["dtype"] not in TORCH_DTYPES:
        sys.exit(f"{args.weights}: dtype {record['dtype']!r} has no torch type here")
    dtype = TORCH_DTYPES[record["dtype"]]
    dev = torch.device("cuda", 0)
    rows, weights = [], {}
    for case in record["cases"]:
        m, k, n, block, density = case["m"], case["k"], case["n"], case["block"], case["density"]
        key = (m, k, block, density)
        if key not in weights:  # one weight for every token count, as the suite holds it
            w = tileskip.generate("blocks", m, k, density, record["seed"], "A", block)
            weights = {key: torch.from_numpy(w).to(dev, dtype)}
        x = torch.randn(k, n, device=dev, dtype=dtype)
        row = {"case": case["case"], "m": m, "k": k, "n": n, "block": block, "density": density}
        if m % block or k % block:
            row["error"] = f"torch's BSR layout cannot hold partial {block}-blocks of a {m} x {k} weight"
        else:
            row.update(time_bsr(weights[key], x, block, args.warmup, args.repeat))
        row["tileskip_fastest"] = fastest_tileskip(case)
        for bound in ("ceiling_ms", "bytes_bound_ms", "bound_ms", "baseline_ms"):
            row[f"suite_{bound}"] = case.get(bound)
        rows.append(row)
        print(json.dumps({key: row.get(key) for key in ("case", "dense_ms", "matmul_ms", "triton_bsr_dense_mm_ms")}), flush=True)
    out = {"suite": "torch-bsr-weights", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "devices": [f"cuda: {torch.cuda.get_device_name(dev)}, torch {torch.__version__}"],
           "tool": {"version": tileskip.__version__}, "dtype": record["dtype"], "weights_record": args.weights,
           "weights_commit": record["tool"].get("commit"), "rows": rows}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
