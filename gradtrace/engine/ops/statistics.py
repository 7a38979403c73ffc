"""std_mean / var_mean (two-output nodes), cumprod, cummax / cummin, and the
non-differentiable counting and comparing ops: count_nonzero, bincount, isclose,
Tensor.equal, nonzero, argwhere."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import complex as complex_dtypes
from .. import dtypes, reduction_kernels
from ..formulas import Formula, undefined, vjp
from ..limits import reserve
from ..node import Function
from ..pointwise import iterator_layout
from ..shapes import wrap_dim
from ..tensor import Tensor
from .indexing import ScatterAddBackward0
from .norms import VarBackward0, _var_correction
from .reductions import _MISSING, ReturnTypes, raw_dims, reduced, sum_backward
from .scalar import div_scalar, mul_scalar
from .views import saved_int, signed


def _named(name: str) -> type[ReturnTypes]:
    return type(f"{name.capitalize()}Return", (ReturnTypes,), {"__slots__": (),
                                                               "type_name": name})


CummaxReturn, CumminReturn = _named("cummax"), _named("cummin")


def _spread_mean_formulas(spread: str) -> tuple[Formula, ...]:
    """var_mean's / std_mean's: the spread's gradient (`spread`: of {g} and the deviation
    {d} from the mean over {n} elements, correction {c}, a reduced dim put back by {u})
    plus the mean's, {grad}[1] / n."""
    whole = dict(g="{grad}[0]", d="{self} - {self}.mean()", n="{self}.numel()", u="")
    count = "{self}.numel() / {grad}[1].numel()"
    within = dict(d="{self} - {self}.mean({dim}, keepdim=True)", n=count, c="{correction}")
    return (
        vjp("self", spread.format(c="1", **whole) + " + {grad}[1] / {self}.numel()",
            when=(("dim", None), ("correction", None))),
        vjp("self", spread.format(c="{correction}", **whole) + " + {grad}[1] / {self}.numel()",
            when=(("dim", None),)),
        vjp("self", spread.format(g="{grad}[0]", u="", **within)
            + f" + {{grad}}[1] / ({count})", when=(("keepdim", True),)),
        vjp("self", spread.format(g="{grad}[0].unsqueeze({dim})", u=".unsqueeze({dim})", **within)
            + f" + {{grad}}[1].unsqueeze({{dim}}) / ({count})"))


class VarMeanBackward0(VarBackward0):
    """var_mean: two outputs (var, mean) of one node."""

    __slots__ = ()
    formulas = _spread_mean_formulas("2 × {g} × ({d}) / ({n} - {c})")
    multi_output = True

    def forward(self, a: Tensor, dim: tuple[int, ...] | None, correction: Any,
                keepdim: bool) -> list[np.ndarray]:
        spread = super().forward(a, dim, correction, keepdim)
        axes = tuple(range(a.array.ndim)) if dim is None else reduced(dim, a.array.ndim)
        x = a.array
        if x.dtype.kind != "f" or x.size == 0:
            with np.errstate(invalid="ignore"):
                return [spread, np.asarray(np.mean(x, axis=axes, keepdims=keepdim), x.dtype)]
        # std_var_mean_out: one WelfordOps reduction gives both outputs (never the
        # two-pass std_var_all_cpu of a single var/std over everything)
        ddof = 1.0 if correction is None else float(correction)
        return list(reduction_kernels.var_mean_dims(x, axes, ddof, self.takes_sqrt, keepdim))

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if all(g is None for g in grads):
            return (None,)
        return (self.backward(*grads),)

    def _spread_grad(self, grad: Tensor) -> Tensor:
        return self._var_backward(grad)

    def backward(self, g_spread: Tensor | None, g_mean: Tensor | None = None) -> Tensor:
        """torch's var_mean_backward / std_mean_backward."""
        out = self._spread_grad(g_spread) if g_spread is not None else None
        if g_mean is not None:
            x = self.unpack("self")
            a = self.attrs
            dims = a["dim"] or ()
            sizes = x.array.shape
            axes = reduced(dims, len(sizes)) if dims else tuple(range(len(sizes)))
            count = int(np.prod([sizes[d] for d in axes])) if sizes else 1
            aux = div_scalar(sum_backward(g_mean, sizes, dims, a["keepdim"]), count)
            out = aux if out is None else out + aux
        return out


