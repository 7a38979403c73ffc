"""Render tensors exactly as PyTorch 2.13 prints them (`repr(t)` / `print(t)`).

This mirrors torch/_tensor_str.py under the run's print options (`OPTIONS`, set by
torch.set_printoptions; by default precision 4, threshold 1000, edgeitems 3, linewidth 80,
sci_mode chosen per tensor).  gradtrace's output is compared byte for
byte with real torch, so every quirk is kept on purpose: the column width is decided
from the non-zero finite values only (so `-0.`, `nan` and `-inf` may overflow it), the
"integer mode" test is `ceil(v) == v`, numbers go through Python's float formatting of
the exact value, and suffixes wrap at 80 columns.

The decisions are taken with a handful of numpy reductions plus Python string formatting
of at most a few candidate values; `np.array2string` is far too slow and formats
differently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from . import dtypes
from .dtypes import DType

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80

_PREFIX = "tensor("
# torch prints no dtype= suffix for these two and for the default float dtype (read when
# printing: torch.set_default_dtype changes it)
_IMPLIED_DTYPES = frozenset({"int64", "bool"})



@dataclass
class PrintOptions:
    """torch._tensor_str.PRINT_OPTS: the script's torch.set_printoptions."""

    precision: int = PRECISION
    threshold: float = THRESHOLD
    edgeitems: int = EDGEITEMS
    linewidth: int = LINEWIDTH
    sci_mode: bool | None = None


OPTIONS = PrintOptions()
MAX_PRECISION = 10_000
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, float("inf"), 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """torch.set_printoptions: a profile first, then each option given; sci_mode is always
    set (None: chosen per tensor). A precision past MAX_PRECISION digits is refused: each
    printed number would be that long (torch prints them; here it is a limit)."""
    if precision is not None and not isinstance(precision, bool) and isinstance(
            precision, int) and precision > MAX_PRECISION:
        from ..errors import LimitExceeded

        raise LimitExceeded(f"print precision {precision:,} is more digits than gradtrace "
                            f"prints ({MAX_PRECISION:,})")
    if profile is not None and profile in _PROFILES:
        (OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems,
         OPTIONS.linewidth) = _PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    return {f.name: getattr(OPTIONS, f.name) for f in fields(OPTIONS)}


def reset_printoptions() -> None:
    """A run starts (and ends) with torch's defaults, like a new process."""
    set_printoptions(profile="default")


def format_size(shape: tuple[int, ...]) -> str:
    """`str(t.shape)` in torch: `torch.Size([2, 3])`, `torch.Size([])` for a scalar."""
    return "torch.Size([" + ", ".join(str(int(n)) for n in shape) + "])"


def tensor_repr(
    data: np.ndarray,
    dtype: DType,
    *,
    grad_fn: str | None = None,
    requires_grad: bool = False,
    tangent: str | None = None,
    prefix: str = "tensor(",
) -> str:
    """`repr(tensor)` as torch prints it, e.g. `tensor([1., 2.], requires_grad=True)`.

    `data` holds the values (it is cast to `dtype` if its numpy dtype differs), `grad_fn`
    is the autograd node name (`MulBackward0`) of a non-leaf, and `requires_grad` marks a
    leaf that requires grad; torch only shows `requires_grad=True` when there is no
    grad_fn. A subclass of torch.Tensor prints its class name as the `prefix`.
    """
    data = np.asarray(data)
    if data.dtype != dtype.np:
        data = data.astype(dtype.np)
    indent = len(prefix)
    suffixes = []
    if data.size == 0:
        # torch shows the shape unless it is (0,), and the dtype unless it is the
        # default float dtype: with no elements the dtype cannot be guessed.
        if data.ndim != 1:
            suffixes.append("size=" + str(tuple(int(n) for n in data.shape)))
        if dtype is not dtypes.DEFAULT_FLOAT:
            suffixes.append("dtype=torch." + dtype.name)
        body = "[]"
    else:
        if dtype.name not in _IMPLIED_DTYPES and dtype is not dtypes.DEFAULT_FLOAT and \
                dtype is not _default_complex():
            suffixes.append("dtype=torch." + dtype.name)
        body = _tensor_str(data, dtype, indent)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:  # a dual tensor's (forward_ad): its own repr
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + body, suffixes, indent)


