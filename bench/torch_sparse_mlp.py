#!/usr/bin/env python3
"""tileskip.nn.SparseMLP against the same block dense, on a CUDA GPU, with its packed ceiling.

Usage: torch_sparse_mlp.py OUT.json [KERNEL [DTYPE]]

A feed-forward block shaped like LLaMA-2-7B's (4096 -> 11008 -> 4096, ReLU), batch 4096 tokens, in
DTYPE (bf16, the default, fp16, or fp32 with KERNEL compact-64), whose hidden activations follow the activations suite's LLaMA
case: each token leaves 90 % of the neurons inactive, independently, and how often a neuron fires
follows a power law of exponent 2 over the neurons, hot and cold ones spread through the width
(the `neurons` generator's statistics: a unit-norm W1 row per neuron, inputs N(0, 1), and a bias
that makes the pre-activation positive with the neuron's probability). Timed, each a median of 10
after 3 warm-up runs, CUDA events around each:
- dense: torch.nn.Sequential(Linear, ReLU, Linear) with the same weights (cuBLAS);
- tileskip.nn.SparseMLP with KERNEL (default compact-wgmma-128; "auto" would copy H and W2 to the
  host on every call), as built and after reorder_() on the batch;
- the ceiling: the first Linear and ReLU, then cuBLAS on H's live columns packed (K = the mean
  live fraction of a KERNEL tile of tokens, times 11008): what a perfect compaction could reach.
The forward pass (no_grad) and a training step (forward, backward, AdamW) of each.
"""
import json
import sys
import time

import numpy as np
import torch

import tileskip
import tileskip.nn
from torch_mlp_step import timed  # beside this script: the median of CUDA-event-timed runs

TOKENS, WIDTH, HIDDEN, INACTIVE, EXPONENT = 4096, 4096, 11008, 0.9, 2.0


def firing_probabilities(count, density, exponent, rng):
    """p_j = min(1, c / rank_j^exponent), c bisected so the p_j average `density`, ranks shuffled."""
    weight = np.arange(1, count + 1, dtype=np.float64) ** -exponent
    low, high = 0.0, 1.0
    while np.minimum(1.0, high * weight).mean() < density:
        high *= 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if np.minimum(1.0, middle * weight).mean() < density:
            low = middle
        else:
            high = middle
    return np.minimum(1.0, high * weight[rng.permutation(count)])


def main(argv):
    out = argv[1]
    kernel = argv[2] if len(argv) > 2 else "compact-wgmma-128"
    dtype_name = argv[3] if len(argv) > 3 else "bf16"
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype_name]
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 is fp32 on both sides (cuBLAS SGEMM)
    dev = torch.device("cuda", 0)
    torch.manual_seed(0)
    fc1, fc2 = torch.nn.Linear(WIDTH, HIDDEN), torch.nn.Linear(HIDDEN, WIDTH)
    with torch.no_grad():
        fc1.weight.div_(fc1.weight.norm(dim=1, keepdim=True))
        p = torch.from_numpy(firing_probabilities(HIDDEN, 1.0 - INACTIVE, EXPONENT, np.random.default_rng(0)))
        # Fires when N(0, 1) exceeds -bias: with probability p (always where p is 1).
        fc1.bias.copy_(torch.where(p >= 1.0, 8.0, -(2.0 ** 0.5) * torch.special.erfinv(1.0 - 2.0 * p)).float())
    dense = torch.nn.Sequential(fc1, torch.nn.ReLU(), fc2).to(dev, dtype)
    x = torch.randn(TOKENS, WIDTH, device=dev, dtype=dtype)
    target = torch.randn(TOKENS, WIDTH, device=dev, dtype=dtype)
    built = tileskip.nn.SparseMLP.from_dense(dense[0], dense[2], kernel=kernel)
    reordered = tileskip.nn.SparseMLP.from_dense(dense[0], dense[2], kernel=kernel)
    report = reordered.reorder_(x)
    with torch.no_grad():
        h = built.hidden(x)
        torch.testing.assert_close(built(x), dense(x), rtol=2e-2, atol=2e-2)
        torch.testing.assert_close(reordered(x), dense(x), rtol=2e-2, atol=2e-2)
    live = report["live_after"]
    packed = max(64, round(live * HIDDEN / 64) * 64)
    w2t = dense[2].weight.detach().t().contiguous()

    def ceiling():
        hidden = torch.relu(torch.nn.functional.linear(x, dense[0].weight, dense[0].bias))
        return torch.addmm(dense[2].bias, hidden[:, :packed], w2t[:packed])

    rows = {}
    for name, model in (("dense nn.Sequential", dense), ("tileskip SparseMLP", built),
                        ("tileskip SparseMLP reordered", reordered)):
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)

        def step():
            optimizer.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(model(x), target).backward()
            optimizer.step()

        with torch.no_grad():
            forward_ms = timed(lambda: model(x))
        rows[name] = {"forward_ms": forward_ms, "step_ms": timed(step)}
        print(name, json.dumps(rows[name]), flush=True)
    with torch.no_grad():
        rows["ceiling"] = {"forward_ms": timed(ceiling), "packed_hidden": packed}
    print("ceiling", json.dumps(rows["ceiling"]), flush=True)

    def ratio(a, b, key):
        return round(rows[a][key] / rows[b][key], 4)

    measures = [
        {"measure": "forward: dense / SparseMLP", "value": ratio("dense nn.Sequential", "tileskip SparseMLP", "forward_ms")},
        {"measure": "forward: dense / SparseMLP reordered", "value": ratio("dense nn.Sequential", "tileskip SparseMLP reordered", "forward_ms")},
        {"measure": "forward: dense / ceiling", "value": ratio("dense nn.Sequential", "ceiling", "forward_ms")},
        {"measure": "forward: SparseMLP reordered ceiling fraction", "value": ratio("ceiling", "tileskip SparseMLP reordered", "forward_ms")},
        {"measure": "training step: dense / SparseMLP reordered", "value": ratio("dense nn.Sequential", "tileskip SparseMLP reordered", "step_ms")},
    ]
    record = {"suite": f"torch-sparse-mlp-{dtype_name}", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "size": TOKENS, "devices": [f"cuda: {torch.cuda.get_device_name(dev)}, torch {torch.__version__}"],
              "tool": {"version": tileskip.__version__}, "dtype": dtype_name, "kernel": kernel,
              "model": f"{WIDTH} -> {HIDDEN} -> {WIDTH}, ReLU, {TOKENS} tokens, {INACTIVE} inactive, power law {EXPONENT}, AdamW",
              "hidden_density": (h != 0).float().mean().item(),
              "live_fraction": {k: report[k] for k in ("rows", "live_before", "live_after", "live_groups_before", "live_groups_after")},
              "rows": rows, "measures": measures}
    with open(out, "w") as f:
        json.dump(record, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
