"""torch dtypes over numpy dtypes, and torch's type-promotion rules."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotSupportedError, ScriptError, TorchRuntimeError, TorchTypeError


class DType:
    """A torch dtype: prints as `torch.float32`, backed by a numpy dtype."""

    python_type_name = "torch.dtype"  # the name Python's messages give the type
    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "tensor_type",
                 "scalar_type", "category", "barebones", "restricted", "is_complex")

    def __init__(self, name: str, np_dtype: type, tensor_type: str,
                 scalar_type: str | None = None):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "ic" or self.is_floating_point
        self.itemsize = self.np.itemsize
        self.tensor_type = tensor_type  # legacy name torch uses in messages: FloatTensor
        # c10's ScalarType name, as kernels' messages print it: Float, Long, Byte
        self.scalar_type = scalar_type or tensor_type[: -len("Tensor")]
        # 0 bool, 1 integer, 2 floating, 3 complex: promotion across categories goes upward
        self.category = 3 if self.is_complex else 2 if self.is_floating_point else \
            0 if name == "bool" else 1
        # torch's "barebones" unsigned types (uint16, uint32, uint64): tensors, casts and a
        # few kernels only (engine/unsigned.py lists which ops run on them)
        self.barebones = self.np.kind == "u" and self.itemsize > 1
        # a dtype only some of whose ops gradtrace runs: every call given one is checked
        # (and bfloat16, built by _bfloat16; complex: engine/complex.py lists what runs)
        self.restricted = self.barebones or self.is_complex

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __getattr__(self, name: str) -> Any:
        """Only reached for an unset slot: bfloat16's numpy dtype, loaded on first use."""
        if name == "np" and object.__getattribute__(self, "name") == "bfloat16":
            import ml_dtypes

            dtype = np.dtype(ml_dtypes.bfloat16)
            self.np = dtype
            _BY_NP[dtype] = self  # (an array of it maps back to torch.bfloat16)
            return dtype
        raise AttributeError(name)


float16 = DType("float16", np.float16, "HalfTensor")
float32 = DType("float32", np.float32, "FloatTensor")
float64 = DType("float64", np.float64, "DoubleTensor")
uint8 = DType("uint8", np.uint8, "ByteTensor")
int8 = DType("int8", np.int8, "CharTensor")
int16 = DType("int16", np.int16, "ShortTensor")
int32 = DType("int32", np.int32, "IntTensor")
int64 = DType("int64", np.int64, "LongTensor")
bool_ = DType("bool", np.bool_, "BoolTensor")

ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool_)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL}
# torch's aliases: torch.float is float32, torch.long is int64, ...
ALIASES: dict[str, DType] = {
    **BY_NAME, "float": float32, "double": float64, "half": float16, "long": int64,
    "int": int32, "short": int16,
}
# torch's barebones unsigned types, which promote with no other dtype but a float (also
# what a Python int in [2**63, 2**64) wrapped for an op is: `t + 2**63`)
uint16 = DType("uint16", np.uint16, "UInt16Tensor")
uint32 = DType("uint32", np.uint32, "UInt32Tensor")
uint64 = DType("uint64", np.uint64, "UInt64Tensor")
UNSIGNED = (uint16, uint32, uint64)


def _bfloat16() -> DType:
    """torch.bfloat16, whose values are ml_dtypes' numpy bfloat16 (the ops that run on them
    are engine/bfloat16.py's). Its `np` is left unset: ml_dtypes is imported when a script
    first reaches it (DType.__getattr__), since its import costs ~0.6 s, three times the
    rest of a run's start-up."""
    dtype = DType.__new__(DType)
    dtype.name, dtype.tensor_type, dtype.scalar_type = "bfloat16", "BFloat16Tensor", "BFloat16"
    dtype.is_floating_point = dtype.is_signed = dtype.restricted = True
    dtype.itemsize, dtype.category, dtype.barebones, dtype.is_complex = 2, 2, False, False
    return dtype


