"""numpy arrays as scripts see them: the real numpy array inside a wrapper.

`import numpy as np` in a script gives numpy itself underneath (its printing, its random
streams, its arithmetic), so what a script prints is what the user's numpy prints. The
wrapper is the sandbox: a script reaches the array only through the operators here and
the allow-listed attributes in `interpreter/numpy_module.py`, never the raw object
(`.ctypes`, `.base`, `__array_interface__` do not exist for it). Arrays hold numbers
(bool, int, uint, float, complex) or text (numpy's `<U` strings: labels, `binary_repr`
digits), whose elements come out as Python strings; an object array is never built.

`torch.from_numpy(a)` and `t.numpy()` share the numpy array itself, as torch shares
memory; every array a script makes is admitted like a tensor (`limits.admit`).
"""
from __future__ import annotations

import operator
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors import (
    EXCEPTION_PARENTS,
    GradtraceError,
    LimitExceeded,
    NotSupportedError,
    ScriptError,
    TorchRuntimeError,
)
from . import limits
from .grad_mode import GRAD_MODE
from .meta import NO_NUMPY, MetaArray
from .ops.creation import WARNINGS
from .shapes import Size
from .tensor import Tensor

NUMERIC_KINDS = frozenset("biufc")
ARRAY_KINDS = NUMERIC_KINDS | {"U"}  # numbers, and text as data
MAX_DEPTH = 64  # numpy's dimension limit: deeper nesting is refused before walking on
# a text array's elements: labels and digits. Each element takes 4 bytes a character, the
# longest one's width, so a list of a few long strings would make a huge array: the
# strings going into one, and its elements, are held to this many characters
MAX_TEXT = 64
_LONG_TEXT = (f"numpy text arrays of strings longer than {MAX_TEXT} characters are not "
              "supported by gradtrace")

GRAD_NUMPY = ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
              "instead.")
WRAP_WARNING = ("DeprecationWarning: __array_wrap__ must accept context and return_scalar "
                "arguments (positionally) in the future. (Deprecated NumPy 2.0)")
COPY_WARNING = ("DeprecationWarning: __array__ implementation doesn't accept a copy keyword, so "
                "passing copy=False failed. __array__ must implement 'dtype' and 'copy' keyword "
                "arguments. To learn more, see the migration guide https://numpy.org/devdocs/"
                "numpy_2_0_migration_guide.html#adapting-to-changes-in-the-copy-keyword")
NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) ")
FROM_NUMPY_TYPES = ("float64, float32, float16, complex64, complex128, int64, int32, int16, "
                    "int8, uint64, uint32, uint16, uint8, and bool")


def tensor_array(t: Tensor) -> np.ndarray:
    """`t.numpy()` / `t.__array__()`: the tensor's own array (torch shares memory); a tensor
    that requires grad only with grad mode off (tensor_to_numpy checks both)."""
    if t.requires_grad and GRAD_MODE.enabled:
        raise ScriptError(GRAD_NUMPY, kind="RuntimeError")
    if isinstance(t.array, MetaArray):
        raise ScriptError(NO_NUMPY, kind="TypeError")
    return t.array


def tensor_numpy(t: Tensor, *, force: bool = False) -> ndarray:
    """`t.numpy()`: the tensor's memory as an array (`force=True` detaches first)."""
    if not t.has_storage:
        from .batching.batched import NO_STORAGE

        raise TorchRuntimeError(NO_STORAGE)
    if force:
        return ndarray(t.array, counted=False)
    from . import conj_bit

    if conj_bit.STORED and conj_bit.is_neg(t):
        raise TorchRuntimeError("Can't call numpy() on Tensor that has negative bit set. Use "
                                "tensor.resolve_neg().numpy() instead.")
    return ndarray(tensor_array(t), counted=False)


