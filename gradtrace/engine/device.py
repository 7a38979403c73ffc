"""torch.device, and what a CPU-only torch build says when a script asks for another device.

Tutorials pick their device with `torch.device("cuda" if torch.cuda.is_available() else
"cpu")` and move tensors with `.to(device)`; gradtrace is torch's CPU build, so `cpu` works
and `cuda`/`mps` fail with the errors that build raises.
"""
from __future__ import annotations

import re
from typing import Any

from ..errors import (
    NotSupportedError,
    ScriptError,
    TorchRuntimeError,
    TorchTypeError,
    TorchValueError,
)

# torch's device types, in the order its parse error lists them
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
_DEVICE_STRING = re.compile(r"([a-z]+)(?::(\d+))?$")
NO_CUDA = "Torch not compiled with CUDA enabled"
# what the CPU build says reaching for the CUDA library itself (a CUDA torch.Generator)
NO_CUDA_LIBRARY = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by "
    "the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if "
    "this has occurred by using ldd on your binary to see if there is a dependency on "
    "*_cuda.so library.")
NO_MPS = "PyTorch is not linked with support for mps devices"
NO_XPU = "Torch not compiled with XPU enabled"
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_CPU_ONLY = "gradtrace runs torch's CPU build, where tensors live on the CPU only"


class Device:
    """A torch.device: a type and an optional index; prints `cpu`, repr `device(type='cpu')`."""

    __slots__ = ("type", "index")
    __module__, __qualname__ = "torch", "device"  # the class prints as torch's
    python_type_name = "torch.device"  # the name Python's messages give the type

    def __init__(self, type: Any = None, index: Any = None):  # noqa: A002 - torch's name
        if isinstance(type, Device) and index is None:
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            raise TorchRuntimeError(NO_ACCELERATOR)  # an index means the accelerator
        if not isinstance(type, str) or (index is not None and (
                not isinstance(index, int) or isinstance(index, bool))):
            got = ", ".join(_type_name(v) for v in (type, index) if v is not None)
            raise TorchTypeError(
                f"device() received an invalid combination of arguments - got ({got}), but "
                "expected one of:\n * (torch.device device)\n * (str type, int index = -1)\n")
        match = _DEVICE_STRING.match(type)
        if match is None or match.group(1) not in DEVICE_TYPES:
            name = type.split(":", 1)[0]
            if match is None and name in DEVICE_TYPES:
                raise TorchRuntimeError(f"Invalid device string: '{type}'")
            raise TorchRuntimeError(
                f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
                f"string: {type}")
        self.type = match.group(1)
        self.index = None if match.group(2) is None else int(match.group(2))
        if index is not None:
            if self.index is not None:
                raise TorchRuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}")
            if index < 0:
                raise TorchRuntimeError("Device index must not be negative")
            self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> Device:
        """`with torch.device("meta"):` makes the factory functions inside create on that
        device (the changing-default-device and reasoning-about-shapes recipes): the CPU
        or meta; another device is refused, as set_default_device does."""
        if self.type not in ("cpu", "meta"):
            raise NotSupportedError(f"with torch.device({str(self)!r}): {_CPU_ONLY}")
        DEFAULT.stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        if DEFAULT.stack:
            DEFAULT.stack.pop()
        return None


def _type_name(value: Any) -> str:
    return getattr(type(value), "python_type_name", None) or type(value).__name__


CPU = Device("cpu")
META = Device("meta")


class DefaultDevice:
    """The device factories create on when given none: set_default_device's, or the
    innermost `with torch.device(...)` block's."""

    __slots__ = ("base", "stack")

    def __init__(self) -> None:
        self.base = CPU
        self.stack: list[Device] = []

    @property
    def current(self) -> Device:
        return self.stack[-1] if self.stack else self.base

    def reset(self) -> None:
        self.base, self.stack = CPU, []


DEFAULT = DefaultDevice()


def check_device(device: Any, *, moving: bool = False) -> bool:
    """A creation function's (or, `moving`, `.to()`'s) device: the CPU or meta (no data);
    None is the default device (a factory's) or, moving, no change. True for meta."""
    if device is None:
        return not moving and DEFAULT.current.type == "meta"
    dev = device if isinstance(device, Device) else Device(device)
    if dev.type == "cpu":
        return False
    if dev.type == "meta":
        return True
    if dev.type == "cuda":
        raise ScriptError(NO_CUDA, kind="AssertionError")
    if dev.type == "xpu":
        raise ScriptError(NO_XPU, kind="AssertionError")
    if dev.type == "mps" and moving:
        raise TorchRuntimeError(NO_MPS)
    from ..errors import NotSupportedError

    raise NotSupportedError(f"device '{dev}' is not supported: gradtrace runs on the CPU only")


def is_device_like(value: Any) -> bool:
    """Whether `.to(value)` names a device (a torch.device, a device string or an index)."""
    return isinstance(value, (Device, str)) or (isinstance(value, int)
                                                and not isinstance(value, bool))


# -- torch.cuda, torch.xpu, torch.accelerator and torch.backends.mps ---------------------


def cuda_is_available() -> bool:
    return False


def cuda_device_count() -> int:
    return 0


