"""Calling things: script functions (binding arguments, counting depth), methods, classes,
callable instances, grad-mode decorators, builtins and engine functions."""
from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from .. import stdlib
from ..engine import bfloat16, dtypes, sparse, sparse_sum, unsigned
from ..engine import complex as complex_dtypes
from ..engine.batching import TRANSFORMS, batched_call, has_batched
from ..engine.batching.dispatch import random_factory
from ..engine.dtypes import DType
from ..engine.ndarray import NUMPY_TYPES
from ..engine.ops import creation, tensor_info
from ..engine.sparse import SparseTensor
from ..engine.tensor import Tensor
from ..errors import GradtraceError, NotSupportedError, ScriptError
from ..source import Span
from . import linalg_keywords, opaque_calls, torch_function_protocol
from .builtin_classes import as_builtin_values, builtin_instances_in
from .objects import (
    MISSING,
    BuiltinFunction,
    BuiltinType,
    ClassMethod,
    FunctionWrapper,
    GradModeFunction,
    Instance,
    Method,
    NativeFunction,
    OpaqueType,
    Property,
    ScriptClass,
    ScriptGenerator,
    ScriptIterator,
    StaticMethod,
    Super,
    UserFunction,
    script_message,
    type_name,
)
from .runtime import PYTHON_ERRORS, BreakSignal, ContinueSignal, Frame, ReturnSignal
from .tensor_subclasses import UNHOOKED_METHODS, ScriptTensor, backward_keywords
from .torch_arguments import check_arguments, python_call_message
from .torch_functions import TorchFunction
from .traceback_module import record_frame
from .typed_classes import NamedTupleNew

# torch's parser reads a numpy scalar as the Python number it holds (`torch.zeros(n)` for an
# np.int64, `t.pow(np.float64(2))`); torch.tensor / as_tensor keep its dtype (np.float64
# makes a float64 tensor), and so does torch.asarray, so they get it as it is
KEEPS_NUMPY_SCALARS = frozenset({creation.tensor, creation.as_tensor, tensor_info.asarray})
_SCALAR_TYPES = frozenset(t for t in NUMPY_TYPES if issubclass(t, np.generic))


def numpy_scalars_in(args: Any, kwargs: dict[str, Any]) -> bool:
    """Whether a call's arguments hold a numpy scalar (at the top or in a size tuple)."""
    for value in args:
        kind = type(value)
        if kind in _SCALAR_TYPES or (kind is tuple or kind is list) and _holds(value):
            return True
    return bool(kwargs) and numpy_scalars_in(tuple(kwargs.values()), {})


def _holds(values: Any) -> bool:
    return len(values) < 64 and any(type(v) in _SCALAR_TYPES for v in values)


