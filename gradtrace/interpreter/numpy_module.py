"""`import numpy as np`: numpy itself, through an allow-list (engine/ndarray.py wraps its
arrays).

The functions, constants and array methods below are numpy's own, called with the
script's arguments unwrapped (`ndarray.raw`) and their results wrapped (`ndarray.wrap`),
so arithmetic, printing and random streams are numpy's, bit for bit. Nothing outside the
tables can be reached: no files (load, save, fromfile, memmap), no `np.lib`, no
`ctypes`, no object arrays, no calls back into script functions (vectorize, frompyfunc,
apply_along_axis). Sizes the script asks for are checked against the limits before numpy
allocates (`reserve`), and numpy's MemoryError is the memory limit's message.
"""
from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import stdlib
from ..engine import limits
from ..engine.dtypes import DType
from ..engine.ndarray import (
    COPY_WARNING,
    ERRSTATE,
    MAX_TEXT,
    WRAP_WARNING,
    ErrState,
    PrintOptions,
    ScriptFormatter,
    call,
    ndarray,
    print_options,
    raw,
    reserve_broadcast,
    reset_errstate,
    wrap,
)
from ..engine.tensor import Tensor
from ..errors import NotSupportedError, ScriptError
from . import wrapped
from .objects import MISSING, BuiltinType, is_dunder, type_name

if TYPE_CHECKING:
    from .core import Interpreter

# numpy's scalar types a script may name (np.float32 as a dtype, a constructor, a class)
SCALAR_TYPES: dict[str, type] = {
    "float64": np.float64, "float32": np.float32, "float16": np.float16,
    "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "bool_": np.bool_, "complex128": np.complex128, "complex64": np.complex64,
    "double": np.float64, "single": np.float32, "half": np.float16, "intc": np.intc,
    "int_": np.int_, "longlong": np.longlong, "bool": np.bool_,
    # numpy 2 names C's long again (int64 here); pytorch-fm's offsets use dtype=np.long
    "long": np.long, "ulong": np.ulong,
}
DTYPE_CLASSES = frozenset({*SCALAR_TYPES.values(), np.str_, float, int, bool, complex})
# np.str_ names text as a dtype (`np.issubdtype(dtype, np.str_)`, `dtype=np.str_`); the
# elements of a text array are Python's str in scripts, so an isinstance check with it,
# which numpy answers True for them, is refused rather than answered False (_text_type)
NO_INSTANCE_CHECK = {np.str_: "isinstance() with numpy.str_ is not supported by gradtrace: "
                              "the elements of a text array are Python's str in scripts"}
_CLASS_NAMES = {np.float64: "float64", np.float32: "float32", np.float16: "float16",
                np.int64: "int64", np.int32: "int32", np.int16: "int16", np.int8: "int8",
                np.uint8: "uint8", np.uint16: "uint16", np.uint32: "uint32",
                np.uint64: "uint64", np.bool_: "bool", np.complex128: "complex128",
                np.complex64: "complex64"}

# numpy's ufuncs: given a tensor, numpy runs on its array and torch's __array_wrap__ makes
# the result a tensor again (with numpy 2's DeprecationWarning)
UFUNCS = (
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sqrt", "cbrt", "square", "abs", "absolute", "fabs", "sign", "floor", "ceil", "trunc",
    "rint", "negative", "positive", "reciprocal", "maximum", "minimum", "fmax", "fmin",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "float_power", "mod", "remainder", "fmod", "hypot", "logaddexp", "logaddexp2", "isnan",
    "isinf", "isfinite", "signbit", "copysign", "greater", "greater_equal", "less",
    "less_equal", "equal", "not_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "deg2rad", "rad2deg", "degrees", "radians", "heaviside",
    # integers' bits, numpy 2's array-API names, and float decomposition
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not", "bitwise_invert",
    "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift", "bitwise_count",
    "gcd", "lcm", "ldexp", "nextafter", "spacing", "conj", "conjugate", "acos", "asin", "atan",
    "atan2", "acosh", "asinh", "atanh", "pow",
)
# functions numpy answers with the tensor's own method (torch's signature refuses numpy's)
_TENSOR_METHOD_ERRORS = {
    "mean": "mean() got an unexpected keyword argument 'axis'",
    "sum": "sum() got an unexpected keyword argument 'axis'",
    "max": "max(): argument 'dim' must be int, not NoneType",
    "min": "min(): argument 'dim' must be int, not NoneType",
    "amax": "max(): argument 'dim' must be int, not NoneType",
    "amin": "min(): argument 'dim' must be int, not NoneType",
    "prod": "prod(): argument 'dim' must be int, not NoneType",
    **{name: f"{name}() received an invalid combination of arguments - got (ddof=int, "
       "dtype=NoneType, out=NoneType, axis=NoneType, ), but expected one of:\n"
       " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
       " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
       "      didn't match because some of the keywords were incorrect: ddof, dtype, out, "
       "axis\n * (bool unbiased = True)\n" for name in ("std", "var")},
    **{name: f"{name}() received an invalid combination of arguments - got (out=NoneType, "
       "axis=NoneType, ), but expected one of:\n * ()\n"
       " * (tuple of ints dim = None, bool keepdim = False)\n"
       "      didn't match because some of the keywords were incorrect: out, axis\n"
       " * (int dim, bool keepdim = False)\n"
       "      didn't match because some of the keywords were incorrect: out, axis\n"
       for name in ("all", "any")},
    "copyto": "copyto() argument 1 must be a numpy.ndarray, not Tensor",  # (a destination)
}
# functions that write into their first argument through an ndarray attribute a tensor
# lacks: numpy's AttributeError (np.fill_diagonal assigns through `a.flat`)
_TENSOR_ATTRIBUTE_ERRORS = {"fill_diagonal": "flat"}
_TENSOR_METHOD_DISPATCH = frozenset({
    "argmax", "argmin", "round", "around", "clip", "cumsum", "cumprod", "argsort", "reshape",
    "transpose", "squeeze", "sort", "nonzero", "ravel", "repeat", "swapaxes", "trace",
    "diagonal", "ptp", "shape", "ndim", "size"})

