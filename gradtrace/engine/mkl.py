"""Intel MKL, the library torch 2.13's x86 wheel links statically: its vector math (VML)
computes torch's float32 and float64 exp, log, sin, cos, tanh, sqrt, erf, ... and its BLAS
torch's matmuls. MKL's algorithms are closed, so the only way to torch's bits is to call
the same build: the `mkl` wheel of the version torch bundles (`pip install gradtrace[exact]`).

Nothing imports this module's library at import time of gradtrace: `load()` finds
`libmkl_rt` in the installed `mkl` distribution on first use and returns None (with
`unavailable_reason()` saying why) when it is absent or another version, and callers then
fall back to a float64 evaluation rounded once.

VML is called as torch's ATen/cpu/vml.h does (IMPLEMENT_VML_MKL): `vm{s,d}<Op>(n, in, out,
VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE)`, in chunks of at most INT_MAX elements. Every
element is computed alone, so the layout and size of a tensor never change its bits.

MKL's BLAS splits a product across its threads, and the split changes the bits: with 2
threads, 408 of 4,536 products of a shape sweep differed from one thread's (5-row outputs,
among others), while MKL run with torch's thread count matched torch on all of them. torch
runs MKL threaded (OpenMP) with its intra-op thread count, so gradtrace loads MKL's OpenMP
layer with the Intel OpenMP runtime the `mkl` wheel depends on (`intel-openmp`) and sets the
same count (`set_threads`); where that runtime is missing MKL runs sequentially and
`threaded` is False.
"""
from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import NotSupportedError
from .meta import META, stands_on_meta

TORCH_MKL_VERSION = "2024.2.0"  # torch.__config__.show(): MKL 2024.2-Product Build 20240605
VML_MODE = 0x2 | 0x140000 | 0x100  # VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE
_MKL_THREADING_INTEL = 0  # MKL's OpenMP layer on libiomp5 (torch's is GNU OpenMP: same splits)
_MKL_THREADING_SEQUENTIAL = 1
_MKL_THREADING_GNU = 3
_MKL_INTERFACE_LP64 = 0  # 32-bit MKL_INT, as torch's vml.h assumes
_MAX_N = 2**31 - 1

# torch's IMPLEMENT_VML_MKL list (vml.h): op name -> VML name. expm1, log1p, sinh, cosh and
# abs are commented out there, so torch runs SLEEF (or its own code) for them.
VML_FUNCTIONS = {
    "acos": "Acos", "asin": "Asin", "atan": "Atan", "cos": "Cos", "erf": "Erf",
    "erfc": "Erfc", "erfinv": "ErfInv", "exp": "Exp", "log": "Ln", "log10": "Log10",
    "log2": "Log2", "sin": "Sin", "sqrt": "Sqrt", "tan": "Tan", "tanh": "Tanh",
    "trunc": "Trunc",
}
_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}


class _Wheel:
    """An installed wheel as its `.dist-info` directory records it (PEP 376/427)."""

    __slots__ = ("version", "site", "record")

    def __init__(self, version: str, site: str, record: str) -> None:
        self.version, self.site, self.record = version, site, record

    def locate(self, names: tuple[str, ...]) -> str | None:
        """The first file the RECORD lists whose name is one of `names`, as a path."""
        for line in self.record.splitlines():
            path = line.partition(",")[0]
            if os.path.basename(path) in names:
                return os.path.normpath(os.path.join(self.site, path))
        return None


def _distribution(name: str) -> _Wheel | None:
    """The installed wheel `name` (normalised: `intel_openmp`), found on sys.path as
    importlib.metadata finds it: its `NAME-VERSION.dist-info` directory. Read directly
    because importing importlib.metadata and parsing the RECORD through it cost ~45 ms,
    in every run that reaches MKL (a float32 tanh, a matmul)."""
    prefix = name + "-"
    for site in sys.path:
        try:
            entries = os.listdir(site or ".")
        except OSError:
            continue
        for entry in entries:
            if entry.startswith(prefix) and entry.endswith(".dist-info"):
                try:
                    with open(os.path.join(site or ".", entry, "RECORD"),
                              encoding="utf-8") as f:
                        record = f.read()
                except OSError:
                    continue
                return _Wheel(entry[len(prefix):-len(".dist-info")], site or ".", record)
    return None


