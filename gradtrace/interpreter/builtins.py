"""The builtins a script can call: Python's own where safe, the interpreter's where they
must see script objects (`isinstance`, `type`, `iter`, `next`, `getattr`, ...), and
size-checked where they walk an argument in C (a lazy iterable is built first, counted
against --max-sequence)."""
from __future__ import annotations

import _string
import builtins as py
import string
from collections.abc import Callable, Iterator
from types import FunctionType, MethodType
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..engine.jit import JIT
from ..engine.node import Node
from ..engine.tensor import Tensor
from ..errors import LimitExceeded, NotSupportedError, ScriptError, TorchTypeError, stop_iteration
from .bytes_values import make_bytes
from .dunders import OBJECT
from .frame_locals import LOCALS
from .identities import Identities
from .nesting import check_all_hashable, check_hashable, unnest
from .numpy_module import is_numpy_value, numpy_has
from .objects import (
    MISSING,
    BuiltinFunction,
    BuiltinType,
    ClassMethod,
    Instance,
    Method,
    Property,
    ScriptIterator,
    StaticMethod,
    SuperBuiltin,
    type_name,
)
from .protocols import ITERABLES, MUTABLE_HASHED, SIZED
from .runtime import Frame
from .slots import slot_names
from .system_modules import Quitter
from .text_io import WRITABLE
from .typecheck import TypeBuiltin

if TYPE_CHECKING:
    from .core import Interpreter

_FORMATTER = string.Formatter()


def _looks_up(field_name: str | None) -> bool:
    """Whether a format field reads an attribute or an item (`{0.x}`, `{a[0]}`)."""
    return bool(field_name) and any(c in field_name for c in ".[")


class _ItemsOf:
    """A script's mapping as string.Formatter reads keyword fields: `mapping[key]` as the
    script's subscript runs it."""

    def __init__(self, interp: Any, mapping: Any):
        self.interp, self.mapping = interp, mapping

    def __getitem__(self, key: str) -> Any:
        return self.interp.get_item(self.mapping, key)


class _CheckedFormatter(string.Formatter):
    """str.format for specs with fields: every field name and filled-in spec checked."""

    def __init__(self, interp: Any):
        self.interp = interp

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        """`{0.x}`, `{a[0]}`: each attribute and item read as the script's own `.x` and
        `[0]` are (never Python's getattr: a script's `{0.__class__.__subclasses__}` is
        refused)."""
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            obj = self.interp.get_attribute(obj, key, None) if is_attribute \
                else self.interp.get_item(obj, key)
        return obj, first

    def format_field(self, value: Any, format_spec: str) -> Any:
        if format_spec:
            self.interp.check_spec(format_spec, None)
        return super().format_field(value, format_spec)


class MapItems:
    """map()'s items. Its `next` is a method, not a generator: a RecursionError out of
    10^5 nested maps unwinds through generator frames in quadratic time (each links
    its exception context), through method frames in linear time."""

    __slots__ = ("interpreter", "fn", "sources")

    def __init__(self, interpreter: Interpreter, fn: Any, sources: list[Iterator[Any]]):
        self.interpreter = interpreter
        self.fn = fn
        self.sources = sources

    def __iter__(self) -> MapItems:
        return self

    def __next__(self) -> Any:
        items = [next(source) for source in self.sources]
        return self.interpreter.call(self.fn, items, {}, None)


class FilterItems:
    """filter()'s items (a method for the reason MapItems gives)."""

    __slots__ = ("interpreter", "fn", "source")

    def __init__(self, interpreter: Interpreter, fn: Any, source: Iterator[Any]):
        self.interpreter = interpreter
        self.fn = fn
        self.source = source

    def __iter__(self) -> FilterItems:
        return self

    def __next__(self) -> Any:
        call, truth = self.interpreter.call, self.interpreter.truth
        while True:
            item = next(self.source)
            if truth(item if self.fn is None else call(self.fn, [item], {}, None), None):
                return item


# builtins that hash the items of their first argument
HASHING = (set, frozenset, dict, stdlib.OrderedDict)


EVAL = "eval"  # the builtin a script calls (its messages are Python's)


