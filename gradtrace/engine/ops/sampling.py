"""torch's random functions: rand/randn/randint/randperm/normal/bernoulli/multinomial, their
*_like forms, the in-place samplers (uniform_, normal_, bernoulli_, random_, exponential_,
cauchy_)
and the generator functions (manual_seed, get_rng_state, ...).

They compose ATen's kernels (`..distributions`) the way ATen's factories do (`rand` is
`empty(size).uniform_(0, 1)`, `randn` is `.normal_(0, 1)`, `randint` is `.random_(low,
high)`), so each draws exactly what torch draws from the same generator.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import NotSupportedError, ScriptError, TorchRuntimeError, TorchTypeError
from .. import distributions as dist
from .. import dtypes, generator
from ..device import check_device
from ..dtypes import DType
from ..events import muted
from ..formulas import local
from ..generator import Generator, resolve
from ..grad_mode import GRAD_MODE, no_grad
from ..limits import reserve
from ..meta import is_meta, meta_array
from ..node import Function
from ..shapes import broadcast_shapes, size_args
from ..tensor import Tensor, bump_version, type_name
from ._util import INTERNAL_OVERLAP, apply_inplace, internal_overlap, not_implemented
from .creation import empty_like, zeros_like

# ------------------------------------------------------------------ helpers


def _iteration_view(array: np.ndarray, like: np.ndarray) -> np.ndarray:
    """`array` (shaped like `like`) transposed so that its C order is TensorIterator's order
    over `like`: dims sorted by stride, the largest outermost."""
    if like.ndim < 2 or like.flags.c_contiguous:
        return array
    axes = sorted(range(like.ndim), key=lambda d: -abs(like.strides[d]))
    return array.transpose(axes)


def _fill(array: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A new array shaped like `array` holding `values` in `array`'s iteration order."""
    out = np.empty_like(array)
    view = _iteration_view(out, array)
    view[...] = values.reshape(view.shape)
    return out


def _float_dtype(dtype: DType | None) -> DType:
    dtype = dtype or dtypes.DEFAULT_FLOAT
    if not dtype.is_floating_point:
        raise TorchRuntimeError(f'"check_uniform_bounds" not implemented for '
                                f"'{dtype.scalar_type}'")
    return dtype


def _shape(size: tuple[Any, ...], kw_size: Any = None) -> tuple[int, ...]:
    if kw_size is not None:
        if size:
            raise TorchTypeError("got multiple values for argument 'size'")
        size = (kw_size,)
    shape = size_args(size)
    for s in shape:
        if s < 0:
            raise TorchRuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