# the rest of numpy's functions scripts use (their tensors read through __array__)
FUNCTIONS = (
    "array", "asarray", "ascontiguousarray", "copy", "zeros_like", "ones_like", "empty_like",
    "full_like", "where", "sum", "mean", "std", "var", "max", "min", "amax", "amin", "argmax",
    "argmin", "prod", "cumsum", "cumprod", "median", "average", "percentile", "quantile",
    "dot", "matmul", "outer", "inner", "vdot", "cross", "tensordot", "einsum", "kron",
    "concatenate", "stack", "vstack", "hstack", "dstack", "column_stack", "split",
    "array_split", "allclose", "isclose", "array_equal", "round", "around", "clip",
    "reshape", "transpose", "squeeze", "expand_dims", "ravel", "flip", "fliplr", "flipud",
    "roll", "tile", "repeat", "sort", "argsort", "unique", "nonzero", "count_nonzero",
    "argwhere", "all", "any", "diag", "diagonal", "trace", "tril", "triu", "shape", "ndim",
    "size", "meshgrid", "atleast_1d", "atleast_2d", "broadcast_to", "swapaxes", "moveaxis",
    "rollaxis",
    "cov", "corrcoef", "histogram", "bincount", "digitize", "searchsorted", "diff",
    "gradient", "interp", "convolve", "correlate", "nan_to_num", "nansum", "nanmean",
    "nanmax", "nanmin", "ptp", "isscalar", "floor_divide", "pad", "take", "take_along_axis",
    "cumulative_sum", "resize",
    "logspace", "geomspace", "identity", "tri", "polyfit", "polyval", "prod", "sinc",
    "maximum", "minimum", "isnan", "argpartition", "partition", "histogram_bin_edges",
    "result_type", "promote_types", "can_cast", "issubdtype", "copyto", "append", "delete",
    "ix_", "isin", "setdiff1d", "intersect1d", "union1d", "fill_diagonal", "unravel_index",
    "ravel_multi_index", "trapezoid",
    # element-wise, selecting and reshaping: results no larger than their inputs
    "angle", "real", "imag", "iscomplex", "isreal", "iscomplexobj", "isrealobj", "isneginf",
    "isposinf", "real_if_close", "fix", "i0", "modf", "frexp", "divmod", "flatnonzero",
    "extract", "compress", "choose", "select", "atleast_3d", "broadcast_arrays",
    "broadcast_shapes", "ediff1d", "trim_zeros", "rot90", "hsplit", "vsplit", "dsplit",
    "unique_values", "setxor1d",
    "array_equiv", "lexsort", "nanargmax", "nanargmin", "nancumsum", "nancumprod",
    "nanmedian", "nanpercentile", "nanquantile", "nanprod", "nanstd", "nanvar",
    "tril_indices_from", "triu_indices_from", "diag_indices_from", "asanyarray",
    "asfortranarray", "concat", "permute_dims", "matrix_transpose", "unstack", "vecdot",
    "matvec", "vecmat", "cumulative_prod", "put", "putmask", "place", "insert", "unwrap",
    "sort_complex", "polyadd", "polysub", "polymul", "polyder", "polyint", "polydiv", "roots",
    "poly", "packbits",
)
# numpy's file readers and writers: a name a script may import (a training script's header,
# `from numpy import save as np_save`), refused when called, as Python's open is
FILE_FUNCTIONS = ("save", "load", "savez", "savez_compressed", "savetxt", "loadtxt",
                  "genfromtxt", "fromfile")
# constructors whose size the script gives: checked against the limits first
_SIZED = ("zeros", "ones", "empty", "full", "eye", "arange", "linspace", "identity",
          "logspace", "geomspace",
          # index grids: a pair list's `np.triu_indices(n, 1)`, `np.indices(shape)`
          "triu_indices", "tril_indices", "diag_indices", "indices",
          # signal windows of M points
          "hanning", "hamming", "bartlett", "blackman", "kaiser")
CONSTANTS = {"pi": np.pi, "e": np.e, "inf": np.inf, "nan": np.nan, "newaxis": None,
             "euler_gamma": np.euler_gamma, "True_": np.True_, "False_": np.False_}
LINALG = ("norm", "inv", "solve", "det", "pinv", "svd", "eig", "eigh", "eigvals", "eigvalsh",
          "qr", "cholesky", "lstsq", "matrix_rank", "slogdet", "matrix_power", "multi_dot")
# numpy.fft: numpy's own transforms (pocketfft), frequencies and shifts
FFT = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
       "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift")
# the array methods and properties scripts use
METHODS = (
    "astype", "reshape", "sum", "mean", "max", "min", "argmax", "argmin", "std", "var",
    "prod", "cumsum", "cumprod", "copy", "flatten", "ravel", "tolist", "item", "dot",
    "transpose", "squeeze", "clip", "round", "all", "any", "fill", "sort", "argsort",
    "nonzero", "repeat", "swapaxes", "trace", "diagonal", "ptp", "conj",
)
PROPERTIES = ("shape", "dtype", "ndim", "size", "T", "itemsize", "nbytes", "real", "imag")
SCALAR_METHODS = ("item", "tolist", "astype", "round", "conjugate", "is_integer",
                  "as_integer_ratio", "sum", "mean", "max", "min", "reshape")
