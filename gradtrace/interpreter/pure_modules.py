"""`operator`, `string`, `unicodedata`, `codecs`, `ast`, `json`, `statistics`, `gc`,
`weakref` and `abc` as scripts see them.

- operator's functions apply the language's own operators (tensors record their nodes,
  script classes' dunders run, integer sizes are guarded); itemgetter/attrgetter/
  methodcaller read items and attributes through the interpreter's allow-lists.
- json converts plain data only (dict, list, tuple, str, int, float, bool, None), built
  within --max-sequence; `default=`, `cls=` and hooks are refused.
- unicodedata is Python's own database (the char-RNN tutorial strips accents with
  `normalize('NFD', s)` and `category(c)`), its results bounded by --max-sequence.
- codecs: `encode`/`decode` with the text codecs str.encode takes (bytes_methods.py), as
  the chatbot tutorial's `codecs.decode('\\t', "unicode_escape")` unescapes a delimiter.
- ast offers literal_eval of a string (minGPT's CfgNode reads `--key=value` overrides with
  it): Python's own, which builds only literals, its input bounded by --max-sequence; a
  complex number among the values is refused (scripts have no complex).
- statistics takes numbers only (Python's own functions on a materialized list).
- gc: LLM scripts `import gc` to call `gc.collect()` after deleting a model. The run's
  objects are the interpreter's, not the script's CPython objects: `collect` checks its
  generation as CPython does and frees nothing a script could see, returning 0 (CPython's
  count of unreachable objects depends on its own internals); `enable`, `disable` and
  `isenabled` keep a flag that changes nothing else.
- weakref: `ref(obj)` (torch_ema keeps its parameters so): a weak reference held on the
  interpreter's own object, so calling it gives the object while the run keeps it and None
  once the interpreter has dropped it, as CPython's reference counts do; Python's TypeError
  for the builtins CPython cannot refer to weakly; a callback is refused (it would run the
  script from the interpreter's garbage collection), and so are proxies and the weak
  containers.
- fnmatch: Python's own `fnmatch`, `fnmatchcase`, `filter` and `translate` on strings (and
  bytes) (Avalanche's Synaptic Intelligence plugin skips parameters whose names match
  exclusion patterns), the texts bounded by --max-sequence; numbers and None raise Python's
  own TypeError, any other object fnmatch's message with its type's name.
- abc: `ABC` is bundled library code (gradtrace/lib/abc.gt); `abstractmethod` marks a
  function, and instantiating a subclass of ABC that leaves one unimplemented raises
  Python 3.11's TypeError (classes.py asks `abstract_names`).
"""
from __future__ import annotations

import ast
import codecs
import errno
import fnmatch
import gc
import json
import operator
import statistics
import string
import textwrap
import unicodedata
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..bytes_methods import check_codec
from ..errors import LimitExceeded, NotSupportedError, ScriptError, TorchTypeError
from .abc_checks import ABCMETA
from .builtin_classes import unwrap_builtin
from .hashlib_module import hashlib_namespace
from .import_effects import note_import
from .objects import BuiltinFunction, Property, type_name
from .operators import BINOPS, COMPARE, INPLACE, UNARY
from .runtime import PYTHON_ERRORS

if TYPE_CHECKING:
    from .core import Interpreter


def _python(module: Any, name: str, fn: Callable[..., Any]) -> BuiltinFunction:
    return BuiltinFunction(name, fn, getattr(module, name))


# ------------------------------------------------------------------------ operator


class ItemGetter:
    """operator.itemgetter(*items)."""

    __slots__ = ("interp", "items")

    def __init__(self, interp: Interpreter, items: tuple[Any, ...]):
        self.interp, self.items = interp, items

    def __call__(self, obj: Any) -> Any:
        got = tuple(self.interp.get_item(obj, item) for item in self.items)
        return got[0] if len(got) == 1 else got

    def __repr__(self) -> str:
        return f"operator.itemgetter({', '.join(repr(i) for i in self.items)})"


