"""Inputs and case lists shared by tests/tools/record_numerics.py (under torch) and the
numerics tests (without torch), so recorded files hold only torch's results.

Inputs are built from integer bit patterns (splitmix64 → sign, exponent, mantissa), never
through a library's random or math functions, so every platform and numpy version makes
the same floats.
"""
from __future__ import annotations

import functools
import itertools
import json
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data" / "numerics"
TOOLS = Path(__file__).parent / "tools"  # record_numerics.py, record_conformance.py

LENGTHS_1D = list(range(1, 34)) + [40, 47, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 500,
                                   511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 2100]
SHAPES_2D = [(1, 100), (100, 1), (3, 5), (7, 9), (16, 16), (17, 33), (33, 17), (8, 100),
             (100, 8), (2, 2100), (2100, 2), (64, 65)]
SHAPES_3D = [(2, 3, 4), (3, 1, 5), (5, 9, 11), (4, 16, 8), (2, 33, 40), (40, 2, 33),
             (9, 1, 70), (10, 20, 30), (3, 700, 1)]
SOFTMAX_SHAPES = ([(n,) for n in (1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 257)]
                  + [(3, 5), (7, 9), (16, 16), (17, 33), (33, 17), (8, 100), (100, 8)]
                  + [(2, 3, 4), (3, 1, 5), (5, 9, 11), (4, 16, 8), (2, 33, 40), (9, 1, 70)])
MATMUL_PAIRS = [(1, 1), (1, 5), (2, 3), (3, 2), (4, 4), (5, 7), (8, 8), (3, 1), (20, 1),
                (16, 12), (16, 16), (12, 20)]
SMALL_K = list(range(1, 65))
SOME_K = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 31, 32, 33, 48, 63, 64]
MATMUL_LARGE = [(64, 100, 64), (128, 128, 128), (64, 300, 10), (32, 256, 32),
                (100, 200, 16)]
FUSED_SIZES = list(range(1, 71)) + [1000]


def activation_outputs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """tanh and sigmoid outputs for the activation backwards (numpy's: any values in their
    ranges will do, the same for recorder and test)."""
    with np.errstate(over="ignore"):
        return np.tanh(x), (1 / (1 + np.exp(-x))).astype(x.dtype)
CUMSUM_MAX = 300  # cumsum outputs are as large as their inputs: recorded up to this size


