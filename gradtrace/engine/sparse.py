"""torch.sparse_coo tensors: the gradients nn.Embedding(sparse=True) makes, the optimizers that
take them (SGD, SparseAdam, Adagrad) and the sparse-dense product of a graph network's
adjacency matrix.

A SparseTensor holds torch's two parts, `indices` (int64, sparse_dim x nnz) and `values`
(nnz x the dense dims), and whether they are coalesced (sorted, each index once). What each op
computes, and in which order, is torch 2.13's CPU kernel (aten/src/ATen/native/sparse:
SparseTensor.cpp's coalesce, SparseTensorMath.cpp's add and addmm). An op given a sparse
tensor that is not in `RUNS` is refused (NotSupportedError naming it), and so is autograd
through a sparse tensor's values: gradients reach dense tensors only.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import LimitExceeded, NotSupportedError, ScriptError, TorchRuntimeError
from . import dtypes, fp32
from .device import CPU, Device
from .grad_mode import GRAD_MODE
from .limits import admit, reserve
from .meta import is_c_contiguous, meta_array
from .ops.std_sort import std_sort_order
from .shapes import wrap_dim
from .tensor import Tensor, bump_version, new_counter, wrap

INVARIANTS_WARNING = (
    "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur "
    "when operating on a sparse tensor which violates the invariants, but checks incur "
    "performance overhead. To silence this warning, explicitly opt in or out. See "
    "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)")


class SparseTensor(Tensor):
    """A tensor of layout torch.sparse_coo. `array` is the dense tensor it stands for, made
    when read (to_dense's values), for the views: past the allocation limits, a meta array of
    its shape (no values). Every op of its own reads `indices` and `values`."""

    __slots__ = ("indices", "values", "coalesced", "sparse_size")
    is_sparse_layout = True

    indices: np.ndarray
    values: Tensor
    coalesced: bool
    sparse_size: tuple[int, ...]

    @property  # type: ignore[override]
    def array(self) -> np.ndarray:
        try:
            return dense_array(self)
        except LimitExceeded:
            return meta_array(self.sparse_size, self.dtype.np)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.sparse_size

    @property
    def ndim(self) -> int:
        return len(self.sparse_size)

    def size(self, dim: int | None = None) -> Any:
        from .shapes import Size, wrap_dim

        if dim is None:
            return Size(self.sparse_size)
        return self.sparse_size[wrap_dim(dim, len(self.sparse_size))]

    def dim(self) -> int:
        return len(self.sparse_size)

    def numel(self) -> int:
        return int(np.prod(self.sparse_size, dtype=np.int64))

    @property
    def device(self) -> Device:
        return CPU

    @property
    def is_meta(self) -> bool:
        return False

    @property
    def data(self) -> Tensor:  # type: ignore[override]
        return detach(self)

    def detach(self) -> Tensor:
        return detach(self)

    def nnz(self) -> int:
        return int(self.indices.shape[1])

    def __repr__(self) -> str:
        from .tensor_str import sparse_repr

        grad_fn = type(self.grad_fn).__name__ if self.grad_fn is not None else None
        return sparse_repr(self.indices, self.values.array, self.sparse_size, self.dtype,
                           grad_fn=grad_fn, requires_grad=self.requires_grad)

    __str__ = __repr__

    # Python's operators: a sparse right operand's reflected method goes first
    def __add__(self, other: Any) -> Any:
        return add(self, other)

    def __radd__(self, other: Any) -> Any:
        return add(other, self)

    def __sub__(self, other: Any) -> Any:
        return add(self, other, alpha=-1)

    def __rsub__(self, other: Any) -> Any:
        return add(other, self, alpha=-1)

    def __mul__(self, other: Any) -> Any:
        return mul(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Any:
        return div(self, other)

    def __neg__(self) -> Tensor:
        return neg(self)

    def __matmul__(self, other: Any) -> Any:
        return mm(self, other)

    def __iadd__(self, other: Any) -> Any:
        return add_(self, other)

    def __imul__(self, other: Any) -> Any:
        return mul_(self, other)


def make(indices: np.ndarray, values: Tensor, size: tuple[int, ...],
         coalesced: bool | None = None) -> SparseTensor:
    """A sparse tensor of these parts; torch counts one of fewer than 2 entries coalesced."""
    t = object.__new__(SparseTensor)
    t.indices = np.ascontiguousarray(indices, dtype=np.int64)
    t.values = values
    t.sparse_size = tuple(int(n) for n in size)
    t.coalesced = t.indices.shape[1] < 2 if coalesced is None else coalesced
    t.dtype = values.dtype
    t.requires_grad = False
    t.grad = None
    t.grad_fn = None
    t.output_nr = 0
    t._version_counter = new_counter()
    t._base = None
    t.retains_grad = False
    t._hooks = None
    t._post_accumulate_hooks = None
    t._accumulator = None
    t._wrapped = False
    t._fw_grad = None
    t.pyclass = None
    admit(t, t.indices)
    return t


def is_sparse(t: Any) -> bool:
    return type(t) is SparseTensor


def sparse_dim(t: SparseTensor) -> int:
    return int(t.indices.shape[0])


def dense_dim(t: SparseTensor) -> int:
    return t.values.array.ndim - 1


def _nnz(t: SparseTensor) -> int:
    return t.nnz()


def detach(t: SparseTensor) -> SparseTensor:
    out = make(t.indices, t.values, t.sparse_size, t.coalesced)
    out._version_counter = t._version_counter
    return out


def clone(t: SparseTensor, **_: Any) -> SparseTensor:
    return make(t.indices.copy(), wrap(np.ascontiguousarray(t.values.array).copy()),
                t.sparse_size, t.coalesced)


def is_coalesced(t: SparseTensor) -> bool:
    return t.coalesced


def _indices(t: SparseTensor) -> Tensor:
    return wrap(t.indices)


def _values(t: SparseTensor) -> Tensor:
    return t.values


def indices(t: SparseTensor) -> Tensor:
    if not t.coalesced:
        raise TorchRuntimeError(
            "Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
    return wrap(t.indices)


def values(t: SparseTensor) -> Tensor:
    if not t.coalesced:
        raise TorchRuntimeError(
            "Cannot get values on an uncoalesced tensor, please call .coalesce() first")
    return t.values


def _linear(indices: np.ndarray, size: tuple[int, ...]) -> np.ndarray:
    """Each entry's position in the sparse dims, row-major (torch's flatten_indices)."""
    linear = np.zeros(indices.shape[1], dtype=np.int64)
    for d in range(indices.shape[0]):
        linear = linear * size[d] + indices[d]
    return linear


def coalesce(t: SparseTensor) -> SparseTensor:
    """torch's _coalesce_sparse_cpu: the entries sorted by std::sort of their linear index
    (not stable), and the values of one index added up in that order (axpy, alpha 1)."""
    if t.coalesced:
        return t
    nnz = t.nnz()
    if nnz < 2:
        out = clone(t)
        out.coalesced = True
        return out
    linear = _linear(t.indices, t.sparse_size)
    order = np.asarray(std_sort_order(linear.tolist()), dtype=np.int64)
    keys = linear[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    values = np.ascontiguousarray(t.values.array)
    out = values[order[starts]].copy()
    ends = np.append(starts[1:], nnz)
    for k in range(1, int(np.max(ends - starts))):  # the k-th copy of each repeated index
        has = ends - starts > k
        rows = np.flatnonzero(has)
        out[rows] = (out[rows] + values[order[starts[rows] + k]]).astype(values.dtype)
    return make(t.indices[:, order[starts]], wrap(out), t.sparse_size, True)


def add_entries(out: np.ndarray, t: SparseTensor, alpha: Any = 1) -> None:
    """out[index] = out[index] + alpha * value for each entry in turn, rounded once (torch's
    add_out_dense_sparse_cpu: the entries as they are, uncoalesced, in their order)."""
    if t.nnz() == 0:
        return
    values = t.values.array.astype(out.dtype)
    for entries in _rounds(_linear(t.indices, t.sparse_size)):
        where = tuple(t.indices[:, entries])
        out[where] = _axpy(out[where], alpha, values[entries])


def dense_array(t: SparseTensor) -> np.ndarray:
    """to_dense's values: zeros plus each entry in turn."""
    reserve(t.sparse_size, t.dtype.itemsize)
    out = np.zeros(t.sparse_size, dtype=t.dtype.np)
    add_entries(out, t)
    return out