def wrap(value: Any) -> Any:
    """A numpy result as a script value: arrays wrapped (and admitted to the limits),
    numeric scalars as numpy's own, tuples and lists item by item. Anything else numpy
    could return (objects, other classes) is refused, never handed out; an element of a
    text array is a Python str."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in ARRAY_KINDS:
            raise NotSupportedError(f"numpy arrays of dtype {value.dtype} are not supported "
                                    "by gradtrace (numbers, bools and text only)")
        if value.dtype.kind == "U" and value.itemsize > 4 * MAX_TEXT:
            raise NotSupportedError(_LONG_TEXT)
        return ndarray(value)
    if isinstance(value, np.str_):  # an element of a text array: Python's own str
        return str(value)
    if isinstance(value, np.generic):
        if value.dtype.kind not in NUMERIC_KINDS:
            raise NotSupportedError(f"numpy values of dtype {value.dtype} are not supported "
                                    "by gradtrace (numbers and bools only)")
        return value
    if isinstance(value, (bool, int, float, type(None))):
        return value
    if isinstance(value, (tuple, list)):
        items = [wrap(v) for v in value]
        return items if type(value) is list else tuple(items)
    if isinstance(value, np.dtype):
        return value
    raise NotSupportedError(f"numpy returned a {type(value).__name__}, which gradtrace "
                            "scripts cannot use")


def raw(value: Any, depth: int = 0) -> Any:
    """A script value as a numpy argument: arrays unwrapped, numbers and numpy scalars as
    they are, lists and tuples item by item; a tensor as torch's `__array__` gives it.
    Anything else (a script object, a function) is refused: numpy would call into it."""
    kind = type(value)
    if kind is ndarray:
        return value.a
    if kind is str and depth and len(value) > MAX_TEXT:  # an element of an array to be
        raise NotSupportedError(_LONG_TEXT)
    if kind in (bool, int, float, str, slice, type(None), type(...)) or \
            isinstance(value, (np.generic, np.dtype)):
        return value
    sequence = isinstance(value, deque)  # `np.mean(scores_window)`: read as a list
    if kind is list or kind is tuple or kind is Size or sequence:  # torch.Size: the tuple
        if depth > MAX_DEPTH:
            raise NotSupportedError(f"a list nested deeper than {MAX_DEPTH} levels is not "
                                    "supported by numpy")
        items = [raw(v, depth + 1) for v in value]
        return items if kind is list or sequence else tuple(items)
    if isinstance(value, Tensor):
        return tensor_array(value)
    if kind is range:
        limits.reserve((len(value),), 8)
        return value
    raise NotSupportedError(f"numpy functions take numbers, lists and arrays in gradtrace "
                            f"scripts, not {_type_name(value)}")


def _type_name(value: Any) -> str:
    from ..interpreter.objects import type_name

    return f"'{type_name(value)}'"


# numpy's floating-point error handling as the script set it (np.errstate), innermost last;
# the first entry is numpy's default
_ERR_DEFAULT = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
ERRSTATE: list[dict[str, str]] = [_ERR_DEFAULT]
_ERR_VALUES = ("ignore", "warn", "raise")


class ErrState:
    """`with np.errstate(divide="ignore", ...):`: how numpy treats floating-point errors
    in the block ("ignore", "warn" or "raise"; numpy's "call", "print" and "log" need a
    handler or a stream and are refused)."""

    __slots__ = ("settings",)

    def __init__(self, *, all: Any = None, divide: Any = None, over: Any = None,  # noqa: A002
                 under: Any = None, invalid: Any = None, call: Any = None) -> None:
        if call is not None:
            raise NotSupportedError("np.errstate(call=...) is not supported by gradtrace")
        self.settings = {}
        for key, value in (("all", all), ("divide", divide), ("over", over),
                           ("under", under), ("invalid", invalid)):
            if value is None:
                continue
            if value in ("call", "print", "log"):
                raise NotSupportedError(f"np.errstate({key}={value!r}) is not supported by "
                                        "gradtrace")
            self.settings[key] = value

    def __enter__(self) -> None:
        state = dict(ERRSTATE[-1])
        for key in ("divide", "over", "under", "invalid"):
            value = self.settings.get(key, self.settings.get("all"))
            if value is None:
                continue
            if value not in _ERR_VALUES:
                raise ScriptError(f"invalid value '{value}'", kind="ValueError")
            state[key] = value
        ERRSTATE.append(state)

    def __exit__(self, *exc: Any) -> None:
        if len(ERRSTATE) > 1:
            ERRSTATE.pop()

    def __repr__(self) -> str:
        return f"<numpy.errstate object at {id(self):#x}>"


class ScriptFormatter(dict):
    """The `formatter=` numpy is given for a script's: functions that run the script's own,
    keeping the script's dict, which `print_options` hands back where numpy would hand back
    what it was given."""

    __slots__ = ("original",)


def print_options() -> dict[str, Any]:
    """np.get_printoptions() as the script sees it: its own formatter dict, never the
    functions numpy holds for it."""
    options = np.get_printoptions()
    formatter = options.get("formatter")
    if isinstance(formatter, ScriptFormatter):
        options["formatter"] = formatter.original
    return options


class PrintOptions:
    """`with np.printoptions(precision=2, suppress=True):`: numpy's print options set for the
    block (through the run's checked np.set_printoptions) and put back as they were when it
    ends; `as` binds numpy's options in force inside (np.get_printoptions()'s dict)."""

    __slots__ = ("setter", "args", "kwargs", "saved")

    def __init__(self, setter: Callable[..., None], *args: Any, **kwargs: Any) -> None:
        self.setter, self.args, self.kwargs = setter, args, kwargs
        self.saved: dict[str, Any] | None = None

    def __enter__(self) -> dict[str, Any]:
        saved = np.get_printoptions()
        self.setter(*self.args, **self.kwargs)
        self.saved = saved
        return print_options()

    def __exit__(self, *exc: Any) -> None:
        if self.saved is not None:
            np.set_printoptions(**self.saved)
            self.saved = None

    def __repr__(self) -> str:
        return f"<contextlib._GeneratorContextManager object at {id(self):#x}>"


def reset_errstate() -> None:
    """A run starts with numpy's default handling."""
    del ERRSTATE[1:]


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a numpy function on raw arguments, with numpy's errors as the script's."""
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(**ERRSTATE[-1]):
            warnings.simplefilter("always")
            result = fn(*args, **kwargs)
    except GradtraceError:
        raise
    except MemoryError:
        raise LimitExceeded(
            f"a numpy array would exceed the memory limit of "
            f"{limits.LIMITS.max_bytes / (1 << 20):,.0f} MiB (raise it with --max-memory)"
        ) from None
    except (TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError,
            KeyError, AttributeError, FloatingPointError) as err:
        # numpy's UFuncTypeError family shows that name (numpy's _display_as_base)
        qualified = f"{type(err).__module__}.{type(err).__qualname__}"
        kind = qualified if qualified in EXCEPTION_PARENTS else next(
            k.__name__ for k in type(err).__mro__ if k.__module__ == "builtins")
        raise ScriptError(str(err), kind=kind) from None
    for warning in caught:  # numpy's own warnings, shown at the script's line
        WARNINGS.append(f"{warning.category.__name__}: {warning.message}")
    return result


def reserve_broadcast(*values: Any) -> None:
    """Refuse an elementwise result larger than the limits before numpy builds it."""
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    if len(arrays) > 1:
        try:
            shape = np.broadcast_shapes(*[a.shape for a in arrays])
        except ValueError:
            return  # numpy's own error follows
        # (text joined by + is as wide as its two operands)
        limits.reserve(tuple(shape), max(8, sum(a.itemsize for a in arrays if a.dtype.kind == "U")))


def _binary(fn: Callable[[Any, Any], Any], reflected: bool = False) -> Callable:
    def op(self: ndarray, other: Any) -> Any:
        if isinstance(other, Tensor) or type(other) not in _OPERANDS and \
                not isinstance(other, np.generic):
            return NotImplemented
        b = raw(other)
        reserve_broadcast(self.a, b)
        a, b = (b, self.a) if reflected else (self.a, b)
        return wrap(call(fn, a, b))

    return op


def _inplace(fn: Callable[..., Any]) -> Callable:
    def op(self: ndarray, other: Any) -> Any:
        if type(other) not in _OPERANDS and not isinstance(other, np.generic) and \
                not isinstance(other, Tensor):
            return NotImplemented
        result = call(fn, self.a, raw(other))
        if result is not self.a:  # (numpy's in-place operators return the array itself)
            return wrap(result)
        return self

    return op


_OPERANDS: set[type] = {bool, int, float, str, list, tuple}  # and ndarray, below
# numpy's own operators (not the ufuncs: `x ** 2` is numpy's square, `x ** 0.5` its sqrt)
_UFUNCS = {name: getattr(operator, name if name not in ("and", "or") else f"{name}_")
           for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                        "and", "or", "xor", "lshift", "rshift")}


class ndarray:  # noqa: N801 - numpy's own name, which scripts see in messages
    """A numpy array as a script value (the array is `a`, which scripts cannot reach)."""

    __slots__ = ("a", "__weakref__")
    __array_ufunc__ = None  # numpy scalars' operators leave an array operand to us
    __hash__ = None  # type: ignore[assignment]  # unhashable, as numpy's arrays are

    def __init__(self, array: np.ndarray, counted: bool = True):
        self.a = array
        if counted and array.size >= limits.LIMITS.admit_from:
            limits.admit(self, array)

    def __repr__(self) -> str:
        return repr(self.a)

    def __str__(self) -> str:
        return str(self.a)

    def __format__(self, spec: str) -> str:
        return call(format, self.a, spec)

    def __len__(self) -> int:
        return call(len, self.a)

    def __iter__(self) -> Iterator[Any]:
        if self.a.ndim == 0:
            raise ScriptError("iteration over a 0-d array", kind="TypeError")
        return (wrap(item) for item in self.a)

    def __bool__(self) -> bool:
        return call(bool, self.a)

    def __float__(self) -> float:
        return call(float, self.a)

    def __int__(self) -> int:
        return call(int, self.a)

    def __index__(self) -> int:
        return call(operator.index, self.a)

    def __contains__(self, item: Any) -> bool:
        return bool(call(operator.contains, self.a, raw(item)))

    def __getitem__(self, index: Any) -> Any:
        return wrap(call(operator.getitem, self.a, _index(index)))

    def __setitem__(self, index: Any, value: Any) -> None:
        index = _index(index)
        if isinstance(value, Tensor) and self.a.dtype.kind in _ELEMENT and \
                isinstance(call(operator.getitem, self.a, index), np.generic):
            value = _ELEMENT[self.a.dtype.kind](value)
        call(operator.setitem, self.a, index, raw(value))

    def __neg__(self) -> Any:
        return wrap(call(np.negative, self.a))

    def __pos__(self) -> Any:
        return wrap(call(np.positive, self.a))

    def __abs__(self) -> Any:
        return wrap(call(np.absolute, self.a))

    def __invert__(self) -> Any:
        return wrap(call(np.invert, self.a))

    def __round__(self, ndigits: Any = None) -> Any:
        return wrap(call(round, self.a, ndigits))

    def __deepcopy__(self, memo: Any) -> ndarray:
        return ndarray(self.a.copy())

    def __copy__(self) -> ndarray:
        return ndarray(self.a.copy())


_OPERANDS.add(ndarray)
for _name, _fn in _UFUNCS.items():
    setattr(ndarray, f"__{_name}__", _binary(_fn))
    setattr(ndarray, f"__r{_name}__", _binary(_fn, reflected=True))
    setattr(ndarray, f"__i{_name}__", _inplace(getattr(operator, f"i{_name}")))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _fn = getattr(operator, _name)
    setattr(ndarray, f"__{_name}__", _binary(_fn))


# `arr[i] = t` of one element: numpy does not read the tensor as an array (no "Can't call
# numpy()" for one that requires grad) but converts it as its element type converts any
# object, through the Python number protocol (a tensor's __float__ warns when it requires
# grad, __int__ does not); a complex array's element takes the array (gradtrace's numpy
# takes no Python complex numbers)
_ELEMENT = {"f": float, "i": int, "u": int, "b": bool, "U": str}


def _index(index: Any) -> Any:
    """An index for numpy: arrays, lists and tensors as arrays, the rest as it is."""
    if type(index) is tuple:
        return tuple(_index(i) for i in index)
    if isinstance(index, Tensor):
        return index.array
    return raw(index)


def from_numpy(value: Any) -> Tensor:
    """torch.from_numpy: a tensor on the array's own memory (writes show on both sides)."""
    if type(value) is not ndarray:
        from ..interpreter.objects import type_name

        raise ScriptError(f"expected np.ndarray (got {type_name(value)})", kind="TypeError")
    array = value.a
    _check_strides(array)
    return Tensor(array, dtype=torch_dtype(array.dtype))


