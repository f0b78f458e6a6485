"""Layers for PyTorch models whose weights or activations are sparse (needs torch).

    import tileskip.nn
    layer = tileskip.nn.BlockSparseLinear(4096, 4096, block=128, density=0.25)
    layer = tileskip.nn.BlockSparseLinear.from_dense(linear, block=128, density=0.25)
    mlp = tileskip.nn.SparseMLP.from_dense(fc1, fc2, kernel="compact-wgmma-128")
    mlp.reorder_(sample_inputs)  # the neurons sorted by how often they fire: the same outputs

The sparse products run through ``torch.ops.tileskip.matmul`` (:mod:`tileskip.ops`), forward and
backward, so autograd and ``torch.compile`` see one operator.
"""
import math
from typing import Dict, Optional

import torch

from . import ops

__all__ = ["BlockSparseLinear", "SparseMLP"]


class BlockSparseLinear(torch.nn.Module):
    """``y = x·Wᵀ + b`` with W (out × in) zero outside a fixed pattern of ``block`` × ``block``
    blocks, as ``torch.nn.Linear`` otherwise (same initialisation of the kept weights, same
    shapes). The pattern is the buffer ``mask`` (one bool per block, out-blocks × in-blocks),
    kept across optimizer steps: the forward pass multiplies the weight by it, so the zero blocks
    stay zero whatever the optimizer writes there, and their gradient is zero. The kernels find
    the zero blocks of Wᵀ themselves on every call (``kernel``: a tileskip kernel id or ``"auto"``).
    On CUDA tensors ``"auto"`` inspects copies of the operands on the host on every call: for
    speed, name the kernel (``warp-joint-64x64`` in fp32 and ``wgmma-queue-b-64`` in bf16 on a
    Hopper GPU, which inspects the weight alone, are what bench/torch_mlp_step.py measures).
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


_ACTIVATIONS = {"relu": torch.relu, "none": lambda h: h}


def _compaction_rows(kernel: str) -> int:
    """The rows of H whose live columns a compaction kernel gathers together: its A-pattern
    height; for another kernel (auto among them), the tallest compaction kernel's."""
    compaction = ops.compaction_kernels()
    named = compaction.get(kernel)
    return named["a_granularity"] if named else max(k["a_granularity"] for k in compaction.values())