def _new(array: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor(array, requires_grad=requires_grad)


def _numel(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


# ------------------------------------------------------------------ in-place samplers


class _Sampler(Function):
    """An in-place sampler: the result does not depend on the old values (zero gradient)."""

    __slots__ = ()
    formulas = (local("self", "0"),)

    def backward(self, grad: Tensor) -> Tensor:
        return zeros_like(grad)

    def meta_forward(self, a: Tensor, *args: Any, **params: Any) -> np.ndarray:
        """On meta: the shape and dtype, no draw (the generator does not move)."""
        p = params.get("p", args[0] if args else None)
        if isinstance(p, Tensor):
            self.p_shape = p.shape  # (BernoulliBackward1's backward reads it)
        return a.array


class UniformBackward0(_Sampler):
    __slots__ = ()

    def forward(self, a: Tensor, low: float, high: float, gen: Generator) -> np.ndarray:
        return _fill(a.array, dist.uniform(gen, a.array.size, a.array.dtype, low, high))


class NormalBackward0(_Sampler):
    __slots__ = ()

    def forward(self, a: Tensor, mean: float, std: float, gen: Generator) -> np.ndarray:
        contiguous = a.array.flags.c_contiguous
        return _fill(a.array, dist.normal(gen, a.array.size, a.array.dtype, mean, std,
                                          contiguous))


class BernoulliBackward1(_Sampler):
    """bernoulli_(Tensor p): neither self nor p gets a gradient."""

    __slots__ = ("p_shape",)

    def forward(self, a: Tensor, p: Tensor, gen: Generator) -> np.ndarray:
        self.p_shape = p.shape
        probs = _iteration_view(np.broadcast_to(p.array, a.array.shape), a.array)
        return _fill(a.array, dist.bernoulli_tensor(gen, np.ascontiguousarray(probs).ravel()))

    formulas = (local("self", "0"), local("p", "0"))

    def backward(self, grad: Tensor) -> Any:
        return zeros_like(grad), Tensor._wrap(np.zeros(self.p_shape, grad.array.dtype))


class BernoulliBackward2(_Sampler):
    """bernoulli_(float p)."""

    __slots__ = ()

    def forward(self, a: Tensor, p: float, gen: Generator) -> np.ndarray:
        return _fill(a.array, dist.bernoulli_scalar(gen, a.array.size, p))


class RandomBackward0(_Sampler):
    """random_(from, to)."""

    __slots__ = ()

    def forward(self, a: Tensor, span: int, base: int, gen: Generator) -> np.ndarray:
        wide = a.array.dtype in (np.int64, np.uint64, np.float32, np.float64)  # (measured)
        return _fill(a.array, dist.random_from_to(gen, a.array.size, span, base, wide))


class RandomBackward1(RandomBackward0):
    """random_(to)."""

    __slots__ = ()


class RandomBackward2(_Sampler):
    """random_() over the dtype's range."""

    __slots__ = ()

    def forward(self, a: Tensor, gen: Generator) -> np.ndarray:
        return _fill(a.array, dist.random_default(gen, a.array.size, a.array.dtype))


class ExponentialBackward0(_Sampler):
    __slots__ = ()

    def forward(self, a: Tensor, lambd: float, gen: Generator) -> np.ndarray:
        return _fill(a.array, dist.exponential(gen, a.array.size, lambd))


class GeometricBackward0(_Sampler):
    __slots__ = ()

    def forward(self, a: Tensor, p: float, gen: Generator) -> np.ndarray:
        return _fill(a.array, dist.geometric(gen, a.array.size, p).astype(a.array.dtype))


class LogNormalBackward0(_Sampler):
    __slots__ = ()

    def forward(self, a: Tensor, mean: float, std: float, gen: Generator) -> np.ndarray:
        return _fill(a.array, dist.log_normal(gen, a.array.size, mean, std))


class CauchyBackward0(_Sampler):
    __slots__ = ()

    def forward(self, a: Tensor, median: float, sigma: float, gen: Generator) -> np.ndarray:
        return _fill(a.array, dist.cauchy(gen, a.array.size, median, sigma))


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, *,
             generator: Generator | None = None, **kwargs: Any) -> Tensor:
    low, high = float(kwargs.pop("from", a)), float(kwargs.pop("to", b))
    _no_extra("uniform_", kwargs)
    _float_dtype(t.dtype)
    _uniform_bounds(t.dtype, low, high)
    return apply_inplace(UniformBackward0, t, low=low, high=high, gen=resolve(generator))


def _uniform_bounds(dtype: DType, low: float, high: float) -> None:
    """uniform_impl_'s checks, in its order: each end within the dtype's finite range (inf
    and nan are not), a [from, to) range, and to - from itself finite in the dtype."""
    top = float(dtypes.float_info(dtype).max)
    for name, end in (("from", low), ("to", high)):
        if not -top <= end <= top:
            raise TorchRuntimeError(
                f"{name} is out of bounds for {dtypes.C_SCALAR_NAMES[dtype.name]}")
    if not low <= high:
        raise TorchRuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_g(low)} > "
            f"to={_g(high)}")
    if high - low > top:
        raise TorchRuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{dtype.scalar_type}>::max(), "
            f"but found to={_g(high)} and from={_g(low)} which result in to-from to exceed "
            "the limit")


