"""Block-sparse weights packed once, as the bsr kernels read them.

    import tileskip
    w = tileskip.pack(weight, block=64)            # the 64-blocks holding a non-zero, kept
    c = tileskip.matmul(w, x)                       # the bsr kernels read w as it is
    w.save("w.npz"); w = tileskip.PackedMatrix.load("w.npz")   # SciPy's BSR layout

A :class:`PackedMatrix` holds what SciPy's ``bsr_matrix`` does (``data``, kept blocks x block x
block; ``indices``, each kept block's block column; ``indptr``, where each block row starts) with
its shape, its square block (16, 32, 64 or 128) and the precision of its values (fp32, fp16 or
bf16: the values are float32 numbers that precision holds). The package's extension checks the
parts when one is made (its column indices sorted within rows), exactly as it checks a file.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Tuple

import numpy as np

from ._errors import ConversionWarning
from . import _tileskip

__all__ = ["PackedMatrix", "pack"]


class PackedMatrix:
    """A block-sparse matrix packed in square blocks: its kept blocks' values and their index."""

    __slots__ = ("shape", "block", "dtype", "data", "indices", "indptr")

    def __init__(self, shape: Tuple[int, int], block: int, data: Any, indices: Any, indptr: Any, dtype: str = "fp32"):
        """From BSR's arrays (checked: shape, ranges, a block column at most once per row; the
        columns of a row sorted, their blocks with them). ``ValueError`` says what is wrong."""
        parts = _tileskip.packed_parts(tuple(int(s) for s in shape), int(block), dtype, np.asarray(data), np.asarray(indices),
                                       np.asarray(indptr))
        self._take(parts)

    def _take(self, parts: dict) -> None:
        self.shape = tuple(parts["shape"])
        self.block = parts["block"]
        self.dtype = parts["dtype"]
        self.data = parts["data"]
        self.indices = parts["indices"]
        self.indptr = parts["indptr"]

    @classmethod
    def _of(cls, parts: dict) -> "PackedMatrix":
        packed = cls.__new__(cls)
        packed._take(parts)
        return packed

    @property
    def kept_blocks(self) -> int:
        return int(self.data.shape[0])

    @property
    def density(self) -> float:
        """Kept blocks over the blocks of the grid."""
        rows = -(-self.shape[0] // self.block)
        cols = -(-self.shape[1] // self.block)
        return self.kept_blocks / (rows * cols) if rows * cols else 0.0

    @property
    def nbytes(self) -> int:
        """The bytes the kept blocks take in the matrix's precision: what a kernel reads."""
        return self.data.size * (2 if self.dtype in ("fp16", "bf16") else 4)

    def to_dense(self) -> np.ndarray:
        """The matrix, float32, zeros outside the kept blocks."""
        return _tileskip.packed_to_dense(self.shape, self.block, self.dtype, self.data, self.indices, self.indptr)

    def to_scipy(self) -> Any:
        """A ``scipy.sparse.bsr_matrix`` of the same blocks (needs SciPy; the block must divide the shape)."""
        import scipy.sparse

        return scipy.sparse.bsr_matrix((self.data.copy(), self.indices.copy(), self.indptr.copy()), shape=self.shape)

    @classmethod
    def from_scipy(cls, m: Any, dtype: str = "fp32") -> "PackedMatrix":
        """From a ``scipy.sparse`` BSR matrix (square blocks), its stored blocks kept as they are."""
        if getattr(m, "format", None) != "bsr":
            raise ValueError(f"from_scipy takes a bsr_matrix, not {type(m).__name__}; convert with .tobsr(blocksize=(64, 64))")
        height, width = m.blocksize
        if height != width:
            raise ValueError(f"its blocks are {height} x {width}; the packed format takes square blocks")
        return cls(m.shape, height, m.data, m.indices, m.indptr, dtype)

    def save(self, path: str) -> None:
        """Writes SciPy's BSR .npz (``scipy.sparse.load_npz`` reads it; ``tileskip pack`` describes it)."""
        _tileskip.write_packed(str(path), self.shape, self.block, self.dtype, self.data, self.indices, self.indptr)

    @classmethod
    def load(cls, path: str) -> "PackedMatrix":
        """Reads a BSR .npz (tileskip's or ``scipy.sparse.save_npz``'s), checked as the command checks one."""
        return cls._of(_tileskip.read_packed(str(path)))

    def __repr__(self) -> str:
        return (f"PackedMatrix({self.shape[0]} x {self.shape[1]}, {self.block}-blocks, {self.kept_blocks} kept "
                f"({self.density:.3f}), {self.dtype})")


def pack(w: Any, block: int = 64, dtype: Optional[str] = None) -> PackedMatrix:
    """``w`` packed in square blocks of ``block`` (16, 32, 64 or 128), keeping each block that holds
    a non-zero, its values rounded to ``dtype`` (fp32 by default; fp16 or bf16). ``w``: a NumPy array
    or anything ``numpy.asarray`` takes, a PyTorch tensor, a scipy.sparse matrix, or a
    :class:`PackedMatrix` (packed again at ``block``)."""
    if isinstance(w, PackedMatrix):
        w = w.to_dense()
    elif type(w).__module__.startswith("scipy.sparse"):
        w = w.toarray()
    elif type(w).__module__.split(".")[0] == "torch":
        w = w.detach().float().cpu().numpy()
    parts = _tileskip.pack(np.asarray(w), int(block), dtype or "fp32")
    for note in parts["notes"]:
        warnings.warn(note, ConversionWarning, stacklevel=2)
    return PackedMatrix._of(parts)
