"""tileskip from Python: NumPy in, the same kernels, verification and statistics out."""
import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import tileskip

RNG = np.random.default_rng(7)


def reference(a, b):
    return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)


def assert_product(c, a, b):
    """C matches the float64 product within fp32 accumulation error (the command's bound is
    per element; this is the same order: K·u·(|A|·|B|))."""
    a64, b64 = np.asarray(a, dtype=np.float32).astype(np.float64), np.asarray(b, dtype=np.float32).astype(np.float64)
    bound = (2 + 1.25 * np.sqrt(a64.shape[1])) * np.finfo(np.float32).eps * (np.abs(a64) @ np.abs(b64)) + 1e-30
    assert c.dtype == np.float32 and c.shape == (a64.shape[0], b64.shape[1])
    assert np.all(np.abs(c - a64 @ b64) <= bound)


def test_required_backends_are_available():
    required = [n for n in os.environ.get("TILESKIP_REQUIRE_BACKENDS", "").split(",") if n]
    found = {b["name"]: b for b in tileskip.backends()}
    for name in required:
        assert found[name]["available"], found[name]["reason"]


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 13, 5), (65, 9, 130), (129, 100, 31)])
def test_odd_shapes_equal_numpy(backend, m, k, n):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    assert_product(tileskip.matmul(a, b, backend=backend, verify=True), a, b)


@pytest.mark.parametrize("generator", [g["name"] for g in tileskip.generators()])
def test_each_generator_equals_numpy(backend, generator):
    a = tileskip.generate(generator, 96, 80, density=0.4, seed=3, operand="A", block=8)
    b = tileskip.generate(generator, 80, 72, density=0.4, seed=4, operand="B", block=8)
    assert a.dtype == np.float32 and a.shape == (96, 80)
    assert 0 < np.count_nonzero(a) < a.size
    # auto, and each skipping kernel of the backend, on zeros a kernel may skip
    assert_product(tileskip.matmul(a, b, backend=backend, verify=True), a, b)


def test_each_kernel_of_each_backend(backend):
    a = tileskip.generate("segments", 70, 48, density=0.5, operand="A", block=8)
    b = tileskip.generate("segments", 48, 66, density=0.5, operand="B", block=8)
    implemented = next(x for x in tileskip.backends() if x["name"] == backend)["kernels"]
    assert implemented
    takes = {k["id"]: k["dtypes"] for k in tileskip.kernels()}
    for kernel in implemented:
        # Each kernel in a precision it takes: the tensor-core kernels take no fp32, and fp16 on every
        # backend (Vulkan's twins no tf32 or bf16).
        dtype = "fp32" if "fp32" in takes[kernel] else "fp16"
        c = tileskip.matmul(a, b, kernel=kernel, backend=backend, dtype=dtype, verify=True)
        if dtype == "fp32":
            assert_product(c, a, b)


def test_generate_is_reproducible():
    one = tileskip.generate("relu", 40, 30, density=0.3, seed=9)
    assert np.array_equal(one, tileskip.generate("relu", 40, 30, density=0.3, seed=9))
    assert not np.array_equal(one, tileskip.generate("relu", 40, 30, density=0.3, seed=10))


def test_fortran_order_and_non_contiguous_views():
    base = RNG.standard_normal((60, 90)).astype(np.float32)
    a = np.asfortranarray(base[:, :45])          # Fortran order
    other = RNG.standard_normal((100, 90)).astype(np.float32)
    b = other[::2, 1::2][:45, :]                 # strided in both dimensions
    b_t = other[:45, :33].T.T                    # a view of a view
    neg = other[::-1, ::-1][:45, :20]            # negative strides
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    for rhs in (b, b_t, neg):
        assert_product(tileskip.matmul(a, rhs, backend="cpu", verify=True), a, rhs)
    w = RNG.standard_normal((33, 45)).astype(np.float32)
    assert_product(tileskip.matmul(a, w.T, backend="cpu"), a, w.T)  # the W.T the issue tried


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32, np.uint8, np.int64])
def test_other_dtypes_are_converted(dtype):
    a = (RNG.standard_normal((20, 30)) * 10).astype(dtype)
    b = (RNG.standard_normal((30, 10)) * 10).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tileskip.ConversionWarning)  # nothing lost: no warning
        c = tileskip.matmul(a, b, backend="cpu", verify=True)
    assert_product(c, a.astype(np.float32), b.astype(np.float32))


