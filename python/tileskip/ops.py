"""tileskip as a PyTorch operator: ``torch.ops.tileskip.matmul``, registered on import.

    import tileskip.ops  # needs torch
    c = torch.ops.tileskip.matmul(a, b, "auto")   # or tileskip.ops.matmul(a, b)

The operator is registered through ``torch.library``: it has a fake (meta) implementation, so
``torch.compile`` traces it without a graph break, and an autograd formula whose backward
products run through the same operator (dA = dC·Bᵀ, dB = Aᵀ·dC: each skips where its operands'
zeros allow; a compaction kernel's dA, whose A is the dense dC, is torch's own product). C comes
back in A's and B's promoted floating type, computed in fp32 (the kernels accumulate in fp32). CUDA tensors stay on their device and run on the current stream
(:func:`tileskip.matmul`'s in-place path: fp16 and bf16 operands of one type run the kernels that
take it, the tensor-core ones among them, as they are; others are widened to fp32); CPU tensors go
through NumPy on the best backend.
"""
import functools
from typing import Dict, Tuple

import torch

from . import _matmul_cuda_tensors
from . import kernels as _kernels
from . import matmul as _matmul

__all__ = ["matmul"]

_FLOATS = (torch.float32, torch.float16, torch.bfloat16, torch.float64)


def _result_dtype(a: torch.Tensor, b: torch.Tensor) -> torch.dtype:
    return torch.promote_types(a.dtype, b.dtype)


def _check(a: torch.Tensor, b: torch.Tensor) -> None:
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: f"expected 2-D tensors, got {a.dim()} and {b.dim()} dimensions")
    torch._check(
        a.shape[1] == b.shape[0],
        lambda: f"A is {a.shape[0]}x{a.shape[1]} and B {b.shape[0]}x{b.shape[1]}: A's columns must equal B's rows",
    )
    torch._check(a.device == b.device, lambda: f"A is on {a.device} and B on {b.device}; put both on one device")
    torch._check(
        a.dtype in _FLOATS and b.dtype in _FLOATS,
        lambda: f"A is {a.dtype} and B {b.dtype}: the operator takes float32, float16, bfloat16 or float64",
    )


@torch.library.custom_op("tileskip::matmul", mutates_args=())
def matmul(a: torch.Tensor, b: torch.Tensor, kernel: str = "auto") -> torch.Tensor:
    """C = A·B with one of tileskip's kernels (``kernel``: an id of :func:`tileskip.kernels` or
    ``"auto"``), C in A's and B's promoted floating type."""
    _check(a, b)
    if a.is_cuda:  # straight to the in-place path: _check has checked what matmul would
        c = _matmul_cuda_tensors(a, b, kernel, -1, False)
    else:
        c = _matmul(a.detach().float().numpy(), b.detach().float().numpy(), kernel=kernel)
        c = torch.from_numpy(c)
    return c.to(_result_dtype(a, b))


@matmul.register_fake
def _matmul_fake(a: torch.Tensor, b: torch.Tensor, kernel: str = "auto") -> torch.Tensor:
    _check(a, b)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=_result_dtype(a, b))


@functools.lru_cache(maxsize=None)
def compaction_kernels() -> Dict[str, dict]:
    """The catalogue's compaction kernels by id (read once)."""
    return {k["id"]: k for k in _kernels() if k["family"] == "compact"}


def _compacts(kernel: str) -> bool:
    """Whether `kernel` is a compaction kernel: it gathers the columns of its A that some row of a
    tile needs, and finds nothing to gather in a dense A."""
    return kernel in compaction_kernels()


def _setup_context(ctx, inputs: Tuple[torch.Tensor, torch.Tensor, str], output: torch.Tensor) -> None:
    a, b, kernel = inputs
    ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)
    ctx.kernel = kernel


def _backward(ctx, grad: torch.Tensor):
    a, b = ctx.saved_tensors
    grad_a = grad_b = None
    # Through the operator itself: the backward products skip too, and a second derivative works.
    # Autograd casts each gradient to its input's dtype. A compaction kernel gathers A's live
    # columns: dA's A is dC, which has none of A's zeros, so dA is torch's own product there
    # (cuBLAS on CUDA tensors), while dB = Aᵀ·dC gathers, per tile of A's columns, the rows of A
    # some of them need.
    if ctx.needs_input_grad[0] and _compacts(ctx.kernel):
        grad_a = grad @ b.t().to(grad.dtype)
    elif ctx.needs_input_grad[0]:
        grad_a = matmul(grad, b.t().contiguous(), ctx.kernel)
    if ctx.needs_input_grad[1]:
        grad_b = matmul(a.t().contiguous(), grad, ctx.kernel)
    return grad_a, grad_b, None


matmul.register_autograd(_backward, setup_context=_setup_context)