bfloat16 = _bfloat16()
# torch's complex types: only the ops engine/complex.py lists run on them
complex64 = DType("complex64", np.complex64, "ComplexFloatTensor", "ComplexFloat")
complex128 = DType("complex128", np.complex128, "ComplexDoubleTensor", "ComplexDouble")
COMPLEX = (complex64, complex128)
BY_NAME.update({d.name: d for d in (*UNSIGNED, bfloat16, *COMPLEX)})
ALIASES.update({d.name: d for d in (*UNSIGNED, bfloat16, *COMPLEX)})
ALIASES.update({"cfloat": complex64, "cdouble": complex128})
_BY_NP: dict[np.dtype, DType] = {d.np: d for d in (*ALL, *UNSIGNED, *COMPLEX)}

DEFAULT_FLOAT = float32  # torch.get_default_dtype(): the run's, reset by reset_default_dtype

NOT_FLOAT_DEFAULT = "only floating-point types are supported as the default type"


def set_default_dtype(dtype: object) -> None:
    """torch.set_default_dtype: the dtype of float factories, Python floats made tensors and
    of Python floats in type promotion (float16, float32 or float64)."""
    global DEFAULT_FLOAT
    if not isinstance(dtype, DType):
        raise TorchTypeError(f"invalid dtype object: {NOT_FLOAT_DEFAULT}")
    if not dtype.is_floating_point:
        raise TorchTypeError(NOT_FLOAT_DEFAULT)
    if dtype is bfloat16:
        raise NotSupportedError("torch.set_default_dtype(torch.bfloat16) is not supported by "
                                "gradtrace: only some ops are exact in bfloat16")
    DEFAULT_FLOAT = dtype


def get_default_dtype() -> DType:
    return DEFAULT_FLOAT


def reset_default_dtype() -> None:
    """Every run starts with float32, like a new process (the setting never leaks)."""
    global DEFAULT_FLOAT
    DEFAULT_FLOAT = float32

# C++ type names as torch's TypeMeta prints them in messages ("long int" for int64_t)
C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                "uint8": "unsigned char", "bool": "bool", "uint16": "short unsigned int",
                "uint32": "unsigned int", "uint64": "long unsigned int",
                "bfloat16": "c10::BFloat16"}


def is_bfloat16(np_dtype: np.dtype) -> bool:
    """Whether a numpy dtype is ml_dtypes' bfloat16, told by name: ml_dtypes, whose import
    is slow, is loaded only once a script uses bfloat16. (numpy computes `name` in Python,
    ~3 us; its kind, "V" for ml_dtypes' and void dtypes only, is a C field.)"""
    return np_dtype.kind == "V" and np_dtype.name == "bfloat16"


def from_numpy(np_dtype: np.dtype) -> DType:
    dtype = np.dtype(np_dtype)
    found = _BY_NP.get(dtype)
    if found is None and is_bfloat16(dtype):  # (ml_dtypes' array made elsewhere)
        return bfloat16
    return found if found is not None else _BY_NP[dtype]


def promote(a: DType, b: DType) -> DType:
    """torch.promote_types for two dtypes."""
    if a is b:
        return a
    if a.is_complex or b.is_complex:  # the complex type of the wider float (float16: cfloat)
        wide = max(a.itemsize // 2 if a.is_complex else a.itemsize if a.is_floating_point
                   else 0, b.itemsize // 2 if b.is_complex else b.itemsize
                   if b.is_floating_point else 0)
        return complex128 if wide == 8 else complex64
    if a.is_floating_point != b.is_floating_point:  # int + float is that float (numpy widens)
        return a if a.is_floating_point else b
    if a.barebones or b.barebones:
        raise TorchRuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                                f"attempted to promote {a.scalar_type} and {b.scalar_type}")
    return _BY_NP[np.promote_types(a.np, b.np)]


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def fits_int64(value: int) -> bool:
    """Whether a Python int unpacks as torch's int64 (THPUtils_unpackLong), past which torch
    raises its overflow errors."""
    return INT64_MIN <= value <= INT64_MAX