class AttrGetter:
    """operator.attrgetter(*names): each a dotted path read through the allow-lists."""

    __slots__ = ("interp", "names")

    def __init__(self, interp: Interpreter, names: tuple[Any, ...]):
        for name in names:
            if not isinstance(name, str):
                raise TorchTypeError("attribute name must be a string")
        self.interp, self.names = interp, names

    def _get(self, obj: Any, dotted: str) -> Any:
        for part in dotted.split("."):
            obj = self.interp.get_attribute(obj, part, None)
        return obj

    def __call__(self, obj: Any) -> Any:
        got = tuple(self._get(obj, name) for name in self.names)
        return got[0] if len(got) == 1 else got

    def __repr__(self) -> str:
        return f"operator.attrgetter({', '.join(repr(n) for n in self.names)})"


class MethodCaller:
    """operator.methodcaller(name, *args, **kwargs)."""

    __slots__ = ("interp", "name", "args", "kwargs")

    def __init__(self, interp: Interpreter, name: Any, args: tuple[Any, ...],
                 kwargs: dict[str, Any]):
        if not isinstance(name, str):
            raise TorchTypeError("method name must be a string")
        self.interp, self.name, self.args, self.kwargs = interp, name, args, kwargs

    def __call__(self, obj: Any) -> Any:
        method = self.interp.get_attribute(obj, self.name, None)
        return self.interp.call(method, list(self.args), dict(self.kwargs), None)

    def __repr__(self) -> str:
        parts = [repr(self.name), *(repr(a) for a in self.args),
                 *(f"{k}={v!r}" for k, v in self.kwargs.items())]
        return f"operator.methodcaller({', '.join(parts)})"


_BINARY_NAMES = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
                 "mod": "%", "pow": "**", "matmul": "@", "and_": "&", "or_": "|", "xor": "^"}
_COMPARE_NAMES = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
                  "is_": "is", "is_not": "is not"}


def _operator_namespace(interp: Interpreter) -> stdlib.Namespace:
    table: dict[str, Any] = {}

    def binary(symbol: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        return lambda a, b: interp.apply_op(fn, a, b, symbol, None)

    def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            try:
                return fn(*args)
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err), kind=type(err).__name__) from None
        return call

    for name, symbol in _BINARY_NAMES.items():
        table[name] = _python(operator, name, binary(symbol, BINOPS[symbol]))
        inplace = "i" + name.rstrip("_")
        table[inplace] = _python(operator, inplace, binary(symbol, INPLACE[symbol]))
    for name, symbol in _COMPARE_NAMES.items():
        table[name] = _python(operator, name, guarded(COMPARE[symbol]))
    table["neg"] = _python(operator, "neg", guarded(UNARY["-"]))
    table["pos"] = _python(operator, "pos", guarded(UNARY["+"]))
    table["invert"] = _python(operator, "invert", guarded(UNARY["~"]))
    table["inv"] = _python(operator, "inv", guarded(UNARY["~"]))
    table["abs"] = _python(operator, "abs", guarded(abs))
    table["not_"] = _python(operator, "not_", lambda a: not interp.truth(a, None))
    table["truth"] = _python(operator, "truth", lambda a: interp.truth(a, None))
    table["getitem"] = _python(operator, "getitem", lambda a, b: interp.get_item(a, b))
    table["contains"] = _python(operator, "contains", guarded(lambda a, b: COMPARE["in"](b, a)))
    table["concat"] = _python(operator, "concat", binary("+", operator.concat))
    table["index"] = _python(operator, "index", guarded(operator.index))
    table["itemgetter"] = _python(operator, "itemgetter",
                                  lambda *items: ItemGetter(interp, items))
    table["attrgetter"] = _python(operator, "attrgetter",
                                  lambda *names: AttrGetter(interp, names))
    table["methodcaller"] = _python(
        operator, "methodcaller",
        lambda name, /, *args, **kwargs: MethodCaller(interp, name, args, kwargs))
    return stdlib.Namespace("operator", table)


# ------------------------------------------------------------------------ string

_STRING_CONSTANTS = ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits",
                     "hexdigits", "octdigits", "punctuation", "printable", "whitespace")


