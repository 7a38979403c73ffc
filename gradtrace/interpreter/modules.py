"""Imports: the modules a script may import (torch and its emulated submodules, `math`,
`random`), resolved when the script is compiled; names a bundled library module defines
are loaded when first used (library.py).

`math` is an allow-list of Python's own math functions (pure functions of numbers), with
size guards where an integer result can grow without bound. `random` is Python's own
generator, one per run (`random.seed(0); random.random()` gives CPython's sequence).
"""
from __future__ import annotations

import collections
import copy
import functools
import io
import itertools
import math
import pprint
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import stdlib, syntax, torch_namespace
from ..engine import unreproducible
from ..errors import (
    LimitExceeded,
    NotSupportedError,
    ScriptError,
    TorchTypeError,
    TorchValueError,
)
from ..parser.checks import FUTURE_FEATURES
from ..source import Span
from . import collection_types, dataclass, memory_io, text_io
from .builtin_classes import plain_iteration
from .copying import deep_copy, shallow_copy
from .dataclass import dataclasses_namespace
from .datetime_module import datetime_namespace
from .import_effects import note_import
from .numpy_module import make_numpy
from .numpy_random import numpy_random_namespace
from .objects import (
    BuiltinClass,
    BuiltinFunction,
    BuiltinType,
    CachedProperty,
    Instance,
    NativeFunction,
    PartialMethod,
    ScriptIterator,
    type_name,
)
from .os_module import RunFiles, os_namespaces
from .path_module import pathlib_namespace
from .pure_modules import IMPORT_ONLY_MODULES, pure_namespaces
from .random_module import random_namespace
from .regex_module import re_namespace
from .runtime import Code, Frame
from .system_modules import system_namespaces
from .torch_functions import script_value
from .traceback_module import traceback_namespace
from .typed_classes import make_namedtuple
from .typing_module import typing_namespace

if TYPE_CHECKING:
    from .core import Interpreter

_MATH_FUNCTIONS = (
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign",
    "cos", "cosh", "degrees", "dist", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "floor",
    "fmod", "frexp", "gamma", "gcd", "hypot", "isclose", "isfinite", "isinf", "isnan",
    "isqrt", "ldexp", "lgamma", "log", "log10", "log1p", "log2", "modf", "nextafter", "pow",
    "radians", "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "ulp",
)
_MATH_CONSTANTS = ("pi", "e", "tau", "inf", "nan")


def _imported(module: str, name: str, value: Any) -> Any:
    """What `from module import name` will bind (`_bound_value` finishes it when the import
    runs): torch's function objects as torch presents them; a float constant is looked up
    again then, as the script may have replaced it (`torch.pi = ...`)."""
    if type(value) is float:
        return _ModuleConstant(module, name, value)
    return script_value(module, name, value)


class _ModuleConstant(NamedTuple):
    """A float constant `from module import name` binds: the script's replacement of it
    when it made one before the import ran (`torch.pi = ...`), else its value."""
    module: str
    name: str
    value: float


