"""Bundled library modules: `.gt` source shipped in `gradtrace/lib/`, run by the same
interpreter, lazily, in their own global frame (see docs/library.md).

- `torch_namespace.LIBRARY_EXPORTS` says which names each library module puts into which torch
  namespace; the namespaces hold `LibraryName`s until a script first uses one, and the
  module runs then (once per run; its parsed form is cached for the process).
- Library code is compiled with its spans removed: it never sets `current_span` (what
  it records is attributed to the user's calling line), errors raised in it are located
  at the user's call, and the names it binds never reach the tracer.
- Library code may `import _gradtrace` (or `from _gradtrace import ...`): the
  `INTRINSICS` table of Python functions scripts can never call. Register one with
  `@intrinsic`; it receives the interpreter first.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import stdlib, syntax
from ..engine import forward_ad
from ..engine.tensor import RemovableHandle, Tensor
from ..errors import GradtraceError, InternalError, NotSupportedError, ScriptError, stop_iteration
from ..source import Source
from . import autograd_function, copying
from .abc_checks import ABCMETA
from .function_attributes import function_attribute
from .objects import (
    MISSING,
    FunctionWrapper,
    Instance,
    Method,
    OpaqueType,
    ScriptClass,
    ScriptGenerator,
    UserFunction,
    type_name,
)
from .runtime import Frame
from .torch_functions import TorchFunction

if TYPE_CHECKING:
    from .core import Interpreter

LIBRARY_DIRS: list[Path] = [Path(__file__).resolve().parent.parent / "lib"]
"""Where library modules live: `torch.utils.data.dataset` is torch/utils/data/dataset.gt."""

INTRINSICS: dict[str, stdlib.Intrinsic | OpaqueType] = {"ABCMeta": ABCMETA}
"""What `import _gradtrace` gives library code: name -> Intrinsic (and abc's ABCMeta)."""


def intrinsic(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register `fn(interp, *args, **kwargs)` as the intrinsic `_gradtrace.<fn name>`."""
    INTRINSICS[fn.__name__] = stdlib.Intrinsic(fn.__name__, fn)
    return fn


@intrinsic
def warn(interp: Interpreter, message: str, category: str = "UserWarning",
         module: str = "__main__", where: int | None = None) -> None:
    """A Python warning at the user's line, through the script's filters (once per line by
    Python's default filter). A warning Python attributes to torch's own code names its
    module and line there (`where`): filters and the once-per-place registry use them."""
    interp.warn(f"{category}: {message}", module, where)


@intrinsic
def handled_exception(interp: Interpreter) -> Any:
    """The exception the innermost `except` is handling (sys.exc_info()[1]), or None: the
    instance of a script's exception class, else the error itself."""
    if not interp.handling:
        return None
    error = interp.handling[-1]
    return error if error.instance is None else error.instance


@intrinsic
def exception_text(interp: Interpreter, error: Any) -> str:
    """An exception as the last line of its traceback (`ValueError: bad`)."""
    if type(error) is Instance and error.cls.exception_kind is not None:
        from .exception_classes import exception_name

        name, text = exception_name(error.cls), str(error)
    elif isinstance(error, ScriptError):
        name, text = error.kind, error.message
    else:
        return "NoneType: None"
    return f"{name}: {text}" if text else name


@intrinsic
def not_supported(interp: Interpreter, message: str) -> None:
    """Refuse what the library does not emulate, as a NotSupportedError at the user's line."""
    raise NotSupportedError(message)


@intrinsic
def wraps(interp: Interpreter, wrapper: Any, wrapped: Any) -> Any:
    """functools.update_wrapper for script functions: the wrapper takes the wrapped
    function's name, qualified name, docstring, module and annotations (the wrapped one's
    own dict, read when the wrapper's are: function_attributes.py). A function a
    decorator wrapped (`@torch.no_grad()`) carries the names of the one inside it, as
    torch's decorators copy them."""
    if isinstance(wrapped, FunctionWrapper) and isinstance(wrapped.wrapped, UserFunction):
        wrapped = wrapped.wrapped
    if isinstance(wrapper, UserFunction) and isinstance(wrapped, UserFunction):
        wrapper.name, wrapper.qualname = wrapped.name, wrapped.qualname
        wrapper.doc, wrapper.module = wrapped.doc, wrapped.module
        wrapper.annotate = partial(function_attribute, wrapped, "__annotations__")
        wrapper.annotations = None
    elif isinstance(wrapper, UserFunction) and type(wrapped) is TorchFunction:
        # torch's names (its docstring and annotations gradtrace does not hold)
        wrapper.name, wrapper.qualname = wrapped.name, wrapped.qualname
        wrapper.module = wrapped.module
    return wrapper


@intrinsic
def bound_method(interp: Interpreter, fn: Any, obj: Any) -> Method:
    """types.MethodType(fn, obj): what a callable object's `__get__` gives an instance it
    is read through (functools' lru_cache wrapper on a method)."""
    return Method(obj, fn)


@intrinsic
def defines_method(interp: Interpreter, cls: Any, name: str) -> bool:
    """Whether a class has `name` from somewhere other than object (functools'
    `getattr(cls, op, None) is not getattr(object, op, None)`)."""
    return type(cls) is ScriptClass and cls.lookup(name) is not MISSING


@intrinsic
def rename_function(interp: Interpreter, fn: Any, name: str) -> Any:
    """`fn.__name__ = name` for a library function set on a script's class."""
    if isinstance(fn, UserFunction):
        fn.name = fn.qualname = name
    return fn


# torch.autograd.Function's C++ side (autograd_function.py)
intrinsic(autograd_function.apply_function)
intrinsic(autograd_function.bind_forward)
intrinsic(autograd_function.apply_function_below)
intrinsic(autograd_function.delayed_error)


# torch.autograd.forward_ad's C++ side (engine/forward_ad.py)
@intrinsic
def enter_dual_level_c(interp: Interpreter) -> int:
    """torch._C._enter_dual_level."""
    return forward_ad.enter_dual_level()


@intrinsic
def exit_dual_level_c(interp: Interpreter, level: int) -> None:
    """torch._C._exit_dual_level."""
    forward_ad.exit_dual_level(level)


@intrinsic
def make_dual_c(interp: Interpreter, tensor: Tensor, tangent: Tensor, level: int) -> Tensor:
    """torch._make_dual."""
    return forward_ad.make_dual(tensor, tangent, level)


@intrinsic
def unpack_dual_c(interp: Interpreter, tensor: Tensor, level: int) -> tuple:
    """torch._unpack_dual."""
    return forward_ad.unpack_dual(tensor, level)


@intrinsic
def defaultdict_of_dicts(interp: Interpreter) -> defaultdict:
    """`collections.defaultdict(dict)` (an optimizer's `state`; it prints as torch's does)."""
    return defaultdict(dict)


@intrinsic
def instance_dict(interp: Interpreter, obj: Any) -> dict[str, Any]:
    """A copy of an instance's own attributes, in the order they were set (what torch's
    `self.__dict__` gives a scheduler's state_dict)."""
    if type(obj) is not Instance:
        raise NotSupportedError(f"instance_dict of a {type_name(obj)}")
    return dict(obj.attrs)


@intrinsic
def new_instance(interp: Interpreter, cls: Any) -> Instance:
    """`cls.__new__(cls)`: an instance of a script class whose `__init__` does not run (what
    torch.distributions' `expand` makes and then fills in)."""
    if type(cls) is not ScriptClass:
        raise NotSupportedError(f"new_instance of a {type_name(cls)}")
    return Instance(cls)


@intrinsic
def deepcopy(interp: Interpreter, obj: Any) -> Any:
    """copy.deepcopy (what nn.Transformer's _get_clones does to a module): see copying.py."""
    return copying.deep_copy(obj, interp.tick)


@intrinsic
def removable_handle(interp: Interpreter, hooks: list, hook: Any,
                     prepend: bool = False) -> RemovableHandle:
    """Register `hook` in the list `hooks` (first when `prepend`): torch's RemovableHandle."""
    if prepend:
        hooks.insert(0, hook)
    else:
        hooks.append(hook)
    return RemovableHandle(hooks, hook)


@intrinsic
def dynamo_imported(interp: Interpreter) -> None:
    """torch's lazy `import torch._dynamo` ran (see Warnings.dynamo_imported)."""
    interp.warnings.dynamo_imported()


@intrinsic
def step_begin(interp: Interpreter, optimizer: Any) -> None:
    """An optimizer's step() starts (its parameter updates follow): for the views."""
    if interp.tracer is not None:
        interp.tracer.optimizer_step(optimizer, begin=True)


@intrinsic
def step_end(interp: Interpreter, optimizer: Any) -> None:
    """An optimizer's step() ended (normally or by an error): for the views."""
    if interp.tracer is not None:
        interp.tracer.optimizer_step(optimizer, begin=False)


@intrinsic
def update_begin(interp: Interpreter, param: Tensor, grad: Tensor | None, rule: str,
                 numbers: dict[str, Any]) -> None:
    """An optimizer starts changing `param` in place by `rule` (a formula in which `{param}`
    and `{grad}` stand for the tensors) with the hyper-parameters `numbers`: the views
    tell the update as one step, not as the ops that make it."""
    if interp.tracer is not None:
        interp.tracer.update_begin(param, grad, rule, numbers)


@intrinsic
def update_end(interp: Interpreter, param: Tensor) -> None:
    """The update update_begin announced is done."""
    if interp.tracer is not None:
        interp.tracer.update_end(param)


_PARSED: dict[str, syntax.Module] = {}
_LOCK = threading.Lock()


def _strip(node: Any) -> Any:
    """The same AST without positions: library code has no span of its own to report."""
    if isinstance(node, tuple):
        return tuple(_strip(x) for x in node)
    if not isinstance(node, syntax.Node):
        return node
    values = [_strip(getattr(node, f)) for f in node.fields if f != "span"]
    return type(node)(None, *values)


def parsed(module: str) -> syntax.Module:
    """The module's AST, spans removed, parsed once per process."""
    with _LOCK:
        found = _PARSED.get(module)
        if found is not None:
            return found
        from ..parser import parse

        relative = Path(*module.split(".")).with_suffix(".gt")
        path = next((d / relative for d in LIBRARY_DIRS if (d / relative).is_file()), None)
        if path is None:
            raise InternalError(f"library module {module} is missing ({relative})")
        source = Source(str(path), path.read_text(encoding="utf-8"))
        try:
            tree = parse(source)
        except GradtraceError as err:
            raise InternalError(f"library module {module} does not parse: "
                                f"{err.format(source)}") from None
        found = _PARSED[module] = _strip(tree)
        return found


class Library:
    """The library modules one run has loaded (each runs at most once per run)."""

    def __init__(self, interp: Interpreter):
        self.interp = interp
        self.modules: dict[str, Frame] = {}

    def resolve(self, entry: stdlib.LibraryName) -> Any:
        """The value a namespace's LibraryName stands for, loading its module."""
        frame = self.load(entry.module)
        value = frame.vars.get(entry.name, _MISSING)
        if value is _MISSING:
            raise InternalError(f"library module {entry.module} does not define {entry.name}")
        return value

    def load(self, module: str) -> Frame:
        frame = self.modules.get(module)
        if frame is not None:  # loaded, or loading (a circular import sees it part-made)
            return frame
        tree = parsed(module)
        frame = self.modules[module] = Frame({"__name__": module})
        interp = self.interp
        code = interp.compile_module(tree.body, frame, module, library=True)
        outer = interp.in_library
        interp.in_library = True
        interp.depth += 1
        try:
            code(frame)
        finally:
            interp.depth -= 1
            interp.in_library = outer
        return frame

    def namespace(self, name: str) -> stdlib.Namespace | None:
        """What `import name` gives library code: the intrinsics, a library module (its
        globals, loaded now), or None."""
        if name == "_gradtrace":
            return INTRINSICS_NAMESPACE
        relative = Path(*name.split(".")).with_suffix(".gt")
        if any((d / relative).is_file() for d in LIBRARY_DIRS):
            return stdlib.Namespace(name, self.load(name).vars)
        return None


INTRINSICS_NAMESPACE = stdlib.Namespace("_gradtrace", INTRINSICS)
_MISSING: Any = object()

# (importing them registers torch.nn's intrinsics and torch.save/torch.load's)
from . import frame_objects, func_intrinsics, jit_intrinsics, nn_intrinsics, serialization  # noqa: E402,F401,I001
from . import unittest_intrinsics  # noqa: E402,F401,I001


@intrinsic
def warnings_save(interp: Interpreter, simple_filter: Any = None) -> int:
    """catch_warnings.__enter__: keep the filters and where warnings go (a token for
    warnings_restore), then apply its `action=` filter."""
    token = interp.warnings.save()
    if simple_filter is not None:
        interp.call(interp.modules["warnings"].table["simplefilter"], list(simple_filter),
                    {}, None)
    return token


@intrinsic
def warnings_restore(interp: Interpreter, token: int) -> None:
    """catch_warnings.__exit__: the filters and output as they were at the matching save."""
    interp.warnings.restore(token)


@intrinsic
def warnings_record(interp: Interpreter, recorder: Any) -> None:
    """catch_warnings(record=True): warnings shown from now on go to `recorder`."""
    interp.warnings.record(recorder)


@intrinsic
def throw_into(interp: Interpreter, gen: Any, error: Any) -> Any:
    """`gen.throw(error)` for a script generator (contextlib.contextmanager's __exit__):
    the error is raised at the suspended `yield`, and the generator's own try/except and
    finally blocks see it; returns the next value it yields."""
    if type(gen) is not ScriptGenerator or not isinstance(error, ScriptError):
        raise NotSupportedError("throw_into takes a script generator and an exception")
    try:
        return interp.resume(gen, error)
    except StopIteration as stop:  # the generator returned: Python's StopIteration
        raise stop_iteration(stop.value) from None


@intrinsic
def context_enter(interp: Interpreter, manager: Any) -> tuple[Any, int]:
    """Enter any context manager as a `with` statement would (contextlib.ExitStack): what
    `as` would bind, and a token for context_exit."""
    entered, exit_ = interp.enter_context(manager, None)
    interp.context_exits.append(exit_)
    return entered, len(interp.context_exits) - 1


@intrinsic
def context_exit(interp: Interpreter, token: int, error: Any = None) -> bool:
    """Leave the manager context_enter entered, with the error in flight (or None);
    whether the manager suppressed it. Each token exits once."""
    exits = interp.context_exits
    exit_ = exits[token] if isinstance(token, int) and 0 <= token < len(exits) else None
    if exit_ is None:
        raise NotSupportedError("context_exit of a context that is not open")
    exits[token] = None
    return bool(exit_(error if isinstance(error, ScriptError) else None))


@intrinsic
def register_abc(interp: Interpreter, cls: Any, module: str) -> None:
    """Mark a class of collections.abc or numbers as the ABC it ports (abc_checks.py)."""
    if type(cls) is not ScriptClass:
        raise InternalError(f"register_abc of a {type_name(cls)}")
    interp.abc_kinds[cls] = (module, cls.name)


@intrinsic
def abstract_method(interp: Interpreter, fn: Any) -> Any:
    """abc.abstractmethod: mark `fn` (pure_modules.Abstracts)."""
    return interp.abstracts.mark(fn)


@intrinsic
def checkpoint_valid(interp: Interpreter) -> bool:
    """torch.autograd._is_checkpoint_valid() (engine/backward.py)."""
    from ..engine.backward import is_checkpoint_valid

    return is_checkpoint_valid()


@intrinsic
def current_graph_task_id(interp: Interpreter) -> int:
    """torch._C._current_graph_task_id() (engine/backward.py)."""
    from ..engine.backward import current_graph_task_id as task_id

    return task_id()


@intrinsic
def will_engine_execute_node(interp: Interpreter, node: Any) -> bool:
    """torch._C._will_engine_execute_node(node) (engine/backward.py)."""
    from ..engine.backward import will_engine_execute_node as will_execute

    return will_execute(node)


@intrinsic
def grad_fn_or_grad_acc(interp: Interpreter, tensor: Any) -> Any:
    """torch.autograd.graph._get_grad_fn_or_grad_acc: a tensor's grad_fn, or the
    AccumulateGrad node a leaf's gradient goes to."""
    from ..engine.tensor import gradient_edge

    return gradient_edge(tensor)[0]


@intrinsic
def tensor_use_count(interp: Interpreter, tensor: Any) -> int:
    """Tensor._use_count() (engine/swap.py), for torch.utils.swap_tensors' checks."""
    from ..engine.swap import use_count

    return use_count(_tensor_argument(tensor))


@intrinsic
def swap_tensor_impl(interp: Interpreter, t1: Any, t2: Any) -> None:
    """torch._C._swap_tensor_impl, with what the script stored on each object (torch swaps
    their `__dict__`s first)."""
    from ..engine.swap import swap_tensor_impl as swap

    first, second = _tensor_argument(t1), _tensor_argument(t2)
    swap(first, second)
    interp.tensor_dicts.swap(first, second)


def _tensor_argument(value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        raise ScriptError(f"'{type_name(value)}' object has no attribute '_use_count'",
                          kind="AttributeError")
    return value


@intrinsic
def watch_mutations(interp: Interpreter, fn: Any) -> None:
    """Call `fn(tensor, version before)` after every in-place write (engine/saved_hooks.py),
    for torch.autograd.graph's _CloneArgBeforeMutateMode."""
    from ..engine.saved_hooks import MUTATION_WATCHERS

    MUTATION_WATCHERS.append(fn)


@intrinsic
def unwatch_mutations(interp: Interpreter) -> None:
    """Stop the innermost watch_mutations."""
    from ..engine.saved_hooks import MUTATION_WATCHERS

    if MUTATION_WATCHERS:
        MUTATION_WATCHERS.pop()


@intrinsic
def bump_counter(interp: Interpreter, tensor: Any) -> None:
    """torch._C._increment_version of one tensor: its version counter moves, without a
    write (nothing watching writes is told); an inference tensor has none to move."""
    from ..engine.tensor import InferenceVersion

    if not isinstance(tensor, Tensor):
        raise InternalError(f"bump_counter of a {type_name(tensor)}")
    if type(tensor._version_counter) is not InferenceVersion:
        tensor._version_counter.value += 1


@intrinsic
def gradient_edge_type(interp: Interpreter, cls: Any) -> Any:
    """Mark torch.autograd.graph.GradientEdge (a namedtuple class) as the edge type
    backward() and grad() take in place of a tensor."""
    from ..engine.backward import GRADIENT_EDGE_TYPES

    GRADIENT_EDGE_TYPES.add(getattr(cls, "type", cls))
    return cls


@intrinsic
def enum_root(interp: Interpreter, cls: Any, auto: Any, flag: Any = None) -> None:
    """Make the library's `enum.Enum` the base of enumerations, `auto` its auto();
    `enum.Flag`/`IntFlag` with their boundary ("strict", "keep")."""
    from .enums import mark_root

    if type(cls) is not ScriptClass or flag not in (None, "strict", "keep"):
        raise NotSupportedError("enum_root() takes a class and a flag boundary")
    mark_root(cls, auto, flag)


@intrinsic
def enum_flag_members(interp: Interpreter, member: Any) -> list:
    """Flag.__iter__: the members whose bits a flag value holds, lowest first (None for
    a bit only a multi-bit alias has, as Python yields)."""
    from .enums import flag_members

    cls = getattr(member, "cls", None)
    if type(member) is not Instance or cls is None or cls.enum is None or \
            cls.enum.flag is None:
        raise NotSupportedError("enum_flag_members() takes a flag member")
    return flag_members(cls, member.attrs["_value_"])


@intrinsic
def enum_flag_masks(interp: Interpreter, cls: Any) -> tuple:
    """A flag class's (_flag_mask_, _singles_mask_, _all_bits_, boundary)."""
    info = getattr(cls, "enum", None) if type(cls) is ScriptClass else None
    if info is None or info.flag is None:
        raise NotSupportedError("enum_flag_masks() takes a flag class")
    return info.flag_mask, info.singles_mask, info.all_bits, info.flag


@intrinsic
def enum_aliases(interp: Interpreter, cls: Any) -> list:
    """(alias, member name) for each name of an enumeration that repeats a value."""
    info = getattr(cls, "enum", None) if type(cls) is ScriptClass else None
    if info is None:
        return []
    return [(name, member.attrs["_name_"]) for name, member in info.by_name.items()
            if member.attrs["_name_"] != name]


@intrinsic
def function_source(interp: Interpreter, obj: Any) -> str:
    """inspect.getsource's text for a script `def` (a bound method's function, what a
    decorator's wrapper wraps, as inspect.unwrap follows `__wrapped__`): its lines as the
    script has them, from its first decorator to its last statement. A lambda, a class and
    anything not the script's own are refused: their source is not the script's text."""
    while True:
        if type(obj) is Method:
            obj = obj.function
        elif isinstance(obj, FunctionWrapper):
            obj = obj.wrapped
        else:
            break
    if type(obj) is not UserFunction or obj.lines is None or obj.library:
        raise NotSupportedError(f"inspect.getsource of a {type_name(obj)} (only of the "
                                "script's own def functions and methods)")
    first, last, body_column = obj.lines
    lines = interp.source.lines
    if body_column is not None:  # inspect's BlockFinder: comments after the last statement
        for number in range(last + 1, len(lines) + 1):  # indented as the body are its own
            text = lines[number - 1]
            code = text.lstrip()
            if code.startswith("#"):
                if len(text) - len(code) >= body_column - 1:
                    last = number
            elif code:
                break
    return "".join(line + "\n" for line in lines[first - 1:last])


@intrinsic
def function_parameters(interp: Interpreter, obj: Any) -> tuple[list[tuple], tuple]:
    """inspect.signature's material: the parameters of a script function, a bound method
    (without its first), a wrapped function (what it wraps) or a class (its `__init__`'s,
    without self; none for object's), each (name, kind, defaults, annotations) with the
    kind as inspect numbers it and the default and annotation as one-tuples (empty for
    none); and the return annotation as such a tuple."""
    drop = 0
    while True:
        if type(obj) is ScriptClass:
            obj, drop = obj.lookup("__init__"), 1
            if type(obj) is not UserFunction:  # object's
                return [], ()
        elif type(obj) is Method:
            obj, drop = obj.function, 1
        elif isinstance(obj, FunctionWrapper):
            obj = obj.wrapped
        else:
            break
    if type(obj) is not UserFunction:
        raise NotSupportedError(f"inspect.signature of a {type_name(obj)} (only of script "
                                "functions, methods and classes)")
    sig, annotations = obj.signature, function_attribute(obj, "__annotations__")
    kinds = ([(name, 0) for name in sig.positional[:sig.posonly]]
             + [(name, 1) for name in sig.positional[sig.posonly:]]
             + ([(sig.varargs, 2)] if sig.varargs else [])
             + [(name, 3) for name in sig.kwonly]
             + ([(sig.varkw, 4)] if sig.varkw else []))
    def given(table: dict[str, Any], name: str) -> tuple:
        return (table[name],) if name in table else ()

    params = [(name, kind, given(obj.defaults, name), given(annotations, name))
              for name, kind in kinds[drop:]]
    return params, given(annotations, "return")