def test_lists_are_arrays():
    c = tileskip.matmul([[1, 2], [3, 4]], [[5.0], [6.0]], backend="cpu")
    assert c.tolist() == [[17.0], [39.0]]


@pytest.mark.parametrize("layout", ["csr", "csc", "coo", "bsr", "dia", "lil"])
def test_scipy_sparse_operands_are_made_dense_once_and_say_what_it_cost(layout):
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(5)
    a = sparse.random(48, 40, density=0.1, format=layout, random_state=6, dtype=np.float32)
    b = rng.standard_normal((40, 24)).astype(np.float32)
    with pytest.warns(tileskip.DensifiedWarning) as caught:
        c = tileskip.matmul(a, b, backend="cpu", verify=True)
    text = str(caught[0].message)
    assert text.startswith("A: a scipy.sparse ") and f"({layout}, {a.nnz} stored values)" in text, text
    assert "48x40" in text and "MiB" in text and " ms" in text, text
    assert_product(c, a.toarray(), b)
    with pytest.warns(tileskip.DensifiedWarning):
        report = tileskip.inspect(b.T.copy(), sparse.csr_matrix(a.toarray().T), backend="cpu")
    assert report["b"]["source"].startswith("scipy.sparse csr_")
    assert report["b"]["density"] == pytest.approx(np.count_nonzero(a.toarray()) / a.toarray().size)


def test_lossy_conversion_warns_with_the_readers_note():
    a = np.full((4, 4), 1e300)
    a[0, 0] = 1e-300
    with pytest.warns(tileskip.ConversionWarning) as caught:
        c = tileskip.matmul(a, np.eye(4), backend="cpu")
    text = str(caught[0].message)
    assert "float64 converted to float32" in text and "became Inf" in text and "became zero" in text
    assert not np.isfinite(c[1, 1])  # Inf (or Inf·0 = NaN) where the overflow went


def test_nan_and_inf_are_computed_with(backend):
    a = np.ones((8, 8), dtype=np.float32)
    a[2, 3] = np.nan
    a[5, 1] = np.inf
    b = np.ones((8, 8), dtype=np.float32)
    c = tileskip.matmul(a, b, backend=backend, verify=True)
    expected = reference(a, b)
    assert np.array_equal(np.isnan(c), np.isnan(expected)) and np.array_equal(np.isinf(c), np.isinf(expected))


def relu_layer(x, w1, w2):
    h = np.maximum(np.asarray(x, np.float64) @ np.asarray(w1, np.float64), 0.0)
    return h, h @ np.asarray(w2, np.float64)


def test_mlp_equals_numpy(backend):
    # A constant input column and a negative row of W1 for it: a bias that silences most neurons,
    # as a trained ReLU layer's does; whole numbers, so Y is exact in any summation order.
    x = np.rint(RNG.standard_normal((67, 31)) * 3).astype(np.float32)
    x[:, -1] = 1
    w1 = np.rint(RNG.standard_normal((31, 140)) * 2).astype(np.float32)
    w1[-1] = -12
    w2 = np.rint(RNG.standard_normal((140, 23)) * 3).astype(np.float32)
    h, expected = relu_layer(x, w1, w2)
    y, report = tileskip.mlp(x, w1, w2, backend=backend, verify=True, reorder=True, details=True)
    assert y.dtype == np.float32 and y.shape == (67, 23)
    assert np.array_equal(y, expected)
    assert report["hidden_density"] == pytest.approx(np.count_nonzero(h) / h.size)
    assert 0 < report["hidden_density"] < 0.5
    layer = report["layer"]
    assert layer["first"]["verification"] and layer["second"]["verification"]
    assert layer["layer_ms"] == pytest.approx(
        layer["first"]["kernel_ms"] + layer["second"]["prepare_ms"] + layer["second"]["kernel_ms"])
    assert report["compared"] is None
    linear = tileskip.mlp(x, w1, w2, activation="none", backend=backend)
    assert np.array_equal(linear, (x.astype(np.float64) @ w1) @ w2)