def to_dense(t: SparseTensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    out = wrap(dense_array(t))
    return out if dtype is None else out.to(dtype)


def to_sparse(a: Tensor, sparse_dim: int | None = None, *, layout: Any = None,
              blocksize: Any = None, dense_dim: Any = None) -> SparseTensor:
    """Dense to sparse: the nonzero entries (rows with one, past `sparse_dim`) in row-major
    order, coalesced."""
    if type(a) is SparseTensor:
        return a
    if layout is not None or blocksize is not None or dense_dim is not None:
        raise NotSupportedError("to_sparse() with a layout, blocksize or dense_dim is not "
                                "supported by gradtrace: only torch.sparse_coo")
    arr = a.array
    k = arr.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= k <= arr.ndim:
        raise TorchRuntimeError(f"sparse_dim argument must be in [0,{arr.ndim}] range, but "
                                f"{k} is given")
    lead = arr.reshape(arr.shape[:k] + (-1,)) if k < arr.ndim else arr[..., None]
    nonzero = np.nonzero(np.any(lead != 0, axis=-1)) if lead.size else tuple(
        np.zeros(0, np.int64) for _ in range(k))
    idx = np.stack(nonzero) if k else np.zeros((0, 1 if arr.size else 0), np.int64)
    vals = arr[nonzero] if k else arr[None]
    return make(idx, wrap(np.ascontiguousarray(vals)), arr.shape, True)


def _as_tensor(value: Any, dtype: Any = None) -> Tensor:
    if isinstance(value, Tensor):
        return value if dtype is None else value.to(dtype)
    from .ops.creation import tensor

    return tensor(value, dtype=dtype)


_SPARSE_COO_WARNED = [False]


def sparse_coo_tensor(indices: Any, values: Any, size: Any = None, *, dtype: Any = None,
                      device: Any = None, pin_memory: bool = False,
                      requires_grad: bool = False, check_invariants: bool | None = None,
                      is_coalesced: bool | None = None) -> SparseTensor:
    """torch.sparse_coo_tensor: the parts as given (not coalesced unless said so)."""
    from .ops.creation import WARNINGS, OnceWarning

    if check_invariants is None and not _SPARSE_COO_WARNED[0]:
        _SPARSE_COO_WARNED[0] = True
        WARNINGS.append(OnceWarning(f"UserWarning: {INVARIANTS_WARNING}", "sparse_coo_tensor"))
    idx = _as_tensor(indices)
    vals = _as_tensor(values, dtype)
    if (vals.requires_grad and GRAD_MODE.enabled) or requires_grad:
        refuse_autograd("a sparse tensor")
    if idx.dtype is not dtypes.int64:
        idx = idx.to(dtypes.int64)
    k = idx.array.shape[0] if idx.array.ndim else 0
    dense = max(vals.array.ndim - 1, 0)
    if size is not None and len(size) != k + dense:
        raise TorchRuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                                f"len(size) = {len(size)}, sparse_dim = {k}, dense_dim = "
                                f"{dense}")
    if idx.array.ndim != 2:
        raise TorchRuntimeError(f"indices must be sparse_dim x nnz, but got: "
                                f"{list(idx.array.shape)}")
    nnz = idx.array.shape[1]
    if vals.array.ndim == 0 or vals.array.shape[0] != nnz:
        got = vals.array.shape[0] if vals.array.ndim else 0
        raise TorchRuntimeError("indices and values must have same nnz, but got nnz from "
                                f"indices: {nnz}, nnz from values: {got}")
    if size is None:
        if nnz == 0:
            raise NotSupportedError("torch.sparse_coo_tensor without a size and with no "
                                    "entries is not supported by gradtrace: pass its size")
        shape = tuple(int(n) + 1 for n in idx.array.max(axis=1)) + vals.array.shape[1:]
    else:
        shape = tuple(int(n) for n in size)
    out = make(idx.array, wrap(np.ascontiguousarray(vals.array)), shape,
               bool(is_coalesced) if is_coalesced is not None else None)
    return out