SCALAR_PROPERTIES = ("shape", "dtype", "ndim", "size", "itemsize", "nbytes", "real", "imag",
                     "T")
DTYPE_PROPERTIES = ("name", "itemsize", "kind", "char", "str", "num", "alignment",
                    "byteorder", "isnative", "ndim", "shape")
# np.finfo / np.iinfo: their numbers only
TYPE_INFO_PROPERTIES = {
    np.finfo: ("bits", "dtype", "eps", "epsneg", "iexp", "kind", "machep", "max", "maxexp",
               "min", "minexp", "negep", "nexp", "precision", "resolution",
               "smallest_normal", "smallest_subnormal", "tiny"),
    np.iinfo: ("bits", "dtype", "kind", "max", "min"),
}


_ABSTRACT_CLASSES = frozenset({np.generic, np.number, np.integer, np.signedinteger,
                               np.unsignedinteger, np.floating, np.complexfloating,
                               np.inexact})


def dtype_arg(value: Any) -> Any:
    """A dtype argument: np.float32, float, 'float32', x.dtype (never an object dtype)."""
    if type(value) is BuiltinType and (value.type in DTYPE_CLASSES or
                                       value.type in _ABSTRACT_CLASSES):
        return value.type
    if isinstance(value, DType):
        raise ScriptError(f"Cannot interpret '{value!r}' as a data type", kind="TypeError")
    if type(value) is BuiltinType and value.type is str:  # text, as wide as it needs
        return np.str_
    if type(value) is BuiltinType:
        raise NotSupportedError(f"numpy functions take numbers, lists, arrays and numpy's "
                                f"types in gradtrace scripts, not {value!r}")
    if value is None:
        return None
    if isinstance(value, (str, np.dtype)):
        resolved = call(np.dtype, value)
        if resolved.kind == "U" and resolved.itemsize <= 4 * MAX_TEXT:
            return resolved
        if resolved.kind not in "biufc":
            raise NotSupportedError(f"numpy dtype {resolved} is not supported by gradtrace "
                                    "(numbers and bools only)")
        return resolved
    return raw(value)


def make_dtype(value: Any) -> Any:
    """np.dtype(x): numpy's dtype object for a dtype argument (np.float32, float, 'int8',
    np.str_, None as numpy's default float64), not the class the argument names."""
    return call(np.dtype, dtype_arg(value))


def args_of(args: tuple, kwargs: dict) -> tuple[list, dict]:
    """Script arguments as numpy's: dtypes resolved, arrays unwrapped, `out=` refused."""
    out = kwargs.get("out")
    if out is not None and type(out) is not ndarray:  # the script's own array only
        raise NotSupportedError("numpy's out= takes a numpy array in gradtrace scripts")
    converted = [dtype_arg(a) if type(a) is BuiltinType or isinstance(a, DType) else raw(a)
                 for a in args]
    named = {key: dtype_arg(v) if key == "dtype" or type(v) is BuiltinType else raw(v)
             for key, v in kwargs.items()}
    return converted, named


def numel(shape: Any) -> int:
    if shape is None:
        return 1
    if isinstance(shape, (int, np.integer)):
        return int(shape)
    return math.prod(int(s) for s in shape) if all(
        isinstance(s, (int, np.integer)) for s in shape) else 0


def reserve(n: int, itemsize: int = 8) -> None:
    """Refuse an array of `n` elements past the limits before numpy allocates it."""
    if n > 0:
        limits.reserve((n,), max(itemsize, 8))


def _sized_count(name: str, args: list, kwargs: dict) -> int:
    """How many elements a sized constructor will build (0 when numpy will refuse)."""
    try:
        if name in ("zeros", "ones", "empty", "full"):
            return numel(args[0] if args else kwargs.get("shape"))
        if name in ("eye", "identity"):
            n = int(args[0] if args else kwargs.get("N", 0))
            m = args[1] if len(args) > 1 and args[1] is not None else kwargs.get("M") or n
            return n * int(m)
        if name == "arange":
            numbers = [float(a) for a in args[:3] if isinstance(a, (int, float, np.number))]
            if len(numbers) == 1:
                return max(0, math.ceil(numbers[0]))
            start, stop = numbers[0], numbers[1]
            step = numbers[2] if len(numbers) > 2 else float(kwargs.get("step", 1))
            return max(0, math.ceil((stop - start) / step)) if step else 0
        if name in ("triu_indices", "tril_indices"):  # two index arrays, at most n * m
            n = int(args[0] if args else kwargs.get("n", 0))
            m = args[2] if len(args) > 2 else kwargs.get("m")
            return 2 * n * (n if m is None else int(m))
        if name == "diag_indices":
            n = int(args[0] if args else kwargs.get("n", 0))
            return n * int(args[1] if len(args) > 1 else kwargs.get("ndim", 2))
        if name in ("hanning", "hamming", "bartlett", "blackman", "kaiser"):
            return max(0, int(args[0] if args else kwargs.get("M", 0)))
        if name == "indices":  # one grid per dimension
            dims = args[0] if args else kwargs.get("dimensions")
            return numel(dims) * len(dims)
        num = args[2] if len(args) > 2 else kwargs.get("num", 50)
        return int(num)
    except (TypeError, ValueError, OverflowError, IndexError):
        return 0


