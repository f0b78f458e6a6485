"""tileskip from Python: sparse GEMM with warp-uniform zero-block skipping.

The same kernels, verification and statistics as the ``tileskip`` command, on NumPy arrays and
PyTorch tensors::

    import numpy as np, tileskip
    a = tileskip.generate("blocks", 512, 256, density=0.25, operand="A")
    b = np.random.default_rng(0).standard_normal((256, 128))
    c = tileskip.matmul(a, b, verify=True)          # the kernel `tileskip inspect` recommends
    print(tileskip.inspect(a, b)["recommendation"])

Operands are converted to float32 row-major as the command's .npy reader converts a file
(float16/64 and integers; any order, any strides); a conversion that loses values warns with a
:class:`ConversionWarning`. Bad input raises :class:`ValueError`, a missing backend or device
:class:`UnavailableError`, a wrong C under ``verify=True`` :class:`VerificationError` — each
with the command's message. PyTorch is optional: CUDA tensors on the ``cuda`` backend are
multiplied in place through DLPack, nothing copied to the host; CPU tensors go through NumPy.
"""

from __future__ import annotations

import atexit
import json
import time
import warnings
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ._errors import (
    ConversionWarning,
    DensifiedWarning,
    DiagnosticWarning,
    FirstBuildWarning,
    UnavailableError,
    VerificationError,
)
from . import _tileskip
from .packed import PackedMatrix, pack

__version__: str = _tileskip.version

__all__ = [
    "ConversionWarning",
    "DensifiedWarning",
    "DiagnosticWarning",
    "FirstBuildWarning",
    "PackedMatrix",
    "UnavailableError",
    "VerificationError",
    "backends",
    "bench",
    "generate",
    "generators",
    "inspect",
    "kernels",
    "matmul",
    "mlp",
    "pack",
    "sparsify_",
]

# Backends stay open between calls; release them (Vulkan devices, CUDA streams) before the
# interpreter tears down the modules they use.
atexit.register(_tileskip.close)

SUPPORTED_DTYPES: Sequence[str] = ("fp32", "tf32", "fp16", "bf16")


def _check_dtype(dtype: Optional[str]) -> str:
    if dtype is None:
        return "fp32"
    if dtype in SUPPORTED_DTYPES:
        return dtype
    raise ValueError(f"dtype {dtype!r} is not supported: choose one of {', '.join(SUPPORTED_DTYPES)} (None means fp32)")


def _device_index(device: Optional[int]) -> int:
    if device is None:
        return -1
    if not isinstance(device, int) or device < 0:
        raise ValueError(f"device {device!r} is invalid; device indices start at 0")
    return device


def _is_torch(x: Any) -> bool:
    # Without importing torch: a package that never uses it must not pay for it (or need it).
    return type(x).__module__.split(".")[0] == "torch" and hasattr(x, "is_cuda")


def _is_scipy_sparse(x: Any) -> bool:
    # Without importing scipy: its sparse matrices and arrays all live in scipy.sparse.
    return type(x).__module__.startswith("scipy.sparse") and hasattr(x, "toarray") and hasattr(x, "nnz")


def _is_torch_sparse(x: Any) -> bool:
    return _is_torch(x) and str(getattr(x, "layout", "torch.strided")) != "torch.strided"