def legacy_new(t: SparseTensor, *args: Any) -> SparseTensor:
    """`sparse.new(indices, values, size)` (SparseAdam's make_sparse): no invariant warning."""
    if len(args) != 3:
        raise NotSupportedError("Tensor.new() of a sparse tensor is supported by gradtrace "
                                "only as new(indices, values, size)")
    idx, vals, size = args
    return make(idx.array, vals if vals.array.flags.c_contiguous else
                wrap(np.ascontiguousarray(vals.array)), tuple(size))


_LEGACY_WARNINGS: dict[bool | None, str] = {
    None: ("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
           "torch.sparse_coo_tensor(shape, dtype=, device=). (Triggered internally at "
           "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:684.)"),
    True: ("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  "
           "Please use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=). "
           "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:653.)"),
    False: ("torch.sparse.SparseTensor(indices, values, *, device=) is deprecated.  Please use "
            "torch.sparse_coo_tensor(indices, values, dtype=, device=). (Triggered internally "
            "at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:641.)")}


def legacy_constructor(dtype: dtypes.DType) -> Callable[..., SparseTensor]:
    """torch.sparse.FloatTensor & co: `(indices, values[, size])` keeps the values' dtype
    (measured) with torch's deprecation warning; `(*sizes)` is an empty sparse tensor."""
    def construct(*args: Any, device: Any = None) -> SparseTensor:
        from .ops.creation import WARNINGS, OnceWarning

        empty = bool(args) and all(type(a) is int for a in args)
        if not empty and (len(args) not in (2, 3) or not all(
                isinstance(a, Tensor) for a in args[:2])):
            raise NotSupportedError("torch.sparse's legacy constructors are supported by "
                                    "gradtrace as (indices, values[, size]) or (*sizes)")
        message = _LEGACY_WARNINGS[None if empty else len(args) == 3]
        place = message[message.rindex("tensor_new.cpp"):-2]  # once per place, as torch's
        WARNINGS.append(OnceWarning(f"UserWarning: {message}", place))
        if empty:
            return make(np.zeros((len(args), 0), np.int64),
                        wrap(np.zeros((0,), dtype.np)), args, True)
        idx, vals = args[0], args[1]
        if vals.requires_grad:
            refuse_autograd("a sparse tensor")
        size = tuple(args[2]) if len(args) == 3 else tuple(
            int(n) + 1 for n in idx.array.max(axis=1)) + vals.array.shape[1:]
        return make(idx.array, wrap(np.ascontiguousarray(vals.array)), size)

    return construct