def _check_result_size(name: str, args: list) -> None:
    """The results numpy builds larger than their inputs: outer, kron, tile, repeat,
    resize (`args` are the positional arguments, then the keyword ones)."""
    try:
        arrays = [np.asarray(a) if type(a) is list and name not in (
            "concatenate", "stack", "vstack", "hstack", "column_stack") else a for a in args]
    except ValueError:
        return  # a ragged list: numpy's own error follows
    # (a text array's elements are wider than a number's)
    width = max([a.itemsize for a in arrays if isinstance(a, np.ndarray)], default=8)
    if name in ("outer", "kron") and len(arrays) >= 2:
        reserve(int(np.size(arrays[0])) * int(np.size(arrays[1])))
    elif name in ("tile", "repeat") and len(arrays) >= 2:
        reps = arrays[1]
        factor = int(np.prod(reps)) if np.size(reps) and np.asarray(reps).dtype.kind in "iu" \
            else 1
        if name == "repeat" and np.size(reps) > 1:
            factor = int(np.max(reps))
        reserve(int(np.size(arrays[0])) * max(factor, 1), width)
    elif name == "resize" and len(arrays) >= 2:
        reserve(numel(arrays[1]), width)  # the new shape, whatever the input's size
    elif name in ("concatenate", "stack", "vstack", "hstack", "column_stack") and arrays and \
            isinstance(arrays[0], (list, tuple)):
        reserve(sum(int(np.size(a)) for a in arrays[0]),
                max([a.itemsize for a in arrays[0] if isinstance(a, np.ndarray)], default=8))
    elif name == "insert" and len(arrays) >= 3:  # (its axis, when given, is the fourth)
        arr = np.asarray(arrays[0])
        axis = arrays[3] if len(arrays) > 3 else None
        other = arr.size // max(1, arr.shape[axis]) if isinstance(axis, int) and arr.ndim \
            and -arr.ndim <= axis < arr.ndim else 1
        reserve(arr.size + max(int(np.size(arrays[1])), int(np.size(arrays[2]))) * other, width)
    elif name == "append" and len(arrays) >= 2:
        reserve(int(np.size(arrays[0])) + int(np.size(arrays[1])), width)
    else:
        reserve_broadcast(*arrays)


def _isin_table_size(converted: list, named: dict) -> int:
    """np.isin(..., kind='table')'s lookup table: a bool for each integer from the test
    elements' least to their greatest (numpy's own choice of kind makes it only when small)."""
    elements = named.get("test_elements", converted[1] if len(converted) > 1 else None)
    try:
        arr = np.asarray(elements)
        if arr.size and arr.dtype.kind in "iub":
            return int(arr.max()) - int(arr.min()) + 1
    except (TypeError, ValueError, OverflowError):
        pass
    return 0


class NumpyFunction:
    """A numpy function as a script value: prints as numpy's."""

    __slots__ = ("name", "fn", "interp", "qualified")

    def __init__(self, name: str, fn: Callable[..., Any], interp: Interpreter,
                 qualified: str = ""):
        self.name = name
        self.fn = fn
        self.interp = interp
        self.qualified = qualified or name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<function {self.qualified}>"

    def dunder_name(self, name: str) -> Any:
        """`np.mean.__name__` and, for a function of a numpy module, its `__qualname__` and
        `__module__` (MISSING for the others: a generator's samplers are methods)."""
        module, _, plain = self.qualified.rpartition(".")
        if name in UFUNC_METHODS and self.name in UFUNCS and self.qualified == \
                f"numpy.{self.name}":
            return _ufunc_method(self.interp, self.name, name)
        if name == "__name__":
            return self.name
        if not module.startswith("numpy") or plain != self.name:
            return MISSING
        return plain if name == "__qualname__" else module if name == "__module__" else MISSING


def _no_copy_error() -> str | None:
    """numpy's message when copy=False cannot be honoured, as it words it (None for a
    numpy before 2.0, which copies anyway)."""
    try:
        np.array(0, copy=False)
    except ValueError as err:
        return str(err)
    return None


_NO_COPY_ERROR = _no_copy_error()


# numpy functions that hand their result to the input's __array_wrap__ (np.delete's
# `conv.wrap(new)`): given a tensor they return a tensor, as the ufuncs do
_WRAPPED = frozenset({"delete"})


def _array_wrap(result: np.ndarray) -> Tensor:
    """torch's Tensor.__array_wrap__: a bool array comes back as uint8 (torch/_tensor.py),
    any other through torch.from_numpy."""
    return Tensor(result.astype(np.uint8) if result.dtype == np.bool_ else result)


def _tensor_call(interp: Interpreter, name: str, fn: Callable[..., Any], args: tuple,
                 kwargs: dict) -> Any:
    """A numpy function given a tensor, as torch 2.13 answers it."""
    first = args[0] if args else None
    if name in _TENSOR_METHOD_ERRORS and isinstance(first, Tensor):
        raise ScriptError(_TENSOR_METHOD_ERRORS[name], kind="TypeError")
    if name in _TENSOR_ATTRIBUTE_ERRORS and isinstance(first, Tensor):
        raise ScriptError(f"'Tensor' object has no attribute '{_TENSOR_ATTRIBUTE_ERRORS[name]}'",
                          kind="AttributeError")
    if name == "squeeze" and isinstance(first, Tensor) and len(args) <= 2 and \
            set(kwargs) <= {"axis"}:
        # numpy's squeeze(a, axis=None) is `a.squeeze()`, or `a.squeeze(axis=axis)` given
        # an axis: the tensor's own method (Kaggle loops' `np.squeeze(pred.eq(target))`)
        axis = args[1] if len(args) == 2 else kwargs.get("axis")
        squeeze = interp.get_attribute(first, "squeeze", None)
        return interp.call(squeeze, [], {} if axis is None else {"axis": axis}, None)
    if name in _TENSOR_METHOD_DISPATCH and isinstance(first, Tensor):
        raise NotSupportedError(f"np.{name}() of a tensor (numpy calls the tensor's own "
                                f"method) is not supported by gradtrace: call t.{name}() "
                                "or use t.numpy()")
    if name in UFUNCS or name in _WRAPPED:
        converted, named = args_of(args, kwargs)
        reserve_broadcast(*converted)
        result = call(fn, *converted, **named)
        interp.warn(WRAP_WARNING)
        return _array_wrap(np.asarray(result))
    if name in ("array", "asarray") and isinstance(first, Tensor):
        # numpy 2 passes a copy other than None to __array__, which torch's does not take
        # (a DeprecationWarning); a false one it then cannot honour, before any conversion
        copy = kwargs.get("copy", True if name == "array" else None)
        if copy is not None:
            interp.warn(COPY_WARNING)
            if _NO_COPY_ERROR is not None and isinstance(copy, (bool, int, float)) and \
                    not copy:
                raise ScriptError(_NO_COPY_ERROR, kind="ValueError")
    return None