def scalar_dtype(value: bool | int | float) -> DType:
    """The dtype torch gives a Python number wrapped as a tensor."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64 if value <= INT64_MAX else uint64
    if isinstance(value, complex):  # torch's default complex dtype
        return complex_of(DEFAULT_FLOAT)
    return DEFAULT_FLOAT


def complex_of(dtype: DType) -> DType:
    """c10's toComplexType of a floating dtype: complex128 for float64, complex64 for float32
    and bfloat16; float16's is complex32 (ComplexHalf), which gradtrace does not have (a
    complex number under set_default_dtype(torch.float16), or added to a half tensor)."""
    if dtype is float16:
        raise NotSupportedError("'torch.complex32' is not supported by gradtrace")
    return complex128 if dtype is float64 else complex64


def to_complex(dtype: DType) -> DType:
    """torch.dtype.to_complex(): a complex dtype is itself, a floating one its complex
    counterpart (complex_of); an integral or bool one has none (c10's error)."""
    if dtype.is_complex:
        return dtype
    if not dtype.is_floating_point:
        raise TorchRuntimeError(f"Unknown Complex ScalarType for {dtype.scalar_type}")
    return complex_of(dtype)


def to_real(dtype: DType) -> DType:
    """torch.dtype.to_real(): a complex dtype's real counterpart, any other dtype itself."""
    if dtype is complex64:
        return float32
    return float64 if dtype is complex128 else dtype


def can_cast(src: DType, dst: DType) -> bool:
    """c10's canCast, the check of every result written into a tensor (in place, out=) and
    torch.can_cast: no complex to a real dtype, no floating to an integral one, nothing but
    bool to bool; any integral to any integral (uint8 *= int32 wraps)."""
    if src.is_complex and not dst.is_complex:
        return False
    if src.is_floating_point and not (dst.is_floating_point or dst.is_complex):
        return False
    return not (dst.name == "bool" and src.name != "bool")


def result_type(tensors: list[tuple[DType, int]], scalars: list[bool | int | float]) -> DType:
    """torch.result_type: dimensioned tensors outrank 0-dim tensors outrank Python scalars,
    except that a higher category (bool < int < float) always wins.

    `tensors` holds (dtype, ndim) pairs.
    """
    dim = zero = wrapped = None
    for dtype, ndim in tensors:
        if ndim > 0:
            dim = dtype if dim is None else promote(dim, dtype)
        else:
            zero = dtype if zero is None else promote(zero, dtype)
    for value in scalars:
        dtype = scalar_dtype(value)
        wrapped = dtype if wrapped is None else promote(wrapped, dtype)
    return _combine(dim, _combine(zero, wrapped))


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """torch's combine_categories: `lower` only matters when its category is higher."""
    if higher is None:
        return lower
    if lower is None or higher.category >= lower.category:
        return higher
    if lower.is_complex and higher.is_floating_point:  # the float's precision is kept
        return complex_of(higher)
    return promote(higher, lower)


class TypeInfo:
    """torch.finfo / torch.iinfo of a dtype: numpy's numbers under torch's names and repr
    (`dtype` is the dtype's name, a str, as in torch)."""

    __slots__ = ("bits", "min", "max", "dtype")
    _shown: tuple[str, ...] = ("min", "max")

    def __init__(self, dtype: DType, info: np.finfo | np.iinfo):
        self.bits = int(info.bits)
        self.min, self.max = (int(info.min), int(info.max)) if isinstance(info, np.iinfo) \
            else (float(info.min), float(info.max))
        self.dtype = dtype.name

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash((type(self), self.dtype))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name):g}" for name in self._shown)
        return f"{type(self).__name__}({shown}, dtype={self.dtype})"


class finfo(TypeInfo):  # noqa: N801 (torch's name: type(x) prints <class 'torch.finfo'>)
    __slots__ = ("eps", "tiny", "smallest_normal", "resolution")
    __module__ = "torch"
    _shown = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")

    def __init__(self, dtype: DType | None = None):
        dtype = DEFAULT_FLOAT if dtype is None else _type_info_argument(dtype, "finfo")
        if not dtype.is_floating_point:
            raise TorchTypeError("torch.finfo() requires a floating point input type. Use "
                                 "torch.iinfo to handle 'torch.finfo'")
        info = float_info(dtype)
        super().__init__(dtype, info)
        self.eps = float(info.eps)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # a double, as torch computes it


class iinfo(TypeInfo):  # noqa: N801 (torch's name)
    __slots__ = ()
    __module__ = "torch"

    def __init__(self, dtype: DType):
        dtype = _type_info_argument(dtype, "iinfo")
        if dtype is bool_:
            raise TorchTypeError("torch.bool is not supported by torch.iinfo")
        if dtype.is_floating_point:
            raise TorchTypeError("torch.iinfo() requires an integer input type. Use "
                                 "torch.finfo to handle 'torch.iinfo'")
        super().__init__(dtype, np.iinfo(dtype.np))


