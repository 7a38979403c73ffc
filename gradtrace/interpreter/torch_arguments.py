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
float, bool, torch.dtype, torch.device, torch.Generator, str, tuple of ints, tuple of
Tensors; gradtrace has no layout or memory-format objects, so only None is one). A Python
number is a Tensor only for the functions whose parser takes one (recorded: add, sub, mul,
div, copy_). As in torch, an int list's first item is checked while parsing and the others
when the chosen signature unpacks it (`failed to unpack the object at pos 2`), and every
item of a Tensor list while parsing (`expected Tensor as element 1 in argument 0`).

An engine function torch.nn.functional also exposes keeps the parser where torch's
F.name is the same builtin as torch.name (F.conv2d); where torch's F.name is a Python
function (F.threshold), the call cannot tell which name it came by, and is not parsed.
torch.nn.functional's Python-level functions have the bool checks their inner torch calls
make, with those calls' words (recorded: F.dropout's `training` is checked as
`dropout(): argument 'train' (position 3)`, F.relu's `inplace` not at all). Other
functions not in the table have only their `bool` parameters checked, from the engine's
annotations (`check_bool_arguments`), as torch's parser would check them.
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from ..engine.device import Device
from ..engine.dtypes import DType, fits_int64
from ..engine.generator import Generator
from ..engine.layouts import STRIDED, Layout, MemoryFormat
from ..engine.tensor import Tensor
from ..errors import NotSupportedError, ScriptError
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
            "tuple of names", "Storage": "Storage", "Stream": "Stream",
            "c10::List<::std::optional<Tensor>>": "tuple of Tensors"}
_NUMBERS = (int, float, bool)
_INT_LISTS = ("IntArrayRef", "SymIntArrayRef")
_INTS = ("int64_t", "SymInt")
_PLAIN_INTS = {int, bool}
_OVERFLOW = "Overflow when unpacking long long"
_TENSOR_LISTS = ("TensorList", "ITensorListRef", "c10::List<::std::optional<Tensor>>")
_MISSING = object()


def type_name(value: Any) -> str:
    """The type's name in torch's messages (a call may list 100,000 arguments' types)."""
    if isinstance(value, Tensor):
        return "Parameter" if value.is_parameter else "Tensor"
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
            text += f" = {self.default}"
        return text

    def takes(self, value: Any, numbers: bool = False) -> bool:
        """Whether torch's parser takes `value` here (unchecked types: yes); `numbers`: a
        Python number for a Tensor too (torch's few arithmetic ops and `to`/`copy_`)."""
        if self.type == "PyObject*":  # (torch's parser takes any object there, None too)
            return True
        if value is None:
            return self.allows_none
        kind, t = self.type, type(value)
        if kind == "Tensor":
            return isinstance(value, Tensor) or numbers and (t in _NUMBERS or t is complex)
        if kind == "Scalar":
            return t in _NUMBERS or t is complex or _scalar_tensor(value)
        if kind in ("int64_t", "SymInt"):
            return t is int or isinstance(value, Tensor) and not value.dtype.is_floating_point
        if kind == "double":
            return t in _NUMBERS or _scalar_tensor(value)
        if kind == "bool":
            return t is bool
        if kind == "ScalarType":
            return t is DType or t is BuiltinType and value.type in _NUMBERS
        if kind == "Device":
            return t in (str, int, Device)
        if kind in _TENSOR_LISTS:
            return isinstance(value, (list, tuple))
        if kind in _INT_LISTS:  # (a list's first item only, as torch's is_int_or_symint_list)
            if isinstance(value, (list, tuple)):  # (torch.Size too)
                return not value or _is_int(value[0])
            # a lone int (or one-element integer tensor) only where the list has a size
            # (IntArrayRef[2]: kernel_size=3); an unsized one refuses it (`torch.randint(0,
            # 5)`, `torch.flip(x, 0)`, `F.pad(x, 1)`) unless it is a varargs list's first
            # item (`torch.zeros(3)`, `x.view(torch.tensor([6]))`: `parse`'s own case)
            return self.sized and _is_int(value)
        if kind == "Generator":
            return t is Generator
        if kind in ("c10::string_view", "std::string_view"):
            return t is str
        if kind == "Layout":
            return t is Layout
        if kind == "MemoryFormat":
            return t is MemoryFormat
        return True

    def matches(self, value: Any, numbers: bool) -> bool:
        """`takes`, as torch's invalid-arguments message marks it: by the type's name, so a
        Tensor is not a Number there, nor an nn.Parameter a Tensor."""
        if isinstance(value, Tensor) and (self.type == "Scalar" or value.is_parameter):
            return False
        return self.takes(value, numbers)

    def elements_message(self, value: Any, argnum: int) -> str | None:
        """torch's error for a Tensor list's item that is not a Tensor, raised while
        parsing (before any other signature is tried)."""
        if self.type in _TENSOR_LISTS and isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if not isinstance(item, Tensor):
                    return f"expected Tensor as element {i} in argument {argnum}, but got " \
                           f"{type_name(item)}"
        return None


