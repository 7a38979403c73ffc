"""The checks torch makes before gather and the scatter family touch memory
(ATen's ScatterGatherChecks.h and the kernel's bounds check), and the numpy key both use."""
from __future__ import annotations

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes
from ..shapes import wrap_dim
from ..tensor import Tensor


def _flat(array: np.ndarray) -> np.ndarray:
    """A 0-d array as one element along one dimension (a view), as the kernels see it."""
    return array.reshape(_nonempty(array.shape))


def _gather_key(index: np.ndarray, dim: int) -> tuple:
    """The numpy key that reads or writes along `dim` at `index` (a 0-d index as 1-d)."""
    index = _flat(index)
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _src_values(src: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The part of a scatter's source the index covers."""
    return _flat(src)[tuple(slice(0, n) for n in _flat(index).shape)]


def _sizes(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _nonempty(shape: tuple[int, ...]) -> tuple[int, ...]:
    """ensure_nonempty_vec: a 0-d tensor counts as one element along one dimension."""
    return shape or (1,)


def _check_gather(a: Tensor, dim: int, index: Tensor, name: str,
                  src: Tensor | None = None, has_src: bool = False) -> int:
    """gather_shape_check / scatter_shape_check, then the kernel's bounds check; `src` is a
    scatter's tensor source (has_src says whether there is one to name). An empty index
    skips every check after the dtypes', as torch returns before them."""
    d = wrap_dim(dim, a.array.ndim)
    if index.array.size and index.dtype is not dtypes.int64 and index.dtype.name != "int32":
        raise TorchRuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not a.dtype:  # scatter_gather_dtype_check, any index
        raise TorchRuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    if index.array.size == 0:
        return d
    own, idx = _nonempty(a.array.shape), _nonempty(index.array.shape)
    if len(own) != len(idx):
        whose = "input" if name == "gather" else "self"
        raise TorchRuntimeError(
            f"Index tensor must have the same number of dimensions as {whose} tensor")
    if name == "gather":
        for i, (n, m) in enumerate(zip(idx, own)):
            if i != d and n > m:
                raise TorchRuntimeError(
                    f"Size does not match at dimension {i} expected index "
                    f"{_sizes(index.array.shape)} to be no larger than self "
                    f"{_sizes(a.array.shape)} apart from dimension {d}")
    else:
        _check_scatter_shape(a, d, index, own, idx, src, has_src)
    size = own[d]
    bad = index.array[(index.array < 0) | (index.array >= size)]
    if bad.size:
        raise TorchRuntimeError(
            f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {d} with size {size}")
    return d


def _check_scatter_shape(a: Tensor, d: int, index: Tensor, own: tuple[int, ...],
                         idx: tuple[int, ...], src: Tensor | None, has_src: bool) -> None:
    wrong = any(i != d and n > m for i, (n, m) in enumerate(zip(idx, own)))
    if not wrong and src is not None:
        src_sizes = _nonempty(src.array.shape)
        for i, n in enumerate(idx):
            m = src_sizes[wrap_dim(i, len(src.array.shape))]  # torch's src.size(i)
            if n > m:
                wrong = True
                break
    if wrong:
        tail = f" and to be no larger size than src {_sizes(src.array.shape)}" if has_src else ""
        raise TorchRuntimeError(
            f"Expected index {_sizes(index.array.shape)} to be no larger than self "
            f"{_sizes(a.array.shape)} apart from dimension {d}{tail}")
    if src is not None and len(_nonempty(src.array.shape)) != len(idx):
        raise TorchRuntimeError(
            "Index tensor must have the same number of dimensions as src tensor")
