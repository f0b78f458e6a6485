"""Layers for PyTorch models whose weights are block-sparse (needs torch).

    import tileskip.nn
    layer = tileskip.nn.BlockSparseLinear(4096, 4096, block=128, density=0.25)
    layer = tileskip.nn.BlockSparseLinear.from_dense(linear, block=128, density=0.25)

The product runs through ``torch.ops.tileskip.matmul`` (:mod:`tileskip.ops`), forward and
backward, so autograd and ``torch.compile`` see one operator.
"""
import math
from typing import Optional

import torch

from . import ops

__all__ = ["BlockSparseLinear"]


class BlockSparseLinear(torch.nn.Module):
    """``y = x·Wᵀ + b`` with W (out × in) zero outside a fixed pattern of ``block`` × ``block``
    blocks, as ``torch.nn.Linear`` otherwise (same initialisation of the kept weights, same
    shapes). The pattern is the buffer ``mask`` (one bool per block, out-blocks × in-blocks),
    kept across optimizer steps: the forward pass multiplies the weight by it, so the zero blocks
    stay zero whatever the optimizer writes there, and their gradient is zero. The kernels find
    the zero blocks of Wᵀ themselves on every call (``kernel``: a tileskip kernel id or ``"auto"``).
    On CUDA tensors ``"auto"`` inspects copies of the operands on the host on every call: for
    speed, name the kernel (``warp-joint-64x64`` in fp32 and ``wgmma-queue-joint-64x64`` in bf16 on
    a Hopper GPU are what bench/torch_mlp_step.py measures).
    """

    def __init__(self, in_features: int, out_features: int, block: int = 128, density: float = 0.25,
                 bias: bool = True, kernel: str = "auto", mask: Optional[torch.Tensor] = None, seed: int = 0,
                 device=None, dtype=None):
        super().__init__()
        if block < 1:
            raise ValueError(f"block {block}: a block is at least 1 x 1")
        if not 0.0 < density <= 1.0:
            raise ValueError(f"density {density}: the fraction of blocks kept is in (0, 1]")
        self.in_features, self.out_features, self.block, self.kernel = in_features, out_features, block, kernel
        grid = (math.ceil(out_features / block), math.ceil(in_features / block))
        if mask is None:
            # `density` of the blocks, chosen at random (seeded), at least one.
            kept = max(1, round(density * grid[0] * grid[1]))
            order = torch.randperm(grid[0] * grid[1], generator=torch.Generator().manual_seed(seed))
            mask = torch.zeros(grid[0] * grid[1], dtype=torch.bool)
            mask[order[:kept]] = True
            mask = mask.reshape(grid)
        elif tuple(mask.shape) != grid:
            raise ValueError(f"mask {tuple(mask.shape)}: a {out_features} x {in_features} weight in {block}-blocks "
                             f"needs one of {grid[0]} x {grid[1]}")
        self.register_buffer("mask", mask.to(device=device, dtype=torch.bool))
        factory = {"device": device, "dtype": dtype}
        # Stored as Wᵀ (in x out, row-major), seen as W: weight.t() is the operator's B as it is,
        # with no transposing copy per call. Shapes, state dicts and initialisation are Linear's.
        self.weight = torch.nn.Parameter(torch.empty(in_features, out_features, **factory).t())
        # The pattern as a 0/1 Wᵀ in the weight's dtype (module.to() casts it with the weight).
        self.register_buffer("_mask_t", self.dense_mask().t().contiguous(), persistent=False)
        self.bias = torch.nn.Parameter(torch.empty(out_features, **factory)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # torch.nn.Linear's initialisation, then the zero blocks cleared.
        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            torch.nn.init.uniform_(self.bias, -bound, bound)
        with torch.no_grad():
            self.weight.mul_(self.dense_mask())

    def dense_mask(self) -> torch.Tensor:
        """The pattern as a weight-shaped 0/1 tensor in the weight's dtype."""
        expanded = self.mask.repeat_interleave(self.block, 0).repeat_interleave(self.block, 1)
        return expanded[: self.out_features, : self.in_features].to(self.weight.dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        masked_t = self.weight.t() * self._mask_t  # Wᵀ with its zero blocks, row-major: one pass
        rows = x.reshape(-1, self.in_features)
        y = ops.matmul(rows, masked_t, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return y.reshape(*x.shape[:-1], self.out_features)

    @classmethod
    def from_dense(cls, linear: torch.nn.Linear, block: int = 128, density: float = 0.25,
                   kernel: str = "auto") -> "BlockSparseLinear":
        """The layer that keeps ``density`` of ``linear``'s ``block`` × ``block`` blocks, those of
        the largest magnitude (Frobenius norm), with their weights and the bias as they are."""
        weight = linear.weight.detach()
        out_features, in_features = weight.shape
        grid = (math.ceil(out_features / block), math.ceil(in_features / block))
        padded = torch.zeros(grid[0] * block, grid[1] * block, dtype=torch.float32, device=weight.device)
        padded[:out_features, :in_features] = weight.float()
        norms = padded.reshape(grid[0], block, grid[1], block).pow(2).sum(dim=(1, 3)).flatten()
        kept = max(1, round(density * norms.numel()))
        mask = torch.zeros_like(norms, dtype=torch.bool)
        mask[torch.topk(norms, kept).indices] = True
        layer = cls(in_features, out_features, block=block, density=density, bias=linear.bias is not None,
                    kernel=kernel, mask=mask.reshape(grid), device=weight.device, dtype=weight.dtype)
        with torch.no_grad():
            layer.weight.copy_(weight * layer.dense_mask())
            if linear.bias is not None:
                layer.bias.copy_(linear.bias.detach())
        return layer

    def extra_repr(self) -> str:
        kept = self.mask.float().mean().item()
        return (f"in_features={self.in_features}, out_features={self.out_features}, block={self.block}, "
                f"blocks kept={kept:.3f}, bias={self.bias is not None}, kernel={self.kernel!r}")