def _scalar_tensor(value: Any) -> bool:
    """A tensor torch's parser takes for a Scalar or double: 0-dim, needing no gradient
    (python_arg_parser.cpp's DOUBLE case)."""
    return isinstance(value, Tensor) and value.array.ndim == 0 and not value.requires_grad


def _is_int(value: Any) -> bool:
    """torch's is_int_or_symint: an int (not a bool), a one-element integer tensor, or a 0-d
    integer numpy array (THPUtils_checkIndex: its __index__)."""
    if type(value) is int:
        return True
    if type(value).__name__ == "ndarray" and type(value).__module__ == "gradtrace.engine.ndarray":
        return value.a.ndim == 0 and value.a.dtype.kind in "iu"
    return isinstance(value, Tensor) and value.numel() == 1 and \
        not value.dtype.is_floating_point


def _unpacks_as_int(value: Any) -> bool:
    """What unpacking an int list takes after its first item: bools too."""
    return type(value) is bool or _is_int(value)


def _check_scalar_int(value: Any) -> None:
    """A Python int as a Scalar: torch unpacks it as int64, past that as uint64
    (PyLong_AsUnsignedLongLong, whose OverflowError it raises); c10's checks when the number
    is written then refuse a uint64 past what the tensor's dtype holds."""
    if type(value) is int and not fits_int64(value) and not 0 <= value < 1 << 64:
        raise _Thrown("can't convert negative int to unsigned" if value < 0
                      else "int too big to convert", "OverflowError")


class _Thrown(Exception):
    """An error torch's parser raises at once, whichever signature it was trying."""

    def __init__(self, message: str, kind: str = "TypeError"):
        super().__init__(message)
        self.kind = kind