def _number(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALAR_TYPES:
        return value.item()
    if kind is tuple or kind is list:
        return kind(v.item() if type(v) in _SCALAR_TYPES else v for v in value)
    return value


def as_python_numbers(args: Any, kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    return [_number(a) for a in args], {k: _number(v) for k, v in kwargs.items()}

_ALWAYS_CALLABLE = frozenset((UserFunction, Method, ScriptClass, NativeFunction,
                              GradModeFunction, StaticMethod, BuiltinType, BuiltinFunction))
_NEVER_CALLABLE = frozenset((OpaqueType, Super, Property, ClassMethod, ScriptGenerator,
                             ScriptIterator, Tensor, DType))
_FUNCTION_LIKE = (UserFunction, Method, FunctionWrapper, NativeFunction, ScriptClass,
                  StaticMethod)


# the Python types torch's argument parser takes for a dtype
_PYTHON_DTYPES = {float: dtypes.float64, int: dtypes.int64, bool: dtypes.bool_}


def _dtype_argument(fn: Any, value: Any, span: Span | None) -> DType:
    """An engine function's `dtype=`: a torch.dtype, or `float`/`int`/`bool` as torch reads
    them; anything else is torch's TypeError (never an engine attribute error)."""
    if type(value) is BuiltinType and value.type in _PYTHON_DTYPES:
        return _PYTHON_DTYPES[value.type]
    name = getattr(fn, "__name__", "function")
    raise ScriptError(f"{name}(): argument 'dtype' must be torch.dtype, not {type_name(value)}",
                      span, kind="TypeError")


# torch's argument parser also takes numpy's names for these (python_arg_parser.cpp's
# numpy_compatibility_arg_names): `x.sum(axis=1, keepdims=True)`, `torch.add(x1=a, x2=b)`
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input",
                "x1": "input", "x2": "other"}
_TORCH_NAMES = frozenset(("input", "other", *_NUMPY_NAMES))


def _check_restricted(fn: Any, args: Any, kwargs: dict[str, Any]) -> tuple[Any] | None:
    """A torch op or Tensor method given a tensor or dtype only some of whose ops run: the
    barebones unsigned ones (uint16, uint32, uint64: torch's error where it has no kernel,
    engine/unsigned.py), bfloat16 and complex (engine/bfloat16.py, engine/complex.py: what
    gradtrace makes exact); or given a sparse tensor, which runs the op's sparse kernel
    (engine/sparse.py): its result, in a 1-tuple."""
    method = type(fn) is stdlib.BoundMethod
    if method and not isinstance(fn.obj, Tensor):
        return None
    if method and type(fn.obj) is SparseTensor:
        dtype = SPARSE
    else:
        dtype = fn.obj.dtype if method and fn.obj.dtype.restricted else None
    if dtype is None:
        dtype = (_restricted_dtype(args) if args else None) or (
            _restricted_dtype(kwargs.values()) if kwargs else None)
        if dtype is None:
            return None
    name = fn.name if method else _torch_name(fn)
    if name is None:
        return None
    operands = (fn.obj, *args) if method else args
    if dtype is SPARSE:
        if method and name in sparse.METADATA or getattr(
                fn, "__module__", None) in _SPARSE_AWARE:
            return None  # (sparse-aware already)
        return (sparse.call(name, operands, kwargs),)
    if dtype is dtypes.bfloat16:
        bfloat16.check_op(name, operands, kwargs)
    elif dtype.is_complex:
        complex_dtypes.check_op(name, operands, kwargs, dtype)
    else:
        unsigned.check_op(name, operands, kwargs, dtype)
    return None


SPARSE = object()
"""What `_restricted_dtype` answers for a sparse operand: the op runs sparse.call."""
_SPARSE_AWARE = frozenset({sparse.__name__, sparse_sum.__name__})
"""The engine modules whose functions take sparse tensors themselves (torch.sparse.*)."""


def _restricted_dtype(values: Any) -> Any:
    """The first restricted dtype among call arguments (tensors, dtypes, and those in a list
    or tuple of up to `_OPERAND_LIST` items), SPARSE for a sparse tensor, or None."""
    for v in values:
        kind = type(v)
        if kind is DType:
            if v.restricted:
                return v
        elif kind is list or kind is tuple:
            for item in v[:_OPERAND_LIST]:
                if type(item) is SparseTensor:
                    return SPARSE
                if type(item) is DType or isinstance(item, Tensor):
                    dtype = item if type(item) is DType else item.dtype
                    if dtype.restricted:
                        return dtype
        elif isinstance(v, Tensor):
            if kind is SparseTensor:
                return SPARSE
            if v.dtype.restricted:
                return v.dtype
    return None


# the items of a list argument looked at: tensors for cat/stack & co (a longer list is data,
# torch.tensor's, whose numbers need no look)
_OPERAND_LIST = 64


_TORCH_NAMES_BY_ID: dict[int, str] = {}


def _torch_name(fn: Any) -> str | None:
    """The name a torch namespace (torch, torch.nn.functional, torch.linalg, ...) gives
    engine function `fn`; None for anything else (a builtin, a script's function)."""
    if not _TORCH_NAMES_BY_ID:
        from ..torch_namespace import MODULES

        for namespace in MODULES.values():
            for name, value in namespace.table.items():
                if callable(value):
                    _TORCH_NAMES_BY_ID.setdefault(id(value), name)
    return _TORCH_NAMES_BY_ID.get(id(fn))


@functools.cache
def _parameter_names(fn: Any) -> tuple[str, ...]:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in parameters
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))


