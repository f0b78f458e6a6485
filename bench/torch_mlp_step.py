#!/usr/bin/env python3
"""A training step of a block-sparse MLP against the same model dense, on a CUDA GPU.

Usage: torch_mlp_step.py OUT.json [KERNEL [DTYPE]]

Four layers 4096 wide (ReLU between), weights in 128 x 128 blocks at density 0.25, batch 4096, in
DTYPE (fp32, the default, or bf16: parameters and activations in it, as a model cast with
.to(torch.bfloat16)): one step is forward, backward and an AdamW update. The models are tileskip.nn.BlockSparseLinear
(its kept blocks packed, the parameters and optimizer state theirs alone) multiplying with KERNEL (default "torch": torch's
product on the weight laid out from the blocks; a tileskip kernel id runs torch.ops.tileskip.matmul; "auto" would copy
the operands to the host on every call to inspect them) and torch.nn.Linear with the same weights, zeros outside the
kept blocks; the forward pass alone also against
torch.sparse BSR weights (torch.nn.functional.linear on a to_sparse_bsr weight). Each a median of
10 steps after 3 warm-up steps, CUDA events around each. bench/gpu_python.sh runs it.
"""
import json
import statistics
import sys
import time

import torch

import tileskip
import tileskip.nn

WIDTH, LAYERS, BATCH, BLOCK, DENSITY = 4096, 4, 4096, 128, 0.25


def timed(step, runs=10, warmup=3):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main(argv):
    out = argv[1]
    dtype_name = argv[3] if len(argv) > 3 else "fp32"
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype_name]
    kernel = argv[2] if len(argv) > 2 else "torch"
    dev = torch.device("cuda", 0)
    torch.manual_seed(0)
    sparse = torch.nn.Sequential(*[m for i in range(LAYERS) for m in (
        tileskip.nn.BlockSparseLinear(WIDTH, WIDTH, block=BLOCK, density=DENSITY, kernel=kernel, seed=i), torch.nn.ReLU())][:-1]).to(dev)
    dense = torch.nn.Sequential(*[layer.to_dense() if isinstance(layer, tileskip.nn.BlockSparseLinear) else layer
                                  for layer in sparse])
    sparse, dense = sparse.to(dtype), dense.to(dtype)
    x = torch.randn(BATCH, WIDTH, device=dev, dtype=dtype)
    target = torch.randn(BATCH, WIDTH, device=dev, dtype=dtype)
    rows = {}
    for name, model in (("tileskip BlockSparseLinear", sparse), ("dense nn.Linear", dense)):
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

        def step():
            optimizer.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(model(x), target).backward()
            optimizer.step()

        with torch.no_grad():
            forward_ms = timed(lambda: model(x))
        rows[name] = {"step_ms": timed(step), "forward_ms": forward_ms}
        print(name, json.dumps(rows[name]), flush=True)
    bsr = [layer.to_sparse_bsr() for layer in sparse if isinstance(layer, tileskip.nn.BlockSparseLinear)]
    biases = [layer.bias.detach() for layer in sparse if isinstance(layer, tileskip.nn.BlockSparseLinear)]

    def bsr_forward():
        h = x
        for i, (w, b) in enumerate(zip(bsr, biases)):
            h = torch.nn.functional.linear(h, w, b)
            if i < LAYERS - 1:
                h = torch.relu(h)
        return h

    with torch.no_grad():
        rows["torch.sparse BSR"] = {"forward_ms": timed(bsr_forward)}
    print("torch.sparse BSR", json.dumps(rows["torch.sparse BSR"]), flush=True)
    measures = [
        {"measure": "training step: dense nn.Linear / BlockSparseLinear", "value": round(rows["dense nn.Linear"]["step_ms"] / rows["tileskip BlockSparseLinear"]["step_ms"], 4)},
        {"measure": "forward: dense nn.Linear / BlockSparseLinear", "value": round(rows["dense nn.Linear"]["forward_ms"] / rows["tileskip BlockSparseLinear"]["forward_ms"], 4)},
        {"measure": "forward: torch.sparse BSR / BlockSparseLinear", "value": round(rows["torch.sparse BSR"]["forward_ms"] / rows["tileskip BlockSparseLinear"]["forward_ms"], 4)},
    ]
    record = {"suite": "torch-mlp" if dtype_name == "fp32" else f"torch-mlp-{dtype_name}", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "size": WIDTH,
              "devices": [f"cuda: {torch.cuda.get_device_name(dev)}, torch {torch.__version__}"],
              "tool": {"version": tileskip.__version__}, "dtype": dtype_name, "kernel": kernel,
              "model": f"{LAYERS} layers {WIDTH} wide, {BLOCK}-blocks at {DENSITY}, batch {BATCH}, AdamW",
              "rows": rows, "measures": measures}
    with open(out, "w") as f:
        json.dump(record, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
