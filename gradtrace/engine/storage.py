"""Tensor.untyped_storage() and Tensor.data_ptr(): the bytes a tensor's memory holds.

A tensor's storage is the numpy array that owns its memory (the end of its `.base` chain):
views, detach() and `.data` share it, as they share torch's storage. Scripts see its bytes
(`tolist()`, indexing), its size and its address, which is enough to tell whether two
tensors share memory (`a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`)
and what a write through one did to the other. The one write is a typed storage's item
assignment (`t.storage()[0] = 2.0`, as "Deep Learning with PyTorch" shows); its methods
that write or resize (copy_, fill_, resize_) are refused.
"""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..errors import (
    LimitExceeded,
    NotSupportedError,
    ScriptError,
    TorchIndexError,
    TorchRuntimeError,
    TorchTypeError,
    TorchValueError,
)
from . import conj_bit, limits
from .device import CPU, Device
from .meta import MetaArray, memory_owner
from .tensor import Tensor, type_name

# one storage object per owning array while a script holds it, as torch hands back the same
# Python storage for the same memory (`x.untyped_storage() is x.untyped_storage()`)
_CACHE: weakref.WeakValueDictionary[int, UntypedStorage] = weakref.WeakValueDictionary()


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _ssize(value: Any, lowest: int = _INT64_MIN) -> int | None:
    """A slice bound as PySlice_Unpack reads it: None, or an int clamped to ssize_t (a
    step to -PY_SSIZE_T_MAX at least)."""
    if value is None:
        return None
    if not isinstance(value, int):
        raise TorchTypeError("slice indices must be integers or None or have an __index__ "
                             "method")
    return min(max(int(value), lowest), _INT64_MAX)


def _check_entries(count: int, what: str) -> None:
    """A storage's bytes or elements become a list's entries or printed lines: at most as
    many as a script may build (--max-sequence), checked before any is made."""
    if count > limits.LIMITS.max_sequence:
        raise LimitExceeded(
            f"a storage of {count:,} {what} makes a list or text of {count:,} entries, more "
            f"than the limit of {limits.LIMITS.max_sequence:,} (raise it with --max-sequence)")


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


class UntypedStorage:
    """torch.UntypedStorage of a CPU tensor: `nbytes` bytes from `start` in `owner`."""

    python_type_name = "torch.storage.UntypedStorage"
    __slots__ = ("owner", "start", "nbytes_", "__weakref__")

    def __init__(self, owner: np.ndarray, start: int = 0, nbytes: int | None = None):
        self.owner = owner
        self.start = start
        self.nbytes_ = owner.nbytes - start if nbytes is None else nbytes

    def _bytes(self) -> np.ndarray:
        flat = self.owner.reshape(-1, order="A") if self.owner.size else self.owner.reshape(0)
        data = flat.view(np.uint8) if flat.flags.c_contiguous else \
            np.frombuffer(self.owner.tobytes(order="A"), dtype=np.uint8)
        return data[self.start:self.start + self.nbytes_]

    def _check_listable(self) -> None:
        _check_entries(self.nbytes_, "bytes")

    def tolist(self) -> list[int]:
        self._check_listable()
        return self._bytes().tolist()

    def nbytes(self) -> int:
        return self.nbytes_

    def size(self) -> int:
        return self.nbytes_

    def __len__(self) -> int:
        return self.nbytes_

    def element_size(self) -> int:
        return 1

    def is_shared(self) -> bool:
        """Whether the memory is in shared memory (for multiprocessing): never here."""
        return False

    def untyped(self) -> UntypedStorage:
        return self

    def data_ptr(self) -> int:
        return _address(self.owner) + self.start if self.nbytes_ else 0

    @property
    def device(self) -> Device:
        return CPU

    def getitem(self, index: Any) -> Any:
        """`storage[i]`: the byte at i (negative from the end); `storage[a:b]`: a storage
        over those bytes (a step other than 1 is torch's error). Bounds and the step are
        read as CPython's PySlice_Unpack reads them (clamped to the C ssize_t range)."""
        if isinstance(index, slice):
            start, stop = _ssize(index.start), _ssize(index.stop)
            step = _ssize(index.step, -_INT64_MAX)
            if step is not None and step != 1:
                if step == 0:
                    raise TorchValueError("slice step cannot be zero")
                raise TorchRuntimeError(f"Trying to slice with a step of {step}, but only a "
                                        "step of 1 is supported")
            begin, end, _ = slice(start, stop).indices(self.nbytes_)
            return UntypedStorage(self.owner, self.start + begin, max(0, end - begin))
        if not isinstance(index, int) or isinstance(index, bool):
            raise TorchTypeError(f"can't index a torch.UntypedStorage with {type_name(index)}")
        if not _INT64_MIN <= index <= _INT64_MAX:
            raise TorchValueError("Overflow when unpacking long long")
        where = index + self.nbytes_ if index < 0 else index
        if not 0 <= where < self.nbytes_:
            raise TorchIndexError(f"index {where} out of range for storage of size "
                                  f"{self.nbytes_}")
        return int(self._bytes()[where])

    def __str__(self) -> str:
        self._check_listable()
        body = "\n".join(f" {b}" for b in self._bytes()) if self.nbytes_ else " "
        return f"{body}\n[torch.storage.UntypedStorage(device=cpu) of size {self.nbytes_}]"

    __repr__ = __str__


