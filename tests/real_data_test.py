#!/usr/bin/env python3
"""scripts/fetch-real-data.sh on small synthetic inputs, with no registry: a tiny .deb built with
dpkg-deb (a Matrix Market file, a gzipped symmetric one, a malformed one) and a tiny wheel (a .mat
written by SciPy, one of them complex) through --offline, the MLP with --small. Checks the
manifest, that `tileskip run --backend cpu` reads every case and gives NumPy's product and
`tileskip bench --suite real` runs them all, that a second run leaves the data set alone, and that an unreachable registry fails with a reason.

Usage: real_data_test.py TILESKIP_BINARY FETCH_SCRIPT          (the CTest test, label `real`)
       real_data_test.py TILESKIP_BINARY --check DATA_FOLDER    (check a fetched data set)
Exits 77 (CTest's skip code) when SciPy, scikit-learn or dpkg-deb is missing.
"""
import gzip
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

SKIP = 77


def load(path):
    if path.endswith(".npy"):
        return np.load(path).astype(np.float32)
    import scipy.io
    m = scipy.io.mmread(path)
    return (m.toarray() if hasattr(m, "toarray") else np.asarray(m)).astype(np.float32)


def check_data_set(binary, folder):
    """Every case of folder/cases.json: files listed, shapes match, tileskip's C equals NumPy's."""
    with open(os.path.join(folder, "cases.json")) as f:
        manifest = json.load(f)
    assert manifest["cases"], "no cases"
    assert manifest["sources"], "no sources"
    for source in manifest["sources"]:
        assert source["package"] and source["version"], source
    for name, entry in manifest["files"].items():
        assert os.path.isfile(os.path.join(folder, name)), name
        assert entry["source"], name
    names = set()
    with tempfile.TemporaryDirectory() as scratch:
        for case in manifest["cases"]:
            for key in ("name", "a", "b", "source", "note"):
                assert case.get(key), f"case {case} lacks {key}"
            assert case["name"] not in names, f"two cases named {case['name']}"
            names.add(case["name"])
            assert case["a"] in manifest["files"] and case["b"] in manifest["files"], case["name"]
            a = load(os.path.join(folder, case["a"]))
            b = load(os.path.join(folder, case["b"]))
            assert a.shape == (case["m"], case["k"]) and b.shape == (case["k"], case["n"]), case["name"]
            assert abs(np.count_nonzero(a) / a.size - case["a_density"]) < 1e-5, case["name"]
            out = os.path.join(scratch, "c.npy")
            result = subprocess.run([binary, "run", "--backend", "cpu", "--a", os.path.join(folder, case["a"]),
                                     "--b", os.path.join(folder, case["b"]), "--out", out],
                                    capture_output=True, text=True)
            assert result.returncode == 0, f"{case['name']}: tileskip run exited {result.returncode}: {result.stderr}"
            c = np.load(out)
            expected = a.astype(np.float64) @ b.astype(np.float64)
            scale = max(np.linalg.norm(expected), 1e-30)
            error = np.linalg.norm(c.astype(np.float64) - expected) / scale
            assert c.shape == expected.shape and error < 1e-5, f"{case['name']}: relative error {error:.2e}"
            print(f"  ok {case['name']}: {a.shape[0]}x{a.shape[1]} · {b.shape[0]}x{b.shape[1]}, error {error:.1e}")
    return manifest


def make_deb(folder):
    root = os.path.join(folder, "deb")
    external = os.path.join(root, "usr/lib/R/site-library/Matrix/external")
    os.makedirs(external)
    os.makedirs(os.path.join(root, "DEBIAN"))
    with open(os.path.join(root, "DEBIAN/control"), "w") as f:
        f.write("Package: r-cran-matrix\nVersion: 0.0-test\nArchitecture: all\n"
                "Maintainer: tileskip tests <tests@invalid>\nDescription: test fixture\n")
    with open(os.path.join(external, "tiny.mtx"), "w") as f:  # pattern general, 5x7, not square
        f.write("%%MatrixMarket matrix coordinate pattern general\n% a comment\n5 7 6\n"
                "1 1\n2 3\n3 7\n5 2\n4 4\n5 7\n")
    symmetric = "%%MatrixMarket matrix coordinate real symmetric\n4 4 5\n1 1 2.5\n2 1 -1\n3 3 4\n4 2 0.5\n4 4 1\n"
    with open(os.path.join(external, "sym.mtx.gz"), "wb") as f:
        f.write(gzip.compress(symmetric.encode()))
    with open(os.path.join(external, "wrong.mtx"), "w") as f:  # as the real package ships one
        f.write("%%MatrixMarket matrix coordinate integer general\n2 3 2\n0 1 1\n1 3 4\n")
    deb = os.path.join(folder, "r-cran-matrix_0.0-test_all.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", root, deb], check=True, capture_output=True)
    shutil.rmtree(root)