def refuse_autograd(what: str) -> None:
    raise NotSupportedError(f"{what} that requires grad is not supported by "
                            "gradtrace: gradients reach sparse tensors' dense operands only "
                            "(nn.Embedding(sparse=True)'s weight, torch.sparse.mm's dense "
                            "matrix)")


def accumulate(var: Tensor, new: Tensor) -> None:
    """AccumulateGrad with a sparse gradient on either side (torch's accumulateGrad): the
    first is kept (a copy when its values are not contiguous, or grad mode is on), later ones
    added, in place when grad mode is off."""
    grad = var.grad
    if grad is None:
        if type(new) is SparseTensor:
            if not GRAD_MODE.enabled and _contiguous(new.values):
                var.grad = make(new.indices, new.values, new.sparse_size, new.coalesced)
            else:
                var.grad = clone(new)
        else:
            var.grad = wrap(new.array.copy())
    elif GRAD_MODE.enabled:
        var.grad = add(grad, new) if type(grad) is not SparseTensor or type(
            new) is SparseTensor else add(new, grad)
    elif type(grad) is SparseTensor and type(new) is not SparseTensor:
        var.grad = add(new, grad)
    else:
        add_(grad, new)


# -- arithmetic ----------------------------------------------------------------


def _contiguous(values: Tensor) -> bool:
    """torch's is_contiguous of the values: whether add takes its merge path."""
    return is_c_contiguous(values.array)


def _axpy(y: np.ndarray, alpha: float, x: np.ndarray) -> np.ndarray:
    """y + alpha * x as BLAS's saxpy/daxpy rounds it (one fused rounding)."""
    if alpha == 1:
        return (y + x).astype(y.dtype)
    if alpha == -1:
        return (y - x).astype(y.dtype)
    if y.dtype == np.float32:
        return fp32.fma(np.float32(alpha), np.atleast_1d(x), np.atleast_1d(y)).reshape(y.shape)
    return (y + y.dtype.type(alpha) * x).astype(y.dtype)


def _check_same_size(a: Tensor, b: Tensor, sparse_other: bool) -> None:
    if a.shape != b.shape:
        if sparse_other and type(a) is not SparseTensor:
            raise TorchRuntimeError(
                f"add: expected 'self' and 'other' to have same size, but self has size "
                f"{list(a.shape)} while other has size {list(b.shape)} (FYI: dense-sparse "
                "addition does not currently support broadcasting)")
        raise TorchRuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                                f"{list(a.shape)} != {list(b.shape)}")