def _library_path() -> str:
    """The installed `mkl` wheel's libmkl_rt, or a ValueError saying why not."""
    dist = _distribution("mkl")
    if dist is None:
        raise ValueError("the `mkl` package is not installed "
                         "(pip install 'gradtrace[exact]')")
    if dist.version != TORCH_MKL_VERSION:
        raise ValueError(f"mkl {dist.version} is installed; torch 2.13 bundles "
                         f"{TORCH_MKL_VERSION}, whose results gradtrace reproduces")
    path = dist.locate(("mkl_rt.2.dll",) if sys.platform == "win32" else
                       ("libmkl_rt.so.2", "libmkl_rt.2.dylib"))
    if path is None:
        raise ValueError("the `mkl` package has no libmkl_rt for this platform")
    return path


def _openmp_runtime() -> str | None:
    """libiomp5 from the `intel-openmp` wheel (a dependency of `mkl`), or None."""
    dist = _distribution("intel_openmp")
    if dist is None:
        return None
    return dist.locate(("libiomp5md.dll",) if sys.platform == "win32" else
                       ("libiomp5.so", "libiomp5.dylib"))


def openmp_blocktime() -> str:
    """How long (KMP_BLOCKTIME, ms) MKL's OpenMP threads wait for the next product before
    they sleep, unless the user set it: as long as torch's GNU OpenMP threads spin (about
    a millisecond: libgomp's 300,000 spins) while a core is free for them, else 0.

    libiomp5's own default spins for 200 ms, holding a core for nothing between the
    products of a Python engine. Sleeping at once (0) makes every product pay a wake-up:
    60-300 us on a 2-core VM (a 512x32 @ 32x128 product: 190 us against 50 us), which
    doubled the benchmarks' training loop; torch's loop, too, runs 2x slower in wall time
    with OMP_WAIT_POLICY=PASSIVE. But a spinning thread on a machine whose cores are all
    busy takes the core of the thread it waits for: at a load of 10 on 2 cores the same
    loop ran 15 s against 9 s. So it spins while the load average (this process's own run
    included, about 1) stays half a core under the cores this process may use. The load is
    read once, when MKL is first used; the bits do not depend on it.
    benchmarks/README.md, Round 21."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average (Windows has no os.getloadavg)
        return "0"
    try:  # (the load counts runnable threads: logical CPUs, as capability reads them)
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return "1" if load <= cpus - 0.5 else "0"


def _threading_layer(openmp: str | None) -> int:
    """MKL's threading layer for this process. An OpenMP runtime already loaded globally
    (torch imports libgomp so) serves MKL's GNU layer: a second runtime beside it would
    answer omp_get_thread_num for threads the first did not start. Else the wheel's
    libiomp5, loaded globally so that MKL's Intel layer finds it; else one thread."""
    if hasattr(ctypes.CDLL(None), "GOMP_parallel"):
        return _MKL_THREADING_GNU
    if openmp is not None:
        os.environ.setdefault("KMP_BLOCKTIME", openmp_blocktime())
        try:
            ctypes.CDLL(openmp, mode=ctypes.RTLD_GLOBAL)
            return _MKL_THREADING_INTEL
        except OSError:
            pass
    return _MKL_THREADING_SEQUENTIAL


def _data_pointer_reader() -> Callable[[np.ndarray], int]:
    """A reader of an array's data address for ctypes calls into MKL.

    `array.ctypes.data` builds numpy's `_ctypes` helper object on every read (~6 us here;
    `__array_interface__` ~5 us): a training step reads 17 of them for its five matrix
    products and its tanh. numpy's C struct (`PyArrayObject_fields`) keeps the data pointer
    right after the object header, which is what `PyArray_DATA` reads; reading it there
    takes well under 1 us. Probed at import on arrays of several layouts against
    `.ctypes.data`; on an interpreter where the layout differs, `.ctypes.data` is used."""
    offset = object.__basicsize__  # PyObject_HEAD (16 bytes on 64-bit CPython)
    from_address = ctypes.c_void_p.from_address

    def read(x: np.ndarray) -> int:
        return from_address(id(x) + offset).value or 0

    base = np.arange(60, dtype=np.float32).reshape(6, 10)
    probes = [base, base[2:, 3:], base.T[1::2], np.zeros(7), base[4, 5:], np.ones((2, 3))]
    try:
        if all(read(p) == p.ctypes.data for p in probes):
            return read
    except (ValueError, OverflowError):  # an address not readable as a pointer
        pass
    return lambda x: x.ctypes.data


