"""A ReLU MLP trained with scikit-learn on its bundled digits data, its hidden weights magnitude-
pruned, and the GEMMs of one batch through it (forward and backward) as tileskip cases.

64 -> 512 -> 512 -> 10, ReLU, Adam, seeded. W1 (64x512) is pruned to 50 % and W2 (512x512) to
30 % of their weights by magnitude, then retrained a few epochs with the masks re-applied after
each (iterative magnitude pruning), so the network still classifies.
"""
import subprocess

import numpy as np

HIDDEN = 512
BATCH = 256
W1_DENSITY = 0.5
W2_DENSITY = 0.3


def prune(weights, density):
    """Keeps the `density` fraction of largest-magnitude weights; returns (pruned, mask)."""
    keep = int(round(density * weights.size))
    threshold = np.sort(np.abs(weights), axis=None)[weights.size - keep]
    mask = np.abs(weights) >= threshold
    return weights * mask, mask


def relu(x):
    return np.maximum(x, 0.0)


def add_cases(builder, small, seed):
    import sklearn
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=BATCH, random_state=seed, stratify=y)
    epochs, retrain = (3, 1) if small else (200, 20)
    net = MLPClassifier(hidden_layer_sizes=(HIDDEN, HIDDEN), activation="relu", solver="adam", max_iter=epochs,
                        random_state=seed, tol=1e-6 if not small else 1e-4)
    net.fit(x_train, y_train)
    dense_accuracy = net.score(x_test, y_test)
    masks = []
    for layer, density in ((0, W1_DENSITY), (1, W2_DENSITY)):
        net.coefs_[layer], mask = prune(net.coefs_[layer], density)
        masks.append(mask)
    for _ in range(retrain):
        net.partial_fit(x_train, y_train)
        for layer, mask in enumerate(masks):
            net.coefs_[layer] *= mask
    pruned_accuracy = net.score(x_test, y_test)

    w1, w2, w3 = (w.astype(np.float32) for w in net.coefs_)
    b1, b2, b3 = (b.astype(np.float32) for b in net.intercepts_)
    # One batch (the held-out digits) forward and backward, in float32 as a GPU would.
    z1 = x_test @ w1 + b1
    h1 = relu(z1)
    z2 = h1 @ w2 + b2
    h2 = relu(z2)
    logits = h2 @ w3 + b3
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    dlogits = (p - np.eye(10, dtype=np.float32)[y_test]) / BATCH
    dz2 = (dlogits @ w3.T) * (z2 > 0)

    version = sklearn.__version__
    debian = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-sklearn"], capture_output=True, text=True)
    package = f"Debian python3-sklearn {debian.stdout}" if debian.returncode == 0 and debian.stdout else "not from Debian"
    source = (f"scikit-learn {version} ({package}), load_digits, MLP 64-{HIDDEN}-{HIDDEN}-10 ReLU, "
              f"random_state {seed}, {epochs} epochs{' (--small)' if small else ''}")
    builder.sources.append({"package": "scikit-learn", "version": version, "registry": package,
                            "file": "sklearn.datasets.load_digits + MLPClassifier"})
    accuracy = f"test accuracy {dense_accuracy:.3f} dense, {pruned_accuracy:.3f} pruned"
    files = {}
    for name, array, what in (
            ("mlp-digits-batch.npy", x_test, f"{BATCH} held-out digits (pixels / 16)"),
            ("mlp-w1-pruned.npy", w1, f"W1 64x{HIDDEN}, magnitude-pruned to {W1_DENSITY:.0%}"),
            ("mlp-h1.npy", h1, f"hidden activations after ReLU, {BATCH}x{HIDDEN}"),
            ("mlp-h1-transposed.npy", h1.T, f"hidden activations transposed, {HIDDEN}x{BATCH}"),
            ("mlp-w2-pruned.npy", w2, f"W2 {HIDDEN}x{HIDDEN}, magnitude-pruned to {W2_DENSITY:.0%}"),
            ("mlp-w2-pruned-transposed.npy", w2.T, "W2 pruned, transposed"),
            ("mlp-h2.npy", h2, f"second hidden activations after ReLU, {BATCH}x{HIDDEN}"),
            ("mlp-w3.npy", w3, f"output weights {HIDDEN}x10 (not pruned)"),
            ("mlp-dz2.npy", dz2, f"gradient at the second pre-activation, zero where its ReLU is off, {BATCH}x{HIDDEN}")):
        files[name] = (builder.write_npy(name, array, f"{source}: {what}"), array)

    def case(name, a, b, note):
        builder.add_case(name, files[a][0], files[b][0], files[a][1], files[b][1], source, f"{note}; {accuracy}")

    case("mlp-input-x-w1", "mlp-digits-batch.npy", "mlp-w1-pruned.npy",
         "first layer: digit pixels (many zero) times W1 pruned to 50%")
    case("mlp-h1-x-w2", "mlp-h1.npy", "mlp-w2-pruned.npy",
         "hidden layer forward: ReLU activations times W2 pruned to 30%")
    case("mlp-dz2-x-w2t", "mlp-dz2.npy", "mlp-w2-pruned-transposed.npy",
         "hidden layer backward (input gradient): ReLU-masked gradient times pruned W2 transposed")
    case("mlp-h1t-x-dz2", "mlp-h1-transposed.npy", "mlp-dz2.npy",
         "hidden layer backward (weight gradient): activations transposed times ReLU-masked gradient")
    case("mlp-h2-x-w3", "mlp-h2.npy", "mlp-w3.npy",
         "output layer: second ReLU activations times W3 (10 columns)")
    print(f"  MLP: {accuracy}")