def meta_repr(shape: tuple[int, ...], dtype: DType, *, grad_fn: str | None = None,
              requires_grad: bool = False) -> str:
    """A meta tensor as torch prints it: `tensor(..., device='meta', size=(2, 3))`, then
    the dtype unless it is the default float dtype, then grad_fn / requires_grad."""
    suffixes = ["device='meta'", "size=" + str(tuple(int(n) for n in shape))]
    if dtype is not dtypes.DEFAULT_FLOAT:
        suffixes.append("dtype=torch." + dtype.name)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(_PREFIX + "...", suffixes, len(_PREFIX))


def sparse_repr(indices: np.ndarray, values: np.ndarray, size: tuple[int, ...],
                dtype: DType, *, grad_fn: str | None = None, requires_grad: bool = False
                ) -> str:
    """A sparse COO tensor as torch prints it: its indices and values tensors, then its size,
    nnz, dtype (unless implied), layout; the first suffix always on a line of its own."""
    indent = len(_PREFIX)
    suffixes = ["size=" + str(tuple(size)), f"nnz={indices.shape[1]}"]
    if dtype.name not in _IMPLIED_DTYPES and dtype is not dtypes.DEFAULT_FLOAT:
        suffixes.append("dtype=torch." + dtype.name)
    parts = []
    for prefix, data, data_dtype in (("indices=tensor(", indices, dtypes.int64),
                                     ("values=tensor(", values, dtype)):
        body = _tensor_str(data, data_dtype, indent + len(prefix)) if data.size else "[]"
        if data.size == 0:
            body += ", size=" + str(tuple(int(n) for n in data.shape))
        parts.append(prefix + body + ")")
    suffixes.append("layout=torch.sparse_coo")
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    body = parts[0] + ",\n" + " " * indent + parts[1]
    return _add_suffixes(_PREFIX + body, suffixes, indent, force_newline=True)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int,
                  force_newline: bool = False) -> str:
    """torch's _add_suffixes: a suffix moves to its own line if it would pass column 80
    (the first one always, for a sparse tensor)."""
    parts = [tensor_str]
    # torch's off-by-some arithmetic, kept: counts 2 more than the last line's length
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _tensor_str(data: np.ndarray, dtype: DType, indent: int) -> str:
    """The bracketed body of a non-empty tensor, summarised past 1000 elements."""
    if data.size > OPTIONS.threshold:
        # only the first and last `edgeitems` entries of each long dimension are shown,
        # and only those decide the formatting
        edge = OPTIONS.edgeitems
        summarised = [n > 2 * edge for n in data.shape]
        index = [
            [*range(edge), *range(n - edge, n)] if cut else range(n)
            for n, cut in zip(data.shape, summarised, strict=True)
        ]
        data = data[np.ix_(*index)]
    else:
        summarised = [False] * data.ndim
    if dtype is dtypes.bfloat16:
        data = data.astype(np.float32)  # torch formats bfloat16 values as floats
    if dtype.is_complex:
        fmt, width = complex_formatter(data)
    else:
        fmt, width = value_formatter(data, dtype)
    values = data.tolist()
    if data.ndim == 0:
        return fmt(values)
    return nested_str(values, data.ndim, indent, summarised, fmt, width)


