#!/usr/bin/env python3
"""A packed block-sparse matrix crosses between tileskip and SciPy both ways: `tileskip pack` writes
an .npz that scipy.sparse.load_npz reads as the same BSR matrix, and an .npz SciPy saves (deflated,
its column indices out of order within rows) is what `tileskip run --a W.npz` multiplies, on the
bsr kernels of its block, to NumPy's C.

Usage: scipy_bsr_test.py TILESKIP_BINARY BACKEND
Exits 77 (CTest's skip code) when the backend is unavailable here (exit code 3).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.sparse as sp

SKIP = 77


def tileskip(binary, *arguments):
    return subprocess.run([binary, *arguments], capture_output=True, text=True)


def block_sparse(rng, rows, cols, block, density):
    """A matrix whose blocks of `block` are kept with probability `density`, half of their values zero."""
    keep = rng.random((rows // block, cols // block)) < density
    keep[0, 0] = True
    values = rng.standard_normal((rows, cols)).astype(np.float32) * (rng.random((rows, cols)) < 0.5)
    return values * np.kron(keep, np.ones((block, block), dtype=np.float32))


def main():
    binary, backend = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(20261208)
    with tempfile.TemporaryDirectory() as folder:
        path = lambda name: os.path.join(folder, name)
        w = block_sparse(rng, 192, 320, 64, 0.4)
        np.save(path("w.npy"), w)

        # tileskip -> SciPy
        packed = tileskip(binary, "pack", path("w.npy"), path("ours.npz"), "--block", "64")
        if packed.returncode != 0:
            print(f"tileskip pack failed ({packed.returncode}): {packed.stdout}{packed.stderr}")
            return 1
        print(packed.stdout.strip())
        ours = sp.load_npz(path("ours.npz"))
        if ours.format != "bsr" or ours.blocksize != (64, 64) or not np.array_equal(ours.toarray(), w):
            print(f"SciPy reads {ours.format} {ours.blocksize}, not tileskip's matrix")
            return 1
        kept = int((np.abs(w).reshape(3, 64, 5, 64).sum(axis=(1, 3)) > 0).sum())
        if ours.data.shape[0] != kept:
            print(f"tileskip kept {ours.data.shape[0]} blocks where {kept} hold a non-zero")
            return 1

        # SciPy -> tileskip: deflated members, each row's blocks in reverse order.
        theirs = sp.bsr_matrix(w, blocksize=(64, 64))
        data, indices = theirs.data.copy(), theirs.indices.copy()
        for i in range(len(theirs.indptr) - 1):
            s, e = theirs.indptr[i], theirs.indptr[i + 1]
            data[s:e], indices[s:e] = data[s:e][::-1].copy(), indices[s:e][::-1].copy()
        shuffled = sp.bsr_matrix((data, indices, theirs.indptr), shape=w.shape)
        sp.save_npz(path("theirs.npz"), shuffled, compressed=True)
        described = tileskip(binary, "pack", path("theirs.npz"))
        if described.returncode != 0 or f"{kept} of 15 blocks kept" not in described.stdout:
            print(f"tileskip pack describing SciPy's file ({described.returncode}): {described.stdout}{described.stderr}")
            return 1
        x = rng.standard_normal((320, 24)).astype(np.float32)
        np.save(path("x.npy"), x)
        expected = w.astype(np.float64) @ x.astype(np.float64)
        for kernel in ("bsr-64", "bsr-stream-64", None):
            command = ["run", "--backend", backend, "--a", path("theirs.npz"), "--b", path("x.npy"), "--out", path("c.npy")]
            if kernel:
                command += ["--kernel", kernel]
            result = tileskip(binary, *command)
            if result.returncode == 3:
                print(f"{backend} unavailable: {result.stderr.strip()}")
                return SKIP
            if result.returncode != 0:
                print(f"tileskip run {kernel or 'auto'} failed ({result.returncode}): {result.stdout}{result.stderr}")
                return 1
            c = np.load(path("c.npy"))
            error = np.linalg.norm(c.astype(np.float64) - expected) / np.linalg.norm(expected)
            print(f"{backend} {kernel or 'auto'}: relative error {error:.2e}")
            if c.shape != expected.shape or not error < 1e-5:
                return 1

        # A malformed file is refused with the documented exit code and writes nothing.
        np.savez(path("bad.npz"), format=np.array(b"bsr"), shape=np.array([192, 320]), data=theirs.data,
                 indices=theirs.indices[:-1], indptr=theirs.indptr)
        refused = tileskip(binary, "run", "--backend", backend, "--a", path("bad.npz"), "--b", path("x.npy"), "--out", path("bad.npy"))
        if refused.returncode != 2 or "'indices' holds" not in refused.stderr or os.path.exists(path("bad.npy")):
            print(f"a malformed .npz: exit {refused.returncode}: {refused.stderr.strip()}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
