"""An MLP layer's weights and input whose ReLU leaves the hidden activations as the `neurons`
generator makes them: each neuron j fires on a token with its own probability p_j, a power law
over the neurons (p_j = min(1, c / (rank_j + 1)^skew), ranks a random permutation, c set so the
mean is the active fraction), tokens independent.

The bias is W1's last row against X's last column of ones: with X's other columns standard normal
and W1's columns of unit norm, X·W1's column j before the bias is standard normal on every token,
so a bias of -Phi^-1(1 - p_j) fires neuron j with probability p_j.

    python3 make_layer.py OUT_DIR [--tokens 4096] [--width 4096] [--hidden 11008] [--active 0.1] [--skew 2] [--seed 1]
writes OUT_DIR/x.npy (tokens x width), w1.npy (width x hidden), w2.npy (hidden x width), float32.
"""
import argparse
import os
from statistics import NormalDist

import numpy as np


def firing_probabilities(count, active, skew, rng):
    weight = (np.arange(count) + 1.0) ** -skew
    low, high = 0.0, 1.0
    while np.minimum(1.0, high * weight).mean() < active:
        high *= 2.0
    for _ in range(100):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if np.minimum(1.0, middle * weight).mean() < active else (low, middle)
    return np.minimum(1.0, high * weight)[rng.permutation(count)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--hidden", type=int, default=11008)
    parser.add_argument("--active", type=float, default=0.1)
    parser.add_argument("--skew", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)

    x = rng.standard_normal((args.tokens, args.width), dtype=np.float32)
    x[:, -1] = 1.0
    w1 = rng.standard_normal((args.width, args.hidden), dtype=np.float32)
    w1[:-1] /= np.linalg.norm(w1[:-1], axis=0)
    p = firing_probabilities(args.hidden, args.active, args.skew, rng)
    normal = NormalDist()
    # p = 1 fires always: a bias far above the spread of a standard normal.
    w1[-1] = [8.0 if q >= 1.0 else -normal.inv_cdf(1.0 - q) for q in p]
    w2 = (rng.standard_normal((args.hidden, args.width), dtype=np.float32) / np.sqrt(args.hidden)).astype(np.float32)
    np.save(os.path.join(args.out, "x.npy"), x)
    np.save(os.path.join(args.out, "w1.npy"), w1)
    np.save(os.path.join(args.out, "w2.npy"), w2)
    print(f"{args.out}: firing probabilities mean {p.mean():.4f}, max {p.max():.3f}, median {np.median(p):.5f}")


if __name__ == "__main__":
    main()