def _math_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`math`, with guards on the functions whose integer results grow with their input."""
    bits = interp.limits.max_int_bits
    table: dict[str, Any] = {name: getattr(math, name) for name in _MATH_FUNCTIONS
                             if hasattr(math, name)}  # fixed names (exp2/cbrt: 3.11+)
    table.update({name: getattr(math, name) for name in _MATH_CONSTANTS})

    def guard(n: Any, what: str) -> None:
        if isinstance(n, int) and n > 0 and n * max(n.bit_length(), 1) > 4 * bits:
            raise LimitExceeded(f"math.{what}({n}) would exceed the integer size limit "
                                f"({bits} bits)")

    def factorial(n: Any) -> int:
        guard(n, "factorial")
        return math.factorial(n)

    def comb(n: Any, k: Any) -> int:
        guard(n, "comb")
        return math.comb(n, k)

    def perm(n: Any, k: Any = None) -> int:
        guard(n, "perm")
        return math.perm(n, k)

    def prod(iterable: Any, *, start: Any = 1) -> Any:
        result = start
        for item in interp.materialize(iterable, "a prod() argument"):
            result = result * item
            if isinstance(result, int) and result.bit_length() > bits:
                raise LimitExceeded(f"math.prod's result exceeds the integer size limit "
                                    f"({bits} bits)")
        return result

    def fsum(iterable: Any) -> float:
        return math.fsum(interp.materialize(iterable, "an fsum() argument"))

    def lcm(*integers: Any) -> int:
        result = math.lcm(*integers)
        if result.bit_length() > bits:
            raise LimitExceeded(f"math.lcm's result exceeds the integer size limit ({bits} "
                                "bits)")
        return result

    table.update(factorial=factorial, comb=comb, perm=perm, prod=prod, fsum=fsum, lcm=lcm)
    return stdlib.Namespace("math", table)


def _itertools_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`itertools`' lazy iterators, each item a counted step (Python's own would loop in C,
    where `islice(count(), 10**15, None)` could not be stopped). Iterators that must first
    store their inputs (product) build them within --max-sequence."""
    tick, iterate = interp.tick, interp.iterate

    def lazy(kind: str, items: Iterator[Any]) -> ScriptIterator:
        def counted() -> Iterator[Any]:
            for item in items:
                tick()
                yield item
        return ScriptIterator(kind, counted())

    def count(start: Any = 0, step: Any = 1) -> ScriptIterator:
        if type(start) not in (int, float, bool) or type(step) not in (int, float, bool):
            raise TorchTypeError("a number is required")

        def counting() -> Iterator[Any]:
            n = start
            while True:
                yield n
                n = n + step
        return lazy("count", counting())

    def repeat(obj: Any, times: Any = None) -> ScriptIterator:
        if times is None:
            return lazy("repeat", iter(lambda: obj, object()))
        return lazy("repeat", (obj for _ in range(max(int(times), 0))))

    def chain(*iterables: Any) -> ScriptIterator:
        return lazy("chain", (x for it in iterables for x in iterate(it, None)))

    def from_iterable(iterables: Any) -> ScriptIterator:
        return lazy("chain", (x for it in iterate(iterables, None) for x in iterate(it, None)))

    def islice(iterable: Any, *args: Any) -> ScriptIterator:
        try:  # Python's own checks of the bounds, on an empty iterator
            itertools.islice((), *args)
        except ValueError as err:
            raise TorchValueError(str(err)) from None
        except TypeError as err:
            raise TorchTypeError(str(err)) from None
        bounds = slice(*args)
        start, stop, step = bounds.start or 0, bounds.stop, bounds.step or 1

        def slicing() -> Iterator[Any]:
            if stop is not None and stop <= start:
                return
            for i, item in enumerate(iterate(iterable, None)):
                if i >= start and (i - start) % step == 0:
                    yield item
                if stop is not None and i + 1 >= stop:
                    return
        return lazy("islice", slicing())

    def product(*iterables: Any, repeat: int = 1) -> ScriptIterator:
        pools = [tuple(interp.materialize(it, "a product() argument"))
                 for it in iterables] * repeat

        def producing() -> Iterator[tuple]:
            result: list[tuple] = [()]
            for pool in pools:
                interp.check_size(len(result) * len(pool), "a product()")
                result = [r + (x,) for r in result for x in pool]
            yield from result
        return lazy("product", producing())

    namespace = _python_namespace("itertools", itertools, {
        "count": count, "repeat": repeat, "chain": chain, "islice": islice, "product": product})
    chain_class = namespace.table["chain"]
    namespace.table["chain"] = BuiltinClass(chain_class.name, chain_class.fn, chain_class.twin, {
        "from_iterable": BuiltinFunction("from_iterable", from_iterable,
                                         itertools.chain.from_iterable)})
    namespace.table.update({name: stdlib.LibraryName("_itertools", name) for name in (
        "accumulate", "combinations", "combinations_with_replacement", "permutations",
        "zip_longest", "cycle", "starmap", "compress", "dropwhile", "takewhile",
        "filterfalse", "pairwise", "groupby", "tee")})  # (lib/_itertools.gt)
    return namespace


def _python_namespace(name: str, module: Any, table: dict[str, Any]) -> stdlib.Namespace:
    """A Python module's functions that the interpreter implements, shown and reported
    under the module's real ones (`<class 'itertools.count'>`, `<function pprint at ...>`,
    Python's own argument-count messages), as the builtins are."""
    return stdlib.Namespace(name, {key: BuiltinFunction(key, fn, getattr(module, key))
                                   for key, fn in table.items()})