class Signature:
    """One of a parser's signatures, parsed from its recorded text."""

    __slots__ = ("params", "hidden", "deprecated", "min_args", "max_args", "max_pos_args",
                 "varargs")

    def __init__(self, text: str):
        head, _, flag = text.partition("|")
        # a deprecated signature is taken but never shown, as a hidden one
        self.hidden = flag in ("hidden", "deprecated")
        self.deprecated = flag == "deprecated"
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
        message it raises (a Tensor list's wrong item: raised as _Thrown)."""
        nargs = len(args)
        if nargs > self.max_pos_args:
            if not (self.varargs and _is_int(args[0])):
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
            thrown = p.elements_message(value, position)
            if thrown is not None:
                raise _Thrown(thrown)
            if p.takes(value, numbers) or (self.varargs and position == 0 and not keyword
                                           and _is_int(value)):
                continue
            printed = _PRINTED.get(p.type, p.type)
            if keyword:
                return f"{name}(): argument '{p.name}' must be {printed}, not {type_name(value)}"
            if p.type in _INT_LISTS and isinstance(value, (list, tuple)):
                return (f"{name}(): argument '{p.name}' (position {position + 1}) must be "
                        f"{printed}, but found element of type {type_name(value[0])} at pos 0")
            return (f"{name}(): argument '{p.name}' (position {position + 1}) must be "
                    f"{printed}, not {type_name(value)}")
        if missing:
            names = ", ".join(f'"{m}"' for m in missing)
            plural = "s" if len(missing) == 1 else ""  # (torch's own wording)
            return f"{name}() missing {len(missing)} required positional argument{plural}: " \
                   f"{names}"
        if used < len(kwargs):
            return self._extra_kwargs(name, args, kwargs)
        return None

    def int_tensors(self, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """The positions and keywords of the integer tensors this signature (which took the
        arguments) has for an int (`int64_t`, `SymInt`) or for a sized int list (`SymInt[1]
        shifts`): torch's parser reads them as ints (toInt64: the tensor's __index__;
        toSymInt and a sized list's lone item: its one item), so the op gets a number
        (`torch.randint(0, torch.tensor(5), (3,))`, `x.topk(k)`, `x.roll(k)` with a 0-dim
        k). A bool tensor is left as it is (torch's SymInt cast asserts on it)."""
        if len(args) > self.max_pos_args:  # view(2, 3): the ints are the one list
            return ()
        found = []
        for position, p in enumerate(self.params):
            if p.type not in _INTS and not (p.type in _INT_LISTS and p.sized):
                continue
            if position < len(args) and not p.keyword_only:
                value, slot = args[position], position
            else:
                keys = [k for k in (p.name, *_NUMPY_ALIASES.get(p.name, ())) if k in kwargs]
                if not keys:
                    continue
                value, slot = kwargs[keys[0]], keys[0]
            if isinstance(value, Tensor) and value.array.dtype.kind in "iu":
                found.append(slot)
        return tuple(found)

    def unpack(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> str | None:
        """torch's error when the signature `parse` took unpacks an int list whose later
        item is not an int (`view(2, "a")`); None if every item is one. An int past int64
        is torch's ValueError, and a Scalar int past uint64 its OverflowError (raised as
        _Thrown)."""
        if len(args) > self.max_pos_args:  # view(2, 3): the ints are the one list
            args = [args]
        for position, p in enumerate(self.params):
            if p.type not in _INT_LISTS and p.type not in _INTS and p.type != "Scalar":
                continue
            if position < len(args):
                value = args[position]
            else:
                keys = [k for k in (p.name, *_NUMPY_ALIASES.get(p.name, ())) if k in kwargs]
                value = kwargs[keys[0]] if keys else None
            if p.type == "Scalar":
                _check_scalar_int(value)
                continue
            if type(value) is int and not fits_int64(value):
                if not (self.varargs and position == 0):  # an IntArrayRef[N]'s one int
                    raise _Thrown(_OVERFLOW, "ValueError")
                value = [value]
            if not isinstance(value, (list, tuple)):
                continue
            if set(map(type, value)) <= _PLAIN_INTS:  # (at C speed: 10^7 items)
                if value and not (fits_int64(min(value)) and fits_int64(max(value))):
                    i = next(i for i, v in enumerate(value) if not fits_int64(v))
                    return self._unpack_error(name, p, i, _OVERFLOW)
                continue
            for i in range(1, len(value)):
                if not _unpacks_as_int(value[i]):
                    return self._unpack_error(name, p, i, "type must be tuple of ints,but got "
                                              f"{type_name(value[i])}\"")
        return None

    @staticmethod
    def _unpack_error(name: str, p: Any, index: int, error: str) -> str:
        """torch's message for item `index` of an int list; for an overflow it is the first
        line only: the rest is the C++ backtrace of torch's build."""
        return (f"{name}(): argument '{p.name}' failed to unpack the object at pos {index + 1} "
                f"with error \"{error}")

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
        if not self.counts_as(args, kwargs):
            return None
        wrong = [k for k in kwargs if k not in {p.name for p in self.params}]
        if wrong:
            return "didn't match because some of the keywords were incorrect: " + \
                ", ".join(wrong)
        return "didn't match because some of the arguments have invalid types: " + \
            self.marked(args, kwargs, numbers)

    def counts_as(self, args: list[Any], kwargs: dict[str, Any]) -> bool:
        """Whether torch's messages mark the call's arguments against this signature: it
        counts the printed signature's parts split at ", " (`*` is one, and an empty list,
        "()", is one too), and the call must have as many arguments."""
        keyword_only = any(p.keyword_only for p in self.params)
        return len(args) + len(kwargs) == max(len(self.params) + keyword_only, 1)

    def marked(self, args: list[Any], kwargs: dict[str, Any], numbers: bool) -> str:
        """The call's argument types, `!...!` around those this signature does not take
        where they stand (an argument past its positional parameters never is)."""
        positional = [p for p in self.params if not p.keyword_only]
        by_name = {p.name: p for p in self.params}
        # (torch's message never matches a parameter named `self`, as the Number of
        # `remainder(Number self, Tensor other)`: "(!float!, !float!)")
        marked = [f"{type_name(v)}" if i < len(positional) and positional[i].name != "self"
                  and positional[i].matches(v, numbers) else f"!{type_name(v)}!"
                  for i, v in enumerate(args)]
        marked += [f"{k}={type_name(v)}" if by_name[k].matches(v, numbers)
                   else f"!{k}={type_name(v)}!" for k, v in kwargs.items()]
        return _argument_list(marked, bool(args))


def _kind(value: Any, depth: int = 0) -> Any:
    """What `Parameter.takes` and the messages look at: the type, whether an int fits
    int64, a tensor's floating-pointness and whether it is one number, which Python type
    a `float`/`int` given as a dtype is, a short shallow list's items' kinds (None, never
    cached: a long or deep list, which may hold itself)."""
    t = type(value)
    if t is int:
        return t if fits_int64(value) else (t, "past int64", 0 <= value < 1 << 64)
    if t is Tensor or isinstance(value, Tensor):
        return t, value.dtype.is_floating_point, value.numel() == 1
    if t is BuiltinType:
        return t, value.type
    if t is list or t is tuple:
        if len(value) > 8 or depth > 4:
            return None
        items = tuple([_kind(v, depth + 1) for v in value])
        return None if None in items else (t, items)
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

    __slots__ = ("name", "_texts", "_signatures", "numbers", "taken")

    def __init__(self, name: str, texts: list[str], numbers: bool = False):
        self.name = name
        self._texts = texts
        self._signatures: list[Signature] | None = None
        self.numbers = numbers  # a Python number is taken for a Tensor
        # the argument kinds of calls it took (whether a value is taken depends only on
        # its kind), each with the deprecated signature that took it (or None) and the
        # places of the integer tensors it reads as ints: a call of the same kinds needs
        # no parse
        self.taken: dict[tuple, tuple[Signature | None, tuple[Any, ...]]] = {}

    @property
    def signatures(self) -> list[Signature]:
        """The signatures, parsed when a call first needs them: a script reaches a few dozen
        of the ~930 recorded functions, and parsing them all cost start-up ~35 ms."""
        if self._signatures is None:
            self._signatures = [Signature(t) for t in self._texts]
        return self._signatures

    def check(self, args: list[Any], kwargs: dict[str, Any],
              span: Span | None) -> tuple[Signature | None, tuple[Any, ...]]:
        """torch's TypeError, at `span`, if no signature takes the arguments; else the
        deprecated signature that takes them (`add(Scalar alpha, Tensor other)`), if one
        does before any other, and the places (positions, keywords) of the integer tensors
        the signature that takes them reads as ints (`int64_t`, `SymInt`)."""
        kinds = tuple([_kind(a) for a in args])
        if kwargs:
            kinds += tuple([(k, _kind(v)) for k, v in kwargs.items()])
        if kinds in self.taken:
            return self.taken[kinds]
        try:
            message, kind = self._message(args, kwargs), "TypeError"
        except _Thrown as thrown:
            message, kind = str(thrown), thrown.kind
        if message is not None:
            raise ScriptError(message, span, kind=kind)
        taking = next(s for s in self.signatures if s.parse(self.name, args, kwargs,
                                                            self.numbers) is None) \
            if self.signatures else None
        deprecated = taking if taking is not None and taking.deprecated else None
        slots = taking.int_tensors(args, kwargs) if taking is not None else ()
        if len(self.taken) > 256:
            self.taken.clear()
        if None not in kinds:
            self.taken[kinds] = (deprecated, slots)
        return deprecated, slots

    def deprecation(self, signature: Signature) -> str:
        """torch's TORCH_WARN_ONCE for a call a deprecated signature took
        (python_arg_parser.cpp): it and the signatures to use instead."""
        text = f"This overload of {self.name} is deprecated:\n\t{self.name}" \
               f"{signature.printed()}"
        shown = [s for s in self.signatures if not s.hidden]
        if shown:
            text += "\nConsider using one of the following signatures instead:"
            text += "".join(f"\n\t{self.name}{s.printed()}" for s in shown)
        return f"UserWarning: {text} (Triggered internally at /__w/pytorch/pytorch/torch/" \
               "csrc/utils/python_arg_parser.cpp:1841.)"

    def message(self, args: list[Any], kwargs: dict[str, Any]) -> str | None:
        """torch's message for the call, None if it takes the arguments."""
        try:
            return self._message(args, kwargs)
        except _Thrown as thrown:
            return str(thrown)

    def _message(self, args: list[Any], kwargs: dict[str, Any]) -> str | None:
        if not self.signatures:  # a Tensor method that takes nothing (Python's METH_NOARGS)
            if kwargs:
                return f"TensorBase.{self.name}() takes no keyword arguments"
            return f"TensorBase.{self.name}() takes no arguments ({len(args)} given)" \
                if args else None
        name, numbers = self.name, self.numbers
        if len(self.signatures) == 1:
            signature = self.signatures[0]
            return signature.parse(name, args, kwargs, numbers) or \
                signature.unpack(name, args, kwargs)
        for signature in self.signatures:
            if signature.parse(name, args, kwargs, numbers) is None:
                return signature.unpack(name, args, kwargs)
        count = len(args) + len(kwargs)
        plausible = [s for s in self.signatures
                     if s.min_args <= count <= s.max_args and not s.hidden]
        if len(plausible) == 1:
            return plausible[0].parse(name, args, kwargs, numbers)
        shown = [s for s in self.signatures if not s.hidden]
        if len(shown) == 1 and not kwargs and shown[0].counts_as(args, kwargs):
            # torch's one option: its argument count matches, so each argument is marked
            got = shown[0].marked(args, kwargs, False)
        else:
            got = _argument_list([type_name(a) for a in args]
                                 + [f"{k}={type_name(v)}" for k, v in kwargs.items()],
                                 bool(args))
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


def _load() -> tuple[dict[str, Parser], frozenset[str], dict[str, Any], frozenset[str]]:
    recorded = json.loads(_TABLE.read_text())
    numbers = set(recorded["numbers_as_tensors"])
    return ({key: Parser(key.rpartition(".")[2], texts, key in numbers)
             for key, texts in recorded["signatures"].items()},
            frozenset(recorded["same_in_torch"]), recorded["functional_checks"],
            frozenset(recorded.get("python_methods", ())))  # (absent while recording)


PARSERS, _SAME_IN_TORCH, _FUNCTIONAL_CHECKS, _PYTHON_METHODS = _load()


def python_call_message(fn: Any, message: str) -> str:
    """Python's own TypeError for a call's arguments, as torch's words it: a Tensor method
    torch writes in Python (torch/_tensor.py: unflatten, norm, backward, ...) is named by
    its qualified name there, `Tensor.unflatten() missing 1 required positional argument:
    'sizes'`."""
    if type(fn) is BoundMethod and fn.name in _PYTHON_METHODS and isinstance(fn.obj, Tensor):
        called = getattr(fn.fn, "__qualname__", "")  # (the engine function's own name)
        if message.startswith(f"{called}() "):
            return f"Tensor.{fn.name}{message[len(called):]}"
    return message
# engine function -> its recorded checks ({"bools": {parameter: torch's message or None},
# "input": [kind, message] for a non-Tensor input}), for torch.nn.functional's
# Python-level functions (filled on first use)
_FUNCTIONAL: dict[Any, dict[str, Any]] = {}
# engine function -> its parser, for the torch namespace's functions (filled on first use)
_BY_FUNCTION: dict[Any, Parser | None] = {}


def parser_for(fn: Any) -> Parser | None:
    """The recorded parser of a torch function or Tensor method as a script reached it."""
    if type(fn) is BoundMethod:
        return PARSERS.get(f"Tensor.{fn.name}") if isinstance(fn.obj, Tensor) else None
    if not _BY_FUNCTION:
        from ..torch_namespace import MODULES, TORCH
        # an engine function torch.nn.functional also has may be torch's Python-level
        # function there (F.threshold(input, threshold, value, inplace)), another signature:
        # the call cannot tell which name it came by, so neither is checked; where torch's
        # F.name is torch.name itself (F.conv2d), it is the same parser
        elsewhere = {id(v) for module, ns in MODULES.items() if ns is not TORCH
                     for name, v in ns.table.items()
                     if f"{module}.{name}" not in _SAME_IN_TORCH}
        for name, value in TORCH.table.items():
            if callable(value) and (value not in _BY_FUNCTION or
                                    getattr(value, "__name__", None) == name):
                try:
                    _BY_FUNCTION[value] = None if id(value) in elsewhere \
                        else PARSERS.get(f"torch.{name}")
                except TypeError:  # unhashable
                    continue
        # torch.nn.functional's own builtins (F.gelu, F.linear: torch._C._nn's)
        in_torch = {id(v) for v in TORCH.table.values()}
        for name, value in MODULES["torch.nn.functional"].table.items():
            parser = PARSERS.get(f"torch.nn.functional.{name}")
            if parser is not None and id(value) not in in_torch:
                _BY_FUNCTION[value] = parser
    try:
        return _BY_FUNCTION.get(fn)
    except TypeError:
        return None


def check_arguments(fn: Any, args: Any, kwargs: dict[str, Any],
                    span: Span | None) -> tuple[Any, dict[str, Any], str | None]:
    """A call of an engine function or Tensor method: torch's parser check from the
    recorded signatures where torch has them, else its bool parameters'. Returns the
    arguments to call with and, for a deprecated signature's call, torch's warning: the
    arguments are then the current signature's (`x.add_(-lr, g)`, old optimizers' code,
    is `x.add_(g, alpha=-lr)`; `torch.addcmul(t, v, t1, t2)` is `value=v`)."""
    parser = parser_for(fn)
    if parser is None:
        check_bool_arguments(fn, args, kwargs, span)
        return args, kwargs, None
    deprecated, slots = parser.check(list(args), kwargs, span)
    if slots:
        args, kwargs = _read_ints(args, kwargs, slots)
    if "layout" in kwargs and not _takes_layout(fn):
        kwargs = _without_strided_layout(kwargs)
    if deprecated is None or not all(p.type in _REORDERED for p in deprecated.params):
        return args, kwargs, None
    positional, keywords = [], dict(kwargs)
    for p, value in zip(deprecated.params, args, strict=False):
        if p.type == "Scalar":  # (alpha, beta, value: keyword-only in the current ones)
            keywords[p.name] = value
        else:
            positional.append(value)
    return positional, keywords, parser.deprecation(deprecated)


def _takes_layout(fn: Any) -> bool:
    """Whether the engine function reads `layout` itself (to_sparse, the signal windows)."""
    target = fn.fn if type(fn) is BoundMethod else fn
    try:
        return "layout" in inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False


def _without_strided_layout(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A factory's `layout=` that torch's parser took (`torch.randn(size,
    layout=x.layout)`): torch.strided, the layout of every dense tensor, is its default as
    None is, so the engine function is called without it; another layout is refused."""
    layout = kwargs["layout"]
    if layout is not None and layout is not STRIDED:
        raise NotSupportedError(f"a factory's layout={layout!r} is not supported by "
                                "gradtrace (it makes strided tensors only)")
    return {key: value for key, value in kwargs.items() if key != "layout"}


def _read_ints(args: Any, kwargs: dict[str, Any],
               slots: tuple[Any, ...]) -> tuple[list[Any], dict[str, Any]]:
    """The integer tensors at `slots` read as torch's parser reads an int: a 0-dim one by
    its __index__ (int64, torch's overflow error past it), a one-element one by its item."""
    args, kwargs = list(args), dict(kwargs)
    for slot in slots:
        holder = args if type(slot) is int else kwargs
        value = holder[slot]
        if value.array.dtype.kind in "iu":  # (a bool tensor has the same cached kind)
            holder[slot] = value.__index__() if value.array.ndim == 0 else \
                value.reshape(()).__index__()
    return args, kwargs


# the parameter types of the deprecated signatures whose calls are rewritten (their Scalars
# moved to keywords): add/sub's alpha, addcmul/addcdiv's value, addmm-like beta and alpha
_REORDERED = frozenset(("Scalar", "Tensor"))


_BOOL = ("bool",)  # annotations as written (the engine uses `from __future__ import annotations`)
# function -> ((name, position or -1 if keyword-only), ...) of its bool parameters
_DECLARED: dict[Any, tuple[tuple[str, int], ...]] = {}


def _bool_parameters(fn: Any) -> tuple[tuple[str, int], ...]:
    if (isinstance(fn, type) and type(fn).__call__ is type.__call__
            and fn.__init__ is object.__init__ and fn.__new__ is object.__new__):
        # a class that takes no arguments (torch.no_grad): inspect would build its `()`
        # from object's text signature, compiling the tokenize module's regexes (~7 ms,
        # the first `with torch.no_grad()` of every run)
        return ()
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
    if not _FUNCTIONAL:
        from ..torch_namespace import MODULES
        for key, checks in _FUNCTIONAL_CHECKS.items():
            module_name, _, function_name = key.rpartition(".")
            value = MODULES[module_name].table[function_name]
            _FUNCTIONAL[getattr(value, "__func__", value)] = checks
    declared = _DECLARED.get(function)
    if declared is None:
        if len(_DECLARED) > 20_000:  # engine functions are module-level: never this many
            _DECLARED.clear()
        declared = _DECLARED[function] = _bool_parameters(function)
    checks = _FUNCTIONAL.get(function)
    if checks is not None:
        _check_functional(checks, declared, args, kwargs, span)
        if "forwarded" in checks:
            _check_forwarded(function, name, checks["forwarded"], args, kwargs, span)
        return
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


def _check_forwarded(function: Any, name: str, signatures: list[str], args: Any,
                     kwargs: dict[str, Any], span: Span | None) -> None:
    """A torch.nn.functional Python-level function that hands its parameters, by position,
    to torch._C._nn's builtin of its name (F.pad): Python binds the call first (its own
    words for a missing or extra argument, raised by the call itself), then the builtin's
    parser checks every parameter as the positional argument it is given as."""
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError:
        return
    bound.apply_defaults()
    parser = _FORWARDED.get(name)
    if parser is None:
        parser = _FORWARDED[name] = Parser(name, signatures)
    parser.check(list(bound.args), {}, span)


_FORWARDED: dict[str, Parser] = {}  # name -> the parser of its torch._C._nn builtin


def _check_functional(checks: dict[str, Any], declared: tuple[tuple[str, int], ...],
                      args: Any, kwargs: dict[str, Any], span: Span | None) -> None:
    """The checks a torch.nn.functional Python-level function makes through its inner
    torch calls, in their words (recorded, `{}` for the type's name): a non-Tensor input,
    and the bools they check (of the `declared` ones), whether given by position or name."""
    value = args[0] if args else kwargs.get("input", _MISSING)
    if checks["input"] is not None and value is not _MISSING and not isinstance(value, Tensor):
        kind, message = checks["input"]
        raise ScriptError(message.replace("{}", type_name(value)), span, kind=kind)
    for parameter, position in declared:
        message = checks["bools"].get(parameter)
        if message is None:
            continue
        if parameter in kwargs:
            value = kwargs[parameter]
        elif 0 <= position < len(args):
            value = args[position]
        else:
            continue
        if type(value) is not bool:
            raise ScriptError(message.replace("{}", type_name(value)), span, kind="TypeError")