def _g(x: float) -> str:
    return f"{x:g}"


def _no_extra(name: str, kwargs: dict[str, Any]) -> None:
    if kwargs:
        key = next(iter(kwargs))
        raise TorchTypeError(f"{name}() got an unexpected keyword argument '{key}'")


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    if not t.dtype.is_floating_point:
        raise TorchRuntimeError(
            f'"normal_kernel_cpu" not implemented for \'{t.dtype.scalar_type}\'')
    if std < 0:
        raise TorchRuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    return apply_inplace(NormalBackward0, t, mean=float(mean), std=float(std),
                         gen=resolve(generator))


def bernoulli_(t: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    gen = resolve(generator)
    if isinstance(p, Tensor):
        if not p.dtype.is_floating_point:
            raise TorchRuntimeError(
                f'"bernoulli_tensor_cpu_p_" not implemented for \'{p.dtype.scalar_type}\'')
        broadcast_shapes(t.shape, p.shape)
        return apply_inplace(BernoulliBackward1, t, p, gen=gen)
    p = float(p)
    if not 0 <= p <= 1:
        raise TorchRuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    return apply_inplace(BernoulliBackward2, t, p=p, gen=gen)


_TO_INCLUSIVE = {np.dtype(np.float32): 1 << 24, np.dtype(np.float64): 1 << 53,
                 np.dtype(np.float16): 1 << 11}


def _dtype_max(dtype: np.dtype) -> int:
    if dtype.kind == "f":
        return _TO_INCLUSIVE[dtype]
    if dtype == np.bool_:
        return 1
    return int(np.iinfo(dtype).max)


def _update_from(value: int, dtype: np.dtype) -> int:
    """ATen's update_from: a `from` that rounds below itself in a float dtype moves up."""
    digits = np.finfo(dtype).nmant + 1
    rounded = int(dtype.type(value + 1))
    if rounded < value:
        n = abs(value + 1).bit_length() - 1
        value = rounded + (1 << (n - digits + 1))
    return value


def _update_to(value: int, dtype: np.dtype) -> int:
    digits = np.finfo(dtype).nmant + 1
    rounded = int(dtype.type(value - 1))
    if rounded >= value:
        n = abs(value - 1).bit_length() - 1
        value = rounded - (1 << (n - digits + 1))
    return value


def random_(t: Tensor, *args: Any, generator: Generator | None = None,
            **kwargs: Any) -> Tensor:
    """random_(), random_(to), random_(from, to) (to=None: up to the dtype's maximum)."""
    gen = resolve(generator)
    names = ("from", "to")
    bound = dict(zip(names, args)) if len(args) == 2 else (
        {"to": args[0]} if len(args) == 1 and "from" not in kwargs else
        {"from": args[0]} if args else {})
    bound.update(kwargs)
    dtype = t.array.dtype
    if not bound:
        return apply_inplace(RandomBackward2, t, gen=gen)
    low = int(bound.get("from", 0))
    high = bound.get("to")
    if high is None:
        span = _dtype_max(dtype) - low + 1 if dtype != np.bool_ else 2
        return apply_inplace(RandomBackward0, t, span=span, base=low, gen=gen)
    high = int(high)
    if not low < high:
        raise TorchRuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if dtype.kind in "iu":  # torch's check_from_to_in_range, in the C++ type's name
        info = np.iinfo(dtype)
        for what, value in (("from", low), ("to - 1", high - 1)):
            if not int(info.min) <= value <= int(info.max):
                raise TorchRuntimeError(f"{what} is out of bounds for "
                                        f"{dtypes.C_TYPE_NAMES[t.dtype.name]}")
    if dtype.kind == "f":
        low, high = _update_from(low, dtype), _update_to(high, dtype)
    op = RandomBackward0 if "from" in bound else RandomBackward1
    return apply_inplace(op, t, span=high - low, base=low, gen=gen)


def exponential_(t: Tensor, lambd: float = 1.0, *,
                 generator: Generator | None = None) -> Tensor:
    if not t.dtype.is_floating_point:
        raise TorchRuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must "
            f"be a floating point but you specified {t.dtype.name.capitalize()}")
    if not lambd > 0:
        raise TorchRuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={_g(float(lambd))}")
    return apply_inplace(ExponentialBackward0, t, lambd=float(lambd), gen=resolve(generator))


