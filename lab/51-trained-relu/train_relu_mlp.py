#!/usr/bin/env python3
"""Activations no one here wrote: a ReLU MLP trained by scikit-learn on the handwritten digits it
ships (1797 images of 8 x 8), its hidden activations written as .npy for `tileskip inspect`, and
their firing statistics beside what independent tokens with the same per-neuron rates would leave
live in a row tile (1 - (1 - p_j)^R, averaged over the neurons j).

    train_relu_mlp.py OUT_FOLDER [--hidden 4096] [--seed 0]

writes OUT_FOLDER/h.npy (samples x hidden, float32), OUT_FOLDER/w2.npy (hidden x classes) and
prints a JSON summary.
"""
import argparse
import json
import pathlib

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
import warnings


def live_fraction(active: np.ndarray, rows: int) -> float:
    """The fraction of columns non-zero in some row of each row tile, weighted by the tiles' rows."""
    total = 0.0
    for start in range(0, active.shape[0], rows):
        tile = active[start:start + rows]
        total += tile.any(axis=0).mean() * tile.shape[0]
    return total / active.shape[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float64)  # pixel intensities 0..16 -> 0..1
    model = MLPClassifier(hidden_layer_sizes=(args.hidden,), activation="relu", alpha=1e-4, max_iter=60,
                          random_state=args.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x, digits.target)
    hidden = np.maximum(x @ model.coefs_[0] + model.intercepts_[0], 0.0).astype(np.float32)
    np.save(args.out / "h.npy", hidden)
    np.save(args.out / "w2.npy", model.coefs_[1].astype(np.float32))

    active = hidden != 0.0
    rates = active.mean(axis=0)
    summary = {
        "samples": int(hidden.shape[0]),
        "hidden": int(hidden.shape[1]),
        "train_accuracy": float(model.score(x, digits.target)),
        "inactive_per_sample": float(1.0 - active.mean()),
        "dead_neurons": float((rates == 0.0).mean()),
        "top_tenth_share": float(np.sort(rates)[::-1][: hidden.shape[1] // 10].sum() / max(rates.sum(), 1e-30)),
    }
    for rows in (64, 128):
        summary[f"live_{rows}"] = live_fraction(active, rows)
        summary[f"live_{rows}_if_independent"] = float((1.0 - (1.0 - rates) ** rows).mean())
        order = np.argsort(digits.target, kind="stable")  # samples of one digit side by side
        summary[f"live_{rows}_grouped_by_label"] = live_fraction(active[order], rows)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