# a ufunc's own methods: `np.subtract.outer(x, x)` (pairwise differences in n-body
# simulators), `np.add.at(counts, idx, 1)` (in place, as numpy's), reduce, accumulate
UFUNC_METHODS = ("outer", "reduce", "accumulate", "reduceat", "at")


def _ufunc_method(interp: Interpreter, ufunc: str, method: str) -> NumpyFunction:
    """`np.<ufunc>.<method>`, called as numpy's on the script's arrays (a tensor refused:
    numpy would read it through __array__ and hand the result to its __array_wrap__)."""
    bound = make_function(interp, method, getattr(getattr(np, ufunc), method),
                          f"numpy.ufunc.{method}")

    def function(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, Tensor) for a in (*args, *kwargs.values())):
            raise NotSupportedError(f"np.{ufunc}.{method}() of a tensor is not supported by "
                                    "gradtrace: use t.numpy()")
        return bound(*args, **kwargs)

    return NumpyFunction(method, function, interp, f"numpy.ufunc.{method}")


def make_function(interp: Interpreter, name: str, fn: Callable[..., Any],
                  qualified: str = "") -> NumpyFunction:
    sized = name in _SIZED

    def function(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, Tensor) for a in args):
            result = _tensor_call(interp, name, fn, args, kwargs)
            if result is not None:
                return result
        converted, named = args_of(args, kwargs)
        if sized:
            reserve(_sized_count(name, converted, named))
        elif name == "isin" and named.get("kind") == "table":
            reserve(_isin_table_size(converted, named), 1)
        else:
            _check_result_size(name, [*converted, *named.values()])
        return wrap(call(fn, *converted, **named))

    return NumpyFunction(name, function, interp, qualified or f"numpy.{name}")


class IndexTrick:
    """np.r_ / np.c_: indexing one concatenates its pieces (arrays, numbers, lists and
    slices, which become ranges) along the first axis / as columns; np.mgrid / np.ogrid:
    indexing one with slices makes the dense / open mesh of their ranges (CenterNet's
    gaussian2D: `y, x = np.ogrid[-m:m+1, -n:n+1]`); numpy's own objects."""

    __slots__ = ("name", "trick")

    def __init__(self, name: str, trick: Any):
        self.name = name
        self.trick = trick

    def getitem(self, key: Any) -> Any:
        items = key if type(key) is tuple else (key,)
        count = 0
        pieces = []
        for item in items:
            if type(item) is slice:
                count += _slice_size(item)
                step = item.step if type(item.step) is complex else raw(item.step)  # (a count)
                pieces.append(slice(raw(item.start), raw(item.stop), step))
            elif isinstance(item, str):
                pieces.append(item)
            else:
                value = raw(item)
                count += int(np.size(value)) if not isinstance(value, list) else len(value)
                pieces.append(value)
        if self.name == "mgrid":  # one array of every slice's range per slice
            sizes = [_slice_size(item) for item in items if type(item) is slice]
            count = math.prod(sizes) * len(sizes)
        reserve(count)
        return wrap(call(self.trick.__getitem__, tuple(pieces) if type(key) is tuple
                         else pieces[0]))

    def __repr__(self) -> str:
        return f"<numpy.lib._index_tricks_impl.{type(self.trick).__name__} object at " \
               f"{id(self):#x}>"


def _slice_size(item: slice) -> int:
    """How many numbers a slice in np.r_, np.mgrid or np.ogrid makes (a range, or with a
    complex step numpy's count of points)."""
    if isinstance(item.step, complex):
        return int(abs(item.step))
    try:
        start = 0 if item.start is None else float(item.start)
        step = 1 if item.step is None else float(item.step)
        return max(0, math.ceil((float(item.stop) - start) / step)) if step else 0
    except (TypeError, ValueError, OverflowError):
        return 0


def _removed_names() -> frozenset[str]:
    from numpy import _expired_attrs_2_0

    return frozenset({*_expired_attrs_2_0.__expired_attributes__,
                      *getattr(np, "__former_attrs__", ())})


REMOVED_NAMES = _removed_names()  # np.float, np.float_, np.NaN, ...: gone in numpy 2


