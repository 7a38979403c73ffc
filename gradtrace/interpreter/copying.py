"""Copies of script values as Python's copy.deepcopy and pickle (torch.save) make them.

One copier, two uses: `deep_copy` is copy.deepcopy (the `copy` module, and the library's
`deepcopy` intrinsic that nn.Transformer's clones use), `pickled_copy` is what torch.save
keeps and torch.load returns (serialization.py). Both copy containers and script-class
instances once each (shared ones stay shared, cycles included), keep functions, classes
and immutable values, and copy each tensor storage once, so tensors that shared one still
share one. They differ where torch's Tensor.__deepcopy__ and __reduce_ex__ differ:
deepcopy refuses a tensor with a graph and copies `.grad`; pickling makes any tensor a
new leaf (requires_grad kept) without its grad.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.limits import reserve, track
from ..engine.meta import MetaArray, memory_owner, meta_array, strides_of
from ..engine.ndarray import ndarray
from ..engine.tensor import Parameter, Tensor
from ..errors import ScriptError
from .module_dicts import ModuleDict
from .objects import MISSING, Instance

if TYPE_CHECKING:
    from .identities import Identities
from .hashlib_module import HashObject
from .random_module import PyRandom

NOT_A_LEAF = ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
              "protocol at the moment.  If you were attempting to deepcopy a module, this may "
              "be because of a torch.nn.utils.weight_norm usage, see "
              "https://github.com/pytorch/pytorch/pull/103001")
# containers nested deeper than these raise RecursionError in CPython 3.11 from a script's
# top level (measured with torch 2.13 imported): copy.deepcopy takes 499 lists or dicts
# nested in each other, torch.save's pickler 497
DEEPCOPY_NESTING = 499
PICKLE_NESTING = 497
_TOO_DEEP = {False: "maximum recursion depth exceeded while calling a Python object",
             True: "maximum recursion depth exceeded"}  # (deepcopy's, the pickler's)
_CONTAINERS = (Instance, dict, list, tuple, set, frozenset)


def deep_copy(obj: Any, tick: Callable[[], None], memo: dict[int, Any] | None = None,
              numbered: Identities | None = None) -> Any:
    """copy.deepcopy(obj, memo); `tick` counts a step per object copied. `numbered`: the
    script's id() numbers, by which a class's own __deepcopy__ keys the memo it is given
    (`memo[id(self)] = new`)."""
    copier = _Copier(False, tick, {} if memo is None else memo)
    copier.numbered = numbered
    return copier.copy(obj)


def pickled_copy(obj: Any, tick: Callable[[], None]) -> Any:
    """pickle.loads(pickle.dumps(obj)) as torch.save and torch.load do it."""
    return _Copier(True, tick, {}).copy(obj)


def shallow_copy(obj: Any) -> Any:
    """copy.copy(obj): a new container (or instance) holding the same items; a tensor is a
    new leaf on the same storage (Tensor.__reduce_ex__), requires_grad kept."""
    if isinstance(obj, Tensor):
        out: Tensor = Tensor._wrap(obj.array)
        if obj.pyclass is not None:  # a subclass of torch.Tensor: its class and __dict__
            from .tensor_subclasses import copy_instance

            return copy_instance(obj, out)
        if obj.is_parameter:
            return Parameter(out, requires_grad=obj.requires_grad)
        out.requires_grad = obj.requires_grad
        out._version_counter.value = 1  # (rebuilt with set_(), as torch does)
        return out
    if type(obj) is Instance:
        cls, interp = obj.cls, obj.cls.interp
        hook = cls.lookup("__copy__") if interp is not None else MISSING
        if hook is not MISSING:  # the class's own copy
            return interp.call_bound(hook, obj, ())
        out_instance = Instance(cls)
        if cls.builtin is not None:  # an AttrDict's items, a Batch's list
            value = obj.value
            out_instance.value = value.copy() if isinstance(value, (dict, list)) else value
        getstate = cls.lookup("__getstate__") if interp is not None else MISSING
        setstate = cls.lookup("__setstate__") if interp is not None else MISSING
        if getstate is not MISSING or setstate is not MISSING:  # copy's _reconstruct
            state = interp.call_bound(getstate, obj, ()) if getstate is not MISSING \
                else (dict(obj.attrs) or None)
            if state is not None:
                restore(interp, out_instance, state, setstate)
            return out_instance
        out_instance.attrs.update(obj.attrs)
        return out_instance
    if isinstance(obj, (dict, list, set, ModuleDict)):  # (a module's __dict__: a plain dict)
        return obj.copy()
    if type(obj) is ndarray:  # numpy's __copy__ copies the data
        return _array_copy(obj)
    if type(obj) is PyRandom:  # random.Random's __reduce__ keeps its state
        return obj.clone()
    if type(obj) is HashObject:
        raise ScriptError("cannot pickle '_hashlib.HASH' object", kind="TypeError")
    return obj  # tuples, numbers, strings, functions: themselves, as in Python


def restore(interp: Any, out: Instance, state: Any, setstate: Any) -> None:
    """copy._reconstruct's last step: `__setstate__(state)`, else the state's items as
    attributes (a (dict, slots) pair's both)."""
    if setstate is not MISSING:
        interp.call_bound(setstate, out, (state,))
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    for part in (state, slots):
        if part is None:
            continue
        if not isinstance(part, dict):  # (dict.update's words for a non-mapping)
            raise ScriptError(f"'{type(part).__name__}' object is not iterable",
                              kind="TypeError")
        for key, value in part.items():
            interp.plain_setattr(out, key, value)


class _Copier:
    """One copy of an object graph: each object once (a memo by identity), each tensor
    storage once."""

    def __init__(self, pickling: bool, tick: Callable[[], None], memo: dict[int, Any]):
        self.pickling = pickling
        self.tick = tick  # the interpreter's step count: a copy of a million objects is long
        self.limit = PICKLE_NESTING if pickling else DEEPCOPY_NESTING
        self.depth = 0
        self.memo = memo
        self.storages: dict[int, np.ndarray] = {}
        self.numbered: Identities | None = None

    def copy(self, obj: Any) -> Any:
        found = self.memo.get(id(obj))
        # `memo[id(self)]` written by a script's hook
        if found is None and self.numbered is not None:
            known = self.numbered.known(obj)
            if known is not None:
                found = self.memo.get(known)
        if found is not None:
            return found
        self.tick()
        if isinstance(obj, Tensor):
            out = self.memo[id(obj)] = self._tensor(obj)
            return out
        if type(obj) is ndarray:
            out = self.memo[id(obj)] = _array_copy(obj)
            return out
        if type(obj) is PyRandom:
            out = self.memo[id(obj)] = obj.clone()
            return out
        if type(obj) is HashObject:
            raise ScriptError("cannot pickle '_hashlib.HASH' object", kind="TypeError")
        if not isinstance(obj, _CONTAINERS):
            return obj  # numbers, strings, None, dtypes, functions and classes (by reference)
        self.depth += 1
        if self.depth > self.limit:
            raise ScriptError(_TOO_DEEP[self.pickling], kind="RecursionError")
        try:
            return self._container(obj)
        finally:
            self.depth -= 1

    def _container(self, obj: Any) -> Any:
        if type(obj) is Instance and obj.cls.interp is not None:
            hooked = self._hooked(obj)
            if hooked is not MISSING:
                return hooked
        if type(obj) is Instance:
            out = self.memo[id(obj)] = Instance(obj.cls)
            if obj.cls.builtin is not None:  # an AttrDict's items, a Batch's list
                value = obj.value
                out.value = self.copy(value)
                if obj.attrs is value:  # `self.__dict__ = self`: CPython's copy updates
                    return out  # the new __dict__ with the new (still empty) instance
            out.attrs.update({k: self.copy(v) for k, v in obj.attrs.items()})
            return out
        if isinstance(obj, dict):
            out = self.memo[id(obj)] = obj.copy()  # (keeps the type: OrderedDict)
            out.clear()
            for k, v in obj.items():
                out[self.copy(k)] = self.copy(v)
            metadata = getattr(obj, "state_metadata", None)  # a state_dict's `_metadata`
            if metadata is not None:
                out.state_metadata = self.copy(metadata)
            return out
        if isinstance(obj, list):
            out = self.memo[id(obj)] = []
            out.extend(self.copy(v) for v in obj)
            return out
        if isinstance(obj, tuple):
            items = [self.copy(v) for v in obj]
            if type(obj) is tuple:
                return tuple(items)
            return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
        return type(obj)(self.copy(v) for v in obj)  # a set

    def _hooked(self, obj: Instance) -> Any:
        """A script class's own copy protocol: `__deepcopy__(memo)` (deepcopy only), or
        `__getstate__`/`__setstate__` (deepcopy and pickling: copy's _reconstruct), else
        MISSING (the plain copy of its attributes)."""
        cls, interp = obj.cls, obj.cls.interp
        if not self.pickling:
            hook = cls.lookup("__deepcopy__")
            if hook is not MISSING:
                out = interp.call_bound(hook, obj, (self.memo,))
                self.memo[id(obj)] = out
                return out
        getstate, setstate = cls.lookup("__getstate__"), cls.lookup("__setstate__")
        if getstate is MISSING and setstate is MISSING:
            return MISSING
        out = self.memo[id(obj)] = Instance(cls)
        if cls.builtin is not None:
            out.value = self.copy(obj.value)
        state = interp.call_bound(getstate, obj, ()) if getstate is not MISSING \
            else (dict(obj.attrs) or None)
        if state is not None:
            restore(interp, out, self.copy(state), setstate)
        return out

    def _tensor(self, t: Tensor) -> Tensor:
        if t.pyclass is not None:
            from .tensor_subclasses import deep_copy_refused

            deep_copy_refused(t, self.pickling)
        if not self.pickling and t.grad_fn is not None:
            raise ScriptError(NOT_A_LEAF, kind="RuntimeError")
        array = t.array
        if type(array) is MetaArray:  # a meta tensor's copy: its shape, dtype and strides
            out: Tensor = Tensor._wrap(meta_array(array.shape, array.dtype, strides_of(array)))
        else:
            root = memory_owner(array)
            fresh_root = self.storages.get(id(root))
            if fresh_root is None:
                reserve(root.shape, root.itemsize)
                # (np.array, not ascontiguousarray, which makes a 0-dim storage 1-dim)
                fresh_root = self.storages[id(root)] = np.array(root, order="C", copy=True)
                if fresh_root.nbytes:  # (counted while a copy holds it)
                    track(fresh_root, fresh_root.nbytes)
            out = Tensor._wrap(_same_view(array, root, fresh_root))
        if t.is_parameter:
            out = Parameter(out, requires_grad=t.requires_grad)
        elif t.requires_grad:
            out.requires_grad = True
        # torch builds the copy with set_() (version 1), but Parameter.__deepcopy__ clones
        out._version_counter.value = 0 if t.is_parameter and not self.pickling else 1
        if not self.pickling and t.grad is not None:
            out.grad = self.copy(t.grad)
        return out


def _array_copy(value: ndarray) -> ndarray:
    """A numpy array's copy (numpy's own copy and deepcopy of a number array)."""
    reserve(value.a.shape, value.a.itemsize)
    return ndarray(value.a.copy())


def _same_view(array: np.ndarray, root: np.ndarray, fresh_root: np.ndarray) -> np.ndarray:
    """`array`'s window into `root`, over `fresh_root` (a copy of `root`)."""
    if array is root:
        return fresh_root
    if not root.flags.c_contiguous or not array.size:
        return array.copy()
    offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(array.shape, array.dtype, buffer=fresh_root, offset=offset,
                      strides=array.strides)
