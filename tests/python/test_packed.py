"""Block-sparse weights packed once from Python: tileskip.pack, PackedMatrix and matmul on it."""
import os

import numpy as np
import pytest

import tileskip

RNG = np.random.default_rng(20261208)


def block_sparse(rows, cols, block, density, seed):
    """A matrix whose blocks of `block` are kept with probability `density`, half of their values zero."""
    rng = np.random.default_rng(seed)
    grid = (-(-rows // block), -(-cols // block))
    keep = rng.random(grid) < density
    keep.flat[0] = True
    mask = np.kron(keep, np.ones((block, block), dtype=np.float32))[:rows, :cols]
    return (rng.standard_normal((rows, cols)) * (rng.random((rows, cols)) < 0.5)).astype(np.float32) * mask


def test_pack_keeps_the_blocks_holding_a_non_zero_and_round_trips():
    for block in (16, 32, 64, 128):
        w = block_sparse(200, 130, block, 0.4, block)
        p = tileskip.pack(w, block=block)
        assert p.shape == (200, 130) and p.block == block and p.dtype == "fp32"
        assert np.array_equal(p.to_dense(), w)
        grid = np.pad(w, ((0, -200 % block), (0, -130 % block)))
        nonzero = np.abs(grid).reshape(grid.shape[0] // block, block, grid.shape[1] // block, block).sum(axis=(1, 3)) > 0
        assert p.kept_blocks == int(nonzero.sum())
        assert p.density == pytest.approx(nonzero.mean())
        assert p.nbytes == p.kept_blocks * block * block * 4
        assert p.data.shape == (p.kept_blocks, block, block) and p.indptr[-1] == p.kept_blocks


def test_pack_rounds_to_its_dtype_and_takes_torch_scipy_and_packed_inputs():
    w = block_sparse(128, 128, 64, 0.5, 1)
    half = tileskip.pack(w, block=64, dtype="bf16")
    assert half.dtype == "bf16" and half.nbytes == half.kept_blocks * 64 * 64 * 2
    bits = w.view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)  # to nearest even
    assert np.array_equal(half.to_dense(), rounded)  # -0.0 outside the kept blocks compares equal to their 0.0
    again = tileskip.pack(tileskip.pack(w, block=32), block=64)
    assert np.array_equal(again.to_dense(), w)
    scipy = pytest.importorskip("scipy.sparse")
    assert np.array_equal(tileskip.pack(scipy.csr_matrix(w), block=64).to_dense(), w)
    with pytest.raises(ValueError, match="16, 32, 64 or 128"):
        tileskip.pack(w, block=48)


def test_files_and_scipy_bsr_round_trip(tmp_path):
    scipy = pytest.importorskip("scipy.sparse")
    w = block_sparse(192, 256, 64, 0.5, 2)
    p = tileskip.pack(w, block=64)
    path = tmp_path / "w.npz"
    p.save(path)
    back = tileskip.PackedMatrix.load(path)
    assert np.array_equal(back.to_dense(), w) and back.block == 64
    assert np.array_equal(scipy.load_npz(path).toarray(), w)
    theirs = scipy.bsr_matrix(w, blocksize=(64, 64))
    assert np.array_equal(tileskip.PackedMatrix.from_scipy(theirs).to_dense(), w)
    assert np.array_equal(p.to_scipy().toarray(), w)
    with pytest.raises(ValueError, match="square blocks"):
        tileskip.PackedMatrix.from_scipy(scipy.bsr_matrix(w, blocksize=(64, 32)))


def test_parts_are_checked_and_sorted():
    data = np.zeros((2, 16, 16), dtype=np.float32)
    data[0, 0, 0], data[1, 0, 0] = 2.0, 5.0
    p = tileskip.PackedMatrix((32, 48), 16, data, [2, 0], [0, 2, 2])  # row 0's columns out of order
    assert list(p.indices) == [0, 2] and p.to_dense()[0, 0] == 5.0 and p.to_dense()[0, 32] == 2.0
    with pytest.raises(ValueError, match="twice"):
        tileskip.PackedMatrix((32, 48), 16, data, [1, 1], [0, 2, 2])
    with pytest.raises(ValueError, match="outside 0 .. 2"):
        tileskip.PackedMatrix((32, 48), 16, data, [0, 3], [0, 2, 2])
    with pytest.raises(ValueError, match="row pointers"):
        tileskip.PackedMatrix((32, 48), 16, data, [0, 1], [0, 2])
    with pytest.raises(ValueError, match="kept blocks of 16"):
        tileskip.PackedMatrix((32, 48), 16, np.zeros((2, 8, 8)), [0, 1], [0, 2, 2])


def test_matmul_of_a_packed_weight_on_each_bsr_kernel(backend):
    bsr = [k["id"] for k in tileskip.kernels() if k["family"] == "bsr"]
    implemented = next(x for x in tileskip.backends() if x["name"] == backend)["kernels"]
    w = block_sparse(130, 200, 64, 0.4, 3)
    p = tileskip.pack(w, block=64)
    for n in (1, 16, 70):
        x = RNG.standard_normal((200, n)).astype(np.float32)
        expected = w.astype(np.float64) @ x.astype(np.float64)
        for kernel in [k for k in bsr if k in implemented] + ["auto"]:
            c = tileskip.matmul(p, x, kernel=kernel, backend=backend, verify=True)
            assert c.shape == (130, n) and c.dtype == np.float32
            assert np.linalg.norm(c - expected) <= 1e-5 * np.linalg.norm(expected), (kernel, n)


def test_a_packed_file_multiplies_as_the_command_does(cli, tmp_path):
    w = block_sparse(128, 192, 64, 0.5, 4)
    tileskip.pack(w, block=64).save(tmp_path / "w.npz")
    x = RNG.standard_normal((192, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    import subprocess

    run = subprocess.run([cli, "run", "--a", str(tmp_path / "w.npz"), "--b", str(tmp_path / "x.npy"), "--out", str(tmp_path / "c.npy")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    np.testing.assert_allclose(np.load(tmp_path / "c.npy"), tileskip.matmul(tileskip.PackedMatrix.load(tmp_path / "w.npz"), x), rtol=1e-5,
                               atol=1e-5)