def _check_strides(array: np.ndarray) -> None:
    if any(s < 0 for s in array.strides):
        raise ScriptError(NEGATIVE_STRIDES, kind="ValueError")


def torch_dtype(dtype: np.dtype) -> Any:
    """The torch dtype of a numpy dtype: torch's TypeError for what torch cannot hold,
    gradtrace's refusal for what torch can but gradtrace cannot (uint16, complex)."""
    from . import dtypes

    try:
        return dtypes.from_numpy(dtype)
    except KeyError:
        pass
    if dtype.name in ("uint16", "uint32", "complex64", "complex128"):
        raise NotSupportedError(f"tensors of numpy dtype {dtype.name} are not supported by "
                                "gradtrace")
    raise ScriptError(f"can't convert np.ndarray of type numpy.{dtype.type.__name__}. The only "
                      f"supported types are: {FROM_NUMPY_TYPES}.", kind="TypeError")


def tensor_copy(value: ndarray, dtype: Any = None) -> Tensor:
    """torch.tensor(array): a copy in the array's dtype (float64 stays float64), made as
    torch makes it (from_numpy, then `.to` with preserve_format): a dense array's own
    strides, a size-1 dimension's included, which decide the layout kernels see."""
    from .ops.clones import copy_preserving_layout

    array = value.a
    _check_strides(array)
    own = torch_dtype(array.dtype)
    target = dtype or own
    limits.reserve(array.shape, 8)
    return Tensor(copy_preserving_layout(array, target.np))