# the address of an array's data (no meta check: for buffers the engine made itself)
address = _data_pointer_reader()


def data_pointer(x: np.ndarray) -> int:
    """The address of x's data for a native kernel. A meta array (or a numpy view of one)
    owns one element whatever its shape: no kernel may read it as its elements."""
    if META.used and stands_on_meta(x):
        raise NotSupportedError("a meta tensor has no data for this kernel to read "
                                "(torch computes its result's shape only)")
    return address(x)


class MKL:
    """One loaded libmkl_rt: VML by op name, and any other symbol by name."""

    def __init__(self, path: str, openmp: str | None = None) -> None:
        self.path = path
        layer = _threading_layer(openmp)
        self.threaded = layer != _MKL_THREADING_SEQUENTIAL
        self._lib = ctypes.CDLL(path)
        # before any other MKL call: the threading layer, 32-bit indices
        self._lib.MKL_Set_Threading_Layer(ctypes.c_int(layer))
        self._lib.MKL_Set_Interface_Layer(ctypes.c_int(_MKL_INTERFACE_LP64))
        buf = ctypes.create_string_buffer(256)
        self._lib.mkl_get_version_string(buf, ctypes.c_int(len(buf)))
        self.version = buf.value.decode("ascii", "replace").strip()
        self._cache: dict[str, Any] = {}
        self._vml: dict[tuple[str, np.dtype], Any] = {}  # (op, dtype) -> typed VML function
        self._threads = 0
        if self.threaded:
            self._lib.MKL_Set_Dynamic(ctypes.c_int(0))  # as torch's set_num_threads

    def set_threads(self, n: int) -> None:
        """Run MKL's BLAS on `n` threads (torch's intra-op count); a no-op when sequential."""
        if self.threaded and n != self._threads:
            self._lib.MKL_Set_Num_Threads(ctypes.c_int(n))
            self._threads = n

    def symbol(self, name: str, restype: Any,
               argtypes: list[Any] | None) -> Callable[..., Any]:
        """A typed ctypes function for `name` (e.g. `cblas_sgemm`, `sdot`): the reusable
        lookup for MKL's BLAS, whose order of operations torch's matmuls inherit."""
        fn = self._cache.get(name)
        if fn is None:
            fn = getattr(self._lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
            self._cache[name] = fn
        return fn

    def vml(self, op: str, x: np.ndarray, out: np.ndarray) -> np.ndarray:
        """`op` of the float32 or float64 1-D contiguous array x into out (may be x)."""
        if not (x.ndim == out.ndim == 1 and x.dtype == out.dtype and x.size == out.size
                and x.flags.c_contiguous and out.flags.c_contiguous):
            raise TypeError("vml: x and out must be 1-D contiguous arrays of one dtype")
        fn = self._vml.get((op, x.dtype))
        if fn is None:
            fn = self._vml[(op, x.dtype)] = self.symbol(
                f"vm{_PREFIX[x.dtype]}{VML_FUNCTIONS[op]}", None,
                [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64])
        size, item = x.size, x.itemsize
        x_at, out_at = data_pointer(x), data_pointer(out)
        for i in range(0, size, _MAX_N):
            n = min(_MAX_N, size - i)
            fn(n, x_at + i * item, out_at + i * item, VML_MODE)
        return out


_STATE: dict[str, Any] = {}


def load() -> MKL | None:
    """The MKL torch bundles, loaded once; None when it is not installed here."""
    if "mkl" not in _STATE:
        try:
            _STATE["mkl"] = MKL(_library_path(), _openmp_runtime())
            _STATE["reason"] = ""
        except (ValueError, OSError, AttributeError) as exc:
            _STATE["mkl"] = None
            _STATE["reason"] = str(exc)
    return _STATE["mkl"]


def loaded() -> MKL | None:
    """What `load` returned last (None before the first call), without loading."""
    return _STATE.get("mkl")


def unavailable_reason() -> str:
    """Why `load()` returned None ('' when MKL is loaded)."""
    load()
    return _STATE["reason"]