def geometric_(t: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    if not 0 < p < 1:
        raise TorchRuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(float(p))}")
    return apply_inplace(GeometricBackward0, t, p=float(p), gen=resolve(generator))


def log_normal_(t: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> Tensor:
    if not std > 0.0:
        raise TorchRuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(float(std))}")
    if not t.dtype.is_floating_point:
        raise not_implemented("log_normal_cpu", t.dtype)
    return apply_inplace(LogNormalBackward0, t, mean=float(mean), std=float(std),
                         gen=resolve(generator))


_CPP_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int",
                   "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def cauchy_(t: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    if not t.dtype.is_floating_point:  # this check names the C++ type (caffe2::TypeMeta)
        raise TorchRuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {_CPP_TYPE_NAMES.get(t.dtype.name, t.dtype.name)}")
    if not sigma > 0.0:
        raise TorchRuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(float(sigma))}")
    return apply_inplace(CauchyBackward0, t, median=float(median), sigma=float(sigma),
                         gen=resolve(generator))


# ------------------------------------------------------------------ factories


def _empty(shape: tuple[int, ...], dtype: DType, device: Any = None) -> Tensor:
    """A factory's tensor before sampling; on meta (device= or the default device) its
    shape and dtype only: nothing is drawn, as torch's meta kernels draw nothing."""
    if check_device(device):
        return Tensor._wrap(meta_array(shape, dtype.np))
    reserve(shape, 8)
    return Tensor._wrap(np.zeros(shape, dtype=dtype.np))


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    """A factory's new tensor: version 0 even when an in-place sampler filled it (torch
    fills it below autograd, so `torch.normal(0, 1, size)._version` is 0)."""
    t._version_counter.value = 0
    if requires_grad:
        t.requires_grad_(True)
    return t


def _fill_new(sampler: Any, t: Tensor, *args: Any, **kwargs: Any) -> None:
    """A factory's in-place sampler on its new tensor, unseen by the trace: torch fills it
    below autograd, so no view tells an in-place change (`torch.randint` is no `random_`)."""
    with muted():
        sampler(t, *args, **kwargs)


def _sample_into(out: Tensor, name: str, shape: tuple[int, ...], dtype: DType | None,
                 requires_grad: bool, generator: Generator | None) -> Tensor:
    """`torch.rand(size, out=t)`, `torch.randn(size, out=t)`: t resized to `size` and filled
    in place, drawn in t's own dtype; torch's checks and version counts (measured): a dtype
    other than t's is refused, randn counts its resize as one more write than rand does."""
    if dtype is not None and dtype is not out.dtype:
        raise TorchRuntimeError(f"dtype {dtype.scalar_type} does not match dtype of out "
                                f"parameter ({out.dtype.scalar_type})")
    resized = out.array.shape != shape
    if out.requires_grad:
        if name == "rand" and GRAD_MODE.enabled:
            raise TorchRuntimeError(
                "aten::rand(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.")
        if name == "randn" and resized:
            raise TorchRuntimeError("cannot resize variables that require grad")
        raise NotSupportedError(f"torch.{name}(out=) into a tensor that requires grad is not "
                                "supported by gradtrace")
    if is_meta(out.array):
        raise NotSupportedError(f"torch.{name}(out=) into a meta tensor is not supported by "
                                "gradtrace")
    if not out.dtype.is_floating_point:
        kernel = "normal_kernel_cpu" if name == "randn" else "check_uniform_bounds"
        raise ScriptError(f'"{kernel}" not implemented for \'{out.dtype.scalar_type}\'',
                          kind="NotImplementedError")
    if resized:
        reserve(shape, out.array.itemsize)
        out.array = np.zeros(shape, dtype=out.dtype.np)
        if name == "randn":
            bump_version(out)
    elif internal_overlap(out.array):  # the normal_/uniform_ kernel's TensorIterator
        raise TorchRuntimeError(INTERNAL_OVERLAP)
    count = out.array.size
    np.copyto(out.array, _standard(name)(resolve(generator), count, out.array.dtype, 0.0, 1.0
                              ).reshape(shape))
    bump_version(out)
    if requires_grad:
        out.requires_grad_(True)
    return out