def _splitmix(seed: int, n: int) -> np.ndarray:
    z = (np.arange(n, dtype=np.uint64) + np.uint64(seed)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def floats(seed: int, shape: tuple[int, ...], low: int = -4, high: int = 6,
           dtype: type = np.float32, positive: bool = False) -> np.ndarray:
    """Floats of both signs (or positive) with binary exponents in [low, high]."""
    n = int(np.prod(shape, dtype=np.int64))
    bits = _splitmix(seed * 1_000_003 + 17, n)
    exponent = (bits % np.uint64(high - low + 1)).astype(np.int64) + low
    sign = ((bits >> np.uint64(8)) & np.uint64(1)).astype(bool) & (not positive)
    if dtype == np.float32:
        mant = (bits >> np.uint64(20)) & np.uint64((1 << 23) - 1)
        word = (mant | ((exponent + 127).astype(np.uint64) << np.uint64(23))
                | (sign.astype(np.uint64) << np.uint64(31)))
        return word.astype(np.uint32).view(np.float32).reshape(shape)
    mant = (bits >> np.uint64(11)) & np.uint64((1 << 52) - 1)
    word = (mant | ((exponent + 1023).astype(np.uint64) << np.uint64(52))
            | (sign.astype(np.uint64) << np.uint64(63)))
    return word.view(np.float64).reshape(shape)


def layouts(shape: tuple[int, ...]) -> list[str]:
    names = ["contiguous", "sliced", "expanded"]
    if len(shape) > 1:
        names.insert(1, "transposed")
    return names


def base_shape(shape: tuple[int, ...], layout: str) -> tuple[int, ...]:
    """The array a view of `shape` with `layout` is taken from."""
    if layout == "transposed":
        return shape[::-1]
    if layout == "sliced":
        return (2 * shape[0],) + shape[1:]
    if layout == "expanded":
        return (1,) + shape[1:]
    return shape


def view(base: np.ndarray, layout: str, shape: tuple[int, ...]) -> np.ndarray:
    """The strided view a case reduces (torch: permute / [::2] / expand of the base)."""
    if layout == "transposed":
        return np.transpose(base)
    if layout == "sliced":
        return base[::2]
    if layout == "expanded":
        return np.broadcast_to(base, shape)
    return base


def dim_sets(ndim: int) -> list:
    return [None] + [list(c) for r in range(1, ndim + 1)
                     for c in itertools.combinations(range(ndim), r)]


def reduction_sources() -> list[tuple[int, tuple[int, ...], str]]:
    """(seed, shape, layout) of every reduction input."""
    shapes = [(n,) for n in LENGTHS_1D] + SHAPES_2D + SHAPES_3D
    out = []
    for i, shape in enumerate(shapes):
        for j, layout in enumerate(layouts(shape)):
            out.append((1000 + 10 * i + j, shape, layout))
    return out


def matmul_sizes() -> list[tuple[int, int, int]]:
    sizes = []
    for m, n in MATMUL_PAIRS:
        ks = SMALL_K if m * n <= 64 else SOME_K
        sizes += [(m, k, n) for k in ks]
    return sizes + MATMUL_LARGE


def load(capability: str, family: str) -> list[dict]:
    """A recorded family's cases, each array reference ([dtype, offset, shape]) replaced by
    the array. Recorded on a CPU of another vendor (MKL runs other kernels there: see
    tests/tools/record_conformance.py), the family is measured again with torch here."""
    folder = DATA / capability
    vendor = json.loads((folder / "meta.json").read_text()).get("cpu_vendor", "AuthenticAMD")
    if _other_vendor(vendor):
        folder = _measured_here(capability, family)
    with np.load(folder / f"{family}.npz") as data:
        cases = json.loads(str(data["cases"]))
        flat = {"float32": data["float32"], "float64": data["float64"]}

    def resolve(value: object) -> object:
        if (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
                and value[0] in flat and isinstance(value[2], list)):
            kind, offset, shape = value
            size = int(np.prod(shape, dtype=np.int64))
            return flat[kind][offset:offset + size].reshape(shape)
        if isinstance(value, list) and value and isinstance(value[0], (list, dict)):
            return [resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        return value

    return [{k: resolve(v) for k, v in case.items()} for case in cases]


def _other_vendor(vendor: str) -> bool:
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    from record_conformance import other_mkl_kernels

    return other_mkl_kernels(vendor)


_SCRATCH: list = []


@functools.cache
def _measured_here(capability: str, family: str) -> Path:
    """A folder with the family as torch 2.13 computes it on this CPU, run as the recording
    was (record_numerics.record); a skip where torch is not installed."""
    import importlib.util
    import tempfile

    import pytest

    if importlib.util.find_spec("torch") is None:
        pytest.skip("recorded on an AMD CPU, whose MKL kernels this CPU does not run, and "
                    "torch is not installed to measure it here")
    from record_numerics import record

    scratch = tempfile.TemporaryDirectory(prefix=f"gradtrace-numerics-{capability}-")
    _SCRATCH.append(scratch)  # removed when the test process exits
    record(capability, [family], Path(scratch.name))
    return Path(scratch.name) / capability


def recorded_capabilities() -> list[str]:
    return sorted(p.name for p in DATA.iterdir() if p.is_dir()) if DATA.exists() else []


class Lookup:
    """A recorded function of torch's as a table: bit pattern in, torch's result out."""

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        bits = keys.reshape(-1).view(np.uint32 if keys.dtype == np.float32 else np.uint64)
        order = np.argsort(bits, kind="stable")
        self.keys = bits[order]
        self.values = values.reshape(-1)[order]
        self.dtype = keys.dtype

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, self.dtype)
        bits = x.reshape(-1).view(self.keys.dtype)
        pos = np.clip(np.searchsorted(self.keys, bits), 0, max(len(self.keys) - 1, 0))
        missing = self.keys[pos] != bits if len(self.keys) else np.ones(bits.shape, bool)
        if missing.any():
            raise AssertionError(
                f"{int(missing.sum())} inputs torch never passed to this function (first "
                f"{x.reshape(-1)[missing][0]!r}): the order before it differs from torch's")
        return self.values[pos].reshape(x.shape)


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise bit equality (NaN payloads aside, NaN matches NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return np.zeros(b.shape, bool)
    return (a == b) & (np.signbit(a) == np.signbit(b)) | (np.isnan(a) & np.isnan(b))


class Rates:
    """Match counts per family member, for failure messages and the README's table."""

    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}

    def add(self, key: str, ok: np.ndarray) -> None:
        c = self.counts.setdefault(key, [0, 0])
        c[0] += int(np.sum(ok))
        c[1] += int(np.size(ok))

    def rate(self, key: str) -> float:
        ok, total = self.counts[key]
        return ok / total if total else 1.0

    def report(self) -> str:
        return "; ".join(f"{k}: {ok}/{total} ({100 * ok / max(total, 1):.2f}%)"
                         for k, (ok, total) in sorted(self.counts.items()))