def test_mlp_compares_and_refuses_what_does_not_chain():
    x, w1, w2 = np.ones((4, 3), np.float32), np.ones((3, 5), np.float32), np.ones((5, 2), np.float32)
    y, report = tileskip.mlp(x, w1, w2, backend="cpu", compare="cpu", details=True)
    assert np.array_equal(y, np.full((4, 2), 15.0, np.float32))
    assert report["compared"]["first"]["kernel"] == "cpu" and report["compared"]["layer_ms"] > 0
    with pytest.raises(ValueError, match="W2 is 3x5 but W1 has 5 columns"):
        tileskip.mlp(x, w1, w1, backend="cpu")
    with pytest.raises(ValueError, match="unknown activation 'tanh'"):
        tileskip.mlp(x, w1, w2, activation="tanh", backend="cpu")


def test_inspect_equals_the_cli_json(tmp_path, cli):
    a = tileskip.generate("blocks", 128, 64, density=0.25, operand="A", block=32)
    b = tileskip.generate("blocks", 64, 96, density=0.25, operand="B", block=32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    for backend in ("cpu", "vulkan"):
        if backend not in [x["name"] for x in tileskip.backends() if x["available"]]:
            continue
        ours = tileskip.inspect(a, b, backend=backend)
        run = subprocess.run(
            [cli, "inspect", "--backend", backend, "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"),
             "--format", "json"],
            capture_output=True, text=True, check=True,
        )
        theirs = json.loads(run.stdout)
        # Operands are named by where they came from: a file for the command, an array here.
        assert ours["a"]["source"] == "numpy array float32" and theirs["a"]["source"].endswith("a.npy")
        for report in (ours, theirs):
            for operand in ("a", "b"):
                del report[operand]["source"]
        assert ours == theirs


def test_bench_rows_fit_a_dataframe():
    rows = tileskip.bench(size=48, backend="cpu", kernel="all", warmup=0, repeat=2)
    assert rows and all(isinstance(r, dict) for r in rows)
    columns = set(rows[0])
    assert all(set(r) == columns for r in rows)  # one set of columns, flat scalars
    for row in rows:
        assert all(v is None or isinstance(v, (bool, int, float, str)) for v in row.values())
        assert row["verified"] and row["kernel_ms_median"] > 0 and (row["m"], row["n"], row["k"]) == (48, 48, 48)
    for name in ("backend", "kernel", "device", "kernel_ms_median", "effective_gflops", "joint_density",
                 "error_relative_frobenius", "seed", "generator", "source_a", "driver", "tune_overrides",
                 "error_tolerance", "block_a", "block_b", "tool_version", "tool_commit"):
        assert name in columns
    assert rows[0]["dtype"] == "fp32" and (rows[0]["warmup"], rows[0]["repeat"]) == (0, 2)
    assert rows[0]["block_a"] == 32 and rows[0]["error_tolerance"] > 0
    try:
        import pandas
    except ImportError:
        return
    frame = pandas.DataFrame(rows)
    assert list(frame.columns) == list(rows[0]) and len(frame) == len(rows)


@pytest.mark.parametrize("sizes", [{"size": 0}, {"size": -4}, {"m": 0}, {"k": 2.5}, {"n": True}])
def test_bench_refuses_a_size_that_is_not_a_positive_integer(sizes):
    # 0 would otherwise mean "the device's default" and time a 512^3 problem nobody asked for.
    with pytest.raises(ValueError, match="must be a positive integer"):
        tileskip.bench(backend="cpu", warmup=0, repeat=1, **sizes)


def test_bench_on_arrays_and_auto(backend):
    a = tileskip.generate("blocks", 64, 64, density=0.25, operand="A", block=32)
    b = tileskip.generate("blocks", 64, 64, density=0.25, operand="B", block=32)
    rows = tileskip.bench(a, b, kernel="auto", backend=backend, warmup=0, repeat=1, baseline=False)
    assert any(r["auto"] for r in rows)
    assert "pipelined" in [r["kernel"] for r in rows] or backend == "cpu"
    assert all(r["verified"] for r in rows)
    assert rows[0]["source_a"] == "numpy array float32" and rows[0]["generator"] is None