def nested_str(
    values: list,
    dim: int,
    indent: int,
    summarised: list[bool],
    fmt: Callable[[object], str],
    width: int,
) -> str:
    """torch's _tensor_str_with_formatter over nested Python lists."""
    level = len(summarised) - dim
    if dim == 1:
        items = [fmt(v) for v in values]
        if summarised[level]:
            items.insert(OPTIONS.edgeitems, " ...")
        per_line = max(1, (OPTIONS.linewidth - indent) // (width + 2))
        if len(items) <= per_line:
            return "[" + ", ".join(items) + "]"
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    slices = [nested_str(v, dim - 1, indent + 1, summarised, fmt, width) for v in values]
    if summarised[level]:
        slices.insert(OPTIONS.edgeitems, "...")
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def value_formatter(data: np.ndarray, dtype: DType) -> tuple[Callable[[object], str], int]:
    """torch's _Formatter: pick the number style and column width, return (format, width).

    `data` is the (summarised) non-empty array whose values will be shown.
    """
    if dtype.name == "bool":
        if data.all():
            return (lambda v: "True"), 4
        return (lambda v: " True" if v else "False"), 5
    if not dtype.is_floating_point:
        width = max(len(str(int(data.max()))), len(str(int(data.min()))))
        return (lambda v: str(v).rjust(width)), width

    flat = data.reshape(-1)
    with np.errstate(invalid="ignore"):
        vals = flat[np.isfinite(flat) & (flat != 0)]
    if vals.size == 0:  # only zeros / non-finite values: torch's defaults
        return _int_mode_format(1), 1
    int_mode = bool((np.ceil(vals) == vals).all())
    mags = np.abs(vals)
    # torch does this arithmetic in double precision
    amin = float(mags.min())
    amax = float(mags.max())
    sci_mode = OPTIONS.sci_mode
    if sci_mode is None:
        sci_mode = amax / amin > 1000.0 or amax > 1.0e8 or amin < 1.0e-4
    precision = OPTIONS.precision
    sci, fixed = f"{{:.{precision}e}}", f"{{:.{precision}f}}"
    # Width is monotonic in the value for each sign in fixed notation, so the extremes
    # decide it; in scientific notation only a 3-digit exponent changes it.
    extremes = (float(vals.max()), float(vals.min()))
    if sci_mode:
        if amax >= 1e99 or amin < 1e-98:  # maybe a 3-digit exponent: check all
            candidates = vals.tolist()
        else:
            candidates = extremes
        width = max(len(sci.format(v)) for v in candidates)
        spec = f"{{:{width}.{precision}e}}"
        return spec.format, width
    if int_mode:
        width = max(1, max(len(f"{v:.0f}") + 1 for v in extremes))
        return _int_mode_format(width), width
    width = max(1, max(len(fixed.format(v)) for v in extremes))
    return (lambda v: fixed.format(v).rjust(width)), width


def _default_complex() -> DType:
    """torch's _default_complex_dtype: cdouble when the default dtype is double."""
    return dtypes.complex128 if dtypes.DEFAULT_FLOAT is dtypes.float64 else dtypes.complex64


def complex_formatter(data: np.ndarray) -> tuple[Callable[[object], str], int]:
    """torch's two _Formatters of a complex tensor, one for its real parts and one for its
    imaginary parts (each choosing its own style and width), joined per value as
    `re+imj` (the imaginary part's padding stripped, a `+` added unless it has a sign).
    The width returned is what torch counts per element: both widths and the `j`."""
    part = dtypes.float64 if data.dtype == np.complex128 else dtypes.float32
    fmt_re, width_re = value_formatter(data.real, part)
    fmt_im, width_im = value_formatter(data.imag, part)

    def fmt(v: object) -> str:
        imag = (fmt_im(v.imag) + "j").lstrip()  # type: ignore[attr-defined]
        sign = "" if imag[0] in "+-" else "+"
        return fmt_re(v.real) + sign + imag  # type: ignore[attr-defined]

    return fmt, width_re + width_im + 1


def _int_mode_format(width: int) -> Callable[[object], str]:
    """Integral floats print as `2.`; non-finite ones keep their plain spelling."""

    def fmt(v: object) -> str:
        s = f"{v:.0f}"
        if s[-1].isdigit():  # finite: inf/nan end in a letter
            s += "."
        return s.rjust(width)

    return fmt
