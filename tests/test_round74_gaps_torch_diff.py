"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 74
(classic vision tutorials and image operations) found: torch.meshgrid without `indexing`
warns by a TORCH_WARN_ONCE, once per run whichever line calls it (RAFT's coords_grid and
CorrBlock's radius lookup call it on different lines), even under an "always" filter; and
torch.nn.functional's `_Reduction` module (BasicSR's weighted losses reduce by
`F._Reduction.get_enum(reduction)`), with get_enum and legacy_get_enum; and a numpy scalar type
equal to a numpy dtype inside a container (`img.dtype in (np.uint8, np.float32)`, BasicSR's
colour conversions).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output, torch_outputs_in_child

torch = pytest.importorskip("torch")


MESHGRID_WARNING = """import warnings
import torch
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    a = torch.arange(3)
    x, y = torch.meshgrid(a, a)
    for i in range(2):
        u, v = torch.meshgrid(torch.linspace(-1, 1, 2), a.float())
    w = torch.meshgrid([a, a], indexing="ij")
    p, q = torch.meshgrid(a, a)
    print(x.tolist(), v.tolist(), len(w), q.shape)
    for w in seen:
        print(w.category.__name__, str(w.message)[:70])
"""


def test_meshgrid_without_indexing_warns_once_per_run() -> None:
    """The warning is shown once per process, not once per calling line."""
    torch_stdout, _ = torch_outputs_in_child({"warn": MESHGRID_WARNING})["warn"]
    assert gradtrace_output(MESHGRID_WARNING) == torch_stdout


REDUCTION_ENUM = """import warnings
import torch
import torch.nn.functional as F
from torch.nn.functional import _Reduction


def reduce_loss(loss, reduction):
    reduction_enum = F._Reduction.get_enum(reduction)
    if reduction_enum == 0:
        return loss
    elif reduction_enum == 1:
        return loss.mean()
    return loss.sum()


x = torch.arange(4.)
print([reduce_loss(x, r).tolist() for r in ["none", "mean", "sum"]])
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    print(reduce_loss(x, "elementwise_mean"), F._Reduction.get_enum("elementwise_mean"))
    print(_Reduction.legacy_get_enum(None, None), _Reduction.legacy_get_enum(False, True),
          _Reduction.legacy_get_enum(True, False, emit_warning=False),
          _Reduction.legacy_get_string(False, False))
    for w in seen:
        print(w.category.__name__, str(w.message))
for bad in ["max", None, "Mean"]:
    try:
        F._Reduction.get_enum(bad)
    except ValueError as e:
        print(type(e).__name__, e)
print(type(F._Reduction).__name__, F._Reduction.__name__, _Reduction is F._Reduction)
"""


def test_functional_reduction_module_gets_enums_like_torch() -> None:
    """torch.nn.functional's `_Reduction` (the torch.nn._reduction module, which BasicSR's
    losses call as `F._Reduction.get_enum`): get_enum's codes, its deprecation warning for
    'elementwise_mean' and its ValueError, and legacy_get_enum over legacy_get_string."""
    assert gradtrace_output(REDUCTION_ENUM) == torch_output(REDUCTION_ENUM)


DTYPE_MEMBERSHIP = """import numpy as np
a = np.zeros(2, dtype=np.float32)
b = np.zeros(2, dtype=np.uint8)
c = np.zeros(2)
for x in [a, b, c, np.zeros(2, dtype=np.int64), np.zeros(2, dtype=bool)]:
    d = x.dtype
    print(d in (np.uint8, np.float32), d not in (np.uint8, np.float32), d in [float, int, bool],
          np.float32 in (d,), d in {np.float32}, d in ('float32', 'uint8'))
    print(d == np.float64, float == d, d != np.uint8, np.uint8 != d, d == int, bool == d)
print([np.uint8, np.float32].index(a.dtype), (np.float32, np.float32).count(a.dtype))
print(np.float32 == np.float32, np.float32 == np.float64, np.float32 in [np.float64, np.float32],
      float == np.float64, list == list, int in (float, int), {np.float32: 1}[np.float32])


def _convert_output_type_range(img, dst_type):
    if dst_type not in (np.uint8, np.float32):
        raise TypeError('The dst_type should be np.float32 or np.uint8, ' f'but got {dst_type}')
    return img.astype(dst_type)


print(_convert_output_type_range(c, a.dtype).dtype, _convert_output_type_range(c, np.uint8).dtype)
try:
    _convert_output_type_range(a, c.dtype)
except TypeError as e:
    print(e)
"""


def test_numpy_type_equals_a_dtype_inside_containers_like_numpy() -> None:
    """numpy's scalar types (and float, int, bool) equal the numpy dtypes of them also where
    Python compares a container's items first: `x.dtype in (np.uint8, np.float32)`,
    list.index and tuple.count (BasicSR's `_convert_output_type_range`); sets still hash."""
    assert gradtrace_output(DTYPE_MEMBERSHIP) == torch_output(DTYPE_MEMBERSHIP)