def removed_name_error(name: str) -> ScriptError:
    """numpy 2's own AttributeError for a name it removed (one of REMOVED_NAMES only)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(np, name)  # a fixed name from numpy's own list: it raises
    except AttributeError as err:
        return ScriptError(str(err), kind="AttributeError")
    return ScriptError(f"module 'numpy' has no attribute '{name}'", kind="AttributeError")


def missing(owner: str, name: str) -> Exception:
    if name.startswith("_"):
        return NotSupportedError(f"attribute '{name}' of {owner} is not available in "
                                 "gradtrace scripts")
    return NotSupportedError(f"'{owner}.{name}' is not supported by gradtrace")


def scalar_types(interp: Interpreter) -> dict[str, BuiltinType]:
    """np.float32 & co: classes for isinstance/type(x), dtypes, and constructors."""
    types: dict[str, BuiltinType] = {}
    for name, cls in SCALAR_TYPES.items():
        known = interp.builtin_types.get(cls)
        if known is None:
            def make(value: Any = 0, *rest: Any, _cls: type = cls) -> Any:
                converted, _ = args_of((value, *rest), {})
                if isinstance(converted[0], (list, tuple, np.ndarray)):
                    _check_result_size("array", converted)
                return wrap(call(_cls, *converted))

            known = BuiltinType(cls, make)
            known.name = cls.__name__
            known.module = "numpy"
            interp.builtin_types[cls] = known
        types[name] = known
    return types


ABSTRACT_TYPES = {cls.__name__: cls for cls in _ABSTRACT_CLASSES}


def _text_type(interp: Interpreter) -> BuiltinType:
    """np.str_: a dtype and a class for issubdtype/issubclass only (its values, which a
    script never holds, are refused as isinstance with it is)."""
    def make(*args: Any, **kwargs: Any) -> Any:
        raise NotSupportedError("numpy.str_ values are not supported by gradtrace: the "
                                "elements of a text array are Python's str in scripts")

    made = BuiltinType(np.str_, make)
    made.module = "numpy"
    interp.builtin_types[np.str_] = made
    return made


def _abstract_types(interp: Interpreter) -> dict[str, BuiltinType]:
    """np.number, np.integer, np.floating, ...: for isinstance and issubclass only."""
    types = {}
    for name, cls in ABSTRACT_TYPES.items():
        def make(*args: Any, _name: str = name) -> Any:
            raise ScriptError(f"cannot create 'numpy.{_name}' instances", kind="TypeError")

        made = BuiltinType(cls, make)
        made.module = "numpy"
        types[name] = made
    return types


_DEFAULT_PRINT = {key: value for key, value in np.get_printoptions().items()
                  if key in ("precision", "threshold", "edgeitems", "linewidth", "suppress",
                             "nanstr", "infstr", "sign", "floatmode", "legacy")}
_PRINT_LIMIT = 1000  # precision, edgeitems and linewidth beyond this only make output huge


def _get_printoptions() -> dict[str, Any]:
    """np.get_printoptions: numpy's own dict of the options in force (numbers, strings,
    None, and the script's own formatter dict)."""
    return print_options()


def _script_formatter(interp: Interpreter, formatter: Any) -> ScriptFormatter | None:
    """A `formatter=` dict ({'float': '{:.3f}'.format, 'int': lambda x: ...}) as numpy calls
    it: each function runs in the script on the element (a numpy scalar) and must give the
    string numpy lays out (anything else is numpy's AttributeError on it); keys numpy does
    not know are kept, and ignored by numpy, as in numpy."""
    if formatter is None:
        return None
    if type(formatter) is not dict:
        raise ScriptError(f"'{type_name(formatter)}' object has no attribute 'keys'",
                          kind="AttributeError")

    def element_formatter(fn: Any) -> Callable[[Any], str]:
        def format_element(x: Any) -> str:
            text = interp.call(fn, [wrap(x)], {}, None)
            if type(text) is not str:
                raise ScriptError(f"'{type_name(text)}' object has no attribute 'splitlines'",
                                  kind="AttributeError")
            interp.check_size(len(text), "a formatted element")
            return text

        return format_element

    wrapped = ScriptFormatter(
        {key: element_formatter(fn) for key, fn in formatter.items() if type(key) is str})
    wrapped.original = formatter
    return wrapped


def reset_formatter() -> None:
    """A run ends without its formatter: numpy's options are the process's, and its
    functions belong to the run."""
    if np.get_printoptions().get("formatter") is not None:
        np.set_printoptions(formatter=None)


def _set_printoptions(interp: Interpreter) -> NumpyFunction:
    """np.set_printoptions for one run: numpy's own setting (scalars print by it too), reset
    when the next run starts; a `formatter`'s functions run in the script."""
    def set_printoptions(precision: Any = None, threshold: Any = None, edgeitems: Any = None,
                         linewidth: Any = None, suppress: Any = None, nanstr: Any = None,
                         infstr: Any = None, sign: Any = None, floatmode: Any = None,
                         *, legacy: Any = None, override_repr: Any = None,
                         formatter: Any = None) -> None:
        if override_repr is not None:
            raise NotSupportedError("np.set_printoptions(override_repr=...) is not supported "
                                    "by gradtrace")
        formatter = _script_formatter(interp, formatter)
        for value in (precision, edgeitems, linewidth):
            if isinstance(value, int) and value > _PRINT_LIMIT:
                raise NotSupportedError(f"numpy print options above {_PRINT_LIMIT} are not "
                                        "supported by gradtrace")
        for text in (nanstr, infstr):
            if isinstance(text, str):
                interp.check_size(len(text), "a print option")
        call(np.set_printoptions, precision, threshold, edgeitems, linewidth, suppress,
             nanstr, infstr, formatter, sign, floatmode, legacy=legacy)

    return NumpyFunction("set_printoptions", set_printoptions, interp,
                         "numpy.set_printoptions")


# numpy's formatting functions (a string of an array or a number, binary_repr's digits):
# their widths and digit counts are held to the print options' limit, their strings to the
# sequence limit; a formatter's functions run in the script
FORMATTING = ("array2string", "array_str", "array_repr", "format_float_positional",
              "format_float_scientific", "binary_repr", "base_repr")
