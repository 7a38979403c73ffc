"""torch's linear-algebra functions that are compositions of other ops, recorded as torch
records them: tensordot, inner, kron, vdot, multi_dot / chain_matmul, vecdot,
matrix_power, matrix_norm (and linalg.norm / torch.norm for matrix orders), cond and
linalg.diagonal (LinearAlgebra.cpp's implementations, step by step)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchRuntimeError, TorchTypeError
from .. import blas
from ..formulas import COMPLEX, vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor, type_name
from .clones import clone
from .decompositions import check_matrices, inv, inv_ex
from .linalg import check_dot_operands, dot, matmul, mm
from .spectral import svdvals
from .views import permute, reshape, squeeze, unsafe_view, unsqueeze, view


def _tensor_arg(fname: str, value: Any, pos: int, arg: str) -> None:
    if not isinstance(value, Tensor):
        raise TorchTypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, "
                             f"not {type_name(value)}")


def _dims_pair(a: Tensor, dims: Any) -> tuple[list[int], list[int]]:
    """tensordot's `dims` as torch's Python wrapper reads it: an int n (the last n of a
    with the first n of b), a pair of lists, or a pair of ints."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise TorchRuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.array.ndim:
            raise TorchRuntimeError(
                f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if isinstance(dims, (list, tuple)) and len(dims) == 2:
        d1, d2 = dims
        d1 = [d1] if isinstance(d1, int) else list(d1)
        d2 = [d2] if isinstance(d2, int) else list(d2)
        return d1, d2
    raise TorchRuntimeError(f"tensordot expects dims to be int or Tuple[List[int], List[int]] "
                            f"or List[List[int]] containing two lists, but got dims={dims}")


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """at::tensordot: permute the contracted dims together, reshape to matrices, mm."""
    from .reductions import sum as sum_

    _tensor_arg("tensordot", a, 1, "a")
    _tensor_arg("tensordot", b, 2, "b")
    dims1, dims2 = _dims_pair(a, dims)
    if len(dims1) != len(dims2):
        raise TorchRuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise TorchRuntimeError("both inputs should have same dtype")
    t1, t2, csize = a, b, 1
    for x, y in zip(dims1, dims2, strict=True):
        s1, s2 = a.array.shape[x], b.array.shape[y]
        if s2 == 1:
            t1 = sum_(t1, x, True)
        elif s1 == 1:
            t2 = sum_(t2, y, True)
        else:
            if s1 != s2:
                raise TorchRuntimeError(
                    f"contracted dimensions need to match, but first has size {s1} in dim {x} "
                    f"and second has size {s2} in dim {y}")
            csize *= s1
    c1 = {wrap_dim(d, a.array.ndim) for d in dims1}
    c2 = {wrap_dim(d, b.array.ndim) for d in dims2}
    p1 = [i for i in range(a.array.ndim) if i not in c1] + dims1
    p2 = dims2 + [i for i in range(b.array.ndim) if i not in c2]
    rsizes = [t1.array.shape[i] for i in range(a.array.ndim) if i not in c1] + \
             [t2.array.shape[i] for i in range(b.array.ndim) if i not in c2]
    size1, size2 = math.prod(rsizes[:a.array.ndim - len(c1)]), \
        math.prod(rsizes[a.array.ndim - len(c1):])
    t1, t2 = permute(t1, *p1), permute(t2, *p2)
    if not rsizes:  # both wholly contracted: a dot product of the flattened operands
        t1 = t1 if t1.array.ndim == 1 else reshape(t1, csize)
        t2 = t2 if t2.array.ndim == 1 else reshape(t2, csize)
        return view(dot(t1, t2), ())
    t1 = reshape(t1, size1, csize)
    t2 = reshape(t2, csize, size2)
    return view(mm(t1, t2), tuple(rsizes))


def inner(a: Tensor, b: Tensor) -> Tensor:
    from .arithmetic import mul

    _tensor_arg("inner", a, 1, "input")
    _tensor_arg("inner", b, 2, "other")
    if a.array.ndim == 0 or b.array.ndim == 0:
        return mul(a, b)
    if a.array.shape[-1] != b.array.shape[-1]:
        raise TorchRuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"[{', '.join(map(str, a.array.shape))}] and [{', '.join(map(str, b.array.shape))}]")
    return tensordot(a, b, ([-1], [-1]))


