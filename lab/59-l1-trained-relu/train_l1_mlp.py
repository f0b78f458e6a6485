#!/usr/bin/env python3
"""A ReLU MLP trained with an L1 penalty on its hidden activations, on scikit-learn's digits.

Usage: train_l1_mlp.py OUT_DIR [LAMBDA...]

64 -> 4096 -> 4096 -> 10, ReLU, Adam, full batch, 400 steps, seed 0, on the GPU where there is one.
The loss is cross-entropy plus LAMBDA x the mean absolute hidden activation of both layers (the
activation sparsity penalty scikit-learn's MLPClassifier lacks, lab/51). For each LAMBDA it writes
OUT_DIR/l<LAMBDA>/h.npy (the first hidden layer's activations, one row per image: A of the second
layer's product) and w.npy (W2 transposed, 4096 x 4096: its B), and prints the training accuracy,
the inactive fraction per image and the live fraction of 64-row tiles (images in their data set's
order, and sorted by label). The digits are digits_x.npy / digits_y.npy beside this script
(sklearn.datasets.load_digits, pixels / 16), so the GPU machine needs no scikit-learn.
"""
import json
import os
import sys

import numpy as np
import torch

HIDDEN, STEPS = 4096, 400


def live_fraction(h, rows=64):
    live = h != 0
    tiles = [live[i:i + rows].any(dim=0).float().mean().item() for i in range(0, live.shape[0], rows)]
    return sum(tiles) / len(tiles)


def main(argv):
    out = argv[1]
    lambdas = [float(v) for v in argv[2:]] or [0.0, 1e-3, 3e-3, 1e-2]
    here = os.path.dirname(os.path.abspath(__file__))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.from_numpy(np.load(os.path.join(here, "digits_x.npy"))).to(device)
    y = torch.from_numpy(np.load(os.path.join(here, "digits_y.npy"))).to(device)
    results = []
    for lam in lambdas:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(64, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, HIDDEN),
                                    torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 10)).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        for _ in range(STEPS):
            h1 = model[1](model[0](x))
            h2 = model[3](model[2](h1))
            loss = torch.nn.functional.cross_entropy(model[4](h2), y) + lam * (h1.abs().mean() + h2.abs().mean())
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            h1 = model[1](model[0](x))
            accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
            by_label = h1[torch.argsort(y, stable=True)]
            row = {"lambda": lam, "accuracy": accuracy, "inactive": (h1 == 0).float().mean().item(),
                   "dead_neurons": ((h1 != 0).sum(dim=0) == 0).float().mean().item(),
                   "live_64": live_fraction(h1), "live_64_by_label": live_fraction(by_label)}
        print(json.dumps(row), flush=True)
        results.append(row)
        folder = os.path.join(out, f"l{lam:g}")
        os.makedirs(folder, exist_ok=True)
        np.save(os.path.join(folder, "h.npy"), h1.cpu().numpy())
        np.save(os.path.join(folder, "w.npy"), model[2].weight.detach().t().contiguous().cpu().numpy())
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