def _densified(x: Any, name: str) -> Any:
    """A sparse operand made dense once, with a warning that says what it cost; others as given.

    The kernels read dense row-major memory and find the zeros themselves, so a sparse operand
    (scipy.sparse CSR/CSC/COO/BSR/..., a torch sparse layout) is densified first. Nothing else
    a sparse format can hold is refused: its values are what ``toarray()`` gives."""
    scipy_sparse, torch_sparse = _is_scipy_sparse(x), _is_torch_sparse(x)
    if not (scipy_sparse or torch_sparse):
        return x
    start = time.perf_counter()
    if scipy_sparse:
        what = f"a scipy.sparse {type(x).__name__} ({getattr(x, 'format', '?')}, {x.nnz} stored values)"
        dense = x.toarray()
    else:
        what = f"a torch {str(x.layout).replace('torch.', '')} tensor ({x._nnz()} stored values)"
        dense = x.to_dense()
    seconds = time.perf_counter() - start
    rows, cols = dense.shape[0], dense.shape[1] if len(dense.shape) > 1 else 1
    warnings.warn(
        f"{name}: {what} made dense for the kernels: {rows}x{cols}, {rows * cols * 4 / 2**20:.1f} MiB as float32, "
        f"{seconds * 1e3:.1f} ms; pass a dense array to skip this",
        DensifiedWarning,
        stacklevel=4,
    )
    return dense


def _as_array(x: Any) -> np.ndarray:
    """A NumPy view of an operand; the extension converts its dtype and order."""
    if _is_torch(x):
        return x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return x
    return np.asarray(x)


def _source(x: Any) -> str:
    """What reports call an operand, as the command calls a file by its name."""
    if _is_scipy_sparse(x):
        return f"scipy.sparse {type(x).__name__} {x.dtype}"
    if _is_torch(x):
        return f"torch tensor {str(x.dtype).replace('torch.', '')} on {x.device}"
    array = x if isinstance(x, np.ndarray) else np.asarray(x)
    return f"numpy array {array.dtype}"


def _warn(result: Dict[str, Any]) -> None:
    for note in result.get("notes", []):
        warnings.warn(note, ConversionWarning, stacklevel=3)
    for note in result.get("first_build", []):
        warnings.warn(note, FirstBuildWarning, stacklevel=3)
    for message in result.get("diagnostics", []):
        warnings.warn(message, DiagnosticWarning, stacklevel=3)


def _to_dlpack(tensor: Any) -> Any:
    import torch.utils.dlpack  # only reached with torch tensors

    return torch.utils.dlpack.to_dlpack(tensor)


_KERNEL_DTYPES: Dict[str, List[str]] = {}


def _takes(kernel: str, dtype: str) -> bool:
    if not _KERNEL_DTYPES:
        _KERNEL_DTYPES.update({k["id"]: k["dtypes"] for k in _tileskip.kernels()})
    return dtype in _KERNEL_DTYPES.get(kernel, [dtype])  # an unknown id: the extension says so


def _matmul_cuda_tensors(a: Any, b: Any, kernel: str, device: int, verify: bool) -> Any:
    """CUDA tensors in and out, in place: A and B are read where they are and C is a tensor
    torch allocates on their device; the kernel runs on the caller's current stream's order.
    float16 and bfloat16 operands (both of one type) stay so for auto and the kernels that take
    that type (the tensor-core kernels, cuBLAS); for the others they are widened to fp32 here."""
    import torch

    if a.device != b.device:
        raise ValueError(f"A is on {a.device} and B on {b.device}; put both on one CUDA device")
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"expected 2-D tensors, got {a.dim()} and {b.dim()} dimensions")
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"A is {a.shape[0]}x{a.shape[1]} and B {b.shape[0]}x{b.shape[1]}: A's columns must equal B's rows"
        )
    # auto, as for host arrays, reads the patterns on the host and, where its model is blind,
    # times candidate kernels on copies of A and B: the only copies this path makes, for the
    # choice only; give a kernel id to avoid them.
    host = (a.detach().float().cpu().numpy(), b.detach().float().cpu().numpy()) if kernel == "auto" else (None, None)
    sixteen = {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(a.dtype)
    keep = sixteen is not None and a.dtype == b.dtype and (kernel == "auto" or _takes(kernel, sixteen))
    # Row-major and contiguous, as the kernels take them, in fp32 unless kept: a no-op for such
    # tensors, else one conversion on the device.
    a_in = (a.detach() if keep else a.detach().to(torch.float32)).contiguous()
    b_in = (b.detach() if keep else b.detach().to(torch.float32)).contiguous()
    c = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float32, device=a.device)
    stream = torch.cuda.current_stream(a.device).cuda_stream
    # Untimed: queued on the stream, as torch's own operators are; the caller synchronises.
    result = _tileskip.matmul_device(
        _to_dlpack(a_in), _to_dlpack(b_in), _to_dlpack(c), kernel, stream, device, *host, timed=False
    )
    _warn(result)
    if verify:
        _tileskip.verify(a_in.float().cpu().numpy(), b_in.float().cpu().numpy(), c.cpu().numpy(), result["kernel"])
    return c