_FORMAT_WIDTHS = frozenset(("max_line_width", "precision", "edgeitems", "pad_left",
                            "pad_right", "min_digits", "exp_digits", "width", "padding"))


def _formatting_function(interp: Interpreter, name: str) -> NumpyFunction:
    fn = getattr(np, name)  # a fixed name from FORMATTING
    signature = inspect.signature(fn)

    def function(*args: Any, **kwargs: Any) -> str:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise ScriptError(str(err), kind="TypeError") from None
        formatter = _script_formatter(interp, bound.arguments.pop("formatter", None))
        for key, value in bound.arguments.items():
            if key in _FORMAT_WIDTHS and isinstance(value, int) and value > _PRINT_LIMIT:
                raise NotSupportedError(f"numpy print options above {_PRINT_LIMIT} are not "
                                        "supported by gradtrace")
            if isinstance(value, str):
                interp.check_size(len(value), "a print option")
        converted, named = args_of(bound.args, bound.kwargs)
        if formatter is not None:
            named["formatter"] = formatter
        text = call(fn, *converted, **named)
        interp.check_size(len(text), "a string")
        return text

    return NumpyFunction(name, function, interp, f"numpy.{name}")


def make_numpy(interp: Interpreter, random_ns: stdlib.Namespace
               ) -> dict[str, stdlib.Namespace]:
    """The `numpy` namespace of one run, and `numpy.random`, `numpy.linalg`, `numpy.fft`."""
    np.set_printoptions(**_DEFAULT_PRINT)  # what an earlier run in this process set goes
    table: dict[str, Any] = dict(CONSTANTS)
    for name in {*FUNCTIONS, *UFUNCS, *_SIZED}:
        fn = getattr(np, name, None)  # fixed names from the tables above
        if fn is not None:
            table[name] = make_function(interp, name, fn)
    table.update(scalar_types(interp))
    table.update(_abstract_types(interp))
    table["str_"] = _text_type(interp)
    array_type = BuiltinType(ndarray, table["array"])
    array_type.module = "numpy"
    interp.builtin_types[ndarray] = array_type
    table["ndarray"] = array_type
    table["dtype"] = NumpyFunction("dtype", make_dtype, interp, "numpy.dtype")
    table["__version__"] = np.__version__
    table["set_printoptions"] = set_options = _set_printoptions(interp)
    table["printoptions"] = NumpyFunction(
        "printoptions", lambda *a, **k: PrintOptions(set_options, *a, **k), interp,
        "numpy.printoptions")
    table["get_printoptions"] = NumpyFunction("get_printoptions", _get_printoptions, interp,
                                              "numpy.get_printoptions")
    for name in FORMATTING:
        table[name] = _formatting_function(interp, name)
    reset_errstate()
    table["errstate"] = NumpyFunction("errstate", ErrState, interp, "numpy.errstate")
    table["geterr"] = NumpyFunction("geterr", lambda: dict(ERRSTATE[-1]), interp,
                                    "numpy.geterr")
    for info in TYPE_INFO_PROPERTIES:
        name = info.__name__
        table[name] = NumpyFunction(name, _type_info(info), interp, f"numpy.{name}")
    table["nditer"] = NumpyFunction("nditer", NdIter, interp, "numpy.nditer")
    for name in FILE_FUNCTIONS:
        table[name] = NumpyFunction(name, _refused_file_function(name), interp,
                                    f"numpy.{name}")
    table["r_"] = IndexTrick("r_", np.r_)
    table["c_"] = IndexTrick("c_", np.c_)
    table["mgrid"] = IndexTrick("mgrid", np.mgrid)
    table["ogrid"] = IndexTrick("ogrid", np.ogrid)
    linalg = stdlib.Namespace("numpy.linalg", {
        name: make_function(interp, name, getattr(np.linalg, name), f"numpy.linalg.{name}")
        for name in LINALG})
    fft = stdlib.Namespace("numpy.fft", {
        name: make_function(interp, name, getattr(np.fft, name), f"numpy.fft.{name}")
        for name in FFT})
    testing = stdlib.Namespace("numpy.testing", {
        "assert_allclose": make_function(interp, "assert_allclose",
                                         _assert_allclose, "numpy.testing.assert_allclose"),
        "assert_array_equal": make_function(interp, "assert_array_equal",
                                            _assert_array_equal,
                                            "numpy.testing.assert_array_equal")})
    table.update(random=random_ns, linalg=linalg, fft=fft, testing=testing)
    namespace = stdlib.Namespace("numpy", table)
    return {"numpy": namespace, "numpy.random": random_ns, "numpy.linalg": linalg,
            "numpy.fft": fft, "numpy.testing": testing}


_NDITER_FLAGS = frozenset({"multi_index", "c_index", "f_index", "refs_ok", "zerosize_ok"})
_NDITER_OP_FLAGS = frozenset({"readonly", "readwrite", "writeonly"})


class NdIter:
    """`np.nditer(a, flags=["multi_index"], op_flags=["readwrite"])` over one array or
    tensor: numpy's own iterator, for the index walk a gradient check makes
    (`while not it.finished: ix = it.multi_index; ...; it.iternext()`); the elements are
    read and written through the array with those indices, never through the iterator."""

    __slots__ = ("it",)
    python_type_name = "numpy.nditer"

    def __init__(self, op: Any, flags: Any = None, op_flags: Any = None,
                 order: Any = "K") -> None:
        for given, allowed, what in ((flags, _NDITER_FLAGS, "flags"),
                                     (op_flags, _NDITER_OP_FLAGS, "op_flags")):
            if given is not None and (not isinstance(given, (list, tuple)) or any(
                    not isinstance(f, str) or f not in allowed for f in given)):
                raise NotSupportedError(f"np.nditer({what}={given!r}) is not supported by "
                                        f"gradtrace (only {', '.join(sorted(allowed))})")
        array = raw(op)
        if not isinstance(array, np.ndarray):
            array = call(np.asarray, array)
        self.it = call(np.nditer, array, list(flags or ()),
                       list(op_flags) if op_flags else None, None, order)

    def __repr__(self) -> str:
        return f"<numpy.nditer object at {id(self):#x}>"