def _string_namespace(interp: Interpreter) -> stdlib.Namespace:
    table: dict[str, Any] = {name: getattr(string, name) for name in _STRING_CONSTANTS}
    table["capwords"] = _python(string, "capwords", string.capwords)
    return stdlib.Namespace("string", table)


# ------------------------------------------------------------------------ json

_PLAIN = (str, int, float, bool, type(None))


def _plain(interp: Interpreter, value: Any, budget: list[int], depth: int = 0) -> Any:
    """The value as plain Python data for json, or Python's TypeError."""
    interp.tick()  # a step per value: a large structure is bounded by --timeout too
    budget[0] -= 1
    if budget[0] < 0:
        raise LimitExceeded("json.dumps of more than --max-sequence values")
    if depth > interp.limits.max_call_depth:
        raise ScriptError("maximum recursion depth exceeded while encoding a JSON object",
                          kind="RecursionError")
    value = unwrap_builtin(value)  # a str Enum member, an AttrDict: their plain values
    if isinstance(value, _PLAIN) and type(value) in _PLAIN:
        return value
    if type(value) in (list, tuple):
        return [_plain(interp, v, budget, depth + 1) for v in value]
    if type(value) in (dict, stdlib.OrderedDict):
        out = {}
        for k, v in value.items():
            k = unwrap_builtin(k)
            if not isinstance(k, _PLAIN):
                raise TorchTypeError("keys must be str, int, float, bool or None, not "
                                     f"{type_name(k)}")
            out[k] = _plain(interp, v, budget, depth + 1)
        return out
    raise TorchTypeError(f"Object of type {type_name(value)} is not JSON serializable")


def _json_namespace(interp: Interpreter) -> stdlib.Namespace:
    limit = interp.limits.max_sequence

    def dumps(obj: Any, *, skipkeys: bool = False, ensure_ascii: bool = True,
              check_circular: bool = True, allow_nan: bool = True, cls: Any = None,
              indent: Any = None, separators: Any = None, default: Any = None,
              sort_keys: bool = False, **kw: Any) -> str:
        if cls is not None or default is not None or kw:
            raise NotSupportedError("json.dumps with cls=, default= or other hooks is not "
                                    "supported: gradtrace encodes plain data only")
        if indent is not None and not isinstance(indent, (int, str)):
            raise TorchTypeError("indent must be an int or a string")
        if isinstance(indent, int) and indent > 1000:
            raise LimitExceeded("json.dumps indent over 1000")
        text = json.dumps(_plain(interp, obj, [limit]), skipkeys=skipkeys,
                          ensure_ascii=ensure_ascii, allow_nan=allow_nan, indent=indent,
                          separators=separators, sort_keys=sort_keys)
        if len(text) > limit:
            raise LimitExceeded(f"json.dumps made more than {limit:,} characters "
                                "(raise the limit with --max-sequence)")
        return text

    def loads(s: Any, **kw: Any) -> Any:
        if kw:
            raise NotSupportedError("json.loads with hooks is not supported: gradtrace "
                                    "decodes plain data only")
        if not isinstance(s, str):
            raise TorchTypeError("the JSON object must be str, bytes or bytearray, not "
                                 f"{type_name(s)}")
        if len(s) > limit:
            raise LimitExceeded(f"json.loads of more than {limit:,} characters")
        try:
            return json.loads(s)
        except json.JSONDecodeError as err:
            raise ScriptError(str(err), kind="JSONDecodeError") from None
        except RecursionError:
            raise ScriptError("maximum recursion depth exceeded while decoding a JSON "
                              "array from a unicode string", kind="RecursionError") from None

    return stdlib.Namespace("json", {
        "dumps": _python(json, "dumps", dumps), "loads": _python(json, "loads", loads),
        "JSONDecodeError": stdlib.TorchExceptionType("JSONDecodeError", "json.decoder")})


# ------------------------------------------------------------------------ unicodedata

_UNICODEDATA = ("lookup", "name", "decimal", "digit", "numeric", "category", "bidirectional",
                "combining", "east_asian_width", "mirrored", "decomposition")
