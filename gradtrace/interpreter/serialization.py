"""torch.save and torch.load over files that live in the run's memory (never the disk).

A script that saves a model's state_dict (or a checkpoint dict) and loads it back runs as
under torch: `torch.save(obj, name)` keeps a copy of `obj` as pickling would leave it, and
each `torch.load(name)` returns a new copy of that (copying.py: containers, instances,
tensors as new leaves with their storage sharing, functions and classes by reference).

torch.load's default `weights_only=True` refuses what torch's weights-only unpickler
refuses (instances of classes, functions, numpy scalars and arrays, frozensets, ranges,
deques, ...), with its message naming the first global the pickle would hold. Saved copies
count toward --max-memory while their file name (or io.BytesIO, memory_io.py) holds them;
the file names a run may write are capped.
The library module torch/serialization.gt gives torch's signatures.
"""
from __future__ import annotations

import collections
import datetime
from typing import TYPE_CHECKING, Any

from ..engine.ndarray import ndarray
from ..errors import LimitExceeded, NotSupportedError, ScriptError, TorchRuntimeError, os_error
from .collection_types import defaultdict, deque, partial
from .copying import pickled_copy
from .library import intrinsic
from .memory_io import BytesIO
from .objects import Instance, ScriptClass, UserFunction, type_name
from .os_module import file_key, missing_parent
from .path_module import path_text

if TYPE_CHECKING:
    from .core import Interpreter

MAX_FILES = 10_000  # file names one run may save to


class _Saved:
    """What a file holds: the copy torch.save made (kept under its `file_key`)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj


@intrinsic
def save_to_memory(interp: Interpreter, obj: Any, f: Any) -> None:
    """torch.save(obj, f) for a file name `f` or an io.BytesIO."""
    if type(f) is BytesIO:
        f.write_archive(_Saved(pickled_copy(obj, interp.tick)))
        return
    f = path_text(f) or f  # a pathlib.Path names the file too
    if not isinstance(f, str):
        raise NotSupportedError(f"torch.save to a {type_name(f)}: gradtrace keeps saved files "
                                "in memory, by file name (a str)")
    parent = missing_parent(interp, f)
    if parent is not None:
        raise TorchRuntimeError(f"Parent directory {parent} does not exist.")
    files = interp.saved_files
    key = file_key(f)
    if key not in files and len(files) >= MAX_FILES:
        raise LimitExceeded(f"the script saved to more than {MAX_FILES:,} files")
    files[key] = _Saved(pickled_copy(obj, interp.tick))


@intrinsic
def load_from_memory(interp: Interpreter, f: Any, weights_only: bool,
                     allowed: Any = frozenset()) -> Any:
    """torch.load(f, weights_only=...) of a file (or io.BytesIO) torch.save wrote in this
    run; `allowed` names the globals the script allowed (add_safe_globals)."""
    f = path_text(f) or f
    if type(f) is BytesIO:
        saved = f.read_archive()
    else:
        saved = interp.saved_files.get(file_key(f)) if isinstance(f, str) else None
    if saved is None:
        if not isinstance(f, str):
            raise NotSupportedError(f"torch.load from a {type_name(f)}: gradtrace keeps saved "
                                    "files in memory, by file name (a str)")
        raise os_error(2, f, "FileNotFoundError")
    if weights_only:
        refused = _first_global(saved.obj, set(), interp.namedtuple_classes,
                                frozenset(allowed))
        if refused is not None:
            raise ScriptError(_weights_only_message(refused), kind="UnpicklingError")
    return pickled_copy(saved.obj, interp.tick)


# Python values pickle writes without a GLOBAL, or with one torch's weights-only unpickler
# allows (collections.OrderedDict and Counter, torch's own types are not Python values here).
_PLAIN = (type(None), bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set,
          collections.OrderedDict, collections.Counter)
# gradtrace's stand-ins for Python's classes, by the global pickle names for the real one.
_STAND_INS = {defaultdict: "collections.defaultdict", deque: "collections.deque",
              partial: "functools.partial"}
_BUILTINS = (frozenset, range, slice)  # pickled by reduce: torch names them without `builtins.`


def _first_global(obj: Any, seen: set[int], namedtuples: set[type],
                  allowed: frozenset[str] = frozenset()) -> str | None:
    """The first global (class or function) the weights-only unpickler would refuse, by the
    name torch's message gives it (`__main__.Net`, `numpy._core.multiarray.scalar`, `range`),
    in the order pickle writes them (a dict's items key, value, key, value; an instance's
    attributes after its class). Globals named in `allowed` load."""
    if id(obj) in seen:
        return None
    seen.add(id(obj))
    if type(obj) is Instance:
        name = f"{obj.cls.module}.{obj.cls.qualname}"
        if name not in allowed:
            return name
        return _first_global(obj.attrs, seen, namedtuples, allowed)
    if type(obj) in (ScriptClass, UserFunction):
        name = f"{obj.module}.{obj.qualname}"
        return None if name in allowed else name
    refused = _host_global(obj, namedtuples)
    if refused is not None and refused not in allowed:
        return refused
    if isinstance(obj, dict):
        items = [part for pair in obj.items() for part in pair]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = list(obj)
    else:
        return None
    for item in items:
        found = _first_global(item, seen, namedtuples, allowed)
        if found is not None:
            return found
    return None


def _host_global(obj: Any, namedtuples: set[type]) -> str | None:
    """The global a Python or numpy value pickles through, if torch refuses it: numpy's
    scalars, arrays and dtypes by the reconstructor numpy's own __reduce__ names."""
    if type(obj) is ndarray:  # the script's array is numpy's inside a wrapper
        obj = obj.a
    kind = type(obj)
    if kind in _PLAIN:
        return None
    if kind in _STAND_INS:
        return _STAND_INS[kind]
    if kind in _BUILTINS:
        return kind.__name__
    if kind in namedtuples or kind.__module__ == datetime.__name__:
        return f"{kind.__module__}.{kind.__qualname__}"
    if kind.__module__.partition(".")[0] == "numpy":
        rebuild = obj.__reduce__()[0]
        return f"{rebuild.__module__}.{rebuild.__qualname__}"
    return None


def _weights_only_message(name: str) -> str:
    """torch 2.13's UnpicklingError for a global weights_only=True does not allow."""
    return (
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, \x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. "
        "\n\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument "
        "in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` "
        "set to `False` will likely succeed, but it can result in arbitrary code execution. "
        "Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load "
        "with `weights_only=True` please check the recommended steps in the following error "
        f"message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {name} was not an "
        "allowed global by default. Please use `torch.serialization.add_safe_globals("
        f"[{name}])` or the `torch.serialization.safe_globals([{name}])` context manager to "
        "allowlist this global if you trust this class/function.\n\nCheck the documentation "
        "of torch.load to learn more about types accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html.")