def test_catalogue_and_backends():
    ids = [k["id"] for k in tileskip.kernels()]
    assert "pipelined" in ids and "joint-8x32" in ids and len(ids) == len(set(ids))
    joint = next(k for k in tileskip.kernels() if k["id"] == "joint-8x32")
    assert (joint["a_granularity"], joint["b_granularity"], joint["skips"]) == (8, 32, True)
    found = {b["name"]: b for b in tileskip.backends()}
    assert found["cpu"]["available"] and found["cpu"]["kernels"] == ["cpu"]
    for b in found.values():
        assert b["available"] or b["reason"]


def test_the_cuda_module_is_looked_for_beside_the_extension():
    folder = tileskip._tileskip.module_folder
    assert os.path.samefile(folder, os.path.dirname(tileskip._tileskip.__file__))
    cuda = next((b for b in tileskip.backends() if b["name"] == "cuda"), None)
    if cuda is not None and not cuda["available"]:
        # Loaded from beside the extension, then refused for want of a driver (not "cannot load
        # .../libtileskip_cuda.so": the module was found).
        assert "libtileskip_cuda.so:" not in cuda["reason"] or folder in cuda["reason"]


def test_import_without_torch():
    run = subprocess.run(
        [os.sys.executable, "-c", "import sys, tileskip; assert 'torch' not in sys.modules"],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(
    "a_shape,b_shape,message",
    [
        ((3, 4), (5, 2), "columns"),
        ((0, 4), (4, 2), "shape 0x4 is invalid"),
        ((3, 0), (0, 2), "is invalid"),
    ],
)
def test_bad_shapes_raise_value_error(a_shape, b_shape, message):
    with pytest.raises(ValueError, match=message):
        tileskip.matmul(np.ones(a_shape, np.float32), np.ones(b_shape, np.float32), backend="cpu")


def test_three_dimensional_arrays_are_refused():
    with pytest.raises(ValueError, match="expected a 2-D array, got 3 dimensions"):
        tileskip.matmul(np.ones((2, 3, 4)), np.ones((4, 2)), backend="cpu")
    with pytest.raises(ValueError, match="expected a 2-D array, got 1 dimensions"):
        tileskip.matmul(np.ones(4), np.ones((4, 2)), backend="cpu")


def test_unknown_names_raise_value_error_with_the_cli_messages():
    a = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="unknown kernel 'nope'") as kernel_error:
        tileskip.matmul(a, a, kernel="nope")
    assert "pipelined" in str(kernel_error.value)  # names the known ids
    with pytest.raises(ValueError, match="nope"):
        tileskip.matmul(a, a, backend="nope")
    with pytest.raises(ValueError, match="one kernel"):
        tileskip.matmul(a, a, kernel="pipelined,naive")
    with pytest.raises(ValueError, match="does not implement kernel 'pipelined'"):
        tileskip.matmul(a, a, kernel="pipelined", backend="cpu")
    with pytest.raises(ValueError, match="unknown generator|generator"):
        tileskip.generate("nope", 4, 4)
    with pytest.raises(ValueError, match="density"):
        tileskip.generate("uniform", 4, 4, density=2.0)


def test_unsupported_dtypes_raise_value_error():
    a = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="'fp8' is not supported: choose one of fp32, tf32, fp16, bf16"):
        tileskip.matmul(a, a, dtype="fp8")
    with pytest.raises(ValueError, match="backend cpu has no kernel that takes fp16 inputs"):
        tileskip.matmul(a, a, dtype="fp16", backend="cpu")
    with pytest.raises(ValueError, match="kernel 'cpu' takes fp32 inputs, not bf16"):
        tileskip.matmul(a, a, kernel="cpu", dtype="bf16", backend="cpu")
    assert tileskip.matmul(a, a, dtype="fp32", backend="cpu").shape == (4, 4)
    with pytest.raises(ValueError, match="dtype <c8 is not a real number type"):
        tileskip.matmul(a.astype(np.complex64), a, backend="cpu")
    with pytest.raises(ValueError, match="not a real number type"):
        tileskip.matmul(a.astype(bool), a, backend="cpu")