MAX_EXPANSION = 18  # the most characters one character normalizes to (U+FDFA under NFKD)


def _unicodedata_namespace(interp: Interpreter) -> stdlib.Namespace:
    """Python's unicodedata functions on strings, with Python's errors; normalize's result
    is bounded by --max-sequence before it is built."""
    limit = interp.limits.max_sequence

    def guard(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            try:
                return fn(*args)
            except (TypeError, ValueError, KeyError) as exc:
                message = str(exc)
                for arg in args:  # Python names the host class: say the script's type
                    host, shown = type(arg).__name__, type_name(arg)
                    message = message.replace(f"not {host}", f"not {shown}").replace(
                        f"not '{host}'", f"not '{shown}'")
                raise ScriptError(message, kind=type(exc).__name__) from None
        return call

    def bounded(form: Any, text: Any) -> tuple[Any, Any]:
        if isinstance(text, str) and len(text) * MAX_EXPANSION > limit:
            raise LimitExceeded(f"unicodedata.normalize could make more than {limit:,} "
                                "characters (raise the limit with --max-sequence)")
        return form, text

    table: dict[str, Any] = {name: _python(unicodedata, name, guard(getattr(unicodedata, name)))
                             for name in _UNICODEDATA}
    table["normalize"] = _python(unicodedata, "normalize", guard(
        lambda form, text: unicodedata.normalize(*bounded(form, text))))
    table["is_normalized"] = _python(unicodedata, "is_normalized",
                                     guard(unicodedata.is_normalized))
    table["unidata_version"] = unicodedata.unidata_version
    return stdlib.Namespace("unicodedata", table)


# ------------------------------------------------------------------------ codecs

MAX_ESCAPE = 10  # the most characters one character encodes to (`\\U0001f600`)


def _codecs_namespace(interp: Interpreter) -> stdlib.Namespace:
    """Python's codecs.encode/decode on str and bytes, with a codec from the fixed list of
    text encodings; an encoding's result is bounded by --max-sequence before it is built."""
    limit = interp.limits.max_sequence

    def coded(fn: Callable[..., Any], grows: bool) -> Callable[..., Any]:
        def call(obj: Any, encoding: Any = "utf-8", errors: Any = "strict") -> Any:
            check_codec(encoding, errors)
            if grows and isinstance(obj, (str, bytes)) and len(obj) * MAX_ESCAPE > limit:
                raise LimitExceeded(f"codecs.{fn.__name__} could make more than {limit:,} "
                                    "items (raise the limit with --max-sequence)")
            try:
                return fn(obj, encoding, errors)
            except (TypeError, ValueError) as exc:  # (UnicodeError is a ValueError)
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
        return call

    return stdlib.Namespace("codecs", {
        "encode": _python(codecs, "encode", coded(codecs.encode, grows=True)),
        "decode": _python(codecs, "decode", coded(codecs.decode, grows=False))})


# ------------------------------------------------------------------------ ast


def _holds_complex(value: Any) -> bool:
    if isinstance(value, complex):
        return True
    if isinstance(value, dict):
        return any(_holds_complex(k) or _holds_complex(v) for k, v in value.items())
    if isinstance(value, (tuple, list, set, frozenset)):
        return any(_holds_complex(v) for v in value)
    return False


SYNTAX_ERROR_ATTRIBUTES = ("msg", "filename", "lineno", "offset", "text", "end_lineno",
                           "end_offset")
# what Python's parser builds per character of the text, counted in --max-sequence items: a
# two-character element ("1,") makes an AST node of a few hundred bytes and its value
AST_NODE_COST = 20


def _ast_namespace(interp: Interpreter) -> stdlib.Namespace:
    """ast.literal_eval of a string: Python's, which evaluates literals only (numbers,
    strings, bytes, tuples, lists, dicts, sets, booleans, None) and raises ValueError or
    SyntaxError for anything else."""
    limit = interp.limits.max_sequence

    def literal_eval(node_or_string: Any) -> Any:
        if not isinstance(node_or_string, str):  # (a script has no AST nodes)
            raise ScriptError(f"malformed node or string: {node_or_string!r}",
                              kind="ValueError")
        if len(node_or_string) * AST_NODE_COST > limit:
            raise LimitExceeded(f"ast.literal_eval of more than {limit // AST_NODE_COST:,} "
                                "characters (raise the limit with --max-sequence)")
        try:
            value = ast.literal_eval(node_or_string)
        except SyntaxError as exc:
            error = ScriptError(str(exc), kind="SyntaxError")
            error.script_args = exc.args  # type: ignore[attr-defined]
            error.python_attributes = {name: getattr(exc, name) for name in  # type: ignore
                                       SYNTAX_ERROR_ATTRIBUTES}
            raise error from None
        except (ValueError, TypeError, MemoryError, RecursionError) as exc:
            raise ScriptError(str(exc), kind=type(exc).__name__) from None
        if _holds_complex(value):
            raise NotSupportedError("ast.literal_eval made a complex number, which gradtrace "
                                    "scripts do not have")
        return value

    return stdlib.Namespace("ast", {"literal_eval": _python(ast, "literal_eval", literal_eval)})


# ------------------------------------------------------------------------ statistics

_STATISTICS = ("mean", "fmean", "median", "median_low", "median_high", "mode", "multimode",
               "stdev", "pstdev", "variance", "pvariance", "harmonic_mean", "geometric_mean")


def _statistics_namespace(interp: Interpreter) -> stdlib.Namespace:
    def numbers(data: Any) -> list[Any]:
        items = list(interp.materialize(data, "a statistics argument"))
        for item in items:
            if type(item) not in (int, float, bool):
                raise NotSupportedError(f"statistics of a {type_name(item)}: gradtrace takes "
                                        "Python numbers (use .tolist() on a tensor)")
        return items

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(data: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(numbers(data), *args, **kwargs)
            except statistics.StatisticsError as err:
                raise ScriptError(str(err), kind="StatisticsError") from None
        return call

    table: dict[str, Any] = {name: _python(statistics, name, wrap(getattr(statistics, name)))
                             for name in _STATISTICS}
    table["StatisticsError"] = stdlib.TorchExceptionType("StatisticsError", "statistics")
    return stdlib.Namespace("statistics", table)


# ------------------------------------------------------------------------ gc


def _gc_namespace(interp: Interpreter) -> stdlib.Namespace:
    enabled = [True]

    def collect(generation: Any = 2) -> int:
        if not isinstance(generation, int):
            raise TorchTypeError(f"'{type_name(generation)}' object cannot be interpreted as "
                                 "an integer")
        if not 0 <= generation <= 2:
            raise ScriptError("invalid generation", kind="ValueError")
        return 0

    def enable() -> None:
        enabled[0] = True

    def disable() -> None:
        enabled[0] = False

    def isenabled() -> bool:
        return enabled[0]

    return stdlib.Namespace("gc", {
        "collect": _python(gc, "collect", collect), "enable": _python(gc, "enable", enable),
        "disable": _python(gc, "disable", disable),
        "isenabled": _python(gc, "isenabled", isenabled)})


# ------------------------------------------------------------------------ textwrap

_WRAPPER_OPTIONS = {"width": int, "initial_indent": str, "subsequent_indent": str,
                    "expand_tabs": bool, "replace_whitespace": bool,
                    "fix_sentence_endings": bool, "break_long_words": bool,
                    "drop_whitespace": bool, "break_on_hyphens": bool, "tabsize": int,
                    "max_lines": (int, type(None)), "placeholder": str}


def _textwrap_namespace(interp: Interpreter) -> stdlib.Namespace:
    """wrap, fill, shorten, dedent and indent on strings, their results bounded by
    --max-sequence before they are built (each line may repeat an indent)."""
    limit = interp.limits.max_sequence

    def bounded(text: Any, repeated: int, what: str) -> str:
        if not isinstance(text, str):
            raise TorchTypeError(f"expected string or bytes-like object, got "
                                 f"'{type_name(text)}'")
        if len(text) + (len(text) + 1) * repeated > limit:
            raise LimitExceeded(f"textwrap.{what} could make more than {limit:,} characters "
                                "(raise the limit with --max-sequence)")
        return text

    def options(kwargs: dict[str, Any]) -> dict[str, Any]:
        for name, value in kwargs.items():
            wanted = _WRAPPER_OPTIONS.get(name)
            if wanted is None:
                raise TorchTypeError(f"TextWrapper.__init__() got an unexpected keyword "
                                     f"argument '{name}'")
            if not isinstance(value, wanted):
                raise TorchTypeError(f"textwrap's {name} must be {wanted}, not "
                                     f"{type_name(value)}")
        return kwargs

    def wrapping(what: str) -> Callable[..., Any]:
        fn = getattr(textwrap, what)

        def call(text: Any, width: Any = 70, **kwargs: Any) -> Any:
            kwargs = options(kwargs)
            repeated = max(len(kwargs.get("initial_indent", "")),
                           len(kwargs.get("subsequent_indent", ""))) + 1
            text = bounded(text, repeated, what)
            try:
                return fn(text, width, **kwargs)
            except (ValueError, TypeError) as err:
                raise ScriptError(str(err), kind=type(err).__name__) from None
        return call

    def shorten(text: Any, width: Any, **kwargs: Any) -> str:
        kwargs = options(kwargs)
        text = bounded(text, len(kwargs.get("placeholder", " [...]")), "shorten")
        try:
            return textwrap.shorten(text, width, **kwargs)
        except (ValueError, TypeError) as err:
            raise ScriptError(str(err), kind=type(err).__name__) from None

    def dedent(text: Any) -> str:
        return textwrap.dedent(bounded(text, 0, "dedent"))

    def indent(text: Any, prefix: Any, predicate: Any = None) -> str:
        if not isinstance(prefix, str):
            raise TorchTypeError(f"can only concatenate str (not \"{type_name(prefix)}\") "
                                 "to str")
        text = bounded(text, len(prefix), "indent")
        if predicate is None:
            return textwrap.indent(text, prefix)
        return textwrap.indent(text, prefix,
                               lambda line: interp.truth(interp.call(predicate, [line], {},
                                                                     None), None))

    table = {name: _python(textwrap, name, fn) for name, fn in (
        ("wrap", wrapping("wrap")), ("fill", wrapping("fill")), ("shorten", shorten),
        ("dedent", dedent), ("indent", indent))}
    return stdlib.Namespace("textwrap", table)


# ------------------------------------------------------------------------ fnmatch

_FNMATCH_SCALARS = (int, float, type(None))  # Python's own fnmatch may see these


def _fnmatch_namespace(interp: Interpreter) -> stdlib.Namespace:
    """fnmatch's functions on str and bytes; Python's own code runs on them (and on
    numbers and None, for its own TypeError), never on the script's other objects."""
    limit = interp.limits.max_sequence

    def text(value: Any) -> Any:
        if isinstance(value, (str, bytes)):
            if len(value) > limit:
                raise LimitExceeded(f"fnmatch got a text of more than {limit:,} characters "
                                    "(raise the limit with --max-sequence)")
            return value
        if isinstance(value, _FNMATCH_SCALARS):
            return value
        raise TorchTypeError(f"expected str, bytes or os.PathLike object, not "
                             f"{type_name(value)}")

    def run(fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except (TypeError, ValueError) as err:
            raise ScriptError(str(err), kind=type(err).__name__) from None

    def fnmatch_(name: Any, pat: Any) -> bool:
        return run(fnmatch.fnmatch, text(name), text(pat))

    def fnmatchcase(name: Any, pat: Any) -> bool:
        return run(fnmatch.fnmatchcase, text(name), text(pat))

    def filter_(names: Any, pat: Any) -> list[Any]:
        items = [text(name) for name in interp.materialize(names, "fnmatch.filter's names")]
        return run(fnmatch.filter, items, text(pat))

    def translate(pat: Any) -> str:
        return run(fnmatch.translate, text(pat))

    return stdlib.Namespace("fnmatch", {name: _python(fnmatch, name, fn) for name, fn in (
        ("fnmatch", fnmatch_), ("fnmatchcase", fnmatchcase), ("filter", filter_),
        ("translate", translate))})


# ------------------------------------------------------------------------ abc


class Abstracts:
    """The functions @abstractmethod marked in this run."""

    def __init__(self) -> None:
        self.marked: weakref.WeakSet[Any] = weakref.WeakSet()

    def mark(self, fn: Any) -> Any:
        try:
            self.marked.add(fn)
        except TypeError:
            raise NotSupportedError(f"abstractmethod of a {type_name(fn)}") from None
        return fn

    def is_abstract(self, value: Any) -> bool:
        if type(value) is Property:
            return any(f is not None and f in self.marked
                       for f in (value.fget, value.fset, value.fdel))
        function = getattr(value, "function", None)  # staticmethod / classmethod
        try:
            return value in self.marked or (function is not None and function in self.marked)
        except TypeError:
            return False

    def check(self, cls: Any) -> None:
        """Python 3.11's TypeError if `cls` (a class of abc.ABCMeta) has abstract methods."""
        if not self.marked or cls.metaclass is not ABCMETA:
            return
        names = sorted({name for c in cls.mro for name in c.attrs
                        if self.is_abstract(cls.lookup(name))})
        if names:
            s = "s" if len(names) > 1 else ""
            raise TorchTypeError(f"Can't instantiate abstract class {cls.name} with abstract "
                                 f"method{s} {', '.join(names)}")


# ------------------------------------------------------------------------ weakref

# the builtins CPython cannot refer to weakly (a set, a frozenset and subclasses can be)
_NOT_WEAKLY_REFERABLE = (int, float, complex, str, bytes, tuple, list, dict, bool,
                         type(None))


class WeakRef:
    """weakref.ref(obj): a weak reference to the interpreter's object for `obj`."""

    __slots__ = ("ref", "__weakref__")
    python_type_name = "weakref.ReferenceType"

    def __init__(self, obj: Any):
        self.ref = weakref.ref(obj)

    def __call__(self) -> Any:
        return self.ref()

    def __eq__(self, other: object) -> bool:
        return type(other) is WeakRef and self.ref == other.ref

    def __hash__(self) -> int:
        return hash(self.ref)

    def __repr__(self) -> str:
        obj = self.ref()
        if obj is None:
            return f"<weakref at 0x{id(self):x}; dead>"
        return f"<weakref at 0x{id(self):x}; to '{type_name(obj)}' at 0x{id(obj):x}>"


def _weakref_namespace(interp: Interpreter) -> stdlib.Namespace:
    def ref(obj: Any, callback: Any = None, /) -> WeakRef:
        if type(obj) in _NOT_WEAKLY_REFERABLE:
            raise TorchTypeError(f"cannot create weak reference to '{type_name(obj)}' object")
        if callback is not None:
            raise NotSupportedError("weakref.ref's callback is not supported by gradtrace")
        try:
            return WeakRef(obj)
        except TypeError:  # an object CPython refers to weakly, the interpreter's cannot be
            raise NotSupportedError(
                f"a weak reference to a '{type_name(obj)}' object is not supported by "
                "gradtrace") from None

    return stdlib.Namespace("weakref", {"ref": _python(weakref, "ref", ref)})


# ------------------------------------------------------------------------ imports only

# Python's modules a script may import though none of their names runs here: research code
# keeps `import pdb` for a `pdb.set_trace()` it has since commented out, `import glob,
# shutil, pickle` for a data folder a snippet no longer reads, `import multiprocessing` for
# workers it does not start. The import binds the module and nothing more; each of its
# names is gradtrace's gap by name (a run has no terminal to debug from, no files but its
# own, no processes, threads or network).
IMPORT_ONLY_MODULES = (
    "pdb", "glob", "shutil", "pickle", "csv", "threading", "multiprocessing", "subprocess",
    "socket", "signal", "zipfile", "gzip", "tarfile", "struct", "uuid", "platform",
    "cProfile", "pstats", "shlex", "getpass", "urllib", "urllib.request",
    "urllib.parse", "concurrent", "concurrent.futures")


# ------------------------------------------------------------------------ errno


def _errno_namespace() -> stdlib.Namespace:
    """`import os, errno`: Python's error numbers (plain ints) and `errorcode`, a fresh
    dict each run, from this Python's own module (Linux's numbers, as torch's run has)."""
    table: dict[str, Any] = {name: getattr(errno, name) for name in dir(errno)
                             if name.startswith("E") and type(getattr(errno, name)) is int}
    table["errorcode"] = dict(errno.errorcode)
    return stdlib.Namespace("errno", table)


# ------------------------------------------------------------------------ pydoc


def _pydoc_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`pydoc.locate("torch.nn.ReLU")`, as configurable model code turns a dotted name from
    its config into a class: Python's walk (the longest prefix that is a module, else the
    builtins, then attributes), where each module is one the script could import (sys.modules
    of the run; a module torch's environment lacks ends the walk, as its ImportError does;
    one gradtrace does not offer is refused as its import is) and each attribute is read as
    the script's `getattr` reads it. A name not found is None."""
    from .modules import TORCH_ENVIRONMENT

    def safeimport(name: str) -> Any:
        modules = interp.modules["sys"].table["modules"]
        found = modules.get(name)
        if found is not None:
            note_import(interp.modules, name)
            return found
        top = name.split(".")[0]
        if top in TORCH_ENVIRONMENT and top not in modules:  # (a Python module, not offered)
            raise NotSupportedError(f"pydoc.locate of '{name}': import of '{top}' is not "
                                    "supported")
        return None  # no such module (not importable under torch either)

    def locate(path: Any, forceload: Any = 0) -> Any:
        if type(path) is not str:
            raise ScriptError(f"'{type_name(path)}' object has no attribute 'split'",
                              kind="AttributeError")
        parts = [part for part in path.split(".") if part]
        module, n = None, 0
        while n < len(parts):
            nextmodule = safeimport(".".join(parts[:n + 1]))
            if nextmodule is None:
                break
            module, n = nextmodule, n + 1
        if module is not None:
            found = module
        elif not parts:
            raise NotSupportedError("pydoc.locate of '': the builtins module is not "
                                    "available in gradtrace scripts")
        else:
            name = parts[n]
            if name in interp.builtins:
                found = interp.builtins[name]
            elif name in stdlib.NOT_SUPPORTED_BUILTINS:
                raise NotSupportedError(stdlib.NOT_SUPPORTED_BUILTINS[name])
            else:
                return None
            n += 1
        for part in parts[n:]:
            try:
                found = interp.get_attribute(found, part, None)
            except ScriptError as err:
                if err.kind != "AttributeError":
                    raise
                return None
        return found

    locate.__qualname__ = "locate"  # (Python's function, as printed and in its messages)
    return stdlib.Namespace("pydoc", {
        "locate": BuiltinFunction("locate", locate, locate),  # (shown as Python's function)
        "ErrorDuringImport": stdlib.TorchExceptionType("ErrorDuringImport", "pydoc")})


def pure_namespaces(interp: Interpreter) -> dict[str, stdlib.Namespace]:
    return {"operator": _operator_namespace(interp), "string": _string_namespace(interp),
            "unicodedata": _unicodedata_namespace(interp),
            "codecs": _codecs_namespace(interp), "ast": _ast_namespace(interp),
            "json": _json_namespace(interp), "statistics": _statistics_namespace(interp),
            "textwrap": _textwrap_namespace(interp), "fnmatch": _fnmatch_namespace(interp),
            "gc": _gc_namespace(interp),
            "weakref": _weakref_namespace(interp), "errno": _errno_namespace(),
            "hashlib": hashlib_namespace(), "pydoc": _pydoc_namespace(interp),
            **{name: stdlib.Namespace(name, {}) for name in IMPORT_ONLY_MODULES},
            "abc": stdlib.Namespace("abc", {"ABC": stdlib.LibraryName("abc", "ABC"),
                                            "ABCMeta": stdlib.LibraryName("abc", "ABCMeta"),
                                            "abstractmethod":
                                                stdlib.LibraryName("abc", "abstractmethod")})}
