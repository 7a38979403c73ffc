"""Allocation limits: refuse a tensor before numpy allocates it, and cap live tensor memory.

Ops call `reserve(shape, dtype)` before building a result whose size the script
controls (constructors, broadcasting, matmul, repeat, cat, stack, clone), so numpy never
allocates it; `admit` checks every tensor built, as the backstop for the rest. Every tensor of
`TRACK_BYTES` or more is counted while it is alive, so a loop that keeps big
tensors cannot grow without bound. The count is the run's own: a run starts at zero
(`configure`), whatever an earlier run in the same process left alive (a notebook's
results, a test's), and those tensors' release no longer changes it.
"""
from __future__ import annotations

import weakref
from typing import Any

from ..errors import LimitExceeded, NotSupportedError
from . import aligned
from .meta import META, MetaArray

TRACK_BYTES = 1 << 16  # tensors this large are counted toward live memory


# the widest itemsize (complex128): an array of fewer elements is under TRACK_BYTES
_WIDEST = 16


class AllocationLimits:
    __slots__ = ("max_elements", "max_bytes", "live_bytes", "admit_from", "run", "max_sequence")

    def __init__(self) -> None:
        self.max_elements = 50_000_000
        self.max_sequence = 10_000_000  # entries of a list or lines of text the engine builds
        self.max_bytes = 1 << 30
        self.live_bytes = 0
        self.run = 0  # which run live_bytes counts for
        self.admit_from = _admit_from(self.max_elements)


def _admit_from(max_elements: int) -> int:
    """The size from which `admit` has anything to do (`wrap` skips its call below it: most
    results of a graph of scalars): over the element limit, or possibly TRACK_BYTES long."""
    return min(max_elements + 1, TRACK_BYTES // _WIDEST)


LIMITS = AllocationLimits()


def configure(max_elements: int, max_bytes: int, max_sequence: int = 10_000_000) -> None:
    """A run starts: its limits, and nothing of its own alive yet."""
    LIMITS.max_sequence = max_sequence
    LIMITS.run += 1
    LIMITS.live_bytes = 0
    LIMITS.max_elements = max_elements
    LIMITS.max_bytes = max_bytes
    LIMITS.admit_from = _admit_from(max_elements)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


MAX_DIMS = 64  # numpy's NPY_MAXDIMS (torch allows more)


def too_many_dims(err: ValueError, ndim: int | None = None) -> Exception:
    """numpy's refusal of an array past MAX_DIMS dimensions as gradtrace's own limitation;
    any other ValueError as it is."""
    if ndim is None and "maximum supported dimension for an ndarray" not in str(err):
        return err
    found = "" if ndim is None else f" ({ndim})"
    return NotSupportedError(f"tensors of more than {MAX_DIMS} dimensions{found} are not "
                             "supported: gradtrace's tensors are numpy arrays, which stop "
                             f"at {MAX_DIMS}")


def reserve(shape: tuple[int, ...], itemsize: int = 4) -> None:
    """Raise LimitExceeded if a tensor of `shape` would break a limit (NotSupportedError if
    numpy cannot make it). Not while a meta op's forward runs on kernels that make meta
    results (`Function.meta_kernels`): what it reserves is never made."""
    if META.kernels:
        return
    if len(shape) > MAX_DIMS:
        raise too_many_dims(ValueError(), len(shape))
    numel = _numel(shape)
    if numel > LIMITS.max_elements:
        raise LimitExceeded(
            f"a tensor of shape {list(shape)} has {numel:,} elements, more than the limit of "
            f"{LIMITS.max_elements:,} (raise it with --max-elements)")
    nbytes = numel * itemsize
    if LIMITS.live_bytes + nbytes > LIMITS.max_bytes:
        raise LimitExceeded(
            f"a tensor of shape {list(shape)} ({_mib(nbytes)}) would bring live tensor memory "
            f"to {_mib(LIMITS.live_bytes + nbytes)}, more than the limit of "
            f"{_mib(LIMITS.max_bytes)} (raise it with --max-memory)")


def admit(owner: Any, array: Any) -> None:
    """Every tensor that owns its data passes here (Tensor(), wrap): --max-elements holds
    for every op, also those that cannot size their result before numpy builds it, and
    large tensors are counted toward live memory. A view counts too: only a broadcast
    (expand) is larger than its base, and every op on it would build one that large.
    A meta tensor holds no data: nothing to count."""
    if isinstance(array, MetaArray):
        return
    if array.size > LIMITS.max_elements:
        reserve(array.shape)
    if array.nbytes >= TRACK_BYTES and aligned.owns_data(array):
        track(owner, array.nbytes)


def _release(nbytes: int, run: int) -> None:
    if run == LIMITS.run:
        LIMITS.live_bytes -= nbytes


def track(owner: Any, nbytes: int) -> None:
    """Count a large tensor's bytes until `owner` is garbage collected."""
    if LIMITS.live_bytes + nbytes > LIMITS.max_bytes:
        raise LimitExceeded(
            f"live tensor memory would reach {_mib(LIMITS.live_bytes + nbytes)}, more than the "
            f"limit of {_mib(LIMITS.max_bytes)} (raise it with --max-memory)")
    LIMITS.live_bytes += nbytes
    weakref.finalize(owner, _release, nbytes, LIMITS.run)
