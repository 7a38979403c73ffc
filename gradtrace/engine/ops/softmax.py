"""softmax and log_softmax: the ops (nodes, saved values, backward) and ATen's CPU kernels
(SoftMaxKernel.cpp) in torch's order.

Along the last dim torch works row by row on whole vectors (`vec::reduce_all`,
`vec::map_reduce_all`: the first vector, then vector adds, a zero-padded tail into its
lanes, then the lanes summed by the shuffle tree); along another dim it sums down the dim
one position after another, vectors of positions taking SLEEF's exp and the last
`inner % lanes` positions the scalar libm. softmax multiplies by the reciprocal of the sum
along the last dim and divides elsewhere; log_softmax subtracts the max and then the log.

The exp and log of a vector lane and of a scalar tail are `vector_exp`, `scalar_exp` and
`vector_log` below: SLEEF's exp/log u10 in the FMA builds, libm's per lane in the default
build and in scalar tails (float32 and float64).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import NotSupportedError, ScriptError, TorchRuntimeError, TorchTypeError
from .. import capability, dtypes, kernels
from ..dtypes import DType
from ..formulas import vjp
from ..kernels import precise
from ..node import Function
from ..reduction_order import first_sum, lane_sum, reduce_all_sum, seq_sum
from ..shapes import wrap_dim
from ..tensor import Tensor, type_name
from .creation import WARNINGS, PlacedWarning
from .fused import multiply_add
from .views import saved_int, signed, warn


def _lanes(dtype: np.dtype) -> int:
    """SoftMaxKernel.cpp registers its kernels for AVX-512 too (ALSO_REGISTER_AVX512_DISPATCH,
    measured): its vectors are AVX-512's under that capability."""
    return capability.lanes(np.dtype(dtype).itemsize,
                            capability.kernel(capability.AVX512_KERNEL))


def _not_implemented(kernel: str, dtype: Any) -> Exception:
    from ...errors import ScriptError

    return ScriptError(f"\"{kernel}\" not implemented for '{dtype.scalar_type}'",
                       kind="NotImplementedError")


def _lib(x: np.ndarray, vector: bool) -> dict[str, Any]:
    """Vectorized<T>'s exp and log (SLEEF's u10 in the FMA builds, libm per lane in the
    default build) or the scalar tails' std:: ones, for float32 and float64; other dtypes
    (computed in float64 and rounded once) have None."""
    if x.dtype not in (np.float32, np.float64):
        return {"exp": None, "log": None}
    return kernels.vector_lib(x.dtype) if vector else kernels.scalar_lib(x.dtype)


def vector_exp(x: np.ndarray) -> np.ndarray:
    """exp of vector lanes."""
    with np.errstate(over="ignore", invalid="ignore"):
        exp = _lib(x, True)["exp"]
        if exp is None:
            return precise(np.exp, x)
        return exp(np.asarray(x).reshape(-1)).reshape(np.shape(x))


def scalar_exp(x: np.ndarray) -> np.ndarray:
    """exp of scalar-tail elements (std::exp)."""
    with np.errstate(over="ignore", invalid="ignore"):
        exp = _lib(x, False)["exp"]
        if exp is None:
            return precise(np.exp, x)
        return exp(np.asarray(x).reshape(-1)).reshape(np.shape(x))