def make_wheel(folder):
    import scipy.io
    import scipy.sparse

    rng = np.random.default_rng(5)
    wheel = os.path.join(folder, "pyamg-0.0.test-py3-none-any.whl")
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, matrix in (("grid", scipy.sparse.random(40, 40, density=0.1, random_state=rng, format="csc")
                              + scipy.sparse.eye(40, format="csc")),
                             ("wave", (scipy.sparse.random(20, 20, density=0.2, random_state=rng, format="csc")
                                       * (1 + 2j)))):
            buffer = io.BytesIO()
            scipy.io.savemat(buffer, {"A": matrix, "B": np.ones((matrix.shape[0], 1))})
            archive.writestr(f"pyamg/gallery/example_data/{name}.mat", buffer.getvalue())
        buffer = io.BytesIO()
        scipy.io.savemat(buffer, {"vertices": np.zeros((3, 2))})
        archive.writestr("pyamg/gallery/example_data/no_matrix.mat", buffer.getvalue())
        archive.writestr("pyamg/__init__.py", "")


def run_fetch(script, *args, env=None):
    result = subprocess.run([script, *args], capture_output=True, text=True, env=env)
    print(f"$ fetch-real-data.sh {' '.join(args)} -> {result.returncode}")
    return result


def main():
    binary = sys.argv[1]
    if len(sys.argv) == 4 and sys.argv[2] == "--check":
        manifest = check_data_set(binary, sys.argv[3])
        print(f"{len(manifest['cases'])} cases check out")
        return 0
    script = sys.argv[2]
    try:
        import scipy.io  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError as error:
        print(f"skipped: {error} (scripts/install-deps.sh installs python3-scipy and python3-sklearn)")
        return SKIP
    if shutil.which("dpkg-deb") is None:
        print("skipped: no dpkg-deb")
        return SKIP
    with tempfile.TemporaryDirectory() as folder:
        fixtures = os.path.join(folder, "fixtures")
        os.makedirs(fixtures)
        make_deb(fixtures)
        make_wheel(fixtures)
        out = os.path.join(folder, "real")
        first = run_fetch(script, "--offline", fixtures, "--small", "--out", out)
        assert first.returncode == 0, first.stdout + first.stderr
        print(first.stdout)
        manifest = check_data_set(binary, out)
        names = {case["name"] for case in manifest["cases"]}
        expected = {"matrix-tiny-times-dense", "matrix-tiny-gram", "matrix-sym-times-dense", "matrix-sym-squared",
                    "pyamg-grid-times-dense", "pyamg-grid-squared", "pyamg-grid-gram", "pyamg-wave-times-dense",
                    "mlp-input-x-w1", "mlp-h1-x-w2", "mlp-dz2-x-w2t", "mlp-h1t-x-dz2", "mlp-h2-x-w3"}
        assert expected <= names, f"missing cases: {sorted(expected - names)}"
        assert "matrix-sym-gram" not in names, "Sᵀ·S of a symmetric structure is S·S again"
        assert "matrix-tiny-squared" not in names, "a 5x7 matrix cannot be squared"
        skipped = {os.path.basename(entry["file"]) for entry in manifest["skipped"]}
        assert {"wrong.mtx", "no_matrix.mat"} <= skipped, skipped
        packages = {(s["package"], s["version"]) for s in manifest["sources"]}
        assert ("r-cran-matrix", "0.0-test") in packages and ("pyamg", "0.0.test") in packages, packages
        # The .mtx the package ships is copied as it is.
        with open(os.path.join(out, "matrix-tiny.mtx")) as f:
            assert "pattern general" in f.readline()
        mlp = next(c for c in manifest["cases"] if c["name"] == "mlp-h1-x-w2")
        assert abs(mlp["b_density"] - 0.3) < 0.01 and (mlp["m"], mlp["k"], mlp["n"]) == (256, 512, 512), mlp

        # The manifest is what `bench --suite real` reads.
        bench = subprocess.run([binary, "bench", "--suite", "real", "--data", out, "--backend", "cpu",
                                "--warmup", "0", "--repeat", "1"], capture_output=True, text=True)
        assert bench.returncode == 0, f"bench --suite real exited {bench.returncode}: {bench.stdout}{bench.stderr}"
        missing = [name for name in names if name not in bench.stdout]
        assert not missing, f"bench --suite real left out {missing}"

        # Idempotent: a second run finds the complete set and leaves it as it is.
        before = os.stat(os.path.join(out, "cases.json")).st_mtime_ns
        second = run_fetch(script, "--offline", fixtures, "--small", "--out", out)
        assert second.returncode == 0 and "already holds" in second.stdout, second.stdout + second.stderr
        assert os.stat(os.path.join(out, "cases.json")).st_mtime_ns == before

        # A registry that cannot be reached: a clear reason and a non-zero exit, nothing written.
        bin_dir = os.path.join(folder, "bin")
        os.makedirs(bin_dir)
        fake = os.path.join(bin_dir, "apt-get")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'E: Failed to fetch http://deb.debian.org/ Temporary failure resolving' >&2\n"
                    "exit 100\n")
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
        unreachable = run_fetch(script, "--out", os.path.join(folder, "unreachable"), env=env)
        assert unreachable.returncode == 1 and "could not download r-cran-matrix" in unreachable.stderr, \
            unreachable.stdout + unreachable.stderr
        assert not os.path.exists(os.path.join(folder, "unreachable"))
        empty = os.path.join(folder, "empty")
        os.makedirs(empty)
        nothing = run_fetch(script, "--offline", empty, "--out", os.path.join(folder, "nothing"))
        assert nothing.returncode == 1 and "no .deb" in nothing.stderr, nothing.stderr
        bad = run_fetch(script, "--frobnicate")
        assert bad.returncode == 2, bad.stderr
    print("fetch-real-data.sh: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
