"""The script's abstract syntax tree: one slotted class per node kind, each with its source
span.

Nothing changes a node once the parser made it; nodes compare by identity (`id()`), and one
`__repr__` on Node serves every class. The classes are built by a small metaclass instead of
dataclasses: dataclass's generated `__init__`/`__eq__`/`__repr__` code, compiled for 66
classes in every process, was ~30 ms of gradtrace's start-up.

The parser builds these; the interpreter walks them. Names follow Python's `ast`
module so the tree reads like the Python it came from.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

from .source import Span


def _field_setter(sets: tuple) -> Callable[..., None]:
    """An __init__ storing its arguments into the slots `sets` (their descriptors' __set__),
    in order: one per field count, no generated code."""
    if len(sets) == 1:
        (a,) = sets

        def init(self: Node, v0: Any) -> None:
            a(self, v0)
    elif len(sets) == 2:
        a, b = sets

        def init(self: Node, v0: Any, v1: Any) -> None:
            a(self, v0)
            b(self, v1)
    elif len(sets) == 3:
        a, b, c = sets

        def init(self: Node, v0: Any, v1: Any, v2: Any) -> None:
            a(self, v0)
            b(self, v1)
            c(self, v2)
    elif len(sets) == 4:
        a, b, c, d = sets

        def init(self: Node, v0: Any, v1: Any, v2: Any, v3: Any) -> None:
            a(self, v0)
            b(self, v1)
            c(self, v2)
            d(self, v3)
    else:
        def init(self: Node, *values: Any) -> None:
            if len(values) != len(sets):
                raise TypeError(f"{type(self).__name__}() takes {len(sets)} fields, "
                                f"got {len(values)}")
            for store, value in zip(sets, values):
                store(self, value)
    return init


def _with_defaults(init: Callable[..., None], count: int,
                   defaults: tuple) -> Callable[..., None]:
    required = count - len(defaults)

    def init_defaults(self: Node, *values: Any) -> None:
        init(self, *values, *defaults[len(values) - required:])
    return init_defaults


class NodeType(type):
    """The syntax classes' metaclass: each gets slots for its annotated fields and an
    __init__ taking every field (its bases' first) in order, trailing ones with a class
    default optional; `fields` names them all, in that order."""

    def __new__(mcs, name: str, bases: tuple, namespace: dict) -> NodeType:
        own = tuple(namespace.get("__annotations__", ()))
        defaults = tuple(namespace.pop(field) for field in own if field in namespace)
        namespace["__slots__"] = own
        cls = super().__new__(mcs, name, bases, namespace)
        cls.fields = (bases[0].fields if bases else ()) + own
        init = _field_setter(tuple(getattr(cls, f).__set__ for f in cls.fields))
        cls.__init__ = _with_defaults(init, len(cls.fields), defaults) if defaults else init
        return cls


class Node(metaclass=NodeType):
    span: Span

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.fields)
        return f"{type(self).__name__}({fields})"


# ----------------------------------------------------------------- expressions


class Constant(Node):
    value: int | float | str | bytes | bool | None


class FormattedValue(Node):
    """`{value!conversion:spec}` inside an f-string."""

    value: Expr
    conversion: str | None  # "r", "s" or None
    spec: str | FString | None  # an FString when it holds fields: `{x:{width}.4f}`


class FString(Node):
    parts: tuple[str | FormattedValue, ...]


class Name(Node):
    id: str


class Attribute(Node):
    value: Expr
    attr: str


class Slice(Node):
    lower: Expr | None
    upper: Expr | None
    step: Expr | None


class Subscript(Node):
    value: Expr
    index: Expr  # a Slice, a TupleExpr of indices, or any expression


class Starred(Node):
    """`*value` in a call's arguments or a list/tuple display."""

    value: Expr


class Keyword(Node):
    arg: str | None  # None: `**value` (keyword arguments unpacked from a mapping)
    value: Expr


class Call(Node):
    func: Expr
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]


class UnaryOp(Node):
    op: str  # "-", "+", "not", "~"
    operand: Expr


class BinOp(Node):
    left: Expr
    op: str  # "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^"
    right: Expr


class BoolOp(Node):
    op: str  # "and", "or"
    values: tuple[Expr, ...]


class Compare(Node):
    left: Expr
    ops: tuple[str, ...]  # "==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"
    comparators: tuple[Expr, ...]


class IfExp(Node):
    test: Expr
    body: Expr
    orelse: Expr


# Param.kind, in the order a signature lists them (Python's inspect.Parameter kinds)
POSITIONAL_ONLY = "positional_only"  # before a `/`
POSITIONAL = "positional"  # positional or keyword
VAR_POSITIONAL = "var_positional"  # *args
KEYWORD_ONLY = "keyword_only"  # after `*` or `*args`
VAR_KEYWORD = "var_keyword"  # **kwargs


class Param(Node):
    name: str
    default: Expr | None
    kind: str = POSITIONAL
    annotation: Expr | None = None  # (a string constant under `from __future__ import
    # annotations`); evaluated when the function's `__annotations__` is first read


class Lambda(Node):
    params: tuple[Param, ...]
    body: Expr


class ListExpr(Node):
    elts: tuple[Expr, ...]


class TupleExpr(Node):
    elts: tuple[Expr, ...]


class SetExpr(Node):
    elts: tuple[Expr, ...]


class DictExpr(Node):
    keys: tuple[Expr | None, ...]  # None: `**value` unpacks a mapping here
    values: tuple[Expr, ...]


class Comprehension(Node):
    target: Expr  # a Name, or a TupleExpr/ListExpr of targets
    iter: Expr
    ifs: tuple[Expr, ...]


class ListComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


class SetComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


class DictComp(Node):
    key: Expr
    value: Expr
    generators: tuple[Comprehension, ...]


class GeneratorExp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


class NamedExpr(Node):
    """`target := value`, the assignment expression."""

    target: Name
    value: Expr


class Yield(Node):
    value: Expr | None


class YieldFrom(Node):
    value: Expr


Expr = Union[  # noqa: UP007 (a runtime alias; `|` of classes needs 3.10 types)
    Constant, FString, Name, Attribute, Subscript, Slice, Starred, Call, UnaryOp, BinOp,
    BoolOp, Compare, IfExp, Lambda, ListExpr, TupleExpr, SetExpr, DictExpr, ListComp, SetComp,
    DictComp, GeneratorExp, NamedExpr, Yield, YieldFrom,
]

# ------------------------------------------------------------------ statements


class ExprStmt(Node):
    value: Expr


class Assign(Node):
    """`a = b = value`: targets are Name, Attribute, Subscript, TupleExpr or ListExpr."""

    targets: tuple[Expr, ...]
    value: Expr


class AnnAssign(Node):
    """`target: annotation [= value]`; the annotation is kept but never evaluated."""

    target: Expr  # Name, Attribute or Subscript
    annotation: Expr
    value: Expr | None


class AugAssign(Node):
    target: Expr  # Name, Attribute or Subscript
    op: str  # the binary operator: "+", "-", "*", "/", "//", "%", "**", "@"
    value: Expr


class If(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]  # an `elif` is a nested If here


class For(Node):
    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


class While(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


class Break(Node):
    pass


class Continue(Node):
    pass


class Pass(Node):
    pass


class FunctionDef(Node):
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    returns: Expr | None = None  # the `-> annotation`, as Param's
    decorators: tuple[Expr, ...] = ()  # applied last to first, as Python does


class ClassDef(Node):
    name: str
    bases: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...] = ()


class Global(Node):
    names: tuple[str, ...]


class Nonlocal(Node):
    names: tuple[str, ...]


class Delete(Node):
    targets: tuple[Expr, ...]  # Name, Attribute, Subscript, or a TupleExpr/ListExpr of them


class Return(Node):
    value: Expr | None


class WithItem(Node):
    context_expr: Expr
    optional_vars: Expr | None


class With(Node):
    items: tuple[WithItem, ...]
    body: tuple[Stmt, ...]


# ------------------------------------------------------------ match statement (patterns)


class MatchValue(Node):
    """A literal or dotted-name pattern: matches what compares equal."""

    value: Expr


class MatchSingleton(Node):
    """`None`, `True`, `False`: matches by identity."""

    value: bool | None


class MatchSequence(Node):
    patterns: tuple[Node, ...]


class MatchStar(Node):
    name: str | None  # None: `*_`


class MatchMapping(Node):
    keys: tuple[Expr, ...]
    patterns: tuple[Node, ...]
    rest: str | None


class MatchClass(Node):
    cls: Expr
    patterns: tuple[Node, ...]
    kwd_attrs: tuple[str, ...]
    kwd_patterns: tuple[Node, ...]


class MatchAs(Node):
    """`pattern as name`, a capture (`name`: pattern None) or the wildcard (both None)."""

    pattern: Node | None
    name: str | None


class MatchOr(Node):
    patterns: tuple[Node, ...]


class MatchCase(Node):
    pattern: Node
    guard: Expr | None
    body: tuple[Stmt, ...]


class Match(Node):
    subject: Expr
    cases: tuple[MatchCase, ...]


class ExceptHandler(Node):
    type: Expr | None  # a Name, an Attribute, or a TupleExpr of them
    name: str | None
    body: tuple[Stmt, ...]


class Try(Node):
    body: tuple[Stmt, ...]
    handlers: tuple[ExceptHandler, ...]
    orelse: tuple[Stmt, ...]
    finalbody: tuple[Stmt, ...]


class Raise(Node):
    exc: Expr | None
    cause: Expr | None = None


class Assert(Node):
    test: Expr
    msg: Expr | None


class Alias(Node):
    name: str  # dotted: "torch.nn.functional"
    asname: str | None


class Import(Node):
    names: tuple[Alias, ...]


class ImportFrom(Node):
    module: str  # dotted
    names: tuple[Alias, ...]


class Module(Node):
    body: tuple[Stmt, ...]


Stmt = Union[  # noqa: UP007
    ExprStmt, Assign, AnnAssign, AugAssign, If, For, While, Break, Continue, Pass, FunctionDef,
    ClassDef, Global, Nonlocal, Delete, Return, With, Try, Raise, Assert, Import, ImportFrom,
    Match,
]