class StdMeanBackward0(VarMeanBackward0):
    __slots__ = ()
    formulas = _spread_mean_formulas("{g} × ({d}) / (({n} - {c}) × {{result0}}{u})")
    label = "std"
    takes_sqrt = True

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result0", outputs[0], is_output=True)

    def _spread_grad(self, grad: Tensor) -> Tensor:
        from .indexing import masked_fill_

        result = self.unpack("result0")
        return self._var_backward(masked_fill_(grad / mul_scalar(result, 2), result == 0, 0))


def _spread_mean(node: type[VarMeanBackward0], a: Tensor, dim: Any, unbiased: Any,
                 keepdim: bool, correction: Any) -> tuple[Tensor, Tensor]:
    if isinstance(dim, bool) and unbiased is _MISSING:
        dim, unbiased = _MISSING, dim
    corr = _var_correction(dim, unbiased, correction)
    raw = None if dim is _MISSING or dim is None else raw_dims(dim, a.array.ndim)
    return tuple(node.call(a, dim=raw, correction=corr, keepdim=keepdim))


def var_mean(a: Tensor, dim: Any = _MISSING, unbiased: Any = _MISSING, keepdim: bool = False,
             *, correction: Any = _MISSING) -> tuple[Tensor, Tensor]:
    return _spread_mean(VarMeanBackward0, a, dim, unbiased, keepdim, correction)


def std_mean(a: Tensor, dim: Any = _MISSING, unbiased: Any = _MISSING, keepdim: bool = False,
             *, correction: Any = _MISSING) -> tuple[Tensor, Tensor]:
    return _spread_mean(StdMeanBackward0, a, dim, unbiased, keepdim, correction)


# -- cumulative ops --------------------------------------------------------------------


class CumprodBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "Σⱼ≥ᵢ {grad}ⱼ × ∏ₖ≤ⱼ,ₖ≠ᵢ {self}ₖ (dim={dim})"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim))
        self.save("self", a)
        x = a.array if a.dtype.is_floating_point else a.array.astype(np.int64)
        if x.ndim == 0:
            return x.copy()
        # (cumprod_out's meta sets a contiguous output)
        if x.dtype.kind == "f":
            return np.asarray(reduction_kernels.cumprod(x, wrap_dim(dim, x.ndim)), order="C")
        return np.cumprod(x, axis=wrap_dim(dim, x.ndim)).astype(x.dtype, order="C")

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        """torch's cumprod_backward: reversed_cumsum(result * grad, dim) / self when no
        input is zero; with zeros, the exact gradient computed directly."""
        x, result = self.unpack("self"), self.unpack("result")
        if x.numel() <= 1:
            return grad
        dim = signed(self.attrs["dim"])
        if not (x.array == 0).any():
            w = result * grad
            return w.flip(dim).cumsum(dim).flip(dim) / x
        return Tensor._wrap(_cumprod_grad_with_zeros(x.array, grad.array,
                                                     wrap_dim(dim, x.ndim)))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return cumprod_jvp(t[0], inputs[0], outs[0], params["dim"])


def cumprod_jvp(self_t: Tensor, self_p: Tensor, result: Tensor, dim: int) -> Tensor:
    """torch's cumprod_jvp: (self_t / self_p).cumsum(dim) * result, with the elements from
    each first zero on taken from cumprod(where(first zero, self_t, self_p))."""
    from .indexing import masked_fill_
    from .reductions import cumsum, where

    gradient = cumsum(self_t / self_p, dim) * result
    if not self_p.array.ndim:
        return masked_fill_(gradient, self_p == 0, self_t)
    mask_zeros = self_p == 0
    first_zero = Tensor._wrap(mask_zeros.array & (cumsum(mask_zeros, dim) == 1).array)
    new_grad = cumprod(where(first_zero, self_t, self_p), dim)
    after_first_zero = Tensor._wrap(cumsum(first_zero, dim).array.astype(bool))
    return where(after_first_zero, new_grad, gradient)


