"""Layers for PyTorch models whose weights or activations are sparse (needs torch).

    import tileskip.nn
    layer = tileskip.nn.BlockSparseLinear(4096, 4096, block=64, density=0.25)  # its kept blocks, packed
    layer = tileskip.nn.BlockSparseLinear.from_dense(linear, block=64, density=0.25)
    tileskip.nn.sparsify_(model, block=64, density=0.25)   # every nn.Linear of a model, by block magnitude
    mlp = tileskip.nn.SparseMLP.from_dense(fc1, fc2, kernel="compact-wgmma-128")
    mlp.reorder_(sample_inputs)  # the neurons sorted by how often they fire: the same outputs

SparseMLP's sparse products run through ``torch.ops.tileskip.matmul`` (:mod:`tileskip.ops`), forward
and backward, so autograd and ``torch.compile`` see one operator; BlockSparseLinear keeps its weight
packed and multiplies by torch's product or that operator.
"""
import math
from typing import Callable, Dict, Optional

import torch

from . import ops

__all__ = ["BlockSparseLinear", "SparseMLP", "sparsify_"]


def _grid(out_features: int, in_features: int, block: int):
    return math.ceil(out_features / block), math.ceil(in_features / block)


class BlockSparseLinear(torch.nn.Module):
    """``y = x·Wᵀ + b`` with W (out × in) stored packed: only its kept ``block`` × ``block`` blocks
    are a parameter (``weight_blocks``, kept × block × block, in block-row order, each row-major),
    their topology the buffers ``indptr`` (out-blocks + 1) and ``indices`` (each kept block's block
    column; and ``block_rows``, each one's block row), as :class:`tileskip.PackedMatrix` and SciPy's
    BSR hold them. So the parameters, their
    gradients and an optimizer's state are the kept fraction of ``torch.nn.Linear``'s, and a block
    outside the topology has no value to drift. ``block``: 16, 32, 64 or 128 (the packed format's).

    The forward pass lays the kept blocks into W (one pass over them) and multiplies: with
    ``kernel="torch"`` (the default) by ``torch.nn.functional.linear``, with a tileskip kernel id or
    ``"auto"`` through ``torch.ops.tileskip.matmul`` on Wᵀ, whose kernels find its zero blocks. Its
    gradient reaches the kept blocks alone (the scatter's backward gathers them from dW), but dW
    itself is still a dense product: the bsr kernels do not yet take a layer's tensors in place.
    """

    def __init__(self, in_features: int, out_features: int, block: int = 64, density: float = 0.25,
                 bias: bool = True, kernel: str = "torch", mask: Optional[torch.Tensor] = None, seed: int = 0,
                 device=None, dtype=None):
        super().__init__()
        if block not in (16, 32, 64, 128):
            raise ValueError(f"block {block}: the packed format takes blocks of 16, 32, 64 or 128")
        if not 0.0 < density <= 1.0:
            raise ValueError(f"density {density}: the fraction of blocks kept is in (0, 1]")
        self.in_features, self.out_features, self.block, self.kernel = in_features, out_features, block, kernel
        grid = _grid(out_features, in_features, block)
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
        rows, cols = mask.to(torch.bool).nonzero(as_tuple=True)  # row-major: block-row order, columns ascending
        indptr = torch.zeros(grid[0] + 1, dtype=torch.int32)
        indptr[1:] = torch.bincount(rows, minlength=grid[0]).cumsum(0)
        self.register_buffer("indptr", indptr.to(device))
        self.register_buffer("indices", cols.to(torch.int32).to(device))
        # Each kept block's block row beside its column (the row pointers spelled out), so the
        # forward pass lays the blocks out with shapes fixed by the topology alone.
        self.register_buffer("block_rows", rows.to(torch.int32).to(device))
        factory = {"device": device, "dtype": dtype}
        self.weight_blocks = torch.nn.Parameter(torch.empty(len(cols), block, block, **factory))
        self.bias = torch.nn.Parameter(torch.empty(out_features, **factory)) if bias else None
        self.reset_parameters()

    @property
    def kept_blocks(self) -> int:
        return self.weight_blocks.shape[0]

    @property
    def density(self) -> float:
        grid = _grid(self.out_features, self.in_features, self.block)
        return self.kept_blocks / (grid[0] * grid[1])

    def _block_rows(self) -> torch.Tensor:
        return self.block_rows.long()

    @property
    def mask(self) -> torch.Tensor:
        """The topology as one bool per block, out-blocks × in-blocks."""
        grid = _grid(self.out_features, self.in_features, self.block)
        mask = torch.zeros(grid, dtype=torch.bool, device=self.indices.device)
        mask[self._block_rows(), self.indices.long()] = True
        return mask

    def reset_parameters(self) -> None:
        # torch.nn.Linear's initialisation of the kept weights: uniform in ±1/sqrt(in_features).
        bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
        torch.nn.init.uniform_(self.weight_blocks, -bound, bound)
        if self.bias is not None:
            torch.nn.init.uniform_(self.bias, -bound, bound)
        with torch.no_grad():  # the values past the matrix on its last block row and column are zeros
            self.weight_blocks.mul_(self._padding_mask())

    def _padding_mask(self) -> torch.Tensor:
        """1 where a kept block's value lies inside the matrix, 0 past its last row or column."""
        b = self.block
        rows = self._block_rows()[:, None] * b + torch.arange(b, device=self.indices.device)[None, :]
        cols = self.indices.long()[:, None] * b + torch.arange(b, device=self.indices.device)[None, :]
        inside = (rows < self.out_features)[:, :, None] & (cols < self.in_features)[:, None, :]
        return inside.to(self.weight_blocks.dtype)

    def dense_weight(self) -> torch.Tensor:
        """W (out × in), zeros outside the kept blocks: differentiable in ``weight_blocks``."""
        grid = _grid(self.out_features, self.in_features, self.block)
        b = self.block
        flat = self._block_rows() * grid[1] + self.indices.long()
        blocks = torch.zeros(grid[0] * grid[1], b, b, dtype=self.weight_blocks.dtype, device=self.weight_blocks.device)
        blocks = blocks.index_copy(0, flat, self.weight_blocks)
        dense = blocks.reshape(grid[0], grid[1], b, b).permute(0, 2, 1, 3).reshape(grid[0] * b, grid[1] * b)
        return dense[: self.out_features, : self.in_features]

    @property
    def weight(self) -> torch.Tensor:
        """W as ``torch.nn.Linear`` holds it (a dense tensor laid out from the kept blocks)."""
        return self.dense_weight()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.dense_weight()
        if self.kernel == "torch":
            return torch.nn.functional.linear(x, w, self.bias)
        rows = x.reshape(-1, self.in_features)
        y = ops.matmul(rows, w.t().contiguous(), self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return y.reshape(*x.shape[:-1], self.out_features)

    @classmethod
    def from_dense(cls, linear: torch.nn.Linear, block: int = 64, density: float = 0.25,
                   kernel: str = "torch") -> "BlockSparseLinear":
        """The layer that keeps ``density`` of ``linear``'s ``block`` × ``block`` blocks, those of
        the largest magnitude (Frobenius norm), with their weights and the bias as they are."""
        weight = linear.weight.detach()
        out_features, in_features = weight.shape
        grid = _grid(out_features, in_features, block)
        padded = torch.zeros(grid[0] * block, grid[1] * block, dtype=torch.float32, device=weight.device)
        padded[:out_features, :in_features] = weight.float()
        norms = padded.reshape(grid[0], block, grid[1], block).pow(2).sum(dim=(1, 3)).flatten()
        kept = max(1, round(density * norms.numel()))
        mask = torch.zeros_like(norms, dtype=torch.bool)
        mask[torch.topk(norms, kept).indices] = True
        return cls._with_weight(weight, mask.reshape(grid), linear.bias, block, kernel)

    @classmethod
    def _with_weight(cls, weight: torch.Tensor, mask: torch.Tensor, bias: Optional[torch.Tensor], block: int,
                     kernel: str) -> "BlockSparseLinear":
        out_features, in_features = weight.shape
        layer = cls(in_features, out_features, block=block, bias=bias is not None, kernel=kernel, mask=mask.cpu(),
                    device=weight.device, dtype=weight.dtype)
        grid = _grid(out_features, in_features, block)
        padded = torch.zeros(grid[0] * block, grid[1] * block, dtype=weight.dtype, device=weight.device)
        padded[:out_features, :in_features] = weight
        blocks = padded.reshape(grid[0], block, grid[1], block).permute(0, 2, 1, 3)
        with torch.no_grad():
            layer.weight_blocks.copy_(blocks[layer._block_rows(), layer.indices.long()])
            if bias is not None:
                layer.bias.copy_(bias.detach())
        return layer

    def to_dense(self) -> torch.nn.Linear:
        """A ``torch.nn.Linear`` holding W, zeros outside the kept blocks, and the bias."""
        linear = torch.nn.Linear(self.in_features, self.out_features, bias=self.bias is not None,
                                 device=self.weight_blocks.device, dtype=self.weight_blocks.dtype)
        with torch.no_grad():
            linear.weight.copy_(self.dense_weight())
            if self.bias is not None:
                linear.bias.copy_(self.bias)
        return linear

    def to_sparse_bsr(self) -> torch.Tensor:
        """W as a ``torch.sparse_bsr`` tensor of the same blocks (the block must divide both sizes)."""
        if self.out_features % self.block or self.in_features % self.block:
            raise ValueError(f"a {self.out_features} x {self.in_features} weight has partial {self.block}-blocks, which "
                             "torch's BSR layout cannot hold")
        return torch.sparse_bsr_tensor(self.indptr.long(), self.indices.long(), self.weight_blocks.detach(),
                                       size=(self.out_features, self.in_features))

    @classmethod
    def from_sparse_bsr(cls, weight: torch.Tensor, bias: Optional[torch.Tensor] = None,
                        kernel: str = "torch") -> "BlockSparseLinear":
        """The layer of a ``torch.sparse_bsr`` W (square blocks), its stored blocks kept as they are."""
        if weight.layout != torch.sparse_bsr:
            raise ValueError(f"from_sparse_bsr takes a torch.sparse_bsr tensor, not {weight.layout}")
        values = weight.values()
        if values.shape[1] != values.shape[2]:
            raise ValueError(f"its blocks are {values.shape[1]} x {values.shape[2]}; the packed format takes square blocks")
        block = values.shape[1]
        grid = _grid(weight.shape[0], weight.shape[1], block)
        counts = weight.crow_indices()[1:] - weight.crow_indices()[:-1]
        rows = torch.repeat_interleave(torch.arange(grid[0], device=counts.device), counts)
        mask = torch.zeros(grid, dtype=torch.bool)
        mask[rows.cpu(), weight.col_indices().cpu()] = True
        layer = cls(weight.shape[1], weight.shape[0], block=block, bias=bias is not None, kernel=kernel, mask=mask,
                    device=values.device, dtype=values.dtype)
        # Each row's stored blocks sorted by column, as the layer keeps them.
        order = torch.argsort(rows.cpu() * grid[1] + weight.col_indices().cpu()).to(values.device)
        with torch.no_grad():
            layer.weight_blocks.copy_(values[order])
            if bias is not None:
                layer.bias.copy_(bias.detach())
        return layer

    def to_packed(self) -> "PackedMatrix":
        """W as a :class:`tileskip.PackedMatrix` (fp32 values; ``.save()`` writes SciPy's BSR .npz)."""
        from . import PackedMatrix

        return PackedMatrix((self.out_features, self.in_features), self.block, self.weight_blocks.detach().float().cpu().numpy(),
                            self.indices.cpu().numpy(), self.indptr.cpu().numpy())

    @classmethod
    def from_packed(cls, packed: "PackedMatrix", bias: Optional[torch.Tensor] = None, kernel: str = "torch",
                    device=None, dtype=None) -> "BlockSparseLinear":
        """The layer of a :class:`tileskip.PackedMatrix` W, its kept blocks as they are."""
        rows, cols = packed.shape
        grid = _grid(rows, cols, packed.block)
        mask = torch.zeros(grid, dtype=torch.bool)
        counts = torch.from_numpy(packed.indptr[1:] - packed.indptr[:-1]).long()
        mask[torch.repeat_interleave(torch.arange(grid[0]), counts), torch.from_numpy(packed.indices).long()] = True
        layer = cls(cols, rows, block=packed.block, bias=bias is not None, kernel=kernel, mask=mask, device=device, dtype=dtype)
        with torch.no_grad():
            layer.weight_blocks.copy_(torch.from_numpy(packed.data))
            if bias is not None:
                layer.bias.copy_(bias.detach())
        return layer

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, block={self.block}, "
                f"blocks kept={self.kept_blocks} ({self.density:.3f}), bias={self.bias is not None}, kernel={self.kernel!r}")


def sparsify_(model: torch.nn.Module, block: int = 64, density: float = 0.25,
              filter_fn: Optional[Callable[[torch.nn.Module, str], bool]] = None, kernel: str = "torch") -> torch.nn.Module:
    """Replaces, in place, every ``torch.nn.Linear`` of ``model`` (those ``filter_fn(module, name)``
    accepts, ``name`` its dotted path) by the :class:`BlockSparseLinear` that keeps ``density`` of its
    ``block`` × ``block`` blocks, those of the largest magnitude. Returns ``model``."""
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            path = f"{name}.{child_name}" if name else child_name
            if type(child) is torch.nn.Linear and (filter_fn is None or filter_fn(child, path)):
                setattr(module, child_name, BlockSparseLinear.from_dense(child, block=block, density=density, kernel=kernel))
    return model


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