def float_info(dtype: DType) -> np.finfo:
    """numpy's finfo of a floating dtype (ml_dtypes' for bfloat16, which numpy lacks)."""
    if dtype is bfloat16:
        import ml_dtypes

        return ml_dtypes.finfo(dtype.np)
    return np.finfo(dtype.np)


def _type_info_argument(dtype: object, name: str) -> DType:
    if not isinstance(dtype, DType):
        raise TorchTypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, "
                             f"not {type(dtype).__name__}")
    return dtype


# the C++ types c10's Scalar accessors name in "value cannot be converted to type T without
# overflow" (fill_, masked_fill_, index_put_'s masked_fill path)
C_SCALAR_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                  "int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t",
                  "uint8": "uint8_t", "bool": "bool", "uint16": "uint16_t",
                  "uint32": "uint32_t", "uint64": "uint64_t", "bfloat16": "c10::BFloat16",
                  "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _scalar_overflows(value: bool | int | float, target: DType) -> bool:
    """c10::overflows<To, From>: a bool never overflows; an int is checked against the
    target's range (a float type's too), negative ints wrapping into an unsigned type down to
    -max; a float may be inf or nan into a floating type but never into an integer one."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if target.is_complex:  # (c10 checks a number's parts against the parts' float type)
        part = float64 if target is complex128 else float32
        if isinstance(value, complex):
            return _scalar_overflows(value.real, part) or _scalar_overflows(value.imag, part)
        target = part
    if isinstance(value, complex):  # into a real dtype: an imaginary part overflows
        if value.imag != 0:
            return True
        value = value.real
    if target.is_floating_point:
        info = float_info(target)
        if isinstance(value, (int, np.integer)):
            return int(value) < int(info.min) or int(value) > int(info.max)
        if value != value or value in (float("inf"), float("-inf")):
            return False
        return value < float(info.min) or value > float(info.max)
    iinfo = np.iinfo(target.np)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if iinfo.min == 0:
            return value > iinfo.max or (value < 0 and -value > iinfo.max)
        return value < iinfo.min or value > iinfo.max
    if value != value:
        return True
    return value < float(iinfo.min) or value > float(iinfo.max)


def scalar_argument(value: Any) -> Any:
    """A Python int as torch's argument parser unpacks a Scalar: an int64, else (from 2**63)
    a uint64; past both, Python's OverflowError of PyLong_AsUnsignedLongLong."""
    if type(value) is int and not -(1 << 63) <= value < (1 << 64):
        raise ScriptError("can't convert negative int to unsigned" if value < 0
                          else "int too big to convert", kind="OverflowError")
    return value


def fill_scalar(value: bool | int | float, target: DType, numel: int) -> Any:
    """What fill_ and torch.full make of a Scalar for `numel` elements of `target`:
    c10::checked_convert's value (torch's overflow error past the range); but one element
    is filled by scalar_fill, which takes it into float16 and bfloat16 unchecked (inf past
    their range; bfloat16 through a float)."""
    value = scalar_argument(value)
    if numel == 1 and target is bfloat16:
        return np.float32(value)
    if numel == 1 and target is float16:
        with np.errstate(over="ignore"):
            return np.asarray(value).astype(np.float16)
    if target is bfloat16:  # (checked, then through a float as above)
        checked_scalar(value, target)
        return np.float32(value)
    return checked_scalar(value, target)


def checked_scalar(value: bool | int | float, target: DType) -> np.ndarray:
    """c10::checked_convert of a Scalar to `target` (what fill_ and masked_fill_ do with a
    number): torch's overflow error, else the value converted as C++ converts it (a float
    truncated toward zero, a negative int wrapped into an unsigned type)."""
    if target is not bool_ and _scalar_overflows(value, target):
        raise TorchRuntimeError(
            f"value cannot be converted to type {C_SCALAR_NAMES[target.name]} without overflow")
    if target.np.kind == "u" and type(value) is int and value < 0:
        value %= 1 << (8 * target.itemsize)
    if isinstance(value, complex) and not target.is_complex:  # (its imaginary part is 0)
        value = value != 0 if target is bool_ else value.real
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(value).astype(target.np)
