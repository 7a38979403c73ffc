"""The tracer's index of saved tensors by the memory they live in: what finds the `.data`
trap (a saved tensor changed in place through another tensor that shares its memory but
not its version counter, which backward's version check cannot see)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.meta import memory_owner
from ..engine.tensor import Tensor

if TYPE_CHECKING:
    from .records import NodeRecord


def _storage(array: np.ndarray) -> int:
    """Identity of the memory an array lives in: its root base (views chain to it)."""
    array = memory_owner(array)
    return id(array) if array.base is None else id(array.base)



class SavedStorageIndex:
    """Tracer part: saved tensors filed by storage -> [(node record, key, position)]."""

    __slots__ = ()

    def _index_saved(self, record: NodeRecord) -> None:
        """File a node's saved tensors under the memory they live in (again, if filed).

        Filed when the index is next read (`_file_pending`): only an in-place change or a
        `.data` write reads it, and a training step's graph is usually released by its
        backward before either runs, so most nodes are never filed at all."""
        self._to_index[record.id] = record

    def _file_pending(self) -> None:
        """File the nodes `_index_saved` was given since the index was last read."""
        pending = self._to_index
        if pending:
            self._to_index = {}
            for record in pending.values():
                self._file(record)

    def _file(self, record: NodeRecord) -> None:
        self._unindex_saved(record)
        storages = []
        for position, (key, saved) in enumerate((record.node.saved or {}).items()):
            if saved is None:
                continue
            storage = _storage(saved.tensor.array)
            self._saved_by_storage.setdefault(storage, []).append((record, key, position))
            if storage not in storages:
                storages.append(storage)
        if storages:
            self._storages_of[record.id] = storages
            self._indexed[record.id] = record

    def _unindex_saved(self, record: NodeRecord) -> None:
        self._to_index.pop(record.id, None)
        if self._indexed.pop(record.id, None) is None:
            return  # never filed (or its tensors were in no storage)
        for storage in self._storages_of.pop(record.id, ()):
            entries = self._saved_by_storage.get(storage)
            if entries is None:
                continue
            entries[:] = [e for e in entries if e[0] is not record]
            if not entries:
                del self._saved_by_storage[storage]

    def _shared_storage_hazards(self, tensor: Tensor) -> list[dict[str, Any]]:
        """Saved tensors that share `tensor`'s storage but not its version counter.

        Changing them in place is invisible to backward's version check (the `.data`
        trap): the gradient will silently use the new values. Only the saved tensors
        filed under the same memory are looked at.
        """
        self._file_pending()
        entries = self._saved_by_storage.get(_storage(tensor.array))
        if not entries:
            return []
        found = []
        for record, key, _ in sorted(entries, key=lambda e: (e[0].id, e[2])):
            node = record.node
            if not node.saved or node.released:
                continue
            saved = node.saved.get(key)
            if saved is None:
                continue
            other = saved.tensor
            if other._version_counter is tensor._version_counter:
                continue
            if np.shares_memory(other.array, tensor.array):
                found.append({"node": record.id, "saved": key,
                              "tensor": self.tensor(other).id})
        return found


    def on_data_write(self, tensor: Tensor) -> None:
        # the tensor now lives in other memory: file the nodes that saved it again
        self._file_pending()
        for record in list(self._indexed.values()):
            saved = record.node.saved
            if saved and any(s is not None and s.tensor is tensor for s in saved.values()):
                self._index_saved(record)
        self._event("data_write", tensor=self.tensor(tensor).id, value=self._value(tensor.array))