def vector_log(x: np.ndarray) -> np.ndarray:
    """log of vector lanes; `vec::map` sends a partial vector's elements through it too."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log = _lib(x, True)["log"]
        if log is None:
            return precise(np.log, x)
        return log(np.asarray(x).reshape(-1)).reshape(np.shape(x))


# -- kernels --------------------------------------------------------------------------------


def _split(x: np.ndarray, d: int) -> np.ndarray:
    """(outer, dim, inner) view of a contiguous copy, as host_softmax sees its input."""
    shape = x.shape
    outer = int(np.prod(shape[:d], dtype=np.int64))
    inner = int(np.prod(shape[d + 1:], dtype=np.int64))
    return np.ascontiguousarray(x).reshape(outer, shape[d], inner)


def _inner_exp(shifted: np.ndarray) -> np.ndarray:
    """exp over (outer, dim, inner): inner positions in whole vectors take the vector exp,
    the last `inner % lanes` the scalar one."""
    inner = shifted.shape[-1]
    split = inner - inner % _lanes(shifted.dtype)
    out = np.empty_like(shifted)
    out[..., :split] = vector_exp(shifted[..., :split])
    out[..., split:] = scalar_exp(shifted[..., split:])
    return out


def _softmax_vector_positions(outer: int, inner: int, width: int) -> np.ndarray:
    """Which (outer, inner) positions _vec_softmax computes with vectors: it walks the flat
    positions of each thread's parallel_for range (grain 0: one range a thread) and takes a
    vector where `width` positions remain both in the inner row and in the range, else
    the scalar code up to the row's or the range's end."""
    total = outer * inner
    mask = np.zeros(total, bool)
    threads = capability.num_threads() if total > 1 else 1
    chunk = -(-total // threads)
    for begin in range(0, total, chunk):
        end = min(total, begin + chunk)
        idx = begin
        while idx < end:
            inner_idx = idx % inner
            if inner_idx + width <= inner and idx + width <= end:
                mask[idx:idx + width] = True
                idx += width
            else:
                idx += end - idx if idx + width > end else inner - inner_idx
    return mask.reshape(outer, inner)


def softmax_values(x: np.ndarray, d: int) -> np.ndarray:
    """_vec_softmax_lastdim / _vec_softmax (whose exp is the vector one at the positions
    `_softmax_vector_positions` gives, the scalar one elsewhere)."""
    if x.dtype == np.float16:
        return _softmax_half(x, d)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if d == x.ndim - 1:
            e = vector_exp(x - np.max(x, axis=-1, keepdims=True))
            total = reduce_all_sum(e, _lanes(e.dtype))
            return e * (x.dtype.type(1) / total)[..., None]
        e, _ = _dim_exps(x, d, _lanes(x.dtype))
        total = seq_sum(np.swapaxes(e, 1, 2))
        return (e / total[:, None, :]).reshape(x.shape)


def _dim_exps(x: np.ndarray, d: int, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """_vec_softmax's exps along dim `d` (not the last), x split (outer, d, inner): the
    vector exp at the positions `_softmax_vector_positions` gives for `lanes`, the scalar
    one elsewhere; and those vector positions."""
    v = _split(x, d)
    shifted = v - np.max(v, axis=1, keepdims=True)
    vector = np.broadcast_to(_softmax_vector_positions(
        v.shape[0], v.shape[2], lanes)[:, None, :], v.shape)
    e = np.empty_like(shifted)
    e[vector] = vector_exp(shifted[vector])
    e[~vector] = scalar_exp(shifted[~vector])
    return e, vector


def log_softmax_values(x: np.ndarray, d: int) -> np.ndarray:
    """_vec_log_softmax_lastdim / _vec_logsoftmax: (x - max) - log(sum(exp(x - max)))."""
    if x.dtype == np.float16:
        return _log_softmax_half(x, d)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if d == x.ndim - 1:
            shifted = x - np.max(x, axis=-1, keepdims=True)
            logs = vector_log(reduce_all_sum(vector_exp(shifted), _lanes(shifted.dtype)))
            return shifted - logs[..., None]
        v = _split(x, d)
        shifted = v - np.max(v, axis=1, keepdims=True)
        logs = vector_log(seq_sum(np.swapaxes(_inner_exp(shifted), 1, 2)))
        return (shifted - logs[:, None, :]).reshape(x.shape)


def _softmax_half(x: np.ndarray, d: int) -> np.ndarray:
    """The reduced-precision kernels on float16 compute in float and round the result. Along
    the last dim that is the float kernel's row; along another dim _vec_softmax's vectors are
    Vectorized<Half>'s (16 positions on AVX2, each converted to two float vectors), and its
    scalar positions round each exp to half before dividing it by the float sum (measured)."""
    x32 = x.astype(np.float32)
    if d == x.ndim - 1:
        return softmax_values(x32, d).astype(np.float16)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e, vector = _dim_exps(x32, d, _lanes(np.float16))
        total = np.broadcast_to(seq_sum(np.swapaxes(e, 1, 2))[:, None, :], e.shape)
        out = e / total
        out[~vector] = e[~vector].astype(np.float16).astype(np.float32) / total[~vector]
        return out.astype(np.float16).reshape(x.shape)


def _log_softmax_half(x: np.ndarray, d: int) -> np.ndarray:
    """float16 in float. Along another dim the float kernel's values are rounded once; along
    the last dim the row's sum of exp(x - max) and its log are each rounded to half before
    (x - max) - log is taken in float and rounded (measured: rounding only the result, or
    only the log, leaves last-bit differences in about one value in eight)."""
    x32 = x.astype(np.float32)
    if d != x.ndim - 1:
        return log_softmax_values(x32, d).astype(np.float16)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        shifted = x32 - np.max(x32, axis=-1, keepdims=True)
        total = reduce_all_sum(vector_exp(shifted), _lanes(np.float32))
        half = np.float16
        logs = vector_log(total.astype(half).astype(np.float32)).astype(half)
        return (shifted - logs.astype(np.float32)[..., None]).astype(half)


def softmax_backward_values(g: np.ndarray, y: np.ndarray, d: int) -> np.ndarray:
    """_vec_host_softmax_backward_lastdim / _vec_softmax_backward: y * (g - sum(g * y))
    (the lastdim kernel writes (g - sum) * y). Along another dim the AVX2 build fuses
    `sum += g * y` into FMAs; along the last (map2_reduce_all) it rounds the products of
    whole vectors and those of the zero-padded tail as `_map2_reduce_sum` says. float16
    runs the float kernel and rounds once (measured, both dims)."""
    if y.dtype == np.float16:
        return softmax_backward_values(g.astype(np.float32), y.astype(np.float32),
                                       d).astype(np.float16)
    if d == y.ndim - 1:
        return (g - _map2_reduce_sum(g, y)[..., None]) * y
    gv, yv = _split(g, d), _split(y, d)
    total = np.zeros((gv.shape[0], gv.shape[2]), gv.dtype)
    for k in range(gv.shape[1]):
        total = multiply_add(gv[:, k], yv[:, k], total, gv.dtype)
    return (yv * (gv - total[:, None, :])).reshape(y.shape)


def _map2_reduce_sum(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """vec::map2_reduce_all(x * y, +) over the last axis. GCC inlines the row loop twice
    (at::parallel_for's serial call and its OpenMP body) and contracts differently: the
    zero-padded tail is fused when the rows run serially (one row, or one thread), not
    when they run in parallel (measured on AVX2)."""
    size = g.shape[-1]
    width = _lanes(g.dtype)
    if size < width:
        return first_sum(g * y) if size else np.zeros(g.shape[:-1], g.dtype)
    nvec = size // width
    acc = g[..., :width] * y[..., :width]
    for k in range(1, nvec):
        acc += g[..., k * width:(k + 1) * width] * y[..., k * width:(k + 1) * width]
    tail = size - nvec * width
    if tail:
        rows = int(np.prod(g.shape[:-1]))
        if rows == 1 or capability.num_threads() == 1:
            acc[..., :tail] = multiply_add(g[..., nvec * width:], y[..., nvec * width:],
                                           acc[..., :tail], g.dtype)
        else:
            acc[..., :tail] += g[..., nvec * width:] * y[..., nvec * width:]
    return lane_sum(acc)


def log_softmax_backward_values(g: np.ndarray, y: np.ndarray, d: int) -> np.ndarray:
    """_vec_host_softmax_backward_lastdim<log> / _vec_log_softmax_backward:
    g - exp(y) * sum(g), fused into one rounding by the AVX2 build (measured); float16 runs
    the float kernel and rounds once (measured, both dims)."""
    if y.dtype == np.float16:
        return log_softmax_backward_values(g.astype(np.float32), y.astype(np.float32),
                                           d).astype(np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        if d == y.ndim - 1:
            total = reduce_all_sum(g, _lanes(g.dtype))[..., None]
            e = vector_exp(y)
        else:
            gv, yv = _split(g, d), _split(y, d)
            total = seq_sum(np.swapaxes(gv, 1, 2))[:, None, :]
            e = _inner_exp(yv).reshape(y.shape)
            total = np.broadcast_to(total, gv.shape).reshape(y.shape)
        return multiply_add(-e, np.broadcast_to(total, e.shape), g, y.dtype)


# -- the ops -------------------------------------------------------------------------------


def _forward(node: Function, a: Tensor, dim: int, kernel: str,
             values: Callable[[np.ndarray, int], np.ndarray],
             at_0d: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """softmax and log_softmax alike: torch's kernel-name error for integer input, the saved
    dim, and a 0-d input's constant result."""
    x = a.array
    if not a.dtype.is_floating_point:
        last = x.ndim == 0 or wrap_dim(dim, x.ndim) == x.ndim - 1
        raise _not_implemented(f"{kernel}_{'lastdim_' if last else ''}kernel_impl", a.dtype)
    d = wrap_dim(dim, x.ndim)
    node.save_attr(dim=saved_int(dim))
    # (the kernels write a contiguous result: host_softmax's output is row-major)
    return at_0d(x) if x.ndim == 0 else np.asarray(values(x, d), order="C")


def _backward(node: Function, grad: Tensor, data_op: type[Function]) -> Tensor:
    """The backward as torch's `_(log_)softmax_backward_data` op (a node of its own under
    create_graph); a 0-d result's gradient is zero."""
    result = node.unpack("result")
    if result.array.ndim == 0:
        return grad * 0.0
    return data_op.call(grad, result, dim=node.attrs["dim"])


def _as_rows(values: Callable[[np.ndarray, np.ndarray, int], np.ndarray], g: np.ndarray,
             y: np.ndarray, dim: Any) -> np.ndarray:
    """A backward kernel on grad g and output y along dim; the kernels take a 0-d tensor as
    one element (measured: _softmax_backward_data(tensor(2.), tensor(.5), 0) is 0.5)."""
    g = g.astype(y.dtype, copy=False)
    if y.ndim == 0:
        return values(g.reshape(1), y.reshape(1), 0).reshape(())
    return values(g, y, signed(dim) % y.ndim)


def _backward_data(kernel: str, data_op: type[Function], grad_output: Tensor, output: Tensor,
                   dim: int, input_dtype: DType) -> Tensor:
    """torch._softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim,
    input_dtype) called from a script: the meta function's checks (the same size for the
    softmax one only, dim in range of grad's), the result in grad's dtype (float16 when grad
    is float32 and input_dtype float16, which the CPU kernel then refuses), the kernel's
    dtype dispatch on grad and its scalar-type checks of the result and of output."""
    if grad_output.shape != output.shape:
        if kernel == "softmax":
            raise TorchRuntimeError(
                f"Expected tensor for argument #1 'grad' to have same size as tensor for "
                f"argument #2 'output'; but {list(grad_output.shape)} does not equal "
                f"{list(output.shape)} (while checking arguments for softmax_backward)")
        raise NotSupportedError("torch._log_softmax_backward_data of a grad_output and an "
                                "output of different sizes reads past output (torch checks "
                                "no sizes): not supported by gradtrace")
    d = wrap_dim(dim, grad_output.ndim)
    dtype = grad_output.dtype
    if not dtype.is_floating_point:
        last = grad_output.ndim == 0 or d == grad_output.ndim - 1
        raise _not_implemented(f"{kernel}_backward_{'lastdim_' if last else ''}kernel_impl",
                               dtype)
    if dtype is dtypes.float32 and input_dtype is dtypes.float16:
        raise TorchRuntimeError("expected scalar type Float but found Half")
    if output.dtype is not dtype:
        raise TorchRuntimeError(f"expected scalar type {dtype.scalar_type} but found "
                                f"{output.dtype.scalar_type}")
    return data_op.call(grad_output, output, dim=saved_int(dim))


def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int,
                          input_dtype: DType) -> Tensor:
    """torch._softmax_backward_data: y * (g - sum(g * y, dim)), node
    SoftmaxBackwardDataBackward0."""
    return _backward_data("softmax", SoftmaxBackwardDataBackward0, grad_output, output, dim,
                          input_dtype)


