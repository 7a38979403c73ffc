"""Frame objects for lib/inspect.gt: `inspect.currentframe()`, a frame's `f_back`,
`f_locals` and `f_code.co_name`, and `inspect.getargvalues(frame)` (Dive into Deep
Learning's `save_hyperparameters` reads its caller's arguments this way).

A frame object is an instance of inspect.gt's `frame` class standing for the interpreter's
Frame of a running (or finished) script function, or the module's; the script never holds
the Frame itself (interp.frame_objects maps the object to it), and one Frame gives one
object, so `currentframe() is currentframe()` as in CPython. Each call sets its frame's
`back` to the frame running when the call started (calls.py), CPython's f_back. Frames of
bundled library code (torch.nn, torch.optim, ...) are torch's own Python frames in
CPython, which gradtrace does not reproduce: currentframe() skips them (inspect's own),
and reaching one through f_back is refused. A class body runs in its own frame, as in
CPython. The f_locals of the module's frame (CPython: the globals dict, with its dunder
entries) and of a class body's (the class namespace) are refused too; a comprehension's
own frame (CPython 3.11 makes one) is not made: currentframe() in it gives the enclosing
one's.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import NotSupportedError
from .frame_locals import refresh
from .library import intrinsic
from .objects import Instance, type_name
from .runtime import ClassFrame, Frame

if TYPE_CHECKING:
    from .core import Interpreter

_FRAME_CLASS = stdlib.LibraryName("inspect", "frame")


def _is_library(frame: Frame) -> bool:
    function = frame.function
    return function is not None and function.library


def _object(interp: Interpreter, frame: Frame) -> Any:
    """The frame object of `frame` (made the first time, and again once the script has let
    go of it): the Frame refers to it weakly, so a frame object the script dropped frees
    its entry in interp.frame_objects, and with it the frame's variables."""
    ref = getattr(frame, "object", None)
    made = ref() if ref is not None else None
    if made is None:
        made = interp.call(interp.library.resolve(_FRAME_CLASS), [], {}, None)
        frame.object = weakref.ref(made)
        interp.frame_objects[made] = frame
    return made


def _frame(interp: Interpreter, obj: Any) -> Frame:
    frame = interp.frame_objects.get(obj) if type(obj) is Instance else None
    if frame is None:
        raise NotSupportedError(f"a frame object was expected, not {type_name(obj)} (only "
                                "inspect.currentframe() and f_back make them)")
    return frame


@intrinsic
def current_frame(interp: Interpreter) -> Any:
    """The frame object of the script code that called inspect.currentframe()."""
    frame = interp.running_frame
    while _is_library(frame):
        frame = frame.back
    return _object(interp, frame)


@intrinsic
def frame_back(interp: Interpreter, obj: Any) -> Any:
    """f_back: the frame object of the frame that called this one (None for the
    module's)."""
    back = getattr(_frame(interp, obj), "back", None)
    if back is None:
        return None
    if _is_library(back):
        raise NotSupportedError("f_back of a function torch's library code called (a frame "
                                "of torch's own Python code) is not supported by gradtrace")
    return _object(interp, back)


@intrinsic
def frame_locals(interp: Interpreter, obj: Any) -> dict[str, Any]:
    """f_locals: the function's locals dict, refreshed from its variables as locals()
    refreshes it (the same dict, CPython's PyFrame_FastToLocalsWithError)."""
    frame = _frame(interp, obj)
    function = frame.function
    if type(frame) is ClassFrame:
        raise NotSupportedError("f_locals of a class body's frame (CPython's class "
                                "namespace) is not supported by gradtrace")
    if function is None or function.layout is None:
        raise NotSupportedError("f_locals of the module's frame (CPython's globals dict) "
                                "is not supported by gradtrace")
    store = getattr(frame, "locals_dict", None)
    if store is None:
        store = frame.locals_dict = {}
    return refresh(store, *function.layout(), frame)


@intrinsic
def frame_arguments(interp: Interpreter, obj: Any) -> tuple[list[str], Any, Any]:
    """What inspect.getargs reads from the frame's code: the names of its positional and
    keyword-only parameters, and those of its *args and **kwargs (None without)."""
    function = _frame(interp, obj).function
    if function is None:
        return [], None, None
    signature = function.signature
    return ([*signature.positional, *signature.kwonly], signature.varargs,
            signature.varkw)


@intrinsic
def frame_name(interp: Interpreter, obj: Any) -> str:
    """f_code.co_name: the function's name (the class's for a class body's frame,
    "<module>" for the module's)."""
    frame = _frame(interp, obj)
    if type(frame) is ClassFrame:
        return frame.vars["__qualname__"].rpartition(".")[2]
    return "<module>" if frame.function is None else frame.function.name