def _torch_keywords(fn: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """An engine function's keywords under torch's names: numpy's `axis`/`keepdims`/`x2`
    are torch's `dim`/`keepdim`/`other`, a function's `input` (or numpy's `x`, `a`, `x1`)
    is the engine's first parameter (a tensor method has no `input`), `other` its `b`. A name given
    twice stays as written, so Python reports it as torch does: "unexpected keyword
    argument 'axis'"."""
    method = type(fn) is stdlib.BoundMethod
    target_fn = fn.fn if method else fn
    if not getattr(target_fn, "__module__", "").startswith("gradtrace.engine"):
        return kwargs
    names = _parameter_names(target_fn)
    if not names:
        return kwargs
    renamed: dict[str, Any] = {}
    for key, value in kwargs.items():
        target = key
        if key not in names:
            target = _NUMPY_NAMES.get(key, key)
            if target == "input" and "input" not in names:
                target = key if method else names[0]
            elif target == "other" and "other" not in names and "b" in names:
                target = "b"  # the engine's name of a binary op's second operand
        renamed[key if target in renamed or target != key and target in kwargs
                else target] = value
    return renamed

# the builtin objects whose own methods take no torch argument handling
_PLAIN_OBJECTS = frozenset((list, dict, str, set, tuple))
# where torch's callables live (their arguments read as torch's parser reads them)
_TORCH_MODULES = ("gradtrace.engine", "gradtrace.tensor_types")


class Calls:
    """Calls of script functions, builtins and engine functions."""

    def call(self, fn: Any, args: list[Any] | tuple, kwargs: dict[str, Any],
             span: Span | None) -> Any:
        kind = type(fn)
        if kind is UserFunction:
            return self.call_function(fn, args, kwargs)
        if kind is TorchFunction:  # (the engine's function: parsers and tracer key on it)
            found = torch_function_protocol.overloaded(args, kwargs)
            if found:  # a script class's __torch_function__ takes the call
                return torch_function_protocol.dispatch(self, fn, found, args, kwargs, span)
            if kwargs and fn.module == linalg_keywords.MODULE:  # (torch.linalg's own names)
                kwargs = linalg_keywords.torch_keywords(fn.name, fn.fn, args, kwargs)
            fn = fn.fn
            kind = type(fn)
        if kind is Method:
            function = fn.function
            if type(function) is UserFunction:
                return self.call_function(function, (fn.obj, *args), kwargs)
            return self.call(function, [fn.obj, *args], kwargs, span)
        if kind is ScriptClass:
            return self.instantiate(fn, list(args), kwargs)
        if kind is Instance:
            hook = fn.cls.lookup("__call__")
            if hook is MISSING:
                raise ScriptError(f"'{type_name(fn)}' object is not callable", span,
                                  kind="TypeError")
            return self.call_bound(hook, fn, args, kwargs)
        if kind is GradModeFunction:
            manager = fn.factory()
            manager.__enter__()
            try:
                return self.call(fn.wrapped, args, kwargs, span)
            finally:
                manager.__exit__(None, None, None)
        if kind is StaticMethod:
            return self.call(fn.function, args, kwargs, span)
        if kind is NamedTupleNew:  # `P.__new__(P, 1, 2)`: P(1, 2)
            if not args or args[0] is not fn.cls:
                raise NotSupportedError(f"{fn.cls.name}.__new__ is called with its own class "
                                        "first only", span)
            return self.call(fn.cls, list(args[1:]), kwargs, span)
        if kind is type and fn in stdlib.GRAD_MODE_CLASSES or \
                isinstance(fn, stdlib.DECORATING_CONTEXTS):
            decorated = self._grad_mode_decorator(fn, args, kwargs)
            if decorated is not None:
                return decorated
        elif not self.is_callable(fn):
            if kind is stdlib.Intrinsic:
                raise NotSupportedError(f"'{fn.name}' is internal to gradtrace's library", span)
            if kind is OpaqueType and fn.module != "builtins":  # abc.ABCMeta, FunctionMeta
                raise NotSupportedError(f"calling {fn!r} is not supported", span)
            if kind is OpaqueType:  # `type(a_module)(...)`: CPython's argument errors
                message = opaque_calls.call_error(fn.name, tuple(args), kwargs)
                if message is None:
                    raise NotSupportedError(f"making a {fn.name} object by calling {fn!r} "
                                            "is not supported", span)
                if message:
                    raise ScriptError(message, span, kind="TypeError")
            raise ScriptError(f"'{type_name(fn)}' object is not callable", span,
                              kind="TypeError")
        if kind is stdlib.BoundMethod and isinstance(fn.obj, Tensor) and \
                (args or type(fn.obj) is ScriptTensor) and fn.name not in UNHOOKED_METHODS:
            found = torch_function_protocol.overloaded((fn.obj, *args), kwargs)
            method = self.tensor_method_descriptor(fn.name) if found else None
            if type(method) is NativeFunction or method is not None and \
                    type(fn.obj) is ScriptTensor:  # `t.add(s)`: the hook gets
                # torch.Tensor.add and (t, s); a method torch writes in Python (backward)
                # checks self only
                if fn.name == "backward":  # (Tensor.backward passes its keywords, all)
                    kwargs = backward_keywords(args, kwargs)
                    args = ()
                return torch_function_protocol.dispatch(self, method, found, (fn.obj, *args),
                                                        kwargs, span)
        elif kind is NativeFunction and fn.owner == "torch._C.TensorBase" and args and \
                isinstance(args[0], Tensor) and fn.name not in UNHOOKED_METHODS and \
                not fn.name.startswith("__"):  # torch.Tensor.add(t, 1), super().add(1)
            # (a protocol, `super().__add__(o)`, takes the hook in tensor_subclasses)
            found = torch_function_protocol.overloaded(args, kwargs)
            if found:
                return torch_function_protocol.dispatch(self, fn, found, args, kwargs, span)
        if self.tracer is not None:
            return self.tracer.call(self._invoke, fn, args, kwargs, span)
        return self._invoke(fn, args, kwargs, span)

    def call_intrinsic_or(self, fn: Any, args: list[Any] | tuple, kwargs: dict[str, Any],
                          span: Span | None) -> Any:
        """A call in library code: an intrinsic gets the interpreter first; anything else is
        an ordinary call."""
        if type(fn) is stdlib.Intrinsic:
            return self._invoke(fn.fn, [self, *args], kwargs, span)
        return self.call(fn, args, kwargs, span)

    def _invoke(self, fn: Any, args: list[Any] | tuple, kwargs: dict[str, Any],
                span: Span | None) -> Any:
        """Call an engine or builtin function; its errors become the script's, at `span`."""
        if type(fn) is stdlib.BoundMethod and not kwargs and type(fn.obj) in _PLAIN_OBJECTS:
            # a list's, dict's, str's, set's or tuple's own method (`xs.append(x)`,
            # `d.get(k, 0)`): none of torch's argument handling below applies to it
            return self._run_call(fn, args, span)
        if numpy_scalars_in(args, kwargs) and (
                isinstance(fn.obj, Tensor) if type(fn) is stdlib.BoundMethod else
                fn not in KEEPS_NUMPY_SCALARS and
                getattr(fn, "__module__", "").startswith("gradtrace.engine")):
            args, kwargs = as_python_numbers(args, kwargs)
        if (type(fn) is stdlib.BoundMethod and isinstance(fn.obj, Tensor) or
                (getattr(fn, "__module__", None) or "").startswith(_TORCH_MODULES)) and \
                builtin_instances_in(args, kwargs):  # (the walk of nested lists last: it
            # would make `len(a)` or `heappush(heap, x)` cost as much as the list is long)
            args, kwargs = as_builtin_values(args, kwargs)  # torch.tensor(Batch([1, 2]))
        if not self.in_library:  # (bundled library code passes the engine its own way)
            args, kwargs, deprecation = check_arguments(fn, args, kwargs, span)
            if deprecation is not None:  # (TORCH_WARN_ONCE: one place, whatever the op)
                self.warn_once(deprecation, "python_arg_parser.cpp:1841", per_place=True)
        if kwargs and kwargs.get("dtype") is not None and type(kwargs["dtype"]) is not DType \
                and getattr(fn, "__module__", "").startswith("gradtrace.engine"):
            kwargs = {**kwargs, "dtype": _dtype_argument(fn, kwargs["dtype"], span)}
        if kwargs and not _TORCH_NAMES.isdisjoint(kwargs):
            kwargs = _torch_keywords(fn, kwargs)
        return self._run_call(fn, args, span, kwargs, torch_aware=True)

    def _run_call(self, fn: Any, args: list[Any] | tuple, span: Span | None,
                  kwargs: dict[str, Any] | None = None, torch_aware: bool = False) -> Any:
        """The call itself, with its errors as the script's; `torch_aware`: a restricted
        dtype's or a sparse tensor's kernel, and vmap's batching, first."""
        kwargs = kwargs or {}
        try:
            sparse_result = _check_restricted(fn, args, kwargs) if torch_aware else None
            if sparse_result is not None:
                if creation.WARNINGS:
                    self._flush_engine_warnings()
                return sparse_result[0]
            if torch_aware and TRANSFORMS.vmaps:
                target, operands = (fn.fn, [fn.obj, *args]) if type(fn) is stdlib.BoundMethod \
                    else (fn, list(args))
                if has_batched(operands, kwargs) and getattr(
                        target, "__module__", "").startswith("gradtrace.engine"):
                    return batched_call(target, operands, kwargs)
                drawn = random_factory(target, operands, kwargs)
                if drawn is not None:
                    return drawn
            result = fn(*args, **kwargs)
            if creation.WARNINGS:  # at this call's line, as Python's warning names it
                self._flush_engine_warnings()
            return result
        except GradtraceError as err:
            if self.in_library and err.kind in ("TypeError", "AttributeError"):
                # bundled library code skips torch's argument parser; when its call fails on
                # an argument's type, the parser words it as torch does (nn.Linear's
                # `torch.empty((out_features, in_features))` of a float size: "empty():
                # argument 'size' (position 1) must be tuple of ints, ...")
                check_arguments(fn, args, kwargs, span)
            err.at(span)
            if creation.WARNINGS:  # an op that warned, then raised: torch showed the
                self._flush_engine_warnings()  # warning at this line, before its error
            raise
        except (ReturnSignal, BreakSignal, ContinueSignal):
            raise
        except RecursionError:
            raise
        except PYTHON_ERRORS as err:
            if self.in_library and type(err) in (TypeError, AttributeError):
                # (an engine function reading a list or None as a tensor: the parser torch
                # runs first refuses it, as nn.Linear's F.linear of a list: "linear():
                # argument 'input' (position 1) must be Tensor, not list")
                check_arguments(fn, args, kwargs, span)
            message = script_message(str(err), args)
            if type(err) is TypeError:
                message = python_call_message(fn, message)
            raise ScriptError(message, span, kind=type(err).__name__) from None

    def call_function(self, fn: UserFunction, args: Any, kwargs: dict[str, Any]) -> Any:
        frame = Frame(fn.signature.bind(fn.qualname, fn.defaults, args, kwargs), fn.closure, fn)
        if fn.is_generator:
            return ScriptGenerator(fn.qualname, fn.body(frame), self, fn.library, frame)
        outer = self.in_library
        self.in_library = fn.library
        self.call_stack.append((fn.name, self.current_span, fn.library))
        self.depth += 1
        frame.back = self.running_frame
        self.running_frame = frame
        try:
            if self.depth > self.limits.max_call_depth:
                raise ScriptError("maximum recursion depth exceeded", kind="RecursionError")
            result = fn.body(frame)  # a body ending in `return value` gives it back
        except ReturnSignal as ret:
            result = ret.value
        except GradtraceError as err:  # the frame, for traceback.print_exc()
            record_frame(err, self.call_stack)
            raise
        finally:
            self.depth -= 1
            self.in_library = outer
            self.running_frame = frame.back
            # back at the call site: what the caller does next (the engine call a script
            # function was passed to, library code) is labelled with the caller's line
            self.current_span = self.call_stack.pop()[1]
        if fn.library and not outer and self.tracer is not None:
            self.tracer.surfaced(result)  # library code's value, back in the script's hands
        return result

    def call_bound(self, fn: Any, obj: Any, args: Any,
                   kwargs: dict[str, Any] | None = None) -> Any:
        """Call a class attribute as a method of `obj` (what `obj.name(*args)` does)."""
        kind = type(fn)
        if kind is UserFunction:
            return self.call_function(fn, (obj, *args), kwargs or {})
        if kind is NativeFunction:
            return self._invoke(fn.fn, (obj, *args), kwargs or {}, None)
        return self.call(self.bind(fn, obj), list(args), kwargs or {}, None)

    def resume(self, gen: ScriptGenerator, throw: Any = None, send: Any = None) -> Any:
        """next() of a script generator: runs its body to the next `yield`, one call deeper
        (with `throw`, that error is raised at the suspended `yield` first; `send` is the
        value the suspended `yield` evaluates to)."""
        outer = self.in_library
        self.in_library = gen.library
        self.call_stack.append((gen.qualname.rpartition(".")[2], self.current_span,
                                gen.library))
        self.depth += 1
        caller, frame = self.running_frame, gen.frame
        if frame is not None:  # a generator function's frame runs until it yields
            frame.back = caller
            self.running_frame = frame
        try:
            if self.depth > self.limits.max_call_depth:
                raise ScriptError("maximum recursion depth exceeded", kind="RecursionError")
            if throw is not None:
                return gen.gen.throw(throw)
            return next(gen.gen) if send is None else gen.gen.send(send)
        except ValueError as err:  # "generator already executing"
            raise ScriptError(str(err), kind="ValueError") from None
        except TypeError as err:  # "can't send non-None value to a just-started generator"
            raise ScriptError(str(err), kind="TypeError") from None
        finally:
            self.depth -= 1
            self.in_library = outer
            self.running_frame = caller
            self.current_span = self.call_stack.pop()[1]

    def is_callable(self, value: Any) -> bool:
        """`callable(value)`: only what the language hands out as callable."""
        kind = type(value)
        if kind in _ALWAYS_CALLABLE:
            return True
        if kind is Instance:
            return value.cls.lookup("__call__") is not MISSING
        if kind in _NEVER_CALLABLE or isinstance(value, Tensor):
            return False
        if kind is stdlib.Intrinsic or kind is stdlib.Namespace:
            return False
        return callable(value)

    def _grad_mode_decorator(self, fn: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        """`@torch.no_grad()`, `@torch.no_grad`, `@torch.enable_grad()`,
        `@torch.inference_mode()`, `@torch.set_grad_enabled(False)`,
        `@torch.autograd.graph.disable_saved_tensors_hooks(msg)`: a function that runs
        the decorated one in a fresh copy of the manager. None if `fn(*args)` is an
        ordinary construction (`torch.no_grad()`, `torch.inference_mode(False)`)."""
        if kwargs or len(args) != 1 or not isinstance(args[0], _FUNCTION_LIKE) and not (
                type(args[0]) is Instance and self.is_callable(args[0])):
            return None
        target = args[0]
        if isinstance(fn, type):  # the class itself as the decorator
            return GradModeFunction(target, fn)
        fn.release()  # set_grad_enabled(False) switched the mode when it was made
        return GradModeFunction(target, fn.clone)