def matmul(
    a: Any,
    b: Any,
    kernel: str = "auto",
    backend: Optional[str] = None,
    dtype: Optional[str] = None,
    verify: bool = False,
    device: Optional[int] = None,
) -> Any:
    """C = A·B with one of tileskip's kernels.

    Args:
        a: M×K operand: a NumPy array (or anything ``numpy.asarray`` takes) of float32, float16,
            float64 or integers, in any order or strides; or a PyTorch tensor. A sparse one
            (``scipy.sparse``, a torch sparse layout) is made dense once, with a
            :class:`DensifiedWarning` that says what that cost. A :class:`PackedMatrix`
            (:func:`pack`) is read as it is by the bsr kernels of its block (host arrays: C is a
            NumPy array), and stands for its dense matrix for every other kernel.
        b: K×N operand, likewise.
        kernel: a kernel id (:func:`kernels`), or ``"auto"``: the kernel :func:`inspect`
            recommends for these operands on the backend.
        backend: ``"cpu"``, ``"vulkan"`` or ``"cuda"`` (:func:`backends`); None: the best
            available, a GPU first.
        dtype: the inputs' precision: None or ``"fp32"``, ``"tf32"``, ``"fp16"``, ``"bf16"``. A and B
            are rounded to it once, and only kernels that take it run (:func:`kernels` lists each
            kernel's ``dtypes``); C accumulates in fp32. CUDA tensors are multiplied in their own
            type: float16 or bfloat16 (both of one type) by auto's choice or a kernel that takes it,
            else widened to fp32 on the device.
        verify: check every element of C against the float64 reference (the command's error
            bound) and raise :class:`VerificationError` if one misses it.
        device: device index within the backend; None: the backend's own choice.

    Returns:
        C, M×N float32: a NumPy array for NumPy input, a tensor for tensors. CUDA tensors on the
        ``cuda`` backend (or ``backend=None`` with CUDA tensors) stay on their device: C is a
        new tensor there, A and B are read in place through DLPack. CPU tensors go through
        NumPy, and so do CUDA tensors given to another backend (copied to the host and C back).

    Raises:
        ValueError: shapes that do not multiply, an empty or non-2-D operand, an unknown kernel
            or backend, a dtype the kernels do not take.
        UnavailableError: the backend or device cannot run here (the message says why).
        VerificationError: with ``verify=True``, a C beyond the error bound.
    """
    inputs = _check_dtype(dtype)
    index = _device_index(device)
    if isinstance(a, PackedMatrix):  # the bsr kernels of its block read it as it is
        b = _densified(b, "B")
        result = _tileskip.matmul_packed(a.shape, a.block, a.dtype, a.data, a.indices, a.indptr, _as_array(b), kernel, backend,
                                         inputs, verify, index)
        _warn(result)
        return result["c"]
    a, b = _densified(a, "A"), _densified(b, "B")
    torch_in = _is_torch(a) or _is_torch(b)
    on_cuda = torch_in and (getattr(a, "is_cuda", False) or getattr(b, "is_cuda", False))
    if on_cuda and backend in (None, "cuda"):
        if not (_is_torch(a) and _is_torch(b) and a.is_cuda and b.is_cuda):
            raise ValueError("A and B must both be CUDA tensors for the cuda backend's in-place path")
        if inputs != "fp32":
            raise ValueError(f"dtype {inputs!r}: CUDA tensors are multiplied in their own type (float16 and bfloat16 "
                             "tensors as such); leave dtype unset, or pass NumPy arrays")
        return _matmul_cuda_tensors(a, b, kernel, index, verify)
    result = _tileskip.matmul(_as_array(a), _as_array(b), kernel, backend, inputs, verify, index)
    _warn(result)
    c = result["c"]
    if torch_in:
        import torch

        target = a.device if _is_torch(a) else b.device
        return torch.from_numpy(c).to(target)
    return c


