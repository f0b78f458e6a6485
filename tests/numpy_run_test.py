#!/usr/bin/env python3
"""`tileskip run` on two .npy files gives NumPy's C to fp32 accuracy.

Usage: numpy_run_test.py TILESKIP_BINARY BACKEND [KERNEL ...]
Exits 77 (CTest's skip code) when the backend is unavailable here (exit code 3).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

SKIP = 77


def run(binary, backend, kernel, a_path, b_path, out_path):
    command = [binary, "run", "--backend", backend, "--a", a_path, "--b", b_path, "--out", out_path]
    if kernel:
        command += ["--kernel", kernel]
    return subprocess.run(command, capture_output=True, text=True)


def main():
    binary, backend, kernels = sys.argv[1], sys.argv[2], sys.argv[3:] or [None]
    rng = np.random.default_rng(20261122)
    with tempfile.TemporaryDirectory() as folder:
        for (m, k, n), dtype in [((67, 45, 33), np.float32), ((128, 96, 160), np.float64)]:
            a = rng.standard_normal((m, k)).astype(dtype)
            b = rng.standard_normal((k, n)).astype(dtype)
            a[:, 8:16] = 0.0  # a zero K-block in A, so skipping kernels have something to skip
            b[24:32, :] = 0.0
            a_path, b_path = os.path.join(folder, "a.npy"), os.path.join(folder, "b.npy")
            np.save(a_path, a)
            np.save(b_path, b)
            expected = a.astype(np.float32).astype(np.float64) @ b.astype(np.float32).astype(np.float64)
            for kernel in kernels:
                out_path = os.path.join(folder, "c.npy")
                result = run(binary, backend, kernel, a_path, b_path, out_path)
                if result.returncode == 3:
                    print(f"{backend} unavailable: {result.stderr.strip()}")
                    return SKIP
                if result.returncode != 0:
                    print(f"tileskip run failed ({result.returncode}): {result.stdout}{result.stderr}")
                    return 1
                c = np.load(out_path)
                error = np.linalg.norm(c.astype(np.float64) - expected) / np.linalg.norm(expected)
                print(f"{backend} {kernel or 'default'} {m}x{k}x{n} {np.dtype(dtype).name}: "
                      f"shape {c.shape} dtype {c.dtype} relative error {error:.2e}")
                if c.shape != (m, n) or c.dtype != np.float32 or not error < 1e-5:
                    return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