class _PrettyPrinter(pprint.PrettyPrinter):
    """Python's pprint, with the scripts' OrderedDict laid out as CPython 3.11 lays out its
    own (`OrderedDict([(key, value),` one pair per line `])`)."""

    _dispatch = dict(pprint.PrettyPrinter._dispatch)  # type: ignore[attr-defined]

    def _pprint_ordered_dict(self, obj: Any, stream: Any, indent: int, allowance: int,
                             context: dict, level: int) -> None:
        if not len(obj):
            stream.write(repr(obj))
            return
        stream.write("OrderedDict(")
        self._format(list(obj.items()), stream, indent + len("OrderedDict") + 1,  # type: ignore[attr-defined]
                     allowance + 1, context, level)
        stream.write(")")

    _dispatch[stdlib.OrderedDict.__repr__] = _pprint_ordered_dict
    # the scripts' defaultdict is laid out as CPython lays out collections.defaultdict
    _dispatch[collection_types.defaultdict.__repr__] = \
        pprint.PrettyPrinter._pprint_default_dict  # type: ignore[attr-defined]

    def _format(self, obj: Any, stream: Any, indent: int, allowance: int, context: dict,
                level: int) -> None:
        obj = _as_pprinted(obj)
        if type(obj) is Instance and id(obj) in context:  # pprint's _recursion, named as
            stream.write(f"<Recursion on {type_name(obj)} with id={id(obj)}>")  # the script
            self._recursive = True  # type: ignore[attr-defined]
            self._readable = False  # type: ignore[attr-defined]
            return
        shown = dataclass.repr_fields(obj)
        if shown is not None and \
                len(self._repr(obj, context, level)) > self._width - indent - allowance:  # type: ignore[attr-defined]
            # CPython 3.11's _pprint_dataclass: `Name(field=value,` one field per line `)`
            context[id(obj)] = 1
            name = obj.cls.name
            stream.write(name + "(")
            self._format_namespace_items(  # type: ignore[attr-defined]
                [(f, obj.attrs.get(f)) for f in shown], stream, indent + len(name) + 1,
                allowance, context, level + 1)
            stream.write(")")
            del context[id(obj)]
            return
        super()._format(obj, stream, indent, allowance, context, level)  # type: ignore[misc]

    def format(self, obj: Any, context: dict, maxlevels: int, level: int
               ) -> tuple[str, bool, bool]:
        return super().format(_as_pprinted(obj), context, maxlevels, level)


def _as_pprinted(obj: Any) -> Any:
    """What pprint lays out for a script's dict, list, tuple or set subclass instance that
    keeps its builtin base's repr (pprint dispatches on `type(obj).__repr__`, which is the
    base's): its value; anything else as it is."""
    if type(obj) is Instance and obj.cls.builtin in (dict, list, tuple) and \
            plain_iteration(obj):
        found = obj.cls.lookup("__repr__")
        if type(found) is NativeFunction and found.owner == obj.cls.builtin.__name__:
            return obj.value
    return obj


def _copy_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`copy.deepcopy` and `copy.copy` (training loops keep their best weights with
    `copy.deepcopy(model.state_dict())`): copying.py."""
    def deepcopy(x: Any, memo: dict[int, Any] | None = None, _nil: Any = None) -> Any:
        return deep_copy(x, interp.tick, memo, interp.identities)

    def copy_(x: Any) -> Any:
        return shallow_copy(x)

    return _python_namespace("copy", copy, {"deepcopy": deepcopy, "copy": copy_})


def _io_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`io.BytesIO`, an in-memory file for torch.save / torch.load (memory_io.py), and
    `io.StringIO`; `io.open` only as a name (calling it is refused, as the builtin is)."""
    bytes_io = BuiltinType(memory_io.BytesIO, memory_io.BytesIO)
    bytes_io.name, bytes_io.module = "BytesIO", "_io"
    value = BuiltinType(memory_io.BytesValue, memory_io.BytesValue)
    value.name = "bytes"
    interp.builtin_types[memory_io.BytesIO] = bytes_io
    interp.builtin_types[memory_io.BytesValue] = value
    def make_string_io(initial_value: Any = "", newline: Any = "\n") -> text_io.StringIO:
        return text_io.StringIO(initial_value, newline, limit=interp.limits.max_sequence)

    string_io = BuiltinType(text_io.StringIO, make_string_io)
    string_io.name, string_io.module = "StringIO", "_io"
    interp.builtin_types[text_io.StringIO] = string_io
    def refused_open(*args: Any, **kwargs: Any) -> Any:
        raise NotSupportedError(stdlib.NOT_SUPPORTED_BUILTINS["open"])

    # `from io import open` (the NLP tutorials' py2-compatible header) binds Python's
    # builtin open: importing it is harmless, calling it reaches a file and is refused
    return stdlib.Namespace("io", {"BytesIO": bytes_io, "StringIO": string_io,
                                   "open": BuiltinFunction("open", refused_open, io.open)})