def rand(*size: Any, generator: Generator | None = None, dtype: DType | None = None,
         requires_grad: bool = False, device: Any = None, out: Tensor | None = None,
         **kw: Any) -> Tensor:
    return _standard_draw("rand", size, generator, dtype, requires_grad, device, out, kw)


def randn(*size: Any, generator: Generator | None = None, dtype: DType | None = None,
          requires_grad: bool = False, device: Any = None, out: Tensor | None = None,
          **kw: Any) -> Tensor:
    return _standard_draw("randn", size, generator, dtype, requires_grad, device, out, kw)


def _standard(name: str) -> Any:
    """The sampler of torch.rand or torch.randn: uniform on [0, 1), or the standard normal."""
    return dist.normal if name == "randn" else dist.uniform


def _standard_draw(name: str, size: tuple, generator: Generator | None, dtype: DType | None,
                   requires_grad: bool, device: Any, out: Tensor | None,
                   kw: dict[str, Any]) -> Tensor:
    """torch.rand (uniform on [0, 1)) or torch.randn (standard normal), new or into `out`."""
    shape = _shape(size, kw.pop("size", None))
    if dtype is not None and dtype.is_complex:
        return _complex_draw(name, shape, generator, dtype, requires_grad, device, out, kw)
    if out is not None:
        _no_extra(name, kw)
        return _sample_into(out, name, shape, dtype, requires_grad, generator)
    t = _empty(shape, _float_dtype(dtype), device)
    _no_extra(name, kw)
    if is_meta(t.array):
        return _finish(t, requires_grad)
    t.array = _standard(name)(resolve(generator), t.array.size, t.array.dtype, 0.0, 1.0
                   ).reshape(t.array.shape)
    return _finish(t, requires_grad)


def _complex_draw(name: str, shape: tuple[int, ...], generator: Generator | None,
                    dtype: DType, requires_grad: bool, device: Any, out: Tensor | None,
                    kw: dict[str, Any]) -> Tensor:
    """torch.randn(dtype=torch.complex64/complex128): normal_(0, 1 / std::sqrt(2)) of its
    (..., 2) floats (normal_impl_ of view_as_real; for complex128 that std, not sqrt(0.5),
    which differs in its last bit); torch.rand: uniform_ of them; measured equal bit for
    bit."""
    from .. import complex as complex_dtypes

    if out is not None:
        raise complex_dtypes.refuse(f"torch.{name}(dtype=torch.{dtype.name}, out=...)")
    t = _empty((*shape, 2), dtypes.float32 if dtype is dtypes.complex64 else dtypes.float64,
               device)
    _no_extra(name, kw)
    if is_meta(t.array):
        raise complex_dtypes.refuse("a complex meta tensor")
    if name == "randn":
        floats = dist.normal(resolve(generator), t.array.size, t.array.dtype, 0.0,
                             1 / math.sqrt(2))
    else:
        floats = dist.uniform(resolve(generator), t.array.size, t.array.dtype, 0.0, 1.0)
    made = Tensor._wrap(floats.reshape(t.array.shape).view(dtype.np)[..., 0])
    return _finish(made, requires_grad)