def kron(a: Tensor, b: Tensor) -> Tensor:
    """at::kron: interleave the dims of a and b with ones, multiply, merge pairs."""
    from .arithmetic import mul

    _tensor_arg("kron", a, 1, "input")
    _tensor_arg("kron", b, 2, "other")
    nd = max(a.array.ndim, b.array.ndim)
    pad_a, pad_b = nd - a.array.ndim, nd - b.array.ndim
    a_shape, b_shape, r_shape = [], [], []
    for i in range(nd):
        sa = a.array.shape[i - pad_a] if i >= pad_a else 1
        sb = b.array.shape[i - pad_b] if i >= pad_b else 1
        a_shape += [sa, 1]
        b_shape += [1, sb]
        r_shape.append(sa * sb)
    return unsafe_view(mul(unsafe_view(a, tuple(a_shape)), unsafe_view(b, tuple(b_shape))),
                       tuple(r_shape))


class VdotBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "conj({grad}) × {other}", when=(COMPLEX,)),
                vjp("self", "{grad} × {other}"), vjp("other", "{grad} × {self}"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        check_dot_operands(a, b)
        self.save("self", a if b.requires_grad else None)
        self.save("other", b if a.requires_grad else None)
        return np.asarray(blas.dot(a.array, b.array, conjugate_first=True))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::vdot(self_t, other_p) + at::vdot(self_p, other_t)
        a, b = inputs
        return VdotBackward0.call(t[0], b) + VdotBackward0.call(a, t[1])

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        """grad.conj() * other and grad * self (derivatives.yaml's vdot)."""
        from .complex_ops import conj_physical

        ga = conj_physical(grad) * self.unpack("other") if self.needs_input_grad(0) else None
        gb = grad * self.unpack("self") if self.needs_input_grad(1) else None
        return ga, gb


def vdot(a: Tensor, b: Tensor) -> Tensor:
    return VdotBackward0.call(a, b)


def _chain_order(sizes: list[int]) -> list[list[int]]:
    """matrix_chain_order: the split of every sub-chain with the fewest multiplications
    (the first best split, as torch's strict `<` keeps)."""
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if cost[i][j] < 0 or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(tensors: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return tensors[i]
    k = split[i][j]
    # torch's at::mm(left, right) call: GCC evaluates the arguments right to left, so the
    # right sub-chain's nodes come first (and run last in backward)
    right = _chain(tensors, split, k + 1, j)
    return mm(_chain(tensors, split, i, k), right)


def multi_dot(tensors: Any, fname: str = "multi_dot") -> Tensor:
    """torch.linalg.multi_dot: mm in the cheapest order; 1-D ends as a row / column."""
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise TorchRuntimeError(f"{fname}(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.array.ndim not in (1, 2):
        raise TorchRuntimeError(
            f"{fname}(): the first tensor must be 1D or 2D but got {first.array.ndim}D")
    if last.array.ndim not in (1, 2):
        raise TorchRuntimeError(
            f"{fname}(): the last tensor must be 1D or 2D but got {last.array.ndim}D")
    for i in range(1, n - 1):
        if tensors[i].array.ndim != 2:
            raise TorchRuntimeError(f"{fname}(): tensor {i} must be 2D but got "
                                    f"{tensors[i].array.ndim}D")
    out_shape = []
    if first.array.ndim == 2:
        out_shape.append(first.array.shape[0])
    if last.array.ndim == 2:
        out_shape.append(last.array.shape[1])
    mats = list(tensors)
    if first.array.ndim == 1:
        mats[0] = unsqueeze(first, 0)
    if last.array.ndim == 1:
        mats[-1] = unsqueeze(last, -1)
    for i in range(n - 1):
        if mats[i].array.shape[1] != mats[i + 1].array.shape[0]:
            s1 = ", ".join(map(str, tensors[i].array.shape))
            s2 = ", ".join(map(str, tensors[i + 1].array.shape))
            raise TorchRuntimeError(f"{fname}(): tensors {i} and {i + 1} with shapes [{s1}] and "
                                    f"[{s2}] cannot be multiplied")
        if mats[i].dtype is not mats[0].dtype or mats[-1].dtype is not mats[0].dtype:
            raise TorchRuntimeError(
                f"{fname}(): all tensors must have be the same dtype but tensor 0 is "
                f"{mats[0].dtype.name} and tensor {i + 1} {mats[i + 1].dtype.name}")
    if n == 2:
        result = mm(mats[0], mats[1])
    elif n == 3:
        a, b = mats[0].array.shape
        c, d = mats[2].array.shape
        cost_1 = (a * c) * (b + d)
        cost_2 = (b * d) * (a + c)
        result = mm(mats[0], mm(mats[1], mats[2])) if cost_1 > cost_2 \
            else mm(mm(mats[0], mats[1]), mats[2])
    else:
        sizes = [m.array.shape[0] for m in mats] + [mats[-1].array.shape[1]]
        result = _chain(mats, _chain_order(sizes), 0, n - 1)
    return view(result, tuple(out_shape))


def chain_matmul(*matrices: Tensor) -> Tensor:
    from .creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(
        "UserWarning: torch.chain_matmul is deprecated and will be removed in a future "
        "PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
        "more tensors rather than multiple parameters. (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1102.)",
        "torch.chain_matmul"))
    if len(matrices) == 1:
        return clone(matrices[0])
    return multi_dot(matrices, "chain_matmul")


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    from .arithmetic import mul
    from .reductions import sum as sum_

    return sum_(mul(x, y), dim)


def linalg_diagonal(a: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    from .matrices import diagonal

    return diagonal(a, offset, dim1, dim2)


def matrix_power(a: Tensor, n: int) -> Tensor:
    """Binary exponentiation with matmul (torch's linalg_matrix_power_impl); A⁻¹ first for
    a negative n, a copy of the identity for n = 0."""
    from .creation import eye
    from .view_inplace import copy_
    from .views import expand_as

    check_matrices(a, "linalg.matrix_power")
    if n == 0:
        ident = eye(a.array.shape[-1], dtype=a.dtype)
        return copy_(clone(a), expand_as(ident, a))
    base = inv(a) if n < 0 else a
    n = abs(n)
    if n == 1:
        return clone(base)
    if n == 2:
        return matmul(base, base)
    if n == 3:
        return matmul(matmul(base, base), base)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = base if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    assert result is not None
    return result


def _matrix_dims(a: Tensor, dim: Any, fname: str) -> tuple[int, int]:
    dims = tuple(dim)
    if len(dims) != 2:
        raise TorchRuntimeError(f"{fname}: dim must be a 2-tuple. Got "
                                f"{' '.join(map(str, dims))}")
    d0, d1 = wrap_dim(dims[0], a.array.ndim), wrap_dim(dims[1], a.array.ndim)
    if d0 == d1:
        raise TorchRuntimeError(f"{fname}: dims must be different. Got ({dims[0]}, {dims[1]})")
    return d0, d1


def matrix_norm(a: Tensor, ord: Any = "fro", dim: Any = (-2, -1),  # noqa: A002
                keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """linalg.matrix_norm: Frobenius and nuclear by string, ±1 / ±inf through vector norms,
    ±2 through the singular values."""
    from .norms import vector_norm
    from .reductions import amax, amin
    from .reductions import sum as sum_

    fname = "linalg.matrix_norm"
    # ATen checks the order first, then A's dims (_linalg_matrix_norm_checks); a number
    # prints as c10's Scalar does (3.0 as 3)
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise TorchRuntimeError(f"{fname}: Order {ord} not supported.")
    elif abs(ord) not in (1, 2, math.inf):
        shown = ord if isinstance(ord, int) else f"{float(ord):g}"
        raise TorchRuntimeError(f"{fname}: Order {shown} not supported.")
    if a.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: The input tensor A must have at least 2 "
                                "dimensions.")
    d0, d1 = _matrix_dims(a, dim, fname)
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(a, 2, (d0, d1), keepdim)
        return _svd_reduce(a, d0, d1, keepdim, sum_)
    abs_ord = abs(ord)
    reduce = amax if ord > 0 else amin
    if abs_ord == 2:
        return _svd_reduce(a, d0, d1, keepdim, reduce)
    if abs_ord == math.inf:
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    return reduce(vector_norm(a, 1.0, (d0,), keepdim), (d1,), keepdim)


def _svd_reduce(a: Tensor, d0: int, d1: int, keepdim: bool, reduce: Any) -> Tensor:
    """max/min/sum of the singular values over the matrices in dims (d0, d1)."""
    if a.dtype.is_complex:
        raise NotSupportedError("the nuclear and spectral norms of a complex matrix are not "
                                "supported by gradtrace")
    nd = a.array.ndim
    perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
    result = reduce(svdvals(permute(a, *perm)), (-1,), keepdim)
    if keepdim:  # the reduced pair back where it was: unsqueeze, then the inverse permutation
        result = unsqueeze(result, -1)
        return permute(result, *[perm.index(i) for i in range(nd)])
    return result


def linalg_norm(a: Tensor, ord: Any = None, dim: Any = None,  # noqa: A002
                keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """torch.linalg.norm: a matrix norm when ord is given for a matrix (or dim is a pair),
    else the vector norm."""
    from .norms import vector_norm

    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
    if ord is not None:
        as_matrix = (dim is not None and not isinstance(dim, int) and len(dim) == 2) or \
            (dim is None and a.array.ndim == 2)
        if as_matrix or isinstance(ord, str):
            return matrix_norm(a, ord, (-2, -1) if dim is None else dim, keepdim)
        return vector_norm(a, ord, dim, keepdim)
    if dim is not None and not isinstance(dim, int) and len(dim) == 2:
        return matrix_norm(a, "fro", dim, keepdim)
    return vector_norm(a, 2.0, dim, keepdim)


def torch_norm(a: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
               dtype: Any = None) -> Tensor:
    """torch.norm / Tensor.norm as torch.functional.norm builds them for a strided tensor:
    "fro" over no dim, one dim or two is the vector 2-norm, any other string (or "fro" over
    more dims) linalg.matrix_norm over the dims given (all of them by default), whose checks
    refuse what it cannot take ("dim must be a 2-tuple", "Order inf not supported"); a
    number (or None, the 2-norm) is a vector norm."""
    from .norms import norm

    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return norm(a, 2, dim, keepdim, dtype)
        dims = list(range(a.array.ndim)) if dim is None else \
            [dim] if isinstance(dim, int) else dim
        return matrix_norm(a, p, dims, keepdim)
    return norm(a, p, dim, keepdim, dtype)


def cond(a: Tensor, p: Any = None) -> Tensor:
    """linalg.cond as torch 2.13 builds it: for the 2-norm the ratio of extreme singular
    values, for 'nuc' sum(S) * sum(1/S) of one svdvals, else ‖A‖ ‖A⁻¹‖ with inv_ex's
    inverse filled with inf in place where A is singular (so a backward through it meets
    torch's modified-by-an-inplace-operation error) and the product's nan turned to inf."""
    from .arithmetic import div, gt, mul
    from .float_ops import nan_to_num_
    from .indexing import masked_fill_
    from .reductions import sum as sum_
    from .select_views import narrow
    from .shape_inplace import unsqueeze_
    from .unary import reciprocal

    check_matrices(a, "linalg.cond", square=p not in (None, 2, -2))
    if p is None or p in (2, -2):
        s = svdvals(a)
        k = s.array.shape[-1]
        big, small = narrow(s, -1, 0, 1), narrow(s, -1, k - 1, 1)
        ratio = div(big, small) if p != -2 else div(small, big)
        return squeeze(ratio, -1)
    if p == "nuc":
        s = svdvals(a)
        return mul(sum_(s, -1), sum_(reciprocal(s), -1))
    inverse, info = inv_ex(a)
    unsqueeze_(unsqueeze_(info, -1), -1)
    masked_fill_(inverse, gt(info, 0), math.inf)
    result = mul(matrix_norm(a, p), matrix_norm(inverse, p))
    return nan_to_num_(result, math.inf, math.inf, -math.inf)


def _linalg_tables() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    from . import decompositions as dec
    from . import spectral as spec

    linalg = {
        "det": dec.det, "slogdet": dec.slogdet, "inv": dec.inv, "inv_ex": dec.inv_ex,
        "solve": dec.linalg_solve, "solve_ex": dec.solve_ex,
        "solve_triangular": dec.solve_triangular, "cholesky": dec.cholesky,
        "cholesky_ex": dec.cholesky_ex, "qr": dec.qr, "svd": spec.svd, "svdvals": spec.svdvals,
        "eigh": spec.eigh, "eigvalsh": spec.eigvalsh, "eig": spec.eig, "eigvals": spec.eigvals,
        "pinv": spec.pinv, "matrix_rank": spec.matrix_rank,
        "lstsq": spec.lstsq, "matrix_norm": matrix_norm,
        "norm": linalg_norm, "matrix_power": matrix_power, "multi_dot": multi_dot,
        "vecdot": vecdot, "diagonal": linalg_diagonal, "cond": cond, "tensordot": tensordot,
    }
    methods = {
        "det": dec.det, "logdet": dec.logdet, "slogdet": dec.torch_slogdet,
        "inverse": dec.inv, "pinverse": spec.pinverse, "matrix_power": matrix_power,
        "qr": dec.torch_qr, "cholesky": dec.torch_cholesky, "svd": spec.torch_svd,
        "kron": kron, "inner": inner, "vdot": vdot, "norm": torch_norm,
    }
    from .cdist import cdist

    functions = {**methods, "tensordot": tensordot, "chain_matmul": chain_matmul,
                 "cdist": cdist}
    return linalg, methods, functions


# torch.linalg, the Tensor methods, and the torch.<name> functions this module adds
LINALG_FUNCTIONS, TENSOR_METHODS, TORCH_FUNCTIONS = _linalg_tables()