def _pprint_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`pprint.pprint` and `pprint.pformat`, writing to the script's standard output."""
    def pformat(obj: Any, indent: int = 1, width: int = 80, depth: Any = None, *,
                compact: bool = False, sort_dicts: bool = True,
                underscore_numbers: bool = False) -> str:
        return _PrettyPrinter(indent=indent, width=width, depth=depth, compact=compact,
                              sort_dicts=sort_dicts,
                              underscore_numbers=underscore_numbers).pformat(obj)

    def pprint_(obj: Any, stream: Any = None, indent: int = 1, width: int = 80,
                depth: Any = None, *, compact: bool = False, sort_dicts: bool = True,
                underscore_numbers: bool = False) -> None:
        if stream is not None:
            raise NotSupportedError("pprint(stream=...) is not supported: scripts write to "
                                    "standard output only")
        interp.stdout.write(pformat(obj, indent, width, depth, compact=compact,
                                    sort_dicts=sort_dicts,
                                    underscore_numbers=underscore_numbers) + "\n")

    def pp(obj: Any, *args: Any, sort_dicts: bool = False, **kwargs: Any) -> None:
        pprint_(obj, *args, sort_dicts=sort_dicts, **kwargs)

    def isreadable(obj: Any) -> bool:
        return _PrettyPrinter()._safe_repr(obj, {}, None, 0)[1]  # type: ignore[attr-defined]

    def isrecursive(obj: Any) -> bool:
        return _PrettyPrinter()._safe_repr(obj, {}, None, 0)[2]  # type: ignore[attr-defined]

    def saferepr(obj: Any) -> str:
        return _PrettyPrinter()._safe_repr(obj, {}, None, 0)[0]  # type: ignore[attr-defined]

    namespace = _python_namespace("pprint", pprint, {
        "pprint": pprint_, "pformat": pformat, "pp": pp, "isreadable": isreadable,
        "isrecursive": isrecursive, "saferepr": saferepr})
    namespace.table["PrettyPrinter"] = stdlib.LibraryName("_pprint", "PrettyPrinter")
    return namespace  # (PrettyPrinter: lib/_pprint.gt)


# Python modules written as bundled library code (gradtrace/lib/NAME.gt): their names
LIBRARY_PYTHON_MODULES: dict[str, tuple[str, ...]] = {
    "contextlib": ("contextmanager", "nullcontext", "suppress", "ExitStack",
                   "ContextDecorator"),
    "argparse": ("ArgumentParser", "ArgumentError", "ArgumentTypeError",
                 "BooleanOptionalAction", "FileType", "HelpFormatter",
                 "ArgumentDefaultsHelpFormatter", "RawDescriptionHelpFormatter",
                 "RawTextHelpFormatter", "MetavarTypeHelpFormatter", "Namespace", "Action",
                 "ONE_OR_MORE", "OPTIONAL", "PARSER", "REMAINDER", "SUPPRESS", "ZERO_OR_MORE"),
    "types": ("SimpleNamespace", "MethodType"),
    "inspect": ("signature", "Signature", "Parameter", "getsource", "currentframe",
                "getargvalues", "ArgInfo"),
    "tqdm": ("tqdm", "trange"),
    "tqdm.auto": ("tqdm", "trange"), "tqdm.notebook": ("tqdm", "trange"),
    "tqdm.autonotebook": ("tqdm", "trange"),
    "tqdm.asyncio": ("tqdm_asyncio", "tqdm", "trange"),
    "einops": ("EinopsError", "asnumpy", "einsum", "pack", "parse_shape", "rearrange",
               "reduce", "repeat", "unpack", "__version__", "__author__", "__all__"),
    "einops.layers": ("RearrangeMixin", "ReduceMixin", "__author__"),
    "einops.layers.torch": ("Rearrange", "Reduce", "EinMix", "__author__"),
    "heapq": ("heappush", "heappop", "heapify", "heapreplace", "merge", "nlargest",
              "nsmallest", "heappushpop"),
    "bisect": ("bisect_left", "bisect_right", "insort_left", "insort_right", "bisect",
               "insort"),
    "queue": ("Empty", "Full", "Queue", "PriorityQueue", "LifoQueue", "SimpleQueue"),
    "distutils.version": ("Version", "StrictVersion", "LooseVersion"),
    "packaging": ("__version__", "__title__", "__summary__", "__uri__", "__author__",
                  "__email__", "__license__", "__copyright__"),
    "packaging.version": ("Version", "parse", "InvalidVersion", "VERSION_PATTERN"),
    "logging": ("BASIC_FORMAT", "BufferingFormatter", "CRITICAL", "DEBUG", "ERROR", "FATAL",
                "FileHandler", "Filter", "Formatter", "Handler", "INFO", "LogRecord", "Logger",
                "LoggerAdapter", "NOTSET", "NullHandler", "StreamHandler", "WARN", "WARNING",
                "addLevelName", "basicConfig", "critical", "debug", "disable", "error",
                "exception", "fatal", "getLevelName", "getLogger", "getLoggerClass", "info",
                "log", "makeLogRecord", "setLoggerClass", "shutdown", "warn", "warning",
                "getLogRecordFactory", "setLogRecordFactory", "lastResort", "raiseExceptions",
                "getLevelNamesMapping", "root"),
    "enum": ("Enum", "IntEnum", "Flag", "IntFlag", "auto", "unique"),
    "collections.abc": ("Hashable", "Iterable", "Iterator", "Reversible", "Generator",
                        "Sized", "Container", "Collection", "Callable", "Set",
                        "MutableSet", "Mapping",
                        "MappingView", "KeysView", "ItemsView", "ValuesView",
                        "MutableMapping", "Sequence", "MutableSequence"),
    "numbers": ("Number", "Complex", "Real", "Rational", "Integral"),
    "functorch": ("grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
                  "vmap", "__version__"),  # (torch 2.13 ships it: torch.func's, deprecated)
    "unittest": ("TestCase", "TestSuite", "BaseTestSuite", "TestLoader", "TestResult",
                 "TextTestResult", "TextTestRunner", "TestProgram", "main", "SkipTest",
                 "skip", "skipIf", "skipUnless", "expectedFailure", "defaultTestLoader",
                 "makeSuite", "getTestCaseNames"),
}

