"""torch's process-wide switches a script may set: the intra-op thread count (which the
kernels' orders read, via capability.num_threads), deterministic algorithms, the float32
matmul precision and the CPU's flushing of subnormal numbers. Each run starts from torch's
defaults, like a new process."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import platform
from typing import Any

from ..errors import TorchRuntimeError, TorchTypeError
from . import capability, tensor_str

_STATE: dict[str, Any] = {}
_PRECISIONS = ("highest", "high", "medium")


def reset() -> None:
    _STATE.update(interop_threads=None, deterministic=False, warn_only=False,
                  matmul_precision="highest", debug_mode=0)
    capability.set_num_threads(None)
    tensor_str.reset_printoptions()
    if _FLUSHING[0]:
        _set_mxcsr_flush(False)


# -- torch.set_flush_denormal: the CPU's FTZ and DAZ bits -----------------------------------

# MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6), which torch sets on the
# calling thread (at::globalContext().setFlushDenormal). Every float operation of the
# thread then treats subnormal operands and results as zero: numpy's and Python's own as
# much as torch's kernels, as in torch's process (`1e-310` then reads as 0.0).
_FTZ_DAZ = 0x8040
_MXCSR_OFFSET = 28  # glibc's x86-64 fenv_t: the x87 environment, then mxcsr
_FENV_SIZE = 32
_FLUSHING = [False]


@functools.cache
def _libm() -> Any:
    """glibc's libm on an x86-64 machine (its fenv_t has the layout above), else None:
    torch answers False where the CPU has no DAZ (other architectures)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    name = ctypes.util.find_library("m")
    if name is None or platform.libc_ver()[0] != "glibc":
        return None
    return ctypes.CDLL(name)


def _set_mxcsr_flush(on: bool) -> bool:
    libm = _libm()
    if libm is None:
        return False
    env = ctypes.create_string_buffer(_FENV_SIZE)
    if libm.fegetenv(env) != 0:
        return False
    mxcsr = int.from_bytes(env.raw[_MXCSR_OFFSET:_MXCSR_OFFSET + 4], "little")
    mxcsr = mxcsr | _FTZ_DAZ if on else mxcsr & ~_FTZ_DAZ
    ctypes.memmove(ctypes.addressof(env) + _MXCSR_OFFSET, mxcsr.to_bytes(4, "little"), 4)
    if libm.fesetenv(env) != 0:
        return False
    _FLUSHING[0] = on
    return True


def set_flush_denormal(*args: Any, **kwargs: Any) -> bool:
    """torch.set_flush_denormal(mode): whether the CPU could set it (True on x86-64)."""
    if kwargs:
        raise TorchTypeError("torch.set_flush_denormal() takes no keyword arguments")
    if len(args) != 1:
        raise TorchTypeError("torch.set_flush_denormal() takes exactly one argument "
                             f"({len(args)} given)")
    mode = args[0]
    if type(mode) is not bool:
        raise TorchRuntimeError(
            f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return _set_mxcsr_flush(mode)


def get_num_threads() -> int:
    return capability.num_threads()


def set_num_threads(n: Any) -> None:
    """torch.set_num_threads: the kernels then split their work as torch's do."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TorchRuntimeError(
            f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise TorchRuntimeError("set_num_threads expects a positive integer")
    capability.set_num_threads(n)


def get_num_interop_threads() -> int:
    threads = _STATE["interop_threads"]
    return capability.num_threads() if threads is None else threads


def set_num_interop_threads(n: int) -> None:
    if n <= 0:
        raise TorchRuntimeError("set_num_interop_threads expects a positive integer")
    _STATE["interop_threads"] = n


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded only: every gradtrace kernel is deterministic already."""
    _STATE["deterministic"] = bool(mode)
    _STATE["warn_only"] = bool(warn_only)
    _STATE["debug_mode"] = 0 if not mode else 1 if warn_only else 2


def are_deterministic_algorithms_enabled() -> bool:
    return _STATE["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _STATE["warn_only"]


def get_deterministic_debug_mode() -> int:
    return _STATE["debug_mode"]


def set_deterministic_debug_mode(mode: Any) -> None:
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(mode, str):
        if mode not in names:
            raise TorchRuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {mode}")
        mode = names[mode]
    if mode not in (0, 1, 2):
        raise TorchRuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {mode}")
    use_deterministic_algorithms(mode > 0, warn_only=mode == 1)


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only: on CPU torch's float32 products ignore it."""
    if precision not in _PRECISIONS:
        from .ops.views import warn

        warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
             "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
             "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)")
        return
    _STATE["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _STATE["matmul_precision"]


reset()

FUNCTIONS = {
    "get_num_threads": get_num_threads, "set_num_threads": set_num_threads,
    "get_num_interop_threads": get_num_interop_threads,
    "set_num_interop_threads": set_num_interop_threads,
    "use_deterministic_algorithms": use_deterministic_algorithms,
    "are_deterministic_algorithms_enabled": are_deterministic_algorithms_enabled,
    "is_deterministic_algorithms_warn_only_enabled":
        is_deterministic_algorithms_warn_only_enabled,
    "get_deterministic_debug_mode": get_deterministic_debug_mode,
    "set_deterministic_debug_mode": set_deterministic_debug_mode,
    "set_float32_matmul_precision": set_float32_matmul_precision,
    "get_float32_matmul_precision": get_float32_matmul_precision,
    "set_printoptions": tensor_str.set_printoptions,
    "set_flush_denormal": set_flush_denormal,
}