def _cumprod_grad_with_zeros(x: np.ndarray, g: np.ndarray, d: int) -> np.ndarray:
    xm, gm = np.moveaxis(x, d, -1), np.moveaxis(g, d, -1)
    out = np.zeros_like(xm)
    n = xm.shape[-1]
    for idx in np.ndindex(*xm.shape[:-1]):
        row, grow = xm[idx].astype(np.float64), gm[idx].astype(np.float64)
        for i in range(n):
            total = 0.0
            for j in range(i, n):
                total += grow[j] * np.prod(np.delete(row[:j + 1], i))
            out[idx + (i,)] = total
    return np.moveaxis(out, -1, d)


def cumprod(a: Tensor, dim: int, *, dtype: dtypes.DType | None = None) -> Tensor:
    if dtype is not None:
        a = a.to(dtype)
    return CumprodBackward0.call(a, dim=dim)


class _CumExtreme(Function):
    __slots__ = ()
    formulas = (vjp("self", "zeros_like({self}).scatter_add({dim}, {indices}, {grad})"),)
    greater = True

    def forward(self, a: Tensor, dim: int, indices_out: list[np.ndarray]) -> np.ndarray:
        x = a.array
        d = wrap_dim(dim, x.ndim) if x.ndim else 0
        xm = np.moveaxis(x, d, -1) if x.ndim else x.reshape(1)
        values = np.empty_like(xm)
        idx = np.zeros(xm.shape, dtype=np.int64)
        best_v = xm[..., 0].copy()
        best_i = np.zeros(xm.shape[:-1], dtype=np.int64)
        for i in range(xm.shape[-1]):
            cur = xm[..., i]
            # torch keeps the latest of equal values (>= / <=), and a NaN once met
            take = (cur >= best_v) if self.greater else (cur <= best_v)
            take = take | np.isnan(cur) & ~np.isnan(best_v)
            best_v = np.where(take, cur, best_v)
            best_i = np.where(take, i, best_i)
            values[..., i], idx[..., i] = best_v, best_i
        # (cummax_out/cummin_out resize empty outputs: row-major)
        indices = np.asarray(np.moveaxis(idx, -1, d) if x.ndim else idx.reshape(()), order="C")
        indices_out.append(indices)
        self.save_attr(dim=saved_int(dim))
        self.save("indices", Tensor._wrap(indices))
        self.save("self", a)
        return np.asarray(np.moveaxis(values, -1, d) if x.ndim else values.reshape(()),
                          order="C")

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # values: self_t.gather(dim, indices)
        from .indexing import gather

        return gather(t[0], params["dim"], Tensor._wrap(params["indices_out"][-1]))

    def backward(self, grad: Tensor) -> Tensor:
        """torch's cummaxmin_backward: zeros(sizes).scatter_add_(dim, indices, grad)."""
        x = self.unpack("self")
        if x.numel() == 0:
            return x
        zeros = Tensor._wrap(np.zeros(x.shape, dtype=grad.array.dtype))
        return ScatterAddBackward0.call(zeros, grad, dim=signed(self.attrs["dim"]),
                                        index=self.unpack("indices"))


class CummaxBackward0(_CumExtreme):
    __slots__ = ()


class CumminBackward0(_CumExtreme):
    __slots__ = ()
    greater = False


def cummax(a: Tensor, dim: int) -> ReturnTypes:
    sink: list[np.ndarray] = []
    values = CummaxBackward0.call(a, dim=dim, indices_out=sink)
    return CummaxReturn(values, Tensor._wrap(sink[0]))


def cummin(a: Tensor, dim: int) -> ReturnTypes:
    sink: list[np.ndarray] = []
    values = CumminBackward0.call(a, dim=dim, indices_out=sink)
    return CumminReturn(values, Tensor._wrap(sink[0]))


# -- counting and comparing ------------------------------------------------------------


def count_nonzero(a: Tensor, dim: Any = None) -> Tensor:
    axes = None if dim is None else tuple(wrap_dim(d, a.array.ndim) for d in (
        dim if isinstance(dim, (tuple, list)) else (dim,)))
    return Tensor._wrap(np.asarray(np.count_nonzero(a.array, axis=axes), dtype=np.int64))