def _add_sparse(t: SparseTensor, src: SparseTensor, alpha: Any) -> SparseTensor:
    """torch's add_out_sparse_cpu: a merge walk of the two index lists when both values are
    contiguous (it assumes them sorted, and adds where the walk meets equal indices), else
    the entries of both, one after the other (coalesced once nnz outgrows numel)."""
    _check_same_size(t, src, True)
    dtype = dtypes.promote(t.dtype, src.dtype)
    if src.nnz() == 0:
        return make(t.indices.copy(), wrap(t.values.array.astype(dtype.np)), t.sparse_size,
                    t.coalesced)
    if t.nnz() == 0:
        return mul(src, alpha)
    if sparse_dim(t) != sparse_dim(src):
        raise TorchRuntimeError(
            f"add: expected 'self' and 'other' to have same density, but 'self' has "
            f"{sparse_dim(t)} sparse dimensions while 'other' has {sparse_dim(src)} sparse "
            "dimensions")
    tv = t.values.array.astype(dtype.np)
    sv = src.values.array.astype(dtype.np)
    if not (_contiguous(t.values) and _contiguous(src.values)):
        if alpha != 1:
            sv = (sv * dtype.np.type(alpha)).astype(dtype.np)
        out = make(np.concatenate([t.indices, src.indices], 1),
                   wrap(np.concatenate([tv, sv])), t.sparse_size, False)
        return coalesce(out) if out.nnz() > out.numel() else out
    ti, si = t.indices.T.tolist(), src.indices.T.tolist()
    picks: list[tuple[int, int]] = []  # (t entry or -1, src entry or -1)
    i = j = 0
    while i < len(ti) or j < len(si):
        cmp = -1 if i >= len(ti) else 1 if j >= len(si) else (
            0 if ti[i] == si[j] else 1 if ti[i] < si[j] else -1)
        picks.append((i if cmp >= 0 else -1, j if cmp <= 0 else -1))
        i += cmp >= 0
        j += cmp <= 0
    take_t = np.array([p[0] for p in picks])
    take_s = np.array([p[1] for p in picks])
    values = np.zeros((len(picks),) + tv.shape[1:], dtype=dtype.np)
    has_t, has_s = take_t >= 0, take_s >= 0
    values[has_t] = values[has_t] + tv[take_t[has_t]]
    values[has_s] = _axpy(values[has_s], alpha, sv[take_s[has_s]])
    idx = np.where(has_t, t.indices[:, np.maximum(take_t, 0)],
                   src.indices[:, np.maximum(take_s, 0)])
    return make(idx, wrap(values), t.sparse_size, t.coalesced and src.coalesced)


def add_dense_sparse(dense: Tensor, sparse: SparseTensor, alpha: Any, out: np.ndarray
                     ) -> None:
    """dense + alpha * sparse into `out` (dense's values, already there)."""
    _check_same_size(dense, sparse, True)
    add_entries(out, sparse, alpha)