def log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int,
                              input_dtype: DType) -> Tensor:
    """torch._log_softmax_backward_data: g - exp(y) * sum(g, dim), node
    LogSoftmaxBackwardDataBackward0."""
    return _backward_data("log_softmax", LogSoftmaxBackwardDataBackward0, grad_output, output,
                          dim, input_dtype)


class SoftmaxBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{result} × ({grad} - ({grad} × {result}).sum({dim}, keepdim=True))"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        return _forward(self, a, dim, "softmax", softmax_values, np.ones_like)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return _backward(self, grad, SoftmaxBackwardDataBackward0)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # result * (self_t - logsumexp_jvp(self_p, self_t, {dim}, true))
        return outs[0] * (t[0] - logsumexp_jvp(inputs[0], t[0], params["dim"]))


class SoftmaxBackwardDataBackward0(Function):
    """_softmax_backward_data(grad_output, output, dim) as an op, for create_graph."""

    __slots__ = ()
    formulas = (vjp("grad_output", "{output} × ({grad} - ({grad} × {output}).sum({dim}, "
                    "keepdim=True))"),
                vjp("output", "{grad_output} × {grad} - ({output} × {grad_output}).sum({dim}, "
                    "keepdim=True) × {grad} - {grad_output} × ({output} × {grad}).sum({dim}, "
                    "keepdim=True)"))

    def forward(self, grad: Tensor, output: Tensor, dim: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", output)
        self.save_attr(dim=dim)
        y, g = output.array, grad.array
        return _as_rows(softmax_backward_values, g, y, dim)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # torch's jvp decomposition: g = grad_output * output; g - output * sum(g, dim, true)
        grad, output = inputs
        dim = params["dim"]
        g = grad * output
        g_t = t[1] * grad + t[0] * output
        return g_t - (g.sum(dim, True) * t[1] + g_t.sum(dim, True) * output)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, output = self.unpack("grad_output"), self.unpack("output")
        dim = self.attrs["dim"]
        d = signed(dim)
        g_grad = g_out = None
        if self.needs_input_grad(0):
            g_grad = SoftmaxBackwardDataBackward0.call(gg, output, dim=dim)
        if self.needs_input_grad(1):  # torch's softmax_double_backward
            g_out = (grad * gg - (output * grad).sum(d, True) * gg
                     - grad * (output * gg).sum(d, True))
        return g_grad, g_out


class LogSoftmaxBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad} - exp({result}) × {grad}.sum({dim}, keepdim=True)"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        return _forward(self, a, dim, "log_softmax", log_softmax_values, np.zeros_like)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return _backward(self, grad, LogSoftmaxBackwardDataBackward0)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t - logsumexp_jvp(self_p, self_t, {dim}, true)
        return t[0] - logsumexp_jvp(inputs[0], t[0], params["dim"])