def _live_fraction(h: torch.Tensor, rows: int) -> float:
    """The mean, over tiles of ``rows`` rows of H, of the fraction of H's columns some row of the
    tile needs (a non-zero there): the K a compaction kernel multiplies, as inspect measures it."""
    live = h != 0
    tiles = -(-live.shape[0] // rows)
    padded = torch.zeros(tiles * rows, live.shape[1], dtype=torch.bool, device=live.device)
    padded[: live.shape[0]] = live
    return padded.reshape(tiles, rows, -1).any(dim=1).float().mean().item()


class SparseMLP(torch.nn.Module):
    """A feed-forward block, ``y = act(x·W1ᵀ + b1)·W2ᵀ + b2`` (``Linear``, activation, ``Linear``),
    whose second product leaves out the zeros the activation makes. A ReLU's zeros are spread out
    (each a token's inactive neuron), so no block of them is empty; the compaction kernels gather,
    per tile of tokens, the hidden columns some token of the tile needs and multiply only those
    (``kernel``: ``"compact-wgmma-128"`` on a Hopper GPU in bf16/fp16, ``"compact-mma-64"`` on
    other tensor-core GPUs, any tileskip kernel id, or ``"auto"``, which inspects copies of H and
    W2 on the host on every call). The first product is dense (the inputs have no zeros to use)
    and runs as ``torch.nn.functional.linear``. Autograd runs the backward products through the
    same operator: H's gradient, and W2's over H transposed, where the same tiles of cold neurons
    have few live tokens.

    On fp16/bf16 CUDA tensors a 16-bit kernel reads its operands in whole 16-byte rows: the hidden
    width and the outputs, and for training the tokens of a batch (W2's gradient sums over them),
    must be multiples of 8 (a ValueError says so otherwise). In inference the tokens may be any
    number: the compaction kernel's copy of H transposed pads its rows to whole 16-byte copies.

    The weights have ``nn.Linear``'s shapes and initialisation (``weight1``: hidden × in,
    ``weight2``: out × hidden). W2 is kept as a row-major W2ᵀ seen as W2, so it is the operator's
    B as it is. :meth:`reorder_` sorts the neurons by how often they fire on sample inputs, which
    leaves the outputs as they are and gathers each tile's live columns together.
    """

    def __init__(self, in_features: int, hidden_features: int, out_features: Optional[int] = None,
                 activation: str = "relu", bias: bool = True, kernel: str = "auto", device=None, dtype=None):
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation {activation!r}: SparseMLP applies one of {', '.join(_ACTIVATIONS)}")
        for name, size in (("in_features", in_features), ("hidden_features", hidden_features)):
            if size < 1:
                raise ValueError(f"{name} {size}: a layer has at least one")
        out_features = in_features if out_features is None else out_features
        if out_features < 1:
            raise ValueError(f"out_features {out_features}: a layer has at least one")
        self.in_features, self.hidden_features, self.out_features = in_features, hidden_features, out_features
        self.activation, self.kernel = activation, kernel
        factory = {"device": device, "dtype": dtype}
        self.weight1 = torch.nn.Parameter(torch.empty(hidden_features, in_features, **factory))
        self.bias1 = torch.nn.Parameter(torch.empty(hidden_features, **factory)) if bias else None
        self.weight2 = torch.nn.Parameter(torch.empty(hidden_features, out_features, **factory).t())
        self.bias2 = torch.nn.Parameter(torch.empty(out_features, **factory)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # Each product as torch.nn.Linear initialises its own.
        for weight, bias in ((self.weight1, self.bias1), (self.weight2, self.bias2)):
            torch.nn.init.kaiming_uniform_(weight, a=math.sqrt(5))
            if bias is not None:
                torch.nn.init.uniform_(bias, -1 / math.sqrt(weight.shape[1]), 1 / math.sqrt(weight.shape[1]))

    def hidden(self, x: torch.Tensor) -> torch.Tensor:
        """H = act(x·W1ᵀ + b1), one row per token (x's leading dimensions flattened)."""
        rows = x.reshape(-1, self.in_features)
        return _ACTIVATIONS[self.activation](torch.nn.functional.linear(rows, self.weight1, self.bias1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = ops.matmul(self.hidden(x), self.weight2.t(), self.kernel)
        if self.bias2 is not None:
            y = y + self.bias2
        return y.reshape(*x.shape[:-1], self.out_features)

    @torch.no_grad()
    def reorder_(self, sample: torch.Tensor, rows: Optional[int] = None) -> Dict[str, object]:
        """Sorts the neurons by how many of ``sample``'s tokens fire each (most first, ties in
        their order: ``tileskip run --reorder``'s firing order), permuting W1's rows, b1 and W2's
        columns together: every output stays what it was (up to the order of the sum). Neurons
        that fire together then sit together, so a tile of tokens needs fewer ranges of hidden
        columns. In place, so build the optimizer after it (its state is not permuted).

        Returns ``order`` (the new neuron i is the old ``order[i]``) and ``live_before`` /
        ``live_after``: the mean fraction of hidden columns a tile of ``rows`` tokens needs
        (default: the kernel's tile height, or the tallest compaction kernel's), unchanged by
        the order, and ``live_groups_before`` / ``live_groups_after``, the same over 8-column
        groups, which the order lowers.
        """
        if sample.shape[-1] != self.in_features:
            raise ValueError(f"sample has {sample.shape[-1]} features; the layer takes {self.in_features}")
        rows = _compaction_rows(self.kernel) if rows is None else rows
        if rows < 1:
            raise ValueError(f"rows {rows}: a tile has at least one row")
        h = self.hidden(sample)
        order = torch.argsort((h != 0).sum(dim=0), descending=True, stable=True)

        def groups(hidden: torch.Tensor) -> float:
            width = -(-hidden.shape[1] // 8) * 8
            padded = torch.zeros(hidden.shape[0], width, dtype=torch.bool, device=hidden.device)
            padded[:, : hidden.shape[1]] = hidden != 0
            return _live_fraction(padded.reshape(hidden.shape[0], -1, 8).any(dim=2), rows)

        report = {"order": order, "rows": rows, "live_before": _live_fraction(h, rows),
                  "live_groups_before": groups(h)}
        self.weight1.copy_(self.weight1[order])
        if self.bias1 is not None:
            self.bias1.copy_(self.bias1[order])
        self.weight2.copy_(self.weight2[:, order])
        sorted_h = h[:, order]
        report.update(live_after=_live_fraction(sorted_h, rows), live_groups_after=groups(sorted_h))
        return report

    @classmethod
    def from_dense(cls, fc1: torch.nn.Linear, fc2: torch.nn.Linear, activation: str = "relu",
                   kernel: str = "auto") -> "SparseMLP":
        """The block ``fc2(act(fc1(x)))`` with ``fc1``'s and ``fc2``'s weights and biases as they are."""
        if fc2.in_features != fc1.out_features:
            raise ValueError(f"fc1 gives {fc1.out_features} features and fc2 takes {fc2.in_features}: "
                             "the hidden widths must match")
        if (fc1.bias is None) != (fc2.bias is None):
            raise ValueError("fc1 and fc2 must both have a bias or both have none")
        layer = cls(fc1.in_features, fc1.out_features, fc2.out_features, activation=activation,
                    bias=fc1.bias is not None, kernel=kernel, device=fc1.weight.device, dtype=fc1.weight.dtype)
        with torch.no_grad():
            layer.weight1.copy_(fc1.weight)
            layer.weight2.copy_(fc2.weight)
            if fc1.bias is not None:
                layer.bias1.copy_(fc1.bias)
                layer.bias2.copy_(fc2.bias)
        return layer

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, hidden_features={self.hidden_features}, "
                f"out_features={self.out_features}, activation={self.activation!r}, "
                f"bias={self.bias1 is not None}, kernel={self.kernel!r}")