class NotImplementedBincount(Function):
    """bincount with weights that require grad: torch records NotImplemented."""

    __slots__ = ()
    formulas = (undefined("weights"),)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, weights: Tensor, counts: np.ndarray) -> np.ndarray:
        return counts

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::bincount is not implemented")


NotImplementedBincount.__name__ = "NotImplemented"


def bincount(a: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    arr = a.array
    if arr.ndim != 1 or a.dtype.is_floating_point:
        raise TorchRuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if arr.size and arr.min() < 0:
        raise TorchRuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise TorchRuntimeError("minlength should be >= 0")
    reserve((max(minlength, int(arr.max()) + 1 if arr.size else 0),), 8)
    if weights is None:
        return Tensor._wrap(np.bincount(arr, minlength=minlength).astype(np.int64))
    out_dtype = weights.array.dtype if weights.dtype.is_floating_point else np.float64
    counts = np.bincount(arr, weights=weights.array.astype(np.float64), minlength=minlength)
    return NotImplementedBincount.call(weights, counts=counts.astype(out_dtype))


def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    if a.dtype is not b.dtype:
        raise TorchRuntimeError(
            f"{a.dtype.tensor_type[:-6]} did not match {b.dtype.tensor_type[:-6]}")
    x, y = a.array, b.array
    with np.errstate(invalid="ignore", over="ignore"):
        if a.dtype.is_complex:
            close = _complex_close(x, y, rtol, atol)
        else:
            finite = np.isfinite(x) & np.isfinite(y)
            close = (x == y) | finite & (np.abs(x - y) <= atol + rtol * np.abs(y))
    if equal_nan:
        close = close | (np.isnan(x) & np.isnan(y))
    # (laid out as its first mask, `a == b`: a TensorIterator result over a then b)
    out = Tensor._wrap(iterator_layout(np.asarray(close), x, y))
    out._version_counter.value = 1  # torch combines the masks in place (close.__iand__)
    return out


def _complex_close(x: np.ndarray, y: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """isclose's complex case as torch computes it: x == y, or |x - y| finite and at most
    atol + |rtol * y| (complex products and moduli as torch's kernels round them)."""
    close = x == y
    if rtol == 0 and atol == 0:
        return close
    scaled = complex_dtypes.multiply(y, np.asarray(rtol, y.dtype))
    allowed = atol + complex_dtypes.absolute(scaled)
    actual = complex_dtypes.absolute(complex_dtypes.add(x, y, -1))
    return close | np.isfinite(actual) & (actual <= allowed)


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """torch.allclose / Tensor.allclose: isclose(...).all().item()."""
    return bool(isclose(a, b, rtol, atol, equal_nan).array.all())


def equal(a: Tensor, b: Tensor) -> bool:
    """Tensor.equal / torch.equal: same shape and same values."""
    return a.shape == b.shape and bool(np.array_equal(a.array, b.array))


def nonzero(a: Tensor, *, as_tuple: bool = False) -> Any:
    found = np.nonzero(a.array) if a.array.ndim else np.nonzero(a.array.reshape(1))
    # torch's CPU kernel writes the table column by column: strides (1, rows)
    table = Tensor._wrap(np.stack(found, axis=0).astype(np.int64).T if a.array.ndim
                         else np.zeros((int(bool(a.array)), 0), dtype=np.int64))
    if as_tuple:  # torch: nonzero().unbind(1), views of one table
        from .joins import unbind

        return unbind(table, 1) if a.array.ndim else (Tensor._wrap(found[0].astype(np.int64)),)
    return table


def argwhere(a: Tensor) -> Tensor:
    return nonzero(a)


def nonzero_static(a: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """torch.nonzero_static: nonzero's table cut or padded with fill_value to `size` rows
    (contiguous, unlike nonzero's column-by-column table)."""
    if size < 0:
        raise TorchRuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.stack(np.nonzero(a.array), axis=1).astype(np.int64) if a.array.ndim else \
        np.zeros((int(bool(a.array)), 0), dtype=np.int64)
    reserve((size, a.array.ndim), 8)
    table = np.full((size, a.array.ndim), fill_value, dtype=np.int64)
    kept = min(size, found.shape[0])
    table[:kept] = found[:kept]
    return Tensor._wrap(table)