def test_an_unavailable_backend_raises_unavailable_error():
    missing = [b for b in tileskip.backends() if not b["available"]]
    if not missing:
        pytest.skip("every compiled backend is available here")
    a = np.ones((4, 4), np.float32)
    with pytest.raises(tileskip.UnavailableError) as error:
        tileskip.matmul(a, a, backend=missing[0]["name"])
    assert str(error.value) == missing[0]["reason"]


def test_torch_cpu_tensors_go_through_numpy():
    torch = pytest.importorskip("torch")
    a = torch.randn(9, 7)
    b = torch.randn(7, 5, dtype=torch.float64)
    c = tileskip.matmul(a, b, backend="cpu")
    assert isinstance(c, torch.Tensor) and c.dtype == torch.float32
    assert torch.allclose(c.double(), a.double() @ b, atol=1e-4)


def test_threads_take_turns_on_one_backend(backend):
    # The GIL is released while a product runs: threads sharing a backend (one Vulkan command
    # buffer) must take turns, and each gets its own product.
    import concurrent.futures

    rng = np.random.default_rng(7)
    problems = [(rng.standard_normal((40 + i, 24)).astype(np.float32), rng.standard_normal((24, 16 + i)).astype(np.float32))
                for i in range(8)]

    def product(i):
        a, b = problems[i]
        return tileskip.matmul(a, b, backend=backend, kernel="pipelined" if backend != "cpu" else "cpu", verify=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(product, [i % len(problems) for i in range(24)]))
    for i, c in enumerate(results):
        a, b = problems[i % len(problems)]
        np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def _forked_product(args):
    a, b, backend = args
    return tileskip.matmul(a, b, backend=backend, kernel="pipelined" if backend != "cpu" else "cpu", verify=True)


def test_a_forked_child_opens_its_own_backend(backend):
    # multiprocessing's fork start: the child inherits the parent's open backend, whose driver
    # threads stayed in the parent. The child must open its own instead of hanging on it.
    import multiprocessing

    rng = np.random.default_rng(11)
    a = rng.standard_normal((33, 20)).astype(np.float32)
    b = rng.standard_normal((20, 17)).astype(np.float32)
    tileskip.matmul(a, b, backend=backend, kernel="pipelined" if backend != "cpu" else "cpu")  # the parent's, open
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pending = pool.map_async(_forked_product, [(a, b, backend)] * 4)
        results = pending.get(timeout=60)  # a hang fails here instead of stalling the suite
    for c in results:
        np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_inspect_predicts_for_a_named_gpu_that_is_not_here():
    w = tileskip.generate("blocks", 512, 512, density=0.25, block=64, seed=3)
    report = tileskip.inspect(w, w.T.copy(), model="h100")
    assert report["backend"] == "cuda" and "H100" in report["device"]
    assert report["model"].startswith("H100 CUDA")
    assert "model: H100 CUDA" in report["recommendation"]["reason"]
    with pytest.raises(ValueError, match="no calibration of that GPU"):
        tileskip.inspect(w, w, model="a100")


def test_the_first_product_on_a_cpu_vulkan_device_says_it_compiles_the_shaders_once():
    vulkan = next((b for b in tileskip.backends() if b["name"] == "vulkan" and b["available"]), None)
    if vulkan is None or vulkan["is_gpu"]:
        pytest.skip("needs Vulkan on lavapipe (a CPU device): a GPU's driver compiles and caches on its own")
    # A process of its own: this one's backend may have compiled already.
    script = (
        "import warnings, numpy as np, tileskip\n"
        "a = np.ones((8, 8), np.float32)\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    tileskip.matmul(a, a, backend='vulkan', kernel='naive')\n"
        "    tileskip.matmul(a, a, backend='vulkan', kernel='naive')\n"
        "said = [str(w.message) for w in caught if issubclass(w.category, tileskip.FirstBuildWarning)]\n"
        "print(len(said)); print(said[0] if said else '')\n"
    )
    run = subprocess.run([os.sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    count, message = run.stdout.splitlines()[:2]
    assert count == "1", run.stdout
    assert message.startswith("vulkan: compiling the kernels' shaders for " + vulkan["device"]), message