def make_builtins(self: Interpreter) -> dict[str, Any]:
    """The builtins table of one run (print writes to its stdout; limits are its own)."""
    materialize = self.materialize

    def script_print(*args: Any, sep: str | None = " ", end: str | None = "\n",
                     file: Any = None, flush: bool = False) -> None:
        if JIT.mode is not None:
            if JIT.replaying:  # a traced graph runs again: torch runs no Python, no print
                return
            if JIT.mode == "script":  # TorchScript's prim::Print formats values its own way
                raise NotSupportedError("print() inside a torch.jit scripted callable is not "
                                        "supported by gradtrace")
        if file is not None and not isinstance(file, WRITABLE):
            raise NotSupportedError("print(file=...) is not supported for this object: "
                                    "scripts write to sys.stdout, sys.stderr or an "
                                    "io.StringIO")
        if sep is not None and not isinstance(sep, str):
            raise TorchTypeError(f"sep must be None or a string, not {type_name(sep)}")
        if end is not None and not isinstance(end, str):
            raise TorchTypeError(f"end must be None or a string, not {type_name(end)}")
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        write = self.stdout.write if file is None else file.write
        parts: list[str] = []
        try:
            for i, arg in enumerate(args):
                if i:
                    parts.append(sep)
                parts.append(str(arg))
        except BaseException:  # CPython writes each argument (and the separator before
            if parts:  # the next) as it goes: what came before a failing str() is out
                write("".join(parts))
            raise
        parts.append(end)
        write("".join(parts))

    def sized(fn: Callable[..., Any], what: str, every: bool = False) -> Callable[..., Any]:
        """A builtin that walks an iterable argument in C: lazy iterables are built (within
        the limit) first, containers have their length checked. `every`: each positional
        argument is such an iterable; else only a lone first one (`min(a, b)` is not)."""
        hashes = fn in HASHING
        mapping = fn is py.dict or fn is stdlib.OrderedDict

        def call(*args: Any, **kwargs: Any) -> Any:
            if mapping and args and type(args[0]) is Instance and \
                    args[0].cls.builtin is None and args[0].cls.lookup("keys") is not MISSING:
                args = (self.mapping_items(args[0], what), *args[1:])  # a Mapping's keys()
            if every:
                args = tuple(materialize(a, what) for a in args)
            elif len(args) == 1 or (args and fn in (py.sum, py.dict, py.sorted)):
                args = (materialize(args[0], what),) + args[1:]
            if hashes and args:
                check_all_hashable(args[0])
            return fn(*args, **kwargs)

        return call

    def short_circuit(fn: Callable[..., Any]) -> Callable[..., Any]:
        """any()/all(): a container at C speed; a lazy iterable item by item (each item a
        step), stopping where Python stops."""
        stop = fn is py.any

        def call(iterable: Any) -> bool:
            if type(iterable) in SIZED or isinstance(iterable, ITERABLES):
                self.check_size(len(iterable), f"an {fn.__name__}() argument")
                return fn(iterable)
            for item in self.iterate(iterable, None):
                self.tick()
                if self.truth(item, None) is stop:
                    return stop
            return not stop

        return call

    def script_format(text: str, *args: Any, **kwargs: Any) -> str:
        """str.format. A field that reads an attribute or an item (`{0.x}`), or a spec
        with fields of its own (`"{:{}.{}f}".format(x, width, digits)`), goes through
        string.Formatter (which numbers and nests them as str.format does), its lookups
        the script's own and its specs checked once filled in."""
        nested = False
        for _, field_name, spec, _ in _FORMATTER.parse(text):
            if _looks_up(field_name):
                nested = True
            if spec and "{" in spec:
                nested = True
            elif spec:
                self.check_spec(spec, None)
        if nested:
            return _CheckedFormatter(self).vformat(text, args, kwargs)
        return text.format(*args, **kwargs)

    def script_format_map(text: str, mapping: Any, /) -> str:
        """str.format_map: the fields read through `mapping`'s own item lookup (a
        defaultdict's default, a dict subclass's __missing__), checked as format's."""
        for _, field_name, _, _ in _FORMATTER.parse(text):
            if field_name is not None and (not field_name or field_name.isdigit()):
                raise ScriptError("Format string contains positional fields",
                                  kind="ValueError")
        return _CheckedFormatter(self).vformat(text, (), _ItemsOf(self, mapping))

    def script_iter(value: Any, sentinel: Any = MISSING, /) -> Iterator[Any]:
        if sentinel is not MISSING:  # call until it returns the sentinel (`==`)
            if not self.is_callable(value):
                raise TorchTypeError("iter(v, w): v must be callable")
            return ScriptIterator("callable_iterator", _calls(self, value, sentinel))
        if type(value) in MUTABLE_HASHED:  # (its guard against resizing is a generator)
            return ScriptIterator(type(iter(value)).__name__, self.iterate(value, None))
        return self.iterate(value, None)

    def script_next(iterator: Any, default: Any = MISSING, /) -> Any:
        try:
            return next(iterator)
        except StopIteration as stop:
            if default is not MISSING:
                return default
            raise stop_iteration(stop.value) from None

    def script_map(fn: Any, /, *iterables: Any) -> ScriptIterator:
        if not iterables:
            raise TorchTypeError("map() must have at least two arguments.")
        sources = [self.iterate(i, None) for i in iterables]
        return ScriptIterator("map", MapItems(self, fn, sources))

    def script_filter(fn: Any, iterable: Any, /) -> ScriptIterator:
        return ScriptIterator("filter", FilterItems(self, fn, self.iterate(iterable, None)))

    def attribute_name(name: Any, where: str) -> str:
        if not isinstance(name, str):
            raise TorchTypeError(f"{where}attribute name must be string, not "
                                 f"'{type_name(name)}'")
        return name

    def script_getattr(obj: Any, name: Any, default: Any = MISSING, /) -> Any:
        name = attribute_name(name, "")
        try:
            return self.get_attribute(obj, name, None)
        except ScriptError as err:
            if default is not MISSING and err.matches("AttributeError"):
                return default
            raise
        except NotSupportedError:
            if default is not MISSING and (_absent_from_tensor(obj, name)
                                           or _absent_from_numpy(obj, name)):
                return default
            raise

    def script_hasattr(obj: Any, name: Any, /) -> bool:
        name = attribute_name(name, "hasattr(): ")
        try:
            self.get_attribute(obj, name, None)
        except ScriptError as err:
            if err.matches("AttributeError"):
                return False
            raise
        except NotSupportedError:
            if stdlib.torch_has(obj, name) or numpy_has(obj, name):
                return True  # torch (numpy) has it; using it is what is refused
            if _absent_from_tensor(obj, name) or _absent_from_numpy(obj, name):
                return False
            raise
        return True

    def script_setattr(obj: Any, name: Any, value: Any, /) -> None:
        self.set_attribute(obj, attribute_name(name, ""), value)

    def script_delattr(obj: Any, name: Any, /) -> None:
        self.del_attribute(obj, attribute_name(name, ""))

    module_vars = self.globals.vars

    def script_eval(*args: Any, **kwargs: Any) -> Any:
        """`eval` of an expression, with optional globals and locals: the string parsed by
        gradtrace's parser and run by this interpreter, with its limits (never Python's
        eval), in the caller's frame or in frames over the dicts given; its errors point at
        the call. (Its messages name it through EVAL: the source names no eval call.)"""
        if kwargs:
            raise TorchTypeError(f"{EVAL}() takes no keyword arguments")
        if not 1 <= len(args) <= 3:
            raise TorchTypeError(f"{EVAL} expected at {'least 1' if not args else 'most 3'} "
                                 f"argument{'s' if args else ''}, got {len(args)}")
        source, given_globals, given_locals = (*args, None, None)[:3]
        if isinstance(source, bytes):
            source = source.decode()
        if not isinstance(source, str):
            raise TorchTypeError(f"{EVAL}() arg 1 must be a string, bytes or code object")
        if given_globals is not None and type(given_globals) is not dict:
            raise TorchTypeError(f"globals must be a real dict; try {EVAL}(expr, {{}}, mapping)")
        if given_locals is not None and not isinstance(given_locals, dict):
            raise TorchTypeError("locals must be a mapping")
        code = self.compile_evaluated(source)
        if given_globals is None:
            frame = self.running_frame if given_locals is None else \
                Frame(given_locals, self.running_frame)
        else:
            frame = Frame(given_globals)
            if given_locals is not None:
                frame = Frame(given_locals, frame)
        return code(frame)

    def script_globals(*args: Any, **kwargs: Any) -> dict[Any, Any]:
        """globals(): the script module's variables, the dict itself (live, as CPython's:
        `globals()[args.model]` picks a class by name, a write binds a name). Its only
        dunder is `__name__`; Python's others (`__builtins__`, `__loader__`, ...) are not
        in it. Code that reads the module's names takes its str keys (`runtime.named`)."""
        if args or kwargs:
            raise TorchTypeError(f"globals() takes no arguments ({len(args) + len(kwargs)} "
                                 "given)")
        return module_vars

    def script_vars(*args: Any) -> Any:
        """vars(obj) of an instance: its `__dict__`, live as Python's where a script may
        read that (classes.dict_live), else a copy of its attributes in the order they
        were set (a library object's, whose attributes are not torch's own); of a module,
        the lookup-only view of its names (module_dicts.py)."""
        if len(args) != 1:
            if not args:
                raise NotSupportedError("vars() without an argument (the local scope) is "
                                        "not supported")
            raise TorchTypeError(f"vars expected at most 1 argument, got {len(args)}")
        obj = args[0]
        if type(obj) is Instance:
            if obj.cls.builtin is dict and obj.attrs is obj.value:
                return obj  # `self.__dict__ = self`: the dict is the instance itself
            if not self.dict_live(obj.cls):
                return dict(obj.attrs)
            if slot_names(self, obj.cls) is not None:
                raise TorchTypeError("vars() argument must have __dict__ attribute")
            return obj.attrs
        if isinstance(obj, Tensor):  # the attributes the script set on it, live
            return self.tensor_dicts.setdefault(obj)
        if isinstance(obj, stdlib.Namespace) and self.is_module(obj):
            return self.module_dict(obj)  # a module's: its lookup-only __dict__ view
        if isinstance(obj, stdlib.Namespace):  # (an object torch keeps in a module)
            raise NotSupportedError(f"vars() of '{obj.name}' is not supported")
        if isinstance(obj, (int, float, str, bool, list, tuple, dict, set, frozenset,
                            type(None))):
            raise TorchTypeError("vars() argument must have __dict__ attribute")
        raise NotSupportedError(f"vars() of a {type_name(obj)} is not supported")

    def script_dir(*args: Any) -> list[str]:
        """dir(grad_fn): an autograd node's attribute names as torch lists them. Nothing
        else: dir() of other objects would list gradtrace's Python internals, not torch's."""
        if len(args) > 1:
            raise TorchTypeError(f"dir expected at most 1 argument, got {len(args)}")
        if not args:
            raise NotSupportedError("dir() without an argument (the local scope) is not "
                                    "supported")
        if isinstance(args[0], Node):
            return stdlib.node_dir(args[0])
        raise NotSupportedError(f"dir() of a {type_name(args[0])} is not supported: "
                                "gradtrace lists an autograd node's attributes only "
                                "(scripts cannot inspect Python objects)")

    def script_pow(base: Any, exp: Any, mod: Any = None) -> Any:
        if mod is None:
            self._guard_binop("**", base, exp, None)
            return base ** exp
        return py.pow(base, exp, mod)

    def script_format_builtin(value: Any, spec: str = "", /) -> str:
        if not isinstance(spec, str):
            raise TorchTypeError(f"format() argument 2 must be str, not {type_name(spec)}")
        return self.format_value(value, spec, None)

    def script_int(*args: Any, **kwargs: Any) -> int:
        """int(): text in a power-of-two base has no digit cap in Python, so the parsed
        number is held to --max-int-bits like any other."""
        result = int(*args, **kwargs)
        if result.bit_length() > self.limits.max_int_bits:
            raise LimitExceeded(f"int() result exceeds the integer size limit "
                                f"({self.limits.max_int_bits} bits)")
        return result

    identities = self.identities = Identities(self.limits.max_sequence // 10)

    def script_id(obj: Any, /) -> int:
        return identities.number(obj)

    def as_int_text(convert: Callable[[Any], str]) -> Callable[[Any], str]:
        """hex/oct/bin: a script instance counts through its own `__index__`, as in Python."""
        def script_convert(value: Any, /) -> str:
            if type(value) is Instance:
                value = self.as_index(value)
            return convert(value)
        return script_convert

    def script_hash(value: Any, /) -> int:
        check_hashable(value)
        return py.hash(value)

    def script_zip(*iterables: Any, **kwargs: Any) -> zip:
        return py.zip(*(unnest(i) for i in iterables), **kwargs)

    def script_enumerate(iterable: Any, *args: Any, **kwargs: Any) -> enumerate:
        return py.enumerate(unnest(iterable), *args, **kwargs)

    self.format_method = script_format
    self.format_map_method = script_format_map
    types = {t: BuiltinType(t, t) for t in (int, float, complex, bool, str, range, slice,
                                            type(None), type(NotImplemented), type(...))}
    types[int] = BuiltinType(int, script_int)
    types[bytes] = BuiltinType(bytes, make_bytes(self))
    for t in (list, tuple, dict, set, frozenset, stdlib.OrderedDict):
        types[t] = BuiltinType(t, sized(t, f"a {t.__name__}() argument"))
    types[stdlib.OrderedDict].module = "collections"
    for t, name in ((Property, "property"), (StaticMethod, "staticmethod"),
                    (ClassMethod, "classmethod")):
        types[t] = BuiltinType(t, t)
        types[t].name = name

    def make_method(*args: Any) -> Method:
        """types.MethodType(function, instance): the function bound to the instance, with
        CPython's checks (Objects/classobject.c's method_new)."""
        if len(args) != 2:
            raise ScriptError(f"method expected 2 arguments, got {len(args)}", kind="TypeError")
        function, instance = args
        if not self.is_callable(function):
            raise ScriptError("first argument must be callable", kind="TypeError")
        if instance is None:
            raise ScriptError("instance must not be None", kind="TypeError")
        return Method(instance, function)

    types[Method] = BuiltinType(Method, make_method)  # `type(obj.f)`, types.MethodType
    types[Method].name = "method"
    self.builtin_types = types
    table: dict[str, Any] = {t.name: t for t in types.values() if t.module == "builtins"
                             and t.type not in (type(None), type(NotImplemented), type(...),
                                                Method)}
    table.update(stdlib.exception_types())
    table.update({
        "print": script_print, "len": py.len, "enumerate": script_enumerate, "zip": script_zip,
        "abs": py.abs, "round": py.round, "repr": py.repr, "ascii": py.ascii,
        "reversed": py.reversed,
        "divmod": py.divmod, "pow": script_pow, "hash": script_hash, "chr": py.chr, "ord": py.ord,
        "hex": as_int_text(py.hex), "oct": as_int_text(py.oct), "bin": as_int_text(py.bin),
        "format": script_format_builtin, "id": script_id,
        "sorted": sized(py.sorted, "a sorted() argument"),
        "sum": sized(py.sum, "a sum() argument"), "min": sized(py.min, "a min() argument"),
        "max": sized(py.max, "a max() argument"), "any": short_circuit(py.any),
        "all": short_circuit(py.all),
        "isinstance": self.isinstance_check, "issubclass": self.issubclass_check,
        "type": TypeBuiltin(self), "iter": script_iter, "next": script_next,
        "map": script_map, "filter": script_filter, "callable": self.is_callable,
        "getattr": script_getattr, "hasattr": script_hasattr, "setattr": script_setattr,
        "delattr": script_delattr, "vars": script_vars, "dir": script_dir,
        "super": SuperBuiltin(self),
        "locals": LOCALS, "globals": script_globals, "eval": script_eval,
        "exit": Quitter("exit"), "quit": Quitter("quit"),
        "object": OBJECT,
        "NotImplemented": NotImplemented, "Ellipsis": ...,
    })
    for name, value in table.items():  # Python names, not ours, in reprs and messages
        if isinstance(value, (FunctionType, MethodType)):
            table[name] = BuiltinFunction(name, value, getattr(py, name))
    return table


def _absent_from_tensor(obj: Any, name: str) -> bool:
    """A refused dunder torch's tensors lack (`hasattr(t, "__globals__")`): no tensor has
    it, so hasattr/getattr with a default answer as under torch instead of refusing. (An
    underscored name torch lacks, Prodigy's `hasattr(p, "_fsdp_flattened")`, no longer
    comes here: it is the script's own to set, so reading an unset one is Python's
    AttributeError.)"""
    return isinstance(obj, Tensor) and stdlib.is_private(name) and \
        not stdlib.torch_has(obj, name)


def _absent_from_numpy(obj: Any, name: str) -> bool:
    """A refused name numpy's own object lacks (`hasattr(np.float64(1), "__len__")`):
    hasattr/getattr with a default answer as under numpy instead of refusing."""
    return is_numpy_value(obj) and not numpy_has(obj, name)


def _calls(interp: Any, fn: Any, sentinel: Any) -> Iterator[Any]:
    """iter(fn, sentinel)'s items: fn() until a result equal to the sentinel."""
    while True:
        value = interp.call(fn, [], {}, None)
        if value == sentinel:
            return
        yield value