_RANDINT_SIGNATURES = (
    " * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False)\n"
    " * (int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    " * (int low, int high, tuple of ints size, *, torch.Generator generator, Tensor out = "
    "None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False)\n"
    " * (int low, int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = "
    "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n")


def _arg_type(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type_name(value)


def randint(*args: Any, generator: Generator | None = None, dtype: DType | None = None,
            requires_grad: bool = False, device: Any = None, **kw: Any) -> Tensor:
    """randint(high, size), randint(low, high, size); low/high/size also by keyword."""
    given = list(args)
    low, high, size = kw.pop("low", None), kw.pop("high", None), kw.pop("size", None)
    if size is None and given and isinstance(given[-1], (tuple, list)):
        size = given.pop()
    if high is None and given:
        high = given.pop()
    if low is None and given:
        low = given.pop()
    if given or kw or size is None or high is None or not isinstance(high, int) or (
            low is not None and not isinstance(low, int)):
        got = ", ".join([_arg_type(a) for a in args] + [
            f"{k}={_arg_type(v)}" for k, v in
            (("low", low), ("high", high), ("size", size)) if k not in () and v is not None
            and v not in args])
        raise TorchTypeError(
            f"randint() received an invalid combination of arguments - got ({got}), but "
            f"expected one of:\n{_RANDINT_SIGNATURES}")
    low = 0 if low is None else low
    dtype = dtype or dtypes.int64
    t = _empty(_shape((size,)), dtype, device)
    _fill_new(random_, t, low, high, generator=generator)
    return _finish(t, requires_grad)


def randperm(n: int, *, generator: Generator | None = None, dtype: DType | None = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TorchTypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type_name(n)}")
    if n < 0:
        raise TorchRuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if n >= dist.RANDPERM_SMALL:
        from ...errors import NotSupportedError

        raise NotSupportedError(
            f"randperm({n}): permutations of {dist.RANDPERM_SMALL} or more elements are not "
            "supported")
    dtype = dtype or dtypes.int64
    if check_device(device):
        return _finish(_empty((n,), dtype, device), requires_grad)
    reserve((n,), 8)
    t = Tensor._wrap(dist.randperm(resolve(generator), n).astype(dtype.np))
    return _finish(t, requires_grad)


def _empty_like(t: Tensor, dtype: DType | None, memory_format: Any) -> Tensor:
    """empty_like(t): a dense tensor's strides are kept (unless memory_format says
    contiguous), so `*_like` samplers draw in t's memory order as torch's
    `empty_like(t).uniform_()` does."""
    return empty_like(t, dtype=dtype, memory_format=memory_format)


def rand_like(t: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
              generator: Generator | None = None, memory_format: Any = None,
              **kw: Any) -> Tensor:
    out = _empty_like(t, _float_dtype(dtype or t.dtype), memory_format)
    _fill_new(uniform_, out, generator=generator)
    return _finish(out, requires_grad)


def randn_like(t: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
               generator: Generator | None = None, memory_format: Any = None,
               **kw: Any) -> Tensor:
    out = _empty_like(t, _float_dtype(dtype or t.dtype), memory_format)
    _fill_new(normal_, out, generator=generator)
    return _finish(out, requires_grad)


def randint_like(t: Tensor, low: int | None = None, high: int | None = None, *,
                 dtype: DType | None = None, requires_grad: bool = False,
                 generator: Generator | None = None, memory_format: Any = None,
                 **kw: Any) -> Tensor:
    """torch.randint_like(t, high), (t, low, high) and (t, high=h) (AdaHessian's Rademacher
    vectors, `2 * torch.randint_like(p, high=2) - 1`); the argument parser has refused the
    other combinations (`low=` alone, no bound) with torch's message."""
    if high is None:
        low, high = 0, low
    elif low is None:
        low = 0
    out = _empty_like(t, dtype or t.dtype, memory_format)
    _fill_new(random_, out, low, high, generator=generator)
    return _finish(out, requires_grad)


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *,
           generator: Generator | None = None, dtype: DType | None = None,
           requires_grad: bool = False, device: Any = None) -> Tensor:
    """torch.normal's four overloads: tensor/tensor, tensor/float, float/tensor (samples of
    N(0, 1) then `mul_(std).add_(mean)`, or N(0, std) then `add_(mean)`), float/float/size."""
    from .arithmetic import add, mul

    gen = resolve(generator)
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TorchTypeError("normal() missing required argument 'size'")
        t = _empty(_shape((size,)), _float_dtype(dtype), device)
        _fill_new(normal_, t, mean, std, generator=gen)
        return _finish(t, requires_grad)
    if std_t and (std.array < 0).any():
        raise TorchRuntimeError("normal expects all elements of std >= 0.0")
    if mean_t and not std_t:
        out = _empty(mean.shape, mean.dtype)
        out.array = dist.normal(gen, out.array.size, out.array.dtype, 0.0, float(std)
                                ).reshape(out.array.shape)
        with no_grad():
            result = add(out, mean)
        return _normal_node(result, "NormalBackward1", mean, None)
    shape = broadcast_shapes(mean.shape, std.shape) if mean_t else std.shape
    out = _empty(shape, (mean if mean_t else std).dtype)
    out.array = dist.normal(gen, out.array.size, out.array.dtype, 0.0, 1.0
                            ).reshape(out.array.shape)
    with no_grad():
        result = add(mul(out, std), mean if mean_t else float(mean))
    return _normal_node(result, "NormalBackward3" if mean_t else "NormalBackward2",
                        mean if mean_t else None, std)


def _normal_node(result: Tensor, name: str, mean: Tensor | None,
                 std: Tensor | None) -> Tensor:
    """`mean + noise * std` as torch.normal records it: one node over the tensor arguments,
    which get zero gradients (derivatives.yaml), saving their sizes."""
    inputs = [t for t in (mean, std) if t is not None]
    return _NORMAL_NODES[name].call(*inputs, values=result.array)


class _SampledFrom(Function):
    """A sample drawn with tensor parameters: each gets a zero gradient of its own shape."""

    __slots__ = ("shapes",)
    saved_sizes: tuple[str, ...] = ()  # the `<name>_sym_sizes` torch saves, per input

    def forward(self, *inputs: Tensor, values: np.ndarray) -> np.ndarray:
        self.shapes = [t.shape for t in inputs]
        if self.saved_sizes:
            self.save_attr(**{f"{name}_sym_sizes": shape
                              for name, shape in zip(self.saved_sizes, self.shapes)})
        return values

    def backward(self, grad: Tensor) -> Any:
        return tuple(Tensor._wrap(np.zeros(shape, grad.array.dtype)) for shape in self.shapes)


_NORMAL_NODES = {
    name: type(name, (_SampledFrom,), {"__slots__": (), "saved_sizes": sizes,
                                       "formulas": tuple(local(n, "0") for n in sizes)})
    for name, sizes in (("NormalBackward1", ("mean",)), ("NormalBackward2", ("std",)),
                        ("NormalBackward3", ("mean", "std")))}


class BernoulliBackward0(_SampledFrom):
    """torch.bernoulli(p)."""

    __slots__ = ()
    formulas = (local("self", "0"),)


def bernoulli(t: Tensor, p: Any = None, *, generator: Generator | None = None) -> Tensor:
    """torch.bernoulli(input): draws with the probabilities in `input`; with `p`, ignores
    the values and draws with probability p."""
    out = _empty(t.shape, t.dtype)
    if p is None:
        if (t.array < 0).any() or (t.array > 1).any():
            raise TorchRuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                "message be improved?  If so, please report an enhancement request to "
                "PyTorch.)")
        _fill_new(bernoulli_, out, Tensor._wrap(t.array), generator=generator)
        return BernoulliBackward0.call(t, values=out.array)
    _fill_new(bernoulli_, out, p, generator=generator)
    return _finish(out, False)


