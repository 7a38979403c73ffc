"""The CPU capability torch's kernels would run with: `default`, `avx2` or `avx512`.

torch picks its vectorised kernels once per process (ATen's DispatchStub.cpp,
`compute_cpu_capability`): the `ATEN_CPU_CAPABILITY` environment variable when it
names a known capability, else what cpuinfo reports. The choice decides the vector
width (8 or 16 float32 lanes), hence the order of a float32 reduction and which
elements of a pointwise op take the SLEEF path, so gradtrace makes the same choice.

Under AVX-512 most kernels still run their AVX2 build: ATen registers a kernel with
REGISTER_DISPATCH, which under AVX-512 registers nothing (the dispatcher then takes the
AVX2 one), and only the kernels registered with ALSO_REGISTER_AVX512_DISPATCH have
AVX-512 code. Measured on an AVX-512 CPU (torch 2.13, `ATEN_CPU_CAPABILITY=avx2` against
the default): sums, means, products, norms, variances, cumulative sums, layer/group/batch
norms, pooling, upsampling, arange/linspace, random numbers and losses give the same bits
under both, while softmax/log_softmax, sigmoid, SiLU, logit, pow, atan2, sinh, cosh,
logaddexp, softplus, mish, GELU, ELU/SELU/CELU differ. So `kernel()` is AVX2 under
AVX-512 unless the caller's kernel is one of the latter (`AVX512_KERNEL`).
"""
from __future__ import annotations

import functools
import os

KNOWN = ("default", "avx2", "avx512")


@functools.cache
def _cpuinfo(field: str) -> str:
    """The first /proc/cpuinfo line's value for `field` ('' where there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(field):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def _cpu_flags() -> frozenset[str]:
    return frozenset(_cpuinfo("flags").split())


def detect(environ: dict[str, str] | None = None, flags: frozenset[str] | None = None) -> str:
    """torch's rule: a valid ATEN_CPU_CAPABILITY wins; else AVX-512 (VL, BW, DQ and FMA),
    else AVX2 (with FMA), else the default scalar kernels."""
    env = (os.environ if environ is None else environ).get("ATEN_CPU_CAPABILITY")
    if env in KNOWN:
        return env
    flags = _cpu_flags() if flags is None else flags
    if {"avx512vl", "avx512bw", "avx512dq", "fma"} <= flags:
        return "avx512"
    if {"avx2", "fma"} <= flags:
        return "avx2"
    return "default"


CAPABILITY = detect()


def blas_platform(flags: frozenset[str] | None = None, vendor: str | None = None) -> str:
    """Which of MKL's kernel families torch's matrix products run on: MKL dispatches on the
    CPU itself (ATEN_CPU_CAPABILITY does not reach it), and its AVX-512 kernels only on
    Intel's: on an AMD CPU with AVX-512 torch's products have the AVX2 kernels' bits
    (measured on an AMD EPYC: tests/data/numerics/avx512 against the mkl-avx2 model)."""
    hardware = detect(environ={}, flags=flags)
    vendor = _cpuinfo("vendor_id") if vendor is None else vendor
    if hardware == "avx512" and vendor != "GenuineIntel":
        hardware = "avx2"
    return f"mkl-{hardware}"


BLAS_PLATFORM = blas_platform()


AVX512_KERNEL = True  # for kernel(): ATen registers this kernel for AVX-512 too


def kernel(avx512_registered: bool = False) -> str:
    """The capability a torch kernel runs with: CAPABILITY, except that under AVX-512 a
    kernel not registered for it (REGISTER_DISPATCH, most of ATen) runs its AVX2 build."""
    if CAPABILITY == "avx512" and not avx512_registered:
        return "avx2"
    return CAPABILITY


def lanes(itemsize: int = 4, capability: str | None = None) -> int:
    """Elements in one of the vectors of a kernel running at `capability` (default: a
    REGISTER_DISPATCH kernel's, `kernel()`): Vectorized<float> has 16 with AVX-512; 8 with
    AVX2 and in the default build, which emulates a 256-bit vector with scalar code."""
    return (64 if (capability or kernel()) == "avx512" else 32) // itemsize


_SET_THREADS: list[int | None] = [None]  # torch.set_num_threads in this run


def set_num_threads(n: int | None) -> None:
    _SET_THREADS[0] = n


# os.environ's own dict (encoded keys and values; CPython's os module keeps it in _data), read
# by num_threads: a changed variable changes the key, so the cache follows the environment
_ENV_DATA = getattr(os.environ, "_data", None)
_encode = getattr(os.environ, "encodekey", None)
_OMP_KEY = _encode("OMP_NUM_THREADS") if _encode else None
_MKL_KEY = _encode("MKL_NUM_THREADS") if _encode else None
if _OMP_KEY is None:
    _ENV_DATA = None
_THREADS_BY_ENV: dict[tuple[object, object], int] = {}


def num_threads(environ: dict[str, str] | None = None) -> int:
    """torch's intra-op thread count (`intraop_default_num_threads`): OMP_NUM_THREADS, then
    MKL_NUM_THREADS when set, else the physical cores this process may run on. Past 32,768
    elements a pointwise kernel splits its range into one chunk per thread, and MKL splits
    a matrix product across as many threads (engine/blas.py). torch.set_num_threads in the
    script overrides it."""
    if environ is None:
        if _SET_THREADS[0] is not None:
            return _SET_THREADS[0]
        # every matrix product and large pointwise kernel asks: os.environ's lookups
        # encode and decode their keys (~4 us for the two), its raw dict does not
        key = (_ENV_DATA.get(_OMP_KEY), _ENV_DATA.get(_MKL_KEY)) if _ENV_DATA is not None else None
        found = _THREADS_BY_ENV.get(key) if key is not None else None
        if found is None:
            found = num_threads(os.environ)
            if key is not None:
                _THREADS_BY_ENV[key] = found
        return found
    env = environ
    count = 0
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = env.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            count = int(value)
    return count or _physical_cores()


@functools.lru_cache(maxsize=1)
def _physical_cores() -> int:
    """Distinct (package, core) pairs among the CPUs this process may use (cpuinfo counts
    cores, not hyper-threads); the CPU count where the topology is not readable."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f, open(base + "core_id") as g:
                cores.add((f.read().strip(), g.read().strip()))
        except OSError:
            return len(cpus)
    return len(cores) or len(cpus)


def fma_build(capability: str | None = None) -> bool:
    """Whether torch's kernels for this capability are its FMA builds (AVX2, AVX-512):
    vectorised loops call `vec::fmadd` and SLEEF, and GCC contracts the scalar tails'
    `a * b + c` into fused multiply-adds. The default build does neither."""
    return (capability or CAPABILITY) != "default"