# Python's own modules a script may import (their namespaces are built per run below)
IMPORTABLE_PYTHON_MODULES = ("math", "random", "collections", "os", "os.path", "itertools",
                             "pprint",
                             "copy", "dataclasses", "__future__", "typing", "io",
                             "functools", "numpy", "numpy.random", "numpy.linalg",
                             "numpy.fft", "numpy.testing", "warnings", "sys", "time", "timeit",
                             "operator", "string",
                             "unicodedata", "codecs", "ast",
                             "json", "statistics", "abc", "re", "textwrap", "fnmatch", "pathlib",
                             "gc",
                             "weakref", "tempfile", "errno", "hashlib", *IMPORT_ONLY_MODULES,
                             "datetime", "traceback", "pydoc",
                             *LIBRARY_PYTHON_MODULES)


def _counting_types(interp: Interpreter) -> dict[str, Any]:
    """`collections.defaultdict` and `Counter`: their inputs are built within the limits
    first, and a defaultdict's factory is called as the script's call would call it."""
    def call(factory: Any) -> Any:
        return interp.call(factory, [], {}, None)

    def make_defaultdict(default_factory: Any = None, *args: Any, **kwargs: Any) -> Any:
        if default_factory is not None and not callable(default_factory):
            raise TorchTypeError("first argument must be callable or None")
        if args:
            args = (interp.materialize(args[0], "a defaultdict() argument"),) + args[1:]
        return collection_types.defaultdict(default_factory, call, *args, **kwargs)

    def counted(iterable: Any) -> Any:
        return interp.materialize(iterable, "a Counter() argument")

    def make_counter(iterable: Any = None, /, **kwargs: Any) -> Any:
        return collection_types.Counter(counted, iterable, **kwargs)

    def make_deque(iterable: Any = (), maxlen: Any = None) -> Any:
        return collection_types.deque(interp.materialize(iterable, "a deque() argument"),
                                      maxlen)

    def namedtuple(typename: Any, field_names: Any, *, rename: bool = False,
                   defaults: Any = None, module: Any = None) -> BuiltinType:
        if not isinstance(field_names, str):
            field_names = interp.materialize(field_names, "a namedtuple() argument")
        module = module if isinstance(module, str) else "__main__"  # Python's __module__
        return make_namedtuple(interp, typename, field_names, defaults, module, rename)

    types = {"defaultdict": BuiltinType(collection_types.defaultdict, make_defaultdict),
             "Counter": BuiltinType(collection_types.Counter, make_counter),
             "deque": BuiltinType(collection_types.deque, make_deque)}
    for t in types.values():
        t.module = "collections"
        interp.builtin_types[t.type] = t  # what type(x) answers
    return {**types, "namedtuple": BuiltinFunction("namedtuple", namedtuple,
                                                   collections.namedtuple)}