def mlp(
    x: Any,
    w1: Any,
    w2: Any,
    activation: str = "relu",
    kernel: str = "auto",
    first_kernel: str = "auto",
    backend: Optional[str] = None,
    dtype: Optional[str] = None,
    verify: bool = False,
    reorder: bool = False,
    compare: Optional[str] = None,
    device: Optional[int] = None,
    details: bool = False,
) -> Any:
    """An MLP layer, Y = act(X·W1)·W2: ``tileskip mlp``.

    The second GEMM multiplies the activation's zeros: ``kernel="auto"`` inspects the hidden
    activations H and picks a compaction kernel where a ReLU has left them spread out, as
    :func:`matmul` would for H and W2. H comes back to the host between the GEMMs, where the
    activation is applied; with ``first_kernel="wgmma"`` and ``kernel="compact-wgmma-128"`` in
    fp16 or bf16 on a Hopper GPU the two run fused instead (the first GEMM's epilogue applies the
    activation and writes H as the second reads it, on the device).

    Args:
        x: M×D input, read as :func:`matmul` reads an operand (tensors through NumPy).
        w1: D×F, F the hidden width (the layer's neurons).
        w2: F×N.
        activation: ``"relu"`` or ``"none"``.
        kernel: H·W2's kernel id, or ``"auto"``.
        first_kernel: X·W1's kernel id, or ``"auto"``.
        backend, dtype, device: as for :func:`matmul`; X, W1, W2 and H are rounded to ``dtype``.
        verify: check each GEMM against its float64 reference (:class:`VerificationError` names
            the kernel that missed).
        reorder: permute the neurons (H's columns and W2's rows together: Y is unchanged) and H·W2's
            rows and columns as ``tileskip run --reorder`` does; Y comes back in the original order.
        compare: a kernel id (``"cublas"``) to run the same layer with for both GEMMs, timed beside.
        details: return ``(Y, report)``, the report a dict: ``backend``, ``device``,
            ``hidden_density`` (the fraction of H that is non-zero), ``layer`` and ``compared``
            (None without ``compare``), each with ``first`` and ``second`` (per GEMM: ``kernel``,
            ``auto_reason``, ``kernel_ms``, ``prepare_ms``, ``rounding_ms``, ``verification``),
            ``fused``, ``activation_ms`` (host) and ``layer_ms`` (device: both kernels and what the
            second builds from H).

    Returns:
        Y, M×N float32: a NumPy array, or a tensor on the inputs' device for tensors; with
        ``details``, ``(Y, report)``.
    """
    inputs = _check_dtype(dtype)
    index = _device_index(device)
    operands = [_densified(m, name) for m, name in ((x, "X"), (w1, "W1"), (w2, "W2"))]
    result = _tileskip.mlp(*(_as_array(m) for m in operands), activation, kernel, first_kernel, compare, backend,
                           inputs, verify, reorder, index)
    _warn(result)
    y = result.pop("y")
    if any(_is_torch(m) for m in operands):
        import torch

        target = next(m.device for m in operands if _is_torch(m))
        y = torch.from_numpy(y).to(target)
    for key in ("notes", "first_build", "diagnostics"):
        result.pop(key)
    return (y, result) if details else y