def logsumexp_jvp(self_p: Tensor, self_t: Tensor, dim: Any, keepdim: bool = True) -> Tensor:
    """torch's logsumexp_jvp (FunctionsManual.cpp): the exp-normalize trick, then
    sum(exp * tangent) / sum(exp)."""
    from .arithmetic import div_, mul_
    from .reductions import amax, sum

    self_p_exp = (self_p - amax(self_p, dim, True)).exp() if self_p.array.size \
        else self_p.exp()
    sumexp_p = sum(self_p_exp, dim, keepdim)
    mul_(self_p_exp, self_t)  # torch writes these two in place (self_p_exp *= self_t)
    return div_(sum(self_p_exp, dim, keepdim), sumexp_p)


class LogSoftmaxBackwardDataBackward0(Function):
    """_log_softmax_backward_data(grad_output, output, dim) as an op, for create_graph."""

    __slots__ = ()
    formulas = (vjp("grad_output", "{grad} - ({grad} × exp({output})).sum({dim}, keepdim=True)"),
                vjp("output", "-{grad_output}.sum({dim}, keepdim=True) × exp({output}) × {grad}"))

    def forward(self, grad: Tensor, output: Tensor, dim: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", output)
        self.save_attr(dim=dim)
        y, g = output.array, grad.array
        return _as_rows(log_softmax_backward_values, g, y, dim)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # torch's jvp decomposition: grad_output - exp(output) * sum(grad_output, dim, true)
        grad, output = inputs
        dim = params["dim"]
        e = output.exp()
        s = grad.sum(dim, True)
        return t[0] - (t[0].sum(dim, True) * e + (t[1] * e) * s)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, output = self.unpack("grad_output"), self.unpack("output")
        dim = self.attrs["dim"]
        g_grad = g_out = None
        if self.needs_input_grad(0):  # torch: grad - (grad * output.exp()).sum(dim, true)
            g_grad = gg - (gg * output.exp()).sum(signed(dim), True)
        if self.needs_input_grad(1):  # torch: -grad_output.sum(dim, true) * output.exp() * grad
            g_out = (-grad.sum(signed(dim), True) * output.exp()) * gg
        return g_grad, g_out


# Where torch's warnings.warn(..., stacklevel=5) in _get_softmax_dim lands when an nn
# module's forward (nn.Softmax, Softmin, LogSoftmax: `_stacklevel=5`) called F.softmax:
# Module._wrapped_call_impl's line in torch 2.13's torch/nn/modules/module.py (measured)
MODULE_CALL_PLACE = ("torch.nn.modules.module", 1778)


def implicit_dim(name: str, input: Any, stacklevel: int = 3) -> int:  # noqa: A002
    """torch's _get_softmax_dim(name, input.dim(), stacklevel), with its deprecation
    warning: at the caller's line, or from an nn module, at torch's module call (so
    shown once, whichever script line called the module)."""
    if not isinstance(input, Tensor):
        raise ScriptError(f"'{type_name(input)}' object has no attribute 'dim'",
                          kind="AttributeError")
    message = (f"Implicit dimension choice for {name} has been deprecated. Change the call to "
               "include dim=X as an argument.")
    if stacklevel == 5:
        WARNINGS.append(PlacedWarning(f"UserWarning: {message}", *MODULE_CALL_PLACE))
    else:
        warn(message)
    return 0 if input.array.ndim in (0, 1, 3) else 1


def _with_dtype(a: Tensor, dtype: Any) -> Tensor:
    from .clones import to

    return a if dtype is None else to(a, dtype)


def _method_call(method: str, input: Any, dim: Any, dtype: Any,  # noqa: A002
                 stacklevel: int) -> tuple[Tensor, int]:
    """F.softmax and F.log_softmax are torch's Python, `input.softmax(dim, dtype=dtype)`:
    a non-Tensor has no such method, and the method's parser checks dim and dtype."""
    if dim is None:
        dim = implicit_dim(method, input, stacklevel)
    elif not isinstance(input, Tensor):
        raise ScriptError(f"'{type_name(input)}' object has no attribute '{method}'",
                          kind="AttributeError")
    if isinstance(dim, Tensor) and not dim.array.ndim and dim.dtype.category == 1:
        dim = int(dim.array)
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TorchTypeError(f"{method}(): argument 'dim' (position 1) must be int, not "
                             f"{type_name(dim)}")
    if dtype is not None and not isinstance(dtype, DType):
        raise TorchTypeError(f"{method}(): argument 'dtype' must be torch.dtype, not "
                             f"{type_name(dtype)}")
    return _with_dtype(input, dtype), int(dim)


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,  # noqa: A002
            dtype: Any = None) -> Tensor:
    a, dim = _method_call("softmax", input, dim, dtype, _stacklevel)
    return SoftmaxBackward0.call(a, dim=dim)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,  # noqa: A002
                dtype: Any = None) -> Tensor:
    a, dim = _method_call("log_softmax", input, dim, dtype, _stacklevel)
    return LogSoftmaxBackward0.call(a, dim=dim)


def tensor_softmax(a: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """torch.softmax / Tensor.softmax: dim is required."""
    return SoftmaxBackward0.call(_with_dtype(a, dtype), dim=dim)


def tensor_log_softmax(a: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return LogSoftmaxBackward0.call(_with_dtype(a, dtype), dim=dim)


__all__ = ["softmax", "log_softmax", "tensor_softmax", "tensor_log_softmax"]


TORCH_FUNCTIONS = {"_softmax_backward_data": softmax_backward_data,
                   "_log_softmax_backward_data": log_softmax_backward_data}