TYPED_STORAGE_WARNING = (
    "UserWarning: TypedStorage is deprecated. It will be removed in the future and "
    "UntypedStorage will be the only storage class. This should only matter to you if you "
    "are using storages directly.  To access UntypedStorage directly, use "
    "tensor.untyped_storage() instead of tensor.storage()")


def _class_repr(value: Any) -> str:
    """`type(value)` as Python prints it in torch's TypedStorage messages."""
    name = "torch.Tensor" if isinstance(value, Tensor) else type_name(value)
    return f"<class '{name}'>"


class TypedStorage:
    """torch.TypedStorage (`Tensor.storage()`, deprecated): an UntypedStorage's bytes read
    as elements of `dtype`; a new object each call, as in torch."""

    python_type_name = "torch.storage.TypedStorage"
    __slots__ = ("bytes_", "dtype", "__weakref__")

    def __init__(self, untyped: UntypedStorage, dtype: Any):
        self.bytes_ = untyped
        self.dtype = dtype

    def _count(self) -> int:
        return self.bytes_.nbytes_ // self.dtype.itemsize

    def _values(self) -> np.ndarray:
        data = self.bytes_._bytes()[:self._count() * self.dtype.itemsize]
        return np.frombuffer(data.tobytes(), dtype=self.dtype.np)

    def _check_listable(self) -> None:
        _check_entries(self._count(), "elements")

    def tolist(self) -> list[Any]:
        self._check_listable()
        return self._values().tolist()

    def size(self) -> int:
        return self._count()

    def __len__(self) -> int:
        return self._count()

    def nbytes(self) -> int:
        return self._count() * self.dtype.itemsize

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self.bytes_.data_ptr()

    def is_shared(self) -> bool:
        return False

    def untyped(self) -> UntypedStorage:
        return self.bytes_

    @property
    def device(self) -> Device:
        return CPU

    def getitem(self, index: Any) -> Any:
        """`storage[i]`: the element at i as a Python number (torch/storage.py's checks)."""
        if isinstance(index, slice):
            raise TorchRuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(index, int):
            raise TorchRuntimeError(f"can't index a <class 'torch.storage.TypedStorage'> with "
                                    f"{_class_repr(index)}")
        if isinstance(index, bool):
            raise TorchTypeError(f"can't index a <class 'torch.storage.TypedStorage'> with "
                                 f"{_class_repr(index)}")
        count = self._count()
        if index >= count or index < -count:
            raise TorchIndexError(f"index {index} out of range for storage of size {count}")
        return self._values()[index % count].item()

    def setitem(self, index: Any, value: Any) -> None:
        """`storage[i] = v`, `storage[a:b] = v`: torch (TypedStorage._setitem) writes through
        a new 1-D tensor over the storage's elements, so every tensor sharing the memory sees
        the write and none of their version counters moves."""
        from .ops.subscript import setitem

        if not isinstance(index, (int, slice)):
            raise TorchRuntimeError(f"can't index a <class 'torch.storage.TypedStorage'> with "
                                    f"{_class_repr(index)}")
        if isinstance(value, (TypedStorage, UntypedStorage)):
            raise TorchRuntimeError(f"cannot set item with value type "
                                    f"<class '{value.python_type_name}'>")
        setitem(Tensor(self._elements(), self.dtype), index, value)

    def _elements(self) -> np.ndarray:
        """The storage's elements as a 1-D array over its memory (not a copy)."""
        owner = self.bytes_.owner
        if not owner.flags.writeable or not (owner.flags.c_contiguous or
                                             owner.flags.f_contiguous):
            raise NotSupportedError("writing to this tensor's storage is not supported by "
                                    "gradtrace (its memory is read-only or not contiguous)")
        start = self.bytes_.start
        flat = owner.reshape(-1, order="A").view(np.uint8)
        return flat[start:start + self._count() * self.dtype.itemsize].view(self.dtype.np)

    def __str__(self) -> str:
        self._check_listable()
        body = " " + "\n ".join(str(v) for v in self._values().tolist())
        return (f"{body}\n[torch.storage.TypedStorage(dtype={self.dtype!r}, device=cpu) of "
                f"size {self._count()}]")

    __repr__ = __str__


def storage(t: Tensor) -> TypedStorage:
    """`t.storage()`: the tensor's storage typed as its dtype, with torch's deprecation
    warning (once a run)."""
    if not t.has_storage:
        raise ScriptError("Cannot access storage of BatchedTensorImpl", kind="NotImplementedError")
    from .ops.creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(TYPED_STORAGE_WARNING, "torch.storage._warn_typed_storage_removal"))
    return TypedStorage(untyped_storage(t), t.dtype)


def untyped_storage(t: Tensor) -> UntypedStorage:
    """`t.untyped_storage()`: the storage of the memory `t` lives in."""
    if not t.has_storage:
        raise ScriptError("Cannot access storage of BatchedTensorImpl", kind="NotImplementedError")
    if isinstance(t.array, MetaArray):
        raise NotSupportedError("the storage of a meta tensor is not supported by gradtrace")
    owner = memory_owner(conj_bit.in_storage(t))
    found = _CACHE.get(id(owner))
    if found is None or found.owner is not owner:
        found = UntypedStorage(owner)
        _CACHE[id(owner)] = found
    return found


def data_ptr(t: Tensor) -> int:
    """`t.data_ptr()`: the address of t's first element (0 for an empty tensor)."""
    if not t.has_storage:
        from .batching.batched import NO_STORAGE

        raise TorchRuntimeError(NO_STORAGE)
    if isinstance(t.array, MetaArray) or not t.array.size:
        return 0
    return _address(conj_bit.in_storage(t))