def _nditer_getter(name: str) -> Callable[[NdIter], Any]:
    def get(obj: NdIter) -> Any:
        return call(getattr, obj.it, name)  # numpy's ValueError past the end, as numpy's
    return get


def _nditer_method(name: str) -> Callable[..., Any]:
    def method(obj: NdIter) -> Any:
        return call(getattr(obj.it, name))
    return method


wrapped.register(NdIter, {name: _nditer_getter(name) for name in (
    "finished", "multi_index", "index", "iterindex", "itersize", "shape", "ndim",
    "has_multi_index", "has_index")},
    {"iternext": _nditer_method("iternext"), "reset": _nditer_method("reset")})


def _refused_file_function(name: str) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise NotSupportedError(f"'numpy.{name}' is not supported by gradtrace: scripts "
                                "read and write no files")
    return refused


def _type_info(info: type) -> Callable[[Any], Any]:
    """np.finfo / np.iinfo of a type, a dtype, its name or a value (numpy's object, whose
    allow-listed numbers a script reads: TYPE_INFO_PROPERTIES)."""
    def make(value: Any) -> Any:
        arg = dtype_arg(value) if type(value) is BuiltinType or isinstance(
            value, (DType, str, np.dtype)) else raw(value)
        return call(info, arg)
    return make


def _assert_allclose(*args: Any, **kwargs: Any) -> None:
    try:
        np.testing.assert_allclose(*args, **kwargs)
    except AssertionError as err:
        raise ScriptError(str(err), kind="AssertionError") from None


def _assert_array_equal(*args: Any, **kwargs: Any) -> None:
    try:
        np.testing.assert_array_equal(*args, **kwargs)
    except AssertionError as err:
        raise ScriptError(str(err), kind="AssertionError") from None


# ---------------------------------------------------------------- attributes


def _method(value: Any, name: str) -> Callable[..., Any]:
    bound = getattr(value, name)  # a fixed name from METHODS / SCALAR_METHODS

    def method(*args: Any, **kwargs: Any) -> Any:
        converted, named = args_of(args, kwargs)
        if name in ("repeat",):
            _check_result_size(name, [value, *converted])
        result = call(bound, *converted, **named)
        if name in ("tolist", "item"):
            return _plain(result)
        return wrap(result)

    return method


def _plain(value: Any) -> Any:
    """tolist()/item(): Python numbers (complex refused: scripts have no complex)."""
    if isinstance(value, complex):
        raise NotSupportedError("complex numbers are not supported by gradtrace")
    return value


def array_attribute(value: Any, name: str) -> Any:
    """An allow-listed attribute of a numpy array or scalar (numpy's own value)."""
    if type(value) is ndarray:
        array = value.a
        if name in PROPERTIES:
            return wrap(getattr(array, name))
        if name in METHODS:
            return stdlib.BoundMethod(value, lambda _v, *a, **k: _method(array, name)(*a, **k),
                                      name)
        owner = "numpy.ndarray"
    elif isinstance(value, np.dtype):
        if name in DTYPE_PROPERTIES:
            return getattr(value, name)
        owner = "numpy.dtype"
    elif type(value) in TYPE_INFO_PROPERTIES:
        if name in TYPE_INFO_PROPERTIES[type(value)]:
            return wrap(getattr(value, name))
        owner = type(value).__name__  # numpy's message names it bare ('finfo' object)
    else:
        if name in SCALAR_PROPERTIES:
            return wrap(getattr(value, name))
        if name in SCALAR_METHODS:
            return stdlib.BoundMethod(value, lambda v, *a, **k: _method(v, name)(*a, **k),
                                      name)
        owner = f"numpy.{type(value).__name__}"
    if name.startswith("_") and not _unknown_dunder(value, name) or hasattr(np.ndarray, name):
        raise missing(owner, name)
    raise ScriptError(f"'{owner}' object has no attribute '{name}'", kind="AttributeError")


def _unknown_dunder(value: Any, name: str) -> bool:
    """A dunder numpy's own object lacks (and Python's internals do not name): Python's
    AttributeError, as for any object, so that `hasattr(array, "__getitems__")` (the
    DataLoader's fetch over a numpy dataset) answers False instead of being refused."""
    from .classes import REFUSED_DUNDERS

    return is_dunder(name) and name not in REFUSED_DUNDERS and \
        not hasattr(_numpy_class(value), name)


def numpy_has(value: Any, name: str) -> bool:
    """Whether numpy's own object has `name` (`hasattr(array, "__len__")`, a duck-typing
    check such as Keras's pad_sequences makes): hasattr then answers True as under numpy,
    while reading a refused one stays refused."""
    return is_numpy_value(value) and hasattr(_numpy_class(value), name)


def _numpy_class(value: Any) -> type:
    """The numpy class a script's numpy value is an instance of, whose attributes (not the
    value's: no property runs for a name the script chose) say what numpy's object has."""
    return np.ndarray if type(value) is ndarray else type(value)


def is_numpy_value(value: Any) -> bool:
    return type(value) is ndarray or isinstance(value, (np.generic, np.dtype)) \
        or type(value) in TYPE_INFO_PROPERTIES
