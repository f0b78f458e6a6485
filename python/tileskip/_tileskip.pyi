# Type stubs of the extension behind the tileskip package (python/tileskip_module.cpp). The
# documented API is tileskip/__init__.py; these are its building blocks.
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

version: str
module_folder: str

class _ProblemSpec:
    m: int
    n: int
    k: int
    generator: str
    density_a: float
    density_b: float
    seed: int
    block: int
    def __init__(self) -> None: ...

def matmul(
    a: npt.NDArray[Any], b: npt.NDArray[Any], kernel: str, backend: Optional[str], dtype: str, verify: bool, device: int
) -> Dict[str, Any]: ...
def mlp(
    x: npt.NDArray[Any],
    w1: npt.NDArray[Any],
    w2: npt.NDArray[Any],
    activation: str,
    kernel: str,
    first_kernel: str,
    compare: Optional[str],
    backend: Optional[str],
    dtype: str,
    verify: bool,
    reorder: bool,
    device: int,
) -> Dict[str, Any]: ...
def matmul_device(
    a: Any,
    b: Any,
    c: Any,
    kernel: str,
    stream: int,
    device: int,
    a_host: Optional[npt.NDArray[Any]] = None,
    b_host: Optional[npt.NDArray[Any]] = None,
    timed: bool = True,
) -> Dict[str, Any]: ...
def verify(a: npt.NDArray[Any], b: npt.NDArray[Any], c: npt.NDArray[Any], kernel: str) -> None: ...
def inspect(
    a: npt.NDArray[Any],
    b: npt.NDArray[Any],
    a_source: str,
    b_source: str,
    backend: Optional[str],
    device: int,
    model: Optional[str] = ...,
) -> Dict[str, Any]: ...
def bench(
    a: Optional[npt.NDArray[Any]],
    b: Optional[npt.NDArray[Any]],
    a_source: str,
    b_source: str,
    spec: _ProblemSpec,
    kernel: str,
    backend: Optional[str],
    device: int,
    warmup: int,
    repeat: int,
    baseline: bool,
) -> Dict[str, Any]: ...
def backends(device: int) -> List[Dict[str, Any]]: ...
def kernels() -> List[Dict[str, Any]]: ...
def generators() -> List[Dict[str, str]]: ...
def generate(
    generator: str, rows: int, cols: int, density: float, seed: int, operand: str, block: int, group_size: int
) -> npt.NDArray[np.float32]: ...
def pack(array: npt.NDArray[Any], block: int, dtype: str) -> Dict[str, Any]: ...
def packed_parts(
    shape: Tuple[int, int], block: int, dtype: str, data: npt.NDArray[Any], indices: npt.NDArray[Any], indptr: npt.NDArray[Any]
) -> Dict[str, Any]: ...
def read_packed(path: str) -> Dict[str, Any]: ...
def write_packed(
    path: str, shape: Tuple[int, int], block: int, dtype: str, data: npt.NDArray[Any], indices: npt.NDArray[Any],
    indptr: npt.NDArray[Any]
) -> None: ...
def packed_to_dense(
    shape: Tuple[int, int], block: int, dtype: str, data: npt.NDArray[Any], indices: npt.NDArray[Any], indptr: npt.NDArray[Any]
) -> npt.NDArray[np.float32]: ...
def matmul_packed(
    shape: Tuple[int, int],
    block: int,
    packed_dtype: str,
    data: npt.NDArray[Any],
    indices: npt.NDArray[Any],
    indptr: npt.NDArray[Any],
    b: npt.NDArray[Any],
    kernel: str,
    backend: Optional[str],
    dtype: str,
    verify: bool,
    device: int,
) -> Dict[str, Any]: ...
def close() -> None: ...