def inspect(a: Any, b: Any, backend: Optional[str] = None, device: Optional[int] = None,
            model: Optional[str] = None) -> Dict[str, Any]:
    """Will skipping help these operands? Runs no kernel.

    ``model`` ("h100", "h200") predicts for that calibrated GPU instead of the device here, with
    ``backend``'s kernels (default "cuda") as they run there: ``tileskip inspect --model``.

    Returns the report of ``tileskip inspect --format json``, as a dict with the same fields
    (made by the same function): ``a`` and ``b`` (``source``, ``rows``, ``cols``, ``density``),
    ``backend``, ``device``, ``model``, ``kernels`` (per kernel of the backend: ``kernel``,
    ``a_granularity``, ``b_granularity``, ``a_pattern_density``, ``b_pattern_density``,
    ``joint_density``, ``ideal_speedup``, ``load_bound_speedup``, ``predicted_speedup``; None
    where a speedup is infinite) and ``recommendation`` (``kernel``, ``reason``). Operands are
    read as :func:`matmul` reads them (tensors on the host).
    """
    source_a, source_b = _source(a), _source(b)
    a, b = _densified(a, "A"), _densified(b, "B")
    result = _tileskip.inspect(_as_array(a), _as_array(b), source_a, source_b, backend, _device_index(device), model)
    _warn(result)
    return json.loads(result["json"])


def _flatten(prefix: str, value: Any, row: Dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}_{key}" if prefix else key, inner, row)
    else:
        row[prefix] = value


def bench(
    a: Any = None,
    b: Any = None,
    *,
    kernel: str = "all",
    backend: Optional[str] = None,
    size: Optional[int] = None,
    m: Optional[int] = None,
    n: Optional[int] = None,
    k: Optional[int] = None,
    generator: str = "segments",
    density_a: float = 0.5,
    density_b: float = 0.5,
    block: int = 32,
    seed: int = 42,
    warmup: int = 2,
    repeat: int = 10,
    baseline: bool = True,
    device: Optional[int] = None,
) -> List[Dict[str, Any]]:
    """Verifies, then times kernels on the device, as ``tileskip bench`` does.

    Operands are ``a`` and ``b`` when given (both), else generated from ``generator``,
    ``density_a``/``density_b``, ``block`` and ``seed`` at ``size`` (or ``m``, ``n``,
    ``k``; default 4096 on a GPU, 512 on a CPU device). ``kernel`` is ``"all"``, ids separated
    by commas, or ``"auto"`` (its choice beside the dense reference); ``backend`` a name,
    ``"all"`` or None (the best); ``baseline`` adds the vendor baseline row from any backend.

    Returns one flat dict per (backend, kernel), the command's JSON report with nested fields
    joined by ``_`` (``kernel_ms_median``, ``error_max_abs``, ...) and the problem beside each
    row (``m``, ``n``, ``k``, ``generator``, ``density_a``, ``density_b``, ``seed``,
    ``source_a``, ``source_b``, ``block_a``, ``block_b``, ``date``, ``host``,
    ``baseline``, ``dtype``, ``warmup``, ``repeat``, ``tool_version``, ``tool_commit``; each row
    has its ``driver``, ``tune_overrides`` and ``error_tolerance``): ``pandas.DataFrame(rows)``
    takes them as they are. A kernel that failed has ``verified`` False and its ``failure``.
    """
    if (a is None) != (b is None):
        raise ValueError("bench takes both operands, or neither (to generate them)")
    spec = _tileskip._ProblemSpec()
    sizes = {"m": m, "n": n, "k": k}
    # 0 tells the extension "the device's default": a size the caller gives must be one.
    for name, value in {"size": size, **sizes}.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"bench: {name} must be a positive integer, got {value!r}")
    for name, value in sizes.items():
        chosen = value if value is not None else size
        setattr(spec, name, 0 if chosen is None else chosen)  # 0: the device's default
    spec.generator = generator
    spec.density_a = density_a
    spec.density_b = density_b
    spec.block = block
    spec.seed = seed
    sources = ("", "") if a is None else (_source(a), _source(b))
    arrays = (None, None) if a is None else (_as_array(_densified(a, "A")), _as_array(_densified(b, "B")))
    result = _tileskip.bench(
        arrays[0], arrays[1], sources[0], sources[1], spec, kernel, backend, _device_index(device), warmup, repeat,
        baseline,
    )
    _warn(result)
    report = json.loads(result["json"])
    for message in report["diagnostics"]:
        warnings.warn(message, DiagnosticWarning, stacklevel=2)
    problem = report["problem"]
    context = {
        "date": report["date"],
        "host": report["host"],
        "m": problem["m"],
        "n": problem["n"],
        "k": problem["k"],
        "generator": None if a is not None else problem["generator"],
        "density_a": None if a is not None else problem["density_a"],
        "density_b": None if a is not None else problem["density_b"],
        "seed": None if a is not None else problem["seed"],
        "source_a": problem["a"],
        "source_b": problem["b"],
        "baseline": report["baseline"] or None,
        "block_a": None if a is not None else problem["block_a"],
        "block_b": None if a is not None else problem["block_b"],
        "dtype": report["dtype"],
        "warmup": report["timing"]["warmup"],
        "repeat": report["timing"]["repeat"],
        "tool_version": report["tool"]["version"],
        "tool_commit": report["tool"]["commit"],
    }
    rows = []
    for measured in report["rows"]:
        row: Dict[str, Any] = {}
        _flatten("", measured, row)
        row.update(context)
        rows.append(row)
    return rows