def _functools_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`functools.partial` and `functools.reduce`, calling the script's functions through
    the interpreter (each call a counted step)."""
    def call(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return interp.call(fn, args, kwargs, None)

    def partial(func: Any, /, *args: Any, **keywords: Any) -> Any:
        if not interp.is_callable(func):
            raise TorchTypeError("the first argument must be callable")
        return collection_types.partial(call, func, *args, **keywords)

    def reduce(function: Any, iterable: Any, *initial: Any) -> Any:
        items = iter(interp.materialize(iterable, "a reduce() argument"))
        if initial:
            value = initial[0]
        else:
            try:
                value = next(items)
            except StopIteration:
                raise TorchTypeError(
                    "reduce() of empty iterable with no initial value") from None
        for item in items:
            value = call(function, [value, item], {})
        return value

    def cached_property(func: Any) -> CachedProperty:
        return CachedProperty(func)

    def partialmethod(func: Any, /, *args: Any, **keywords: Any) -> PartialMethod:
        if not interp.is_callable(func):
            raise TorchTypeError(f"{func!r} is not callable or a descriptor")
        return PartialMethod(func, args, keywords)

    namespace = _python_namespace("functools", functools, {
        "reduce": reduce, "cached_property": cached_property, "partialmethod": partialmethod})
    namespace.table.update({name: stdlib.LibraryName("_functools", name) for name in (
        "wraps", "update_wrapper", "lru_cache", "cache", "cmp_to_key", "total_ordering",
        "singledispatch", "singledispatchmethod", "WRAPPER_ASSIGNMENTS",
        "WRAPPER_UPDATES")})
    partial_type = BuiltinType(collection_types.partial, partial)
    partial_type.module = "functools"
    interp.builtin_types[collection_types.partial] = partial_type
    namespace.table["partial"] = partial_type
    return namespace


def make_modules(interp: Interpreter) -> dict[str, stdlib.Namespace]:
    """The modules a script can import, by dotted name (`math` and `random` are per run)."""
    modules = dict(torch_namespace.MODULES)
    modules["math"] = _math_namespace(interp)
    modules["random"] = random_namespace(interp)
    modules["collections"] = stdlib.Namespace("collections", {
        "OrderedDict": interp.builtin_types[stdlib.OrderedDict],
        "ChainMap": stdlib.LibraryName("_chainmap", "ChainMap"),  # (lib/_chainmap.gt)
        **_counting_types(interp)})
    files = RunFiles(interp)  # the run's files and folders, in memory
    modules.update(os_namespaces(interp, files))
    modules["pathlib"] = pathlib_namespace(interp, files)
    modules["itertools"] = _itertools_namespace(interp)
    modules["pprint"] = _pprint_namespace(interp)
    modules["copy"] = _copy_namespace(interp)
    modules["io"] = _io_namespace(interp)
    modules["functools"] = _functools_namespace(interp)
    modules["dataclasses"] = dataclasses_namespace(interp)
    modules.update(make_numpy(interp, numpy_random_namespace(interp)))
    modules.update(system_namespaces(interp))
    modules.update(pure_namespaces(interp))
    modules["re"] = re_namespace(interp)
    modules["datetime"] = datetime_namespace(interp)
    modules["traceback"] = traceback_namespace(interp)
    for name, names in LIBRARY_PYTHON_MODULES.items():
        modules[name] = stdlib.Namespace(name, {n: stdlib.LibraryName(name, n) for n in names})
    modules["typing"] = typing_namespace(interp)
    modules["__future__"] = stdlib.Namespace(
        "__future__", {name: stdlib.FutureFeature(name) for name in FUTURE_FEATURES})
    # sys.modules: what a script may import (the objects an import gives) and the script
    modules["sys"].table["modules"] = {"__main__": interp.script_module, **modules}
    return modules


# Python's own modules and those every torch 2.13 install has (its requirements, and the
# packages gradtrace offers): importing one gradtrace lacks is refused; any other module is
# missing from torch's environment too (`absent_module`)
TORCH_ENVIRONMENT = frozenset(sys.stdlib_module_names) | {
    "torch", "torchgen", "functorch", "numpy", "tqdm", "sympy", "mpmath", "networkx", "jinja2",
    "markupsafe", "fsspec", "filelock", "typing_extensions", "setuptools", "pkg_resources",
    "pip"}

# torch modules whose import needs a package torch's install lacks: the missing package
NEEDS_ABSENT = {"torch.utils.tensorboard": "tensorboard"}

_SUPPORTED = "torch (and torch.nn, torch.nn.functional, torch.autograd, torch.optim, " \
             "torch.utils.data, torch.distributions, torch.amp), math, random, collections " \
             "(OrderedDict, defaultdict, Counter, deque, namedtuple), itertools, functools " \
             "(partial, reduce, wraps, lru_cache, cache, cmp_to_key, total_ordering, " \
             "singledispatch, singledispatchmethod), " \
             "pprint, copy, " \
             "dataclasses (dataclass, field, asdict, astuple, replace, fields, " \
             "is_dataclass), " \
             "typing (for annotations), __future__, io (BytesIO, StringIO), numpy (arrays, " \
             "math, random, linalg), warnings, sys " \
             "(exit, stdout, stderr, argv, version_info, maxsize, float_info), time (clocks), " \
             "contextlib, abc, collections.abc, numbers, datetime, traceback, operator, " \
             "string, unicodedata, codecs (encode, decode), ast (literal_eval), " \
             "json (plain data), statistics, gc (collect), weakref (ref), re, " \
             "textwrap, fnmatch, enum, heapq, bisect, queue (one thread), " \
             "distutils.version (LooseVersion, " \
             "StrictVersion), packaging.version (Version, parse), argparse (no files, " \
             "no sub-commands), types " \
             "(SimpleNamespace), inspect (signature), logging (to streams), tqdm (progress " \
             "bars on stderr), einops (rearrange, reduce, repeat, einsum, pack, unpack, " \
             "parse_shape, asnumpy; einops.layers.torch's Rearrange, Reduce, EinMix), " \
             "functorch (torch.func's transforms), unittest (TestCase, main, TestSuite, " \
             "TextTestRunner), " \
             "pathlib (Path over the run's files), os (paths; the files torch.save " \
             "wrote and the folders the script made, in memory), tempfile (gettempdir), " \
             "errno (the error numbers), pydoc (locate), and, the import only, pdb, glob, " \
             "shutil, pickle, csv, threading, multiprocessing, subprocess and other modules of " \
             "files, processes and the network"


# What to do instead, for the packages tutorials import most that gradtrace does not have
# (the general note lists every module a script may import: ~1,900 characters)
_PLOTS = ("gradtrace does not draw plots: remove the plotting lines, or put the import in "
          "`try:` ... `except ImportError:`; print the values to see them in every view")
_DATA = ("gradtrace reads no datasets, images or downloads: build the tensors in the script "
         "(torch.manual_seed, then torch.randn/torch.randint of the data's shape)")
ABSENT_PACKAGE_HINTS = {
    "matplotlib": _PLOTS, "seaborn": _PLOTS, "plotly": _PLOTS,
    "torchvision": _DATA + "; torchvision's models are not bundled: define the layers with "
                           "torch.nn",
    "torchaudio": _DATA, "torchtext": _DATA, "datasets": _DATA, "PIL": _DATA,
    "cv2": _DATA, "pandas": _DATA,
    "sklearn": "scikit-learn is not available: numpy (arrays, math, random, linalg) and torch "
               "are",
    "scipy": "scipy is not available: numpy (arrays, math, random, linalg) and torch.linalg, "
             "torch.special and torch.fft are",
    "transformers": "Hugging Face models are not bundled: define the layers with torch.nn",
    "tensorboard": "logging to TensorBoard is not available: print the values instead",
    "wandb": "logging to Weights & Biases is not available: print the values instead",
}


class ImportCompiler:
    """`import ...` and `from ... import ...`."""

    def stmt_Import(self, node: syntax.Import) -> Code:
        bindings: list[tuple[Callable, Any]] = []
        for alias in node.names:
            absent = self.absent_module(alias.name, alias.span)
            if absent is not None:  # the import raises when it runs (earlier names bind)
                bindings.append((absent, None))
                break
            module = self.find_module(alias.name, alias.span)
            if alias.asname:
                bindings.append((self._store_name(self.mangled(alias.asname)), module))
            else:
                top = alias.name.split(".")[0]
                bindings.append((self._store_name(self.mangled(top)),
                                 self.find_module(top, alias.span)))

        names = () if self._scope.library else tuple(alias.name for alias in node.names)
        modules = self.modules

        def run(frame: Frame) -> None:
            for store, value in bindings:
                store(frame, value)
            for name in names:  # (what each import loads: import_effects.py)
                note_import(modules, name)

        return run

    def absent_module(self, name: str, span: Span) -> Callable[..., None] | None:
        """For a module torch's own environment lacks too (not Python's, not torch's nor
        its requirements', not gradtrace's), what running its import does: Python's
        ModuleNotFoundError, which a script's `except ImportError:` takes as under torch
        (an optional dependency); uncaught, it says what gradtrace scripts may import."""
        top = name.split(".")[0]
        needs = next((needed for module, needed in NEEDS_ABSENT.items()
                      if name == module or name.startswith(module + ".")), None)
        if needs is not None:
            top = needs
        elif top in TORCH_ENVIRONMENT or top.startswith("_") or top in self.modules or \
                self._scope.library:
            return None

        def fail(*_: Any) -> None:
            error = ScriptError(f"No module named '{top}'", span, kind="ModuleNotFoundError")
            hint = ABSENT_PACKAGE_HINTS.get(top)
            error.note = f"({hint})" if hint else f"(gradtrace scripts may import {_SUPPORTED})"
            raise error

        return fail

    def stmt_ImportFrom(self, node: syntax.ImportFrom) -> Code:
        absent = self.absent_module(node.module, node.span)
        if absent is not None:
            return absent
        module = self.find_module(node.module, node.span)
        if node.names[0].name == "*":
            return self._import_star(node, module)
        bindings = []
        missing: tuple[str, Span] | None = None  # a name torch lacks too: ImportError, run
        submodules = []  # `from collections import abc`: a submodule, loaded by the import
        for alias in node.names:
            submodule = self.modules.get(f"{node.module}.{alias.name}")
            if alias.name not in module.table and submodule is not None:
                bindings.append((self._store_name(self.mangled(alias.asname or alias.name)),
                                 submodule))
                submodules.append(f"{node.module}.{alias.name}")
                continue
            if alias.name not in module.table:
                error = stdlib.missing_namespace_name(module, alias.name)
                if isinstance(error, NotSupportedError):
                    raise NotSupportedError(
                        f"cannot import name '{alias.name}' from '{node.module}': "
                        f"'{node.module}.{alias.name}' is not supported by gradtrace",
                        alias.span)
                missing = (f"cannot import name '{alias.name}' from '{node.module}'",  # less
                           alias.span)  # Python's path to the module
                break
            bindings.append((self._store_name(self.mangled(alias.asname or alias.name)),
                             _imported(node.module, alias.name, module.table[alias.name])))
        loaded = () if self._scope.library else (node.module, *submodules)
        modules = self.modules
        bound = self._bound_value

        def run(frame: Frame) -> None:
            for name in loaded:
                note_import(modules, name)
            for store, value in bindings:
                store(frame, bound(value))
            if missing is not None:
                raise ScriptError(*missing, kind="ImportError")

        return run

    def _bound_value(self, value: Any) -> Any:
        """What an import binds when it runs, for a value `_imported` made: a float
        constant as the script left it, a bundled library's name loaded."""
        if type(value) is _ModuleConstant:
            return self.module_attributes.get(value.module, {}).get(value.name, value.value)
        if type(value) is stdlib.LibraryName:
            return self.library.resolve(value)
        return value

    def _import_star(self, node: syntax.ImportFrom, module: stdlib.Namespace) -> Code:
        """`from M import *` (at module level): the names M exports under torch 2.13 (its
        `__all__`, else its public names; recorded), each as `from M import name` binds it.
        A name gradtrace lacks is not bound: reading it is refused (`star_unsupported`),
        before any builtin it shadows (`from torch import *` rebinds `sum`, `max`, ...)."""
        names = stdlib.star_exports(node.module)
        if names is None:  # a module torch lacks (a bundled library's): its public names
            names = [name for name in module.table if not name.startswith("_")]
        bindings: list[tuple[str, Callable, Any]] = []
        unsupported: list[str] = []
        for name in names:
            submodule = self.modules.get(f"{node.module}.{name}")
            if name in module.table:
                bindings.append((name, self._store_name(name),
                                 _imported(node.module, name, module.table[name])))
            elif submodule is not None:
                bindings.append((name, self._store_name(name), submodule))
            else:
                unsupported.append(name)
        star_unsupported = self.star_unsupported
        loaded = () if self._scope.library else (node.module,)
        modules = self.modules
        bound = self._bound_value

        def run(frame: Frame) -> None:
            for name in loaded:
                note_import(modules, name)
            for name, store, value in bindings:
                store(frame, bound(value))
                star_unsupported.pop(name, None)
            for name in unsupported:
                frame.vars.pop(name, None)  # (an earlier binding is replaced, as by torch's)
                star_unsupported[name] = (module, name)

        return run

    def find_module(self, name: str, span: Span) -> stdlib.Namespace:
        module = None
        if self._scope.library:  # a library module's own names, not only what it exports
            module = self.library.namespace(name)
        if module is None:
            module = self.modules.get(name)
        if module is None:
            raise NotSupportedError(
                f"import of '{name}' is not supported (gradtrace scripts may import "
                f"{_SUPPORTED})", span)
        if name == "random":  # seeded from the OS unless the script seeds it: `check` runs
            # such a script again to find what that changed (whether it seeds is not followed)
            unreproducible.note(unreproducible.UNSEEDED_RANDOM)
        return module
