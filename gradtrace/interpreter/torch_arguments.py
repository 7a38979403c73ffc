"""Arguments of torch functions and Tensor methods checked as torch's Python argument
parser checks them (torch/csrc/utils/python_arg_parser.cpp), with its messages, from the
signatures recorded from torch 2.13 (gradtrace/torch_signatures.json, written by
tests/tools/record_torch_signatures.py): one table, no per-function code.

- one signature: `exp(): argument 'input' (position 1) must be Tensor, not int`,
  `exp() takes 1 positional argument but 2 were given`, `exp() missing 1 required
  positional arguments: "input"`, `exp() got an unexpected keyword argument 'foo'`;
- several (overloads): the first that takes the arguments; if none does, the one whose
  argument count fits is parsed for its own message, else `sum() received an invalid
  combination of arguments - got (Tensor, str), but expected one of:` and each signature
  as torch prints it, with "didn't match because ..." under those of the call's length.

A type is checked where gradtrace's values tell it as torch's do (Tensor, Number, int,
float, bool, torch.dtype, torch.device, tuple of ints, tuple of Tensors). A Python number
is a Tensor only for the functions whose parser takes one (recorded: add, sub, mul, div,
copy_); the items of an int list and the other types (Generator, layout, memory format,
strings) are left to the function itself.

Functions not in the table (torch's Python-level ones, like most of torch.nn.functional)
have only their `bool` parameters checked, from the engine's annotations
(`check_bool_arguments`), as torch's parser would check them.
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from ..engine.device import Device
from ..engine.dtypes import DType
from ..engine.tensor import Tensor
from ..errors import ScriptError
from ..source import Span
from ..stdlib import BoundMethod
from .objects import BuiltinType
from .objects import type_name as _script_type_name

_TABLE = Path(__file__).resolve().parents[1] / "torch_signatures.json"
# torch's parser also takes numpy's names (python_arg_parser.cpp numpy_compatibility_arg_names)
_NUMPY_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
                  "other": ("x2",)}
# the parser's C++ type names as its messages print them
_PRINTED = {"Scalar": "Number", "int64_t": "int", "SymInt": "int", "double": "float",
            "ScalarType": "torch.dtype", "Device": "torch.device", "Layout": "torch.layout",
            "Generator": "torch.Generator", "MemoryFormat": "torch.memory_format",
            "IntArrayRef": "tuple of ints", "SymIntArrayRef": "tuple of ints",
            "TensorList": "tuple of Tensors", "ITensorListRef": "tuple of Tensors",
            "c10::string_view": "str", "std::string_view": "str", "ArrayRef<double>":
            "tuple of floats", "PyObject*": "object", "Dimname": "name", "DimnameList":
            "tuple of names", "Storage": "Storage", "Stream": "Stream"}
_NUMBERS = (int, float, bool)


def type_name(value: Any) -> str:
    """The type's name in torch's messages (a call may list 100,000 arguments' types)."""
    if isinstance(value, Tensor):
        return "Tensor"
    return _SIMPLE.get(type(value)) or _script_type_name(value)


_SIMPLE = {int: "int", float: "float", bool: "bool", str: "str", list: "list",
           tuple: "tuple", dict: "dict", type(None): "NoneType", complex: "complex"}


class Parameter:
    """One parameter of a signature: `IntArrayRef[1]? dim`, `bool keepdim=False`."""

    __slots__ = ("type", "name", "optional", "default", "keyword_only", "sized")

    def __init__(self, text: str, keyword_only: bool):
        declared, _, self.default = text.partition("=")
        self.default = self.default.strip() if "=" in text else None
        kind, _, self.name = declared.strip().rpartition(" ")
        self.optional = kind.endswith("?")
        kind = kind.rstrip("?")
        self.sized = "[" in kind  # IntArrayRef[2]: a single int is taken as [n, n]
        self.type = kind.split("[")[0]
        self.keyword_only = keyword_only

    @property
    def required(self) -> bool:
        return self.default is None

    @property
    def allows_none(self) -> bool:
        return self.optional or self.default == "None"

    def printed(self) -> str:
        text = f"{_PRINTED.get(self.type, self.type)} {self.name}"
        if self.default is not None:
            default = self.default.strip('"')
            text += f" = {default}"
        return text

    def takes(self, value: Any, numbers: bool = False) -> bool:
        """Whether torch's parser takes `value` here (unchecked types: yes); `numbers`: a
        Python number for a Tensor too (torch's few arithmetic ops and `to`/`copy_`)."""
        if value is None:
            return self.allows_none
        kind, t = self.type, type(value)
        if kind == "Tensor":
            return isinstance(value, Tensor) or numbers and (t in _NUMBERS or t is complex)
        if kind == "Scalar":
            return t in _NUMBERS or t is complex or isinstance(value, Tensor)
        if kind in ("int64_t", "SymInt"):
            return t is int or isinstance(value, Tensor) and not value.dtype.is_floating_point
        if kind == "double":
            return t in _NUMBERS or isinstance(value, Tensor)
        if kind == "bool":
            return t is bool
        if kind == "ScalarType":
            return t is DType or t is BuiltinType and value.type in _NUMBERS
        if kind == "Device":
            return t in (str, int, Device)
        if kind in ("TensorList", "ITensorListRef"):
            return isinstance(value, (list, tuple))
        if kind in ("IntArrayRef", "SymIntArrayRef"):
            return isinstance(value, (list, tuple)) or t is int or isinstance(value, Tensor)
        return True

    def matches(self, value: Any, numbers: bool) -> bool:
        """`takes`, as torch's invalid-arguments message marks it: a Tensor is not a
        Number there."""
        if self.type == "Scalar" and isinstance(value, Tensor):
            return False
        return self.takes(value, numbers)


class Signature:
    """One of a parser's signatures, parsed from its recorded text."""

    __slots__ = ("params", "hidden", "min_args", "max_args", "max_pos_args",
                 "varargs")

    def __init__(self, text: str):
        head, _, flag = text.partition("|")
        # a deprecated signature is taken but never shown, as a hidden one
        self.hidden = flag in ("hidden", "deprecated")
        inner = head[head.index("(") + 1:head.rindex(")")]
        params, keyword_only = [], False
        for part in _split(inner):
            if part == "*":
                keyword_only = True
            else:
                params.append(Parameter(part, keyword_only))
        self.params: list[Parameter] = params
        self.min_args = sum(p.required for p in params)
        self.max_args = len(params)
        self.max_pos_args = sum(not p.keyword_only for p in params)
        # view(2, 3) as view((2, 3)): a lone positional int list takes its ints one by one
        self.varargs = self.max_pos_args == 1 and params[0].type in ("IntArrayRef",
                                                                      "SymIntArrayRef")

    def printed(self) -> str:
        parts, star = [], False
        for p in self.params:
            if p.keyword_only and not star:
                parts.append("*")
                star = True
            parts.append(p.printed())
        return f"({', '.join(parts)})"

    def parse(self, name: str, args: list[Any], kwargs: dict[str, Any],
              numbers: bool = False) -> str | None:
        """torch's FunctionSignature::parse: None if it takes the arguments, else the
        message it raises."""
        nargs = len(args)
        if nargs > self.max_pos_args:
            if not (self.varargs and type(args[0]) is int):
                return self._extra_args(name, nargs)
            args, nargs = [list(args)], 1  # view(2, 3): the ints are the one list
        used = 0
        missing = []
        for position, p in enumerate(self.params):
            keyword = position >= nargs
            if not keyword:
                if p.keyword_only:
                    return self._extra_args(name, nargs)
                value, found = args[position], True
            else:
                found, key = False, p.name
                for key in (p.name, *_NUMPY_ALIASES.get(p.name, ())):
                    if key in kwargs:
                        found = True
                        break
                value = kwargs.get(key)
                used += found
            if not found:
                if p.required:
                    missing.append(p.name)
                continue
            if p.takes(value, numbers) or (self.varargs and position == 0 and not keyword
                                  and type(value) is int):
                continue
            where = "" if keyword else f" (position {position + 1})"
            return (f"{name}(): argument '{p.name}'{where} must be "
                    f"{_PRINTED.get(p.type, p.type)}, not {type_name(value)}")
        if missing:
            names = ", ".join(f'"{m}"' for m in missing)
            plural = "s" if len(missing) == 1 else ""  # (torch's own wording)
            return f"{name}() missing {len(missing)} required positional argument{plural}: " \
                   f"{names}"
        if used < len(kwargs):
            return self._extra_kwargs(name, args, kwargs)
        return None

    def _extra_args(self, name: str, nargs: int) -> str:
        if self.min_args != self.max_pos_args:
            return (f"{name}() takes from {self.min_args} to {self.max_pos_args} positional "
                    f"arguments but {nargs} were given")
        s = "" if self.max_pos_args == 1 else "s"
        return (f"{name}() takes {self.max_pos_args} positional argument{s} but {nargs} "
                f"{'was' if nargs == 1 else 'were'} given")

    def _extra_kwargs(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> str:
        known = {p.name: i for i, p in enumerate(self.params)}
        for alias_of, aliases in _NUMPY_ALIASES.items():
            for alias in aliases:  # (numpy's name only where torch's is not given)
                if alias_of in known and alias_of not in kwargs:
                    known.setdefault(alias, known[alias_of])
        for key in kwargs:
            if key not in known:
                return f"{name}() got an unexpected keyword argument '{key}'"
            if known[key] < len(args):
                return f"{name}() got multiple values for argument '{key}'"
        return f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'"

    def describe(self, args: list[Any], kwargs: dict[str, Any],
                 numbers: bool) -> str | None:
        """The "didn't match because" line torch adds under a signature of the call's
        length (its positional parameters, as many as the call's arguments)."""
        positional = [p for p in self.params if not p.keyword_only]
        # torch counts the printed signature's parts split at ", ": `*` is one, and an
        # empty list, "()", is one too
        parts = len(self.params) + (len(positional) < len(self.params))
        if len(args) + len(kwargs) != max(parts, 1):
            return None
        by_name = {p.name: p for p in self.params}
        wrong = [k for k in kwargs if k not in by_name]
        if wrong:
            return "didn't match because some of the keywords were incorrect: " + \
                ", ".join(wrong)
        marked = [f"{type_name(v)}" if i < len(positional)
                  and positional[i].matches(v, numbers) else f"!{type_name(v)}!"
                  for i, v in enumerate(args)]
        marked += [f"{k}={type_name(v)}" if by_name[k].matches(v, numbers)
                   else f"!{k}={type_name(v)}!" for k, v in kwargs.items()]
        return "didn't match because some of the arguments have invalid types: " + \
            _argument_list(marked, bool(args))


def _kind(value: Any) -> Any:
    """What `Parameter.takes` looks at: the type, a tensor's floating-pointness, which
    Python type a `float`/`int` given as a dtype is."""
    t = type(value)
    if t is Tensor or isinstance(value, Tensor):
        return t, value.dtype.is_floating_point
    if t is BuiltinType:
        return t, value.type
    return t


def _argument_list(parts: list[str], positional: bool) -> str:
    """torch's `(a, b, k=c)`: each part followed by ", ", the last one's taken off only if
    the call had positional arguments (so `(min=str, )`)."""
    text = "".join(f"{p}, " for p in parts)
    return f"({text[:-2] if positional else text})"


def _split(inner: str) -> list[str]:
    """A signature's parameters, split at top-level commas."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c in "[(<":
            depth += 1
        elif c in "])>":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    if inner[start:].strip():
        parts.append(inner[start:].strip())
    return parts


class Parser:
    """torch's PythonArgParser for one function or method."""

    __slots__ = ("name", "signatures", "numbers", "taken")

    def __init__(self, name: str, texts: list[str], numbers: bool = False):
        self.name = name
        self.signatures = [Signature(t) for t in texts]
        self.numbers = numbers  # a Python number is taken for a Tensor
        # the argument kinds of calls it took (whether a value is taken depends only on
        # its kind): a call of the same kinds needs no parse
        self.taken: set[tuple] = set()

    def check(self, args: list[Any], kwargs: dict[str, Any], span: Span | None) -> None:
        """torch's TypeError, at `span`, if no signature takes the arguments."""
        kinds = tuple([(Tensor, a.dtype.is_floating_point) if isinstance(a, Tensor)
                       else type(a) for a in args])
        if kwargs:
            kinds += tuple([(k, _kind(v)) for k, v in kwargs.items()])
        if kinds in self.taken:
            return
        message = self.message(args, kwargs)
        if message is not None:
            raise ScriptError(message, span, kind="TypeError")
        if len(self.taken) > 256:
            self.taken.clear()
        self.taken.add(kinds)

    def message(self, args: list[Any], kwargs: dict[str, Any]) -> str | None:
        if not self.signatures:  # a Tensor method that takes nothing (Python's METH_NOARGS)
            if kwargs:
                return f"TensorBase.{self.name}() takes no keyword arguments"
            return f"TensorBase.{self.name}() takes no arguments ({len(args)} given)" \
                if args else None
        name, numbers = self.name, self.numbers
        if len(self.signatures) == 1:
            return self.signatures[0].parse(name, args, kwargs, numbers)
        for signature in self.signatures:
            if signature.parse(name, args, kwargs, numbers) is None:
                return None
        count = len(args) + len(kwargs)
        plausible = [s for s in self.signatures
                     if s.min_args <= count <= s.max_args and not s.hidden]
        if len(plausible) == 1:
            return plausible[0].parse(name, args, kwargs, numbers)
        shown = [s for s in self.signatures if not s.hidden]
        got = _argument_list([type_name(a) for a in args]
                             + [f"{k}={type_name(v)}" for k, v in kwargs.items()], bool(args))
        text = f"{self.name}() received an invalid combination of arguments - got {got}, " \
               "but expected "
        if len(shown) == 1:
            return text + shown[0].printed()
        text += "one of:\n"
        for signature in shown:
            text += f" * {signature.printed()}\n"
            why = signature.describe(args, kwargs, numbers)
            if why is not None:
                text += f"      {why}\n"
        return text


def _load() -> dict[str, Parser]:
    recorded = json.loads(_TABLE.read_text())
    numbers = set(recorded["numbers_as_tensors"])
    return {key: Parser(key.rpartition(".")[2], texts, key in numbers)
            for key, texts in recorded["signatures"].items()}


PARSERS: dict[str, Parser] = _load()
# engine function -> its parser, for the torch namespace's functions (filled on first use)
_BY_FUNCTION: dict[Any, Parser | None] = {}


def parser_for(fn: Any) -> Parser | None:
    """The recorded parser of a torch function or Tensor method as a script reached it."""
    if type(fn) is BoundMethod:
        return PARSERS.get(f"Tensor.{fn.name}") if isinstance(fn.obj, Tensor) else None
    if not _BY_FUNCTION:
        from ..stdlib import MODULES, TORCH
        # an engine function torch.nn.functional also has may be torch's Python-level
        # function there (F.threshold(input, threshold, value, inplace)), another signature:
        # the call cannot tell which name it came by, so neither is checked
        elsewhere = {id(v) for ns in MODULES.values() if ns is not TORCH
                     for v in ns.table.values()}
        for name, value in TORCH.table.items():
            if callable(value) and (value not in _BY_FUNCTION or
                                    getattr(value, "__name__", None) == name):
                try:
                    _BY_FUNCTION[value] = None if id(value) in elsewhere \
                        else PARSERS.get(f"torch.{name}")
                except TypeError:  # unhashable
                    continue
    try:
        return _BY_FUNCTION.get(fn)
    except TypeError:
        return None


def check_arguments(fn: Any, args: Any, kwargs: dict[str, Any], span: Span | None) -> None:
    """A call of an engine function or Tensor method: torch's parser check from the
    recorded signatures where torch has them, else its bool parameters'."""
    parser = parser_for(fn)
    if parser is not None:
        parser.check(list(args), kwargs, span)
    else:
        check_bool_arguments(fn, args, kwargs, span)


_BOOL = ("bool",)  # annotations as written (the engine uses `from __future__ import annotations`)
# function -> ((name, position or -1 if keyword-only), ...) of its bool parameters
_DECLARED: dict[Any, tuple[tuple[str, int], ...]] = {}


def _bool_parameters(fn: Any) -> tuple[tuple[str, int], ...]:
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return ()
    found = []
    for position, p in enumerate(parameters):
        if p.annotation in _BOOL or p.annotation is bool:
            keyword_only = p.kind is p.KEYWORD_ONLY
            found.append((p.name, -1 if keyword_only else position))
    return tuple(found)


def check_bool_arguments(fn: Any, args: Any, kwargs: dict[str, Any],
                         span: Span | None) -> None:
    """torch's TypeError for a non-bool given to a parameter an engine function (or
    Tensor method) declares bool (a keyword-only one, TensorOptions' `requires_grad`, also
    takes None)."""
    if type(fn) is BoundMethod:
        function, name = fn.fn, fn.name
    else:
        function, name = getattr(fn, "__func__", fn), getattr(fn, "__name__", "function")
    module = getattr(function, "__module__", None)
    if module is None or not module.startswith("gradtrace.engine"):
        return  # (closures made per call, like a list's bound methods, are never cached)
    declared = _DECLARED.get(function)
    if declared is None:
        if len(_DECLARED) > 20_000:  # engine functions are module-level: never this many
            _DECLARED.clear()
        declared = _DECLARED[function] = _bool_parameters(function)
    if not declared:
        return
    bound = function is not fn  # a method: `self` is not among the script's arguments
    for parameter, position in declared:
        if parameter in kwargs:
            value = kwargs[parameter]
            if type(value) is bool or (value is None and position < 0):
                continue
            where = ""
        else:
            index = position - bound
            if position < 0 or index < 0 or index >= len(args):
                continue
            value = args[index]
            if type(value) is bool:
                continue
            where = f" (position {index + 1})"
        raise ScriptError(f"{name}(): argument '{parameter}'{where} must be bool, not "
                          f"{type_name(value)}", span, kind="TypeError")