def backends(device: Optional[int] = None) -> List[Dict[str, Any]]:
    """The backends this build has, as ``tileskip list`` shows them: ``name``, ``available``
    (and where not, ``reason``), ``device``, ``driver``, ``api``, ``is_gpu``,
    ``subgroup_size``, ``shared_memory_bytes``, ``memory_bytes`` and the ``kernels`` it
    implements."""
    return _tileskip.backends(_device_index(device))


def kernels() -> List[Dict[str, Any]]:
    """The kernel catalogue: ``id``, ``number`` (K# or S#), ``stem``, ``family``, ``summary``,
    ``tile`` (BM, BN, BK, WM, WN, TM, TN, threads), ``a_granularity``, ``b_granularity``
    (0: that operand is not inspected), ``divergent``, ``skips``, ``baseline``, ``dtypes``
    (the input precisions it takes)."""
    return _tileskip.kernels()


def generators() -> List[Dict[str, str]]:
    """The matrix generators: ``name`` and ``summary``."""
    return _tileskip.generators()


def generate(
    generator: str,
    rows: int,
    cols: int,
    density: float = 1.0,
    seed: int = 42,
    operand: str = "A",
    block: int = 32,
    group_size: int = 4,
) -> np.ndarray:
    """A generated matrix, as ``tileskip gen`` writes it: float32, ``rows``×``cols``, seeded and
    reproducible. ``operand`` "A" aligns zeros to row tiles × K-blocks, "B" to K-blocks × column
    tiles; ``block`` is the segment width or block edge, ``group_size`` the M of N:M."""
    return _tileskip.generate(generator, rows, cols, density, seed, operand, block, group_size)


def sparsify_(model: Any, block: int = 64, density: float = 0.25, filter_fn: Any = None, kernel: str = "torch") -> Any:
    """Replaces, in place, every ``torch.nn.Linear`` of a PyTorch ``model`` (those ``filter_fn(module,
    name)`` accepts) by a :class:`tileskip.nn.BlockSparseLinear` keeping ``density`` of its ``block`` x
    ``block`` blocks, those of the largest magnitude, packed; returns ``model``. Needs torch."""
    from .nn import sparsify_ as sparsify

    return sparsify(model, block=block, density=density, filter_fn=filter_fn, kernel=kernel)