def add(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    if type(a) is SparseTensor:
        if type(b) is not SparseTensor:
            if isinstance(b, Tensor):
                raise TorchRuntimeError(
                    "add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
            return NotImplemented
        return _add_sparse(a, b, alpha)
    if not isinstance(a, Tensor):
        return NotImplemented
    _refuse_grad(a, "add")
    dtype = dtypes.promote(a.dtype, b.dtype)
    out = a.array.astype(dtype.np, copy=True)
    add_dense_sparse(a, b, alpha, out)
    return wrap(out)


def add_(a: Tensor, b: Any, *, alpha: Any = 1) -> Tensor:
    """In place: a sparse self takes the sum's parts; a dense one its values."""
    if type(a) is SparseTensor:
        if type(b) is not SparseTensor:
            raise TorchRuntimeError(
                "add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        r = _add_sparse(a, b, alpha)
        a.indices, a.values, a.coalesced = r.indices, r.values, r.coalesced
        bump_version(a)
        return a
    _refuse_grad(a, "add_")
    if GRAD_MODE.enabled and a.requires_grad and a.is_leaf:
        raise TorchRuntimeError("a leaf Variable that requires grad is being used in an "
                                "in-place operation.")
    add_dense_sparse(a, b, alpha, a.array)
    bump_version(a)
    return a


def _refuse_grad(dense: Tensor, op: str) -> None:
    if GRAD_MODE.enabled and dense.requires_grad and not dense.is_leaf:
        raise NotSupportedError(f"{op}() of a dense tensor that requires grad and a sparse "
                                "tensor is not supported by gradtrace (no autograd through "
                                "sparse operands)")


def mul(a: Any, b: Any) -> Any:
    """sparse * number: the values multiplied (torch's mul_out_sparse_scalar)."""
    s, k = (a, b) if type(a) is SparseTensor else (b, a)
    if isinstance(k, Tensor):
        if k.array.ndim != 0 or type(k) is SparseTensor:
            raise NotSupportedError("multiplying a sparse tensor by a tensor is not "
                                    "supported by gradtrace: only by a number")
    elif not isinstance(k, (int, float, bool)):
        return NotImplemented
    from .ops.arithmetic import mul as dense_mul

    return make(s.indices, dense_mul(s.values, k), s.sparse_size, s.coalesced)


def mul_(a: SparseTensor, b: Any) -> SparseTensor:
    r = mul(a, b)
    a.values = r.values
    bump_version(a)
    return a


def div(a: SparseTensor, b: Any) -> Any:
    if not isinstance(b, (int, float, bool)) and not (
            isinstance(b, Tensor) and type(b) is not SparseTensor and b.array.ndim == 0):
        raise NotSupportedError("dividing a sparse tensor by anything but a number is not "
                                "supported by gradtrace")
    from .ops.arithmetic import div as dense_div

    return make(a.indices, dense_div(a.values, b), a.sparse_size, a.coalesced)


def neg(a: SparseTensor) -> SparseTensor:
    from .ops.arithmetic import neg as dense_neg

    return make(a.indices, dense_neg(a.values), a.sparse_size, a.coalesced)


def zero_(a: SparseTensor) -> SparseTensor:
    """No entries left (torch's zero_ resizes nnz to 0)."""
    a.indices = np.zeros((sparse_dim(a), 0), np.int64)
    a.values = wrap(np.zeros((0,) + a.values.array.shape[1:], a.dtype.np))
    a.coalesced = True
    bump_version(a)
    return a


def sparse_mask(dense: Tensor, mask: Any) -> SparseTensor:
    """The dense tensor's values at the mask's entries, with the mask's indices."""
    if type(mask) is not SparseTensor:
        raise TorchRuntimeError("sparse_mask: expected mask to be a sparse COO tensor")
    if dense.shape != mask.shape:
        raise TorchRuntimeError("sparse_mask(): operands have incompatible sizes; self has "
                                f"size {list(dense.shape)} but mask has size "
                                f"{list(mask.shape)}")
    vals = dense.array[tuple(mask.indices)]
    return make(mask.indices, wrap(np.ascontiguousarray(vals)), mask.sparse_size,
                mask.coalesced)


def t(a: SparseTensor) -> SparseTensor:
    if a.ndim > 2 or sparse_dim(a) != a.ndim:
        raise NotSupportedError("t() of a hybrid or more than 2-d sparse tensor is not "
                                "supported by gradtrace")
    return clone(a) if a.ndim < 2 else transpose(a, 0, 1)


def transpose(a: SparseTensor, dim0: Any, dim1: Any) -> SparseTensor:
    """A copy (torch's clone, then transpose_) with two sparse dims swapped: their rows of the
    indices; torch counts it coalesced only when it has no entry (measured: one entry is not),
    and a dim swapped with itself leaves the copy as it was."""
    d0, d1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
    if d0 == d1:
        return clone(a)
    k = sparse_dim(a)
    if d0 >= k and d1 >= k:
        raise NotSupportedError("transpose() of a sparse tensor's dense dims is not supported "
                                "by gradtrace")
    if d0 >= k or d1 >= k:
        raise TorchRuntimeError(f"sparse transpose: transposed dimensions must be sparse Got "
                                f"sparse_dim: {k}, d0: {d0}, d1: {d1}")
    order = list(range(k))
    order[d0], order[d1] = d1, d0
    size = list(a.sparse_size)
    size[d0], size[d1] = size[d1], size[d0]
    return make(a.indices[order], wrap(np.ascontiguousarray(a.values.array).copy()),
                tuple(size), a.indices.shape[1] == 0)


# -- sparse @ dense ------------------------------------------------------------


def _rounds(keys: np.ndarray) -> list[np.ndarray]:
    """The entries in rounds: each round takes the next entry of every key, in order, so
    entries of one key are applied one after the other and others side by side."""
    n = keys.size
    order = np.argsort(keys, kind="stable")
    ends = np.flatnonzero(np.append(keys[order][1:] != keys[order][:-1], True)) + 1
    starts = np.concatenate(([0], ends[:-1]))
    occurrence = np.empty(n, np.int64)  # how many entries of its key come before it
    occurrence[order] = np.arange(n) - np.repeat(starts, ends - starts)
    by_round = np.argsort(occurrence, kind="stable")
    return np.split(by_round, np.flatnonzero(np.diff(occurrence[by_round])) + 1)


def spmm_array(s: SparseTensor, dense: np.ndarray) -> np.ndarray:
    """torch's sparse-dense addmm with beta 0: each entry in turn, as it is (uncoalesced),
    its row of the result taking value * the dense row with BLAS's fused axpy."""
    reserve((s.sparse_size[0], dense.shape[1]), dense.dtype.itemsize)
    out = np.zeros((s.sparse_size[0], dense.shape[1]), dtype=dense.dtype)
    if s.nnz() == 0:
        return out
    rows, cols = s.indices
    vals = s.values.array.astype(dense.dtype)
    for entries in _rounds(rows):
        r = rows[entries]
        out[r] = _axpy_rows(out[r], vals[entries], dense[cols[entries]])
    return out


def _axpy_rows(y: np.ndarray, alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each row of y plus its own alpha times x's row, rounded once."""
    if y.dtype == np.float32:
        return fp32.fma(alpha[:, None], x, y)
    return (y + alpha[:, None] * x).astype(y.dtype)


def _check_mm(s: SparseTensor, d: Any) -> Tensor:
    if not isinstance(d, Tensor) or type(d) is SparseTensor:
        raise NotSupportedError("a sparse tensor times a sparse tensor is not supported by "
                                "gradtrace: the second operand must be dense")
    if s.ndim != 2 or sparse_dim(s) != 2 or d.array.ndim != 2:
        raise NotSupportedError("sparse matrix products are supported by gradtrace for a 2-d "
                                "sparse matrix times a 2-d dense one")
    if s.sparse_size[1] != d.array.shape[0]:
        raise TorchRuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({s.sparse_size[0]}x"
            f"{s.sparse_size[1]} and {d.array.shape[0]}x{d.array.shape[1]})")
    if s.dtype is not d.dtype:
        raise TorchRuntimeError(f"expected mat1 and mat2 to have the same dtype, but got: "
                                f"{s.dtype.name} != {d.dtype.name}")
    return d


def mm(s: Any, d: Any) -> Tensor:
    """torch.mm(sparse, dense) / sparse @ dense: MmBackward0."""
    from .ops.sparse_products import MmBackward0

    if type(s) is not SparseTensor:
        raise NotSupportedError("a dense tensor times a sparse tensor is not supported by "
                                "gradtrace: put the sparse matrix first")
    return MmBackward0.call(None, _check_mm(s, d), sparse=s)


def sparse_mm(s: Any, d: Any) -> Tensor:
    """torch.sparse.mm(sparse, dense): SparseAddmmBackward0."""
    from .ops.sparse_products import SparseAddmmBackward0

    if type(s) is not SparseTensor:
        return _dense_mm(s, d)
    return SparseAddmmBackward0.call(None, None, _check_mm(s, d), sparse=s)


def _dense_mm(a: Any, b: Any) -> Tensor:
    from .ops import mm as dense_mm

    return dense_mm(a, b)


def to(t: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
    """Tensor.to for a sparse tensor: a dtype casts its values; the CPU is where it is."""
    dtype = kwargs.get("dtype")
    for a in args:
        if type(a) is dtypes.DType:
            dtype = a
        elif not (isinstance(a, (str, Device)) and str(a).startswith("cpu")):
            raise NotSupportedError("Tensor.to() of a sparse tensor is supported by gradtrace "
                                    "with a dtype or the CPU only")
    if dtype is None or dtype is t.dtype:
        return t
    return make(t.indices, t.values.to(dtype), t.sparse_size, t.coalesced)


def requires_grad_(t: SparseTensor, requires_grad: bool = True) -> SparseTensor:
    if requires_grad:
        refuse_autograd("requires_grad_() of a sparse tensor")
    return t


# -- what runs ---------------------------------------------------------------


def _strided_error(name: str, expected: str = "sparse coordinate tensor") -> Callable[..., Any]:
    def method(a: Tensor, *args: Any, **kwargs: Any) -> Any:
        raise TorchRuntimeError(f"{name} expected {expected} layout but got Strided")

    method.__name__ = name
    return method


def _no_cpu_kernel(name: str) -> Callable[..., Any]:
    def method(a: Tensor, *args: Any, **kwargs: Any) -> Any:
        raise ScriptError(f"Could not run 'aten::{name}' with arguments from the 'CPU' "
                          "backend. This could be because the operator doesn't exist for this "
                          "backend, or was omitted during the selective/custom build process "
                          "(if using custom build).", kind="NotImplementedError")

    method.__name__ = name
    return method


DENSE_METHODS: dict[str, Callable[..., Any]] = {
    "to_sparse": to_sparse, "to_sparse_coo": lambda a: to_sparse(a),
    "to_dense": lambda a, dtype=None, *, masked_grad=None: a if dtype is None else a.to(dtype),
    "coalesce": _strided_error("coalesce"), "indices": _strided_error("indices"),
    "is_coalesced": _strided_error("is_coalesced"),
    "values": _strided_error("values", "sparse tensor"),
    "_nnz": _no_cpu_kernel("_nnz"), "_indices": _no_cpu_kernel("_indices"),
    "_values": _no_cpu_kernel("_values"), "sparse_mask": _no_cpu_kernel("sparse_mask"),
    "sparse_dim": lambda a: 0, "dense_dim": lambda a: a.array.ndim,
}
"""The sparse tensors' methods as a dense tensor answers them (measured): a sparse operand
goes to `call` before any of these runs."""

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "coalesce": coalesce, "is_coalesced": is_coalesced, "_indices": _indices,
    "_values": _values, "indices": indices, "values": values, "_nnz": _nnz,
    "sparse_dim": sparse_dim, "dense_dim": dense_dim, "to_dense": to_dense,
    "to_sparse": to_sparse, "clone": clone, "detach": detach, "zero_": zero_,
    "add": add, "add_": add_, "sub": lambda a, b, *, alpha=1: add(a, b, alpha=-alpha),
    "sub_": lambda a, b, *, alpha=1: add_(a, b, alpha=-alpha), "mul": mul, "mul_": mul_,
    "div": div, "neg": neg, "negative": neg, "sparse_mask": sparse_mask, "t": t, "mm": mm,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose,
    "to_sparse_coo": lambda t: t,
    "matmul": mm, "spmm": mm, "new": legacy_new, "requires_grad_": requires_grad_, "to": to,
    "cpu": lambda t, **_: t, "float": lambda t, **_: to(t, dtypes.float32),
    "double": lambda t, **_: to(t, dtypes.float64),
}
"""The ops gradtrace runs as torch does when a sparse tensor is one of their operands."""

METADATA = frozenset("""
    size dim ndimension numel nelement is_floating_point element_size is_complex is_signed
    is_inference is_sparse is_contiguous type
""".split())
"""Tensor methods that read only a sparse tensor's size, dtype or kind: the dense ones
answer for it."""


NO_SPARSE_KERNEL = {"vector_norm": "linalg_vector_norm", "_foreach_norm": "linalg_vector_norm"}
"""Ops torch has no SparseCPU kernel for (its NotImplementedError, measured): a script may
catch it (clip_grad_norm_ of nn.Embedding(sparse=True)'s gradient)."""


def call(name: str, operands: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run op `name` on operands one of which is sparse, as torch does, or refuse it."""
    fn = FUNCTIONS.get(name)
    if name in NO_SPARSE_KERNEL:
        raise ScriptError(f"Could not run 'aten::{NO_SPARSE_KERNEL[name]}' with arguments from "
                          "the 'SparseCPU' backend. This could be because the operator doesn't "
                          "exist for this backend, or was omitted during the selective/custom "
                          "build process (if using custom build).", kind="NotImplementedError")
    if fn is None:
        raise NotSupportedError(f"{name}() of a sparse tensor is not supported by gradtrace: "
                                "sparse tensors support coalesce, to_dense, indices/values, "
                                "+ - * / by numbers, sparse_mask and products with a dense "
                                "matrix")
    return fn(*operands, **kwargs)