def multinomial(t: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    from .reductions import argmax

    gen = resolve(generator)
    if t.array.ndim not in (1, 2):
        raise TorchRuntimeError("prob_dist must be 1 or 2 dim")
    if not t.dtype.is_floating_point:
        raise TorchRuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{t.dtype.scalar_type}")
    if num_samples <= 0:
        raise TorchRuntimeError("cannot sample n_sample <= 0 samples")
    categories = t.shape[-1]
    if not replacement and num_samples > categories:
        raise TorchRuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    probs = t.array
    if not replacement or num_samples == 1:
        if not (np.isfinite(probs).all() and (probs >= 0).all()):
            raise TorchRuntimeError(
                "probability tensor contains either `inf`, `nan` or element < 0")
        if (probs.reshape(-1, categories).sum(axis=1) == 0).any():
            raise TorchRuntimeError(
                "invalid multinomial distribution (sum of probabilities <= 0)")
        q = dist.exponential(gen, probs.size, 1.0).astype(probs.dtype).reshape(probs.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = probs / q
        if num_samples == 1:
            return argmax(Tensor._wrap(q), -1, True)
        order = np.argsort(-q, axis=-1, kind="stable")[..., :num_samples]
        return Tensor._wrap(order.astype(np.int64))
    if (probs < 0).any():
        raise TorchRuntimeError(
            "invalid multinomial distribution (encountering probability entry < 0)")
    if not np.isfinite(probs).all():
        raise TorchRuntimeError("invalid multinomial distribution (encountering probability "
                                "entry = infinity or NaN)")
    out = dist.multinomial_with_replacement(gen, probs, num_samples)
    return Tensor._wrap(out.reshape(probs.shape[:-1] + (num_samples,)))


# ------------------------------------------------------------------ generator functions


def get_rng_state() -> Tensor:
    return Tensor._wrap(generator.DEFAULT.get_state())


def _state_bytes(state: Any) -> np.ndarray:
    if not isinstance(state, Tensor) or state.dtype is not dtypes.uint8:
        raise TorchTypeError("RNG state must be a torch.ByteTensor")
    return state.array


def set_rng_state(new_state: Tensor) -> None:
    generator.DEFAULT.set_state(_state_bytes(new_state))


def generator_get_state(gen: Generator) -> Tensor:
    return Tensor._wrap(gen.get_state())


def generator_set_state(gen: Generator, new_state: Tensor) -> Generator:
    gen.set_state(_state_bytes(new_state))
    return gen


TENSOR_METHODS = {
    "uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_, "random_": random_,
    "exponential_": exponential_, "cauchy_": cauchy_, "geometric_": geometric_,
    "log_normal_": log_normal_, "bernoulli": bernoulli,
    "multinomial": multinomial,
}

TORCH_FUNCTIONS = {
    "rand": rand, "randn": randn, "randint": randint, "randperm": randperm,
    "rand_like": rand_like, "randn_like": randn_like, "randint_like": randint_like,
    "normal": normal, "bernoulli": bernoulli, "multinomial": multinomial,
    "manual_seed": generator.manual_seed, "seed": generator.seed,
    "initial_seed": generator.initial_seed, "get_rng_state": get_rng_state,
    "set_rng_state": set_rng_state, "Generator": Generator,
    "default_generator": generator.DEFAULT,
}

GENERATOR_METHODS = {
    "manual_seed": Generator.manual_seed, "seed": Generator.seed,
    "initial_seed": Generator.initial_seed, "get_state": generator_get_state,
    "set_state": generator_set_state,
}