def cuda_unavailable(*args: Any, **kwargs: Any) -> Any:
    """torch.cuda.current_device() and friends on a build without CUDA."""
    raise ScriptError(NO_CUDA, kind="AssertionError")


def mps_is_available() -> bool:
    return False


def _no_op(*args: Any, **kwargs: Any) -> None:
    """What a CPU-only torch does for seeding and cache calls of a backend it lacks."""
    return None


def xpu_unavailable(*args: Any, **kwargs: Any) -> Any:
    """torch.xpu.current_device() and friends on a build without XPU."""
    raise ScriptError(NO_XPU, kind="AssertionError")


def accelerator_unavailable(*args: Any, **kwargs: Any) -> Any:
    """torch.accelerator.current_device_index() and friends when there is none."""
    raise TorchRuntimeError(NO_ACCELERATOR)


def current_accelerator(check_available: bool = False) -> None:
    """torch.accelerator.current_accelerator(): None, there being no accelerator."""
    return None


NO_PROCESS_GROUP = ("Default process group has not been initialized, please make sure to "
                    "call init_process_group.")


def no_process_group(*args: Any, **kwargs: Any) -> Any:
    """torch.distributed's collectives and queries before init_process_group (measured:
    get_rank, get_world_size, barrier, all_reduce raise this ValueError)."""
    raise TorchValueError(NO_PROCESS_GROUP)


def init_process_group(*args: Any, **kwargs: Any) -> Any:
    raise NotSupportedError("torch.distributed.init_process_group is not supported by "
                            "gradtrace: a script runs as one process")


# `import torch.distributed as dist` (SimCLR's and DDP-ready scripts): the Linux CPU wheel
# has the package; no process group is ever made, so it is never initialized
DISTRIBUTED_FUNCTIONS = {
    "is_available": lambda: True, "is_initialized": lambda: False,
    "is_torchelastic_launched": lambda: False, "init_process_group": init_process_group,
    **{name: no_process_group for name in (
        "get_rank", "get_world_size", "barrier", "all_reduce", "all_gather", "broadcast",
        "reduce", "gather", "scatter", "get_backend", "destroy_process_group")},
}

CUDA_FUNCTIONS = {
    "is_available": cuda_is_available, "device_count": cuda_device_count,
    "current_device": cuda_unavailable, "get_device_name": cuda_unavailable,
    "synchronize": cuda_unavailable, "get_device_properties": cuda_unavailable,
    "manual_seed": _no_op, "manual_seed_all": _no_op, "empty_cache": _no_op,
    "is_initialized": mps_is_available, "memory_allocated": cuda_device_count,
    "_initialized": False,  # (a module flag, read by code that saves device RNG states)
    # RNG-state savers (Lightning's _collect_rng_states/_set_rng_states): no device has a
    # state to get, and setting one is queued for a CUDA initialisation that never comes
    "get_rng_state_all": lambda: [], "set_rng_state_all": _no_op,
    "set_rng_state": _no_op, "seed": _no_op, "seed_all": _no_op,
    "get_rng_state": cuda_unavailable, "initial_seed": cuda_unavailable,
}
XPU_FUNCTIONS = {
    "is_available": cuda_is_available, "device_count": cuda_device_count,
    "is_initialized": mps_is_available,
    "current_device": xpu_unavailable, "get_device_name": xpu_unavailable,
    "synchronize": xpu_unavailable, "get_device_properties": xpu_unavailable,
    "manual_seed": _no_op, "manual_seed_all": _no_op, "empty_cache": _no_op,
}
ACCELERATOR_FUNCTIONS = {
    "is_available": cuda_is_available, "device_count": cuda_device_count,
    "current_accelerator": current_accelerator,
    "current_device_index": accelerator_unavailable, "synchronize": accelerator_unavailable,
}
MPS_FUNCTIONS = {"is_available": mps_is_available, "is_built": mps_is_available}


# -- Tensor.cpu / Tensor.cuda ---------------------------------------------------------


def tensor_cpu(t: Any, memory_format: Any = None) -> Any:
    """Tensor.cpu(): the tensor itself; a meta tensor has no values to copy."""
    from .meta import NO_DATA, is_meta

    if is_meta(t.array):
        raise ScriptError(NO_DATA, kind="NotImplementedError")
    return t


def tensor_cuda(t: Any, device: Any = None, non_blocking: bool = False,
                memory_format: Any = None) -> Any:
    if isinstance(device, int) and not isinstance(device, bool):
        raise TorchRuntimeError(NO_ACCELERATOR)
    raise ScriptError(NO_CUDA, kind="AssertionError")


def tensor_get_device(t: Any) -> int:
    return -1


def set_default_device(device: Any) -> None:
    """torch.set_default_device. gradtrace is torch's CPU build, where the CPU and meta
    are the devices a tensor can be made on: `cpu` (or None) and `meta` are kept; another
    device is refused here (torch accepts it and fails at the next tensor made, which is
    not modelled)."""
    dev = CPU if device is None else Device(device)
    if dev.type not in ("cpu", "meta"):
        raise NotSupportedError(f"torch.set_default_device({str(dev)!r}): {_CPU_ONLY}")
    DEFAULT.base = dev


def get_default_device() -> Device:
    """torch.get_default_device: the CPU unless set_default_device or a `with
    torch.device(...)` block says meta."""
    return DEFAULT.current
