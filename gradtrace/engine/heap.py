"""The C heap under numpy's arrays: let glibc's malloc keep freed memory for reuse.

numpy allocates every result anew; with glibc's defaults an array of 128 KiB or more is
mmap-ed and unmapped again (or the heap top trimmed), so each step of a training loop
page-faults its memory in afresh: 48,000 faults a run and ~30% of the time of the
benchmark's 200-step MLP, against 2,900 with the thresholds below. torch avoids the same with
its caching allocator. Peak memory is unchanged; the process keeps what it already used.
Set by every run (`runner.run_source`): the CLI's, and a notebook's or test's in process.
"""
from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
MMAP_THRESHOLD = 32 << 20  # glibc's maximum on 64-bit
TRIM_THRESHOLD = 256 << 20

_STATE: dict[str, bool] = {}


def keep_freed_memory() -> bool:
    """Raise glibc's thresholds once per process; False where the C library has no mallopt
    (not Linux, or musl)."""
    if "set" not in _STATE:
        _STATE["set"] = _raise_thresholds()
    return _STATE["set"]


def _raise_thresholds() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                & mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