def as_tensor(value: ndarray, dtype: Any = None) -> Tensor:
    """torch.as_tensor(array): the array's memory when the dtype is kept, else a copy."""
    if dtype is None or dtype.np == value.a.dtype:
        return from_numpy(value)
    return tensor_copy(value, dtype)


def tensor_binop(op: str, a: Any, b: Any, warn: Callable[[str], None]) -> Any:
    """An operator between a tensor and a numpy array, as torch 2.13 with numpy 2 does it:
    `tensor op array` runs numpy's ufunc on the tensor's array and wraps the result as a
    tensor (numpy warns about torch's `__array_wrap__`); `array op tensor` is a TypeError
    but for `/` (torch's `__rtruediv__`: reciprocal times the array) and `==`/`!=`."""
    import operator as ops

    symbols = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide,
               "//": np.floor_divide, "%": np.remainder, "**": np.power, "@": np.matmul,
               "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}
    if op in ("==", "!="):
        t, other = (a, b) if isinstance(a, Tensor) else (b, a)
        from .ops.creation import tensor as make

        converted = make(other.a.tolist(), dtype=torch_dtype(other.a.dtype))
        return ops.eq(t, converted) if op == "==" else ops.ne(t, converted)
    if isinstance(a, Tensor):
        if op in symbols:
            array = tensor_array(a)
            reserve_broadcast(array, b.a)
            result = call(symbols[op], array, b.a)
            warn(WRAP_WARNING)
            return Tensor(np.asarray(result))
        raise ScriptError(f"'{op}' not supported between instances of 'Tensor' and "
                          "'numpy.ndarray'", kind="TypeError")
    if op == "/":
        recip = Tensor(call(np.reciprocal, tensor_array(b)))  # torch's own code: numpy's
        return tensor_binop("*", recip, a, lambda message: None)  # warning is not shown
    if op == "+":
        raise ScriptError("Concatenation operation is not implemented for NumPy arrays, use "
                          "np.concatenate() instead. Please do not rely on this error; it may "
                          "not be given on all Python implementations.", kind="TypeError")
    if op in symbols:
        shown = "** or pow()" if op == "**" else op
        raise ScriptError(f"unsupported operand type(s) for {shown}: 'numpy.ndarray' and "
                          "'Tensor'", kind="TypeError")
    raise ScriptError(f"'{op}' not supported between instances of 'numpy.ndarray' and "
                      "'Tensor'", kind="TypeError")


def torch_index(index: Any) -> Any:
    """A tensor's index holding numpy values (`t[np.array([1, 2])]`, `t[np.int64(0)]`):
    torch reads an array as a tensor and a numpy integer as an int."""
    if type(index) is tuple:
        return tuple(torch_index(i) for i in index)
    if type(index) is ndarray:
        return Tensor(index.a.copy(), dtype=torch_dtype(index.a.dtype))
    if isinstance(index, (np.integer, np.bool_)):
        return index.item()
    return index


# the types of script values that are numpy's (operators check them on both sides)
NUMPY_TYPES = frozenset({ndarray, *(t for t in set(np.sctypeDict.values())
                                    if issubclass(t, (np.number, np.bool_))),
                          *(type(np.dtype(c)) for c in np.typecodes["All"])})
