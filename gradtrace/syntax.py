"""The script's abstract syntax tree: dataclasses, each with its source span.

Nothing changes a node once the parser made it. They are not `frozen=True`: its generated
`__setattr__`, `__delattr__` and `__hash__` cost every process ~16 ms of start-up (of ~300),
and no node is hashed (a node's identity is `id()`).

The parser builds these; the interpreter walks them. Names follow Python's `ast`
module so the tree reads like the Python it came from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .source import Span


@dataclass(slots=True)
class Node:
    span: Span


# ----------------------------------------------------------------- expressions


@dataclass(slots=True)
class Constant(Node):
    value: int | float | str | bytes | bool | None


@dataclass(slots=True)
class FormattedValue(Node):
    """`{value!conversion:spec}` inside an f-string."""

    value: Expr
    conversion: str | None  # "r", "s" or None
    spec: str | FString | None  # an FString when it holds fields: `{x:{width}.4f}`


@dataclass(slots=True)
class FString(Node):
    parts: tuple[str | FormattedValue, ...]


@dataclass(slots=True)
class Name(Node):
    id: str


@dataclass(slots=True)
class Attribute(Node):
    value: Expr
    attr: str


@dataclass(slots=True)
class Slice(Node):
    lower: Expr | None
    upper: Expr | None
    step: Expr | None


@dataclass(slots=True)
class Subscript(Node):
    value: Expr
    index: Expr  # a Slice, a TupleExpr of indices, or any expression


@dataclass(slots=True)
class Starred(Node):
    """`*value` in a call's arguments or a list/tuple display."""

    value: Expr


@dataclass(slots=True)
class Keyword(Node):
    arg: str | None  # None: `**value` (keyword arguments unpacked from a mapping)
    value: Expr


@dataclass(slots=True)
class Call(Node):
    func: Expr
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]


@dataclass(slots=True)
class UnaryOp(Node):
    op: str  # "-", "+", "not", "~"
    operand: Expr


@dataclass(slots=True)
class BinOp(Node):
    left: Expr
    op: str  # "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^"
    right: Expr


@dataclass(slots=True)
class BoolOp(Node):
    op: str  # "and", "or"
    values: tuple[Expr, ...]


@dataclass(slots=True)
class Compare(Node):
    left: Expr
    ops: tuple[str, ...]  # "==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"
    comparators: tuple[Expr, ...]


@dataclass(slots=True)
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


@dataclass(slots=True)
class Param(Node):
    name: str
    default: Expr | None
    kind: str = POSITIONAL
    annotation: Expr | None = None  # (a string constant under `from __future__ import
    # annotations`); evaluated when the function's `__annotations__` is first read


@dataclass(slots=True)
class Lambda(Node):
    params: tuple[Param, ...]
    body: Expr


@dataclass(slots=True)
class ListExpr(Node):
    elts: tuple[Expr, ...]


@dataclass(slots=True)
class TupleExpr(Node):
    elts: tuple[Expr, ...]


@dataclass(slots=True)
class SetExpr(Node):
    elts: tuple[Expr, ...]


@dataclass(slots=True)
class DictExpr(Node):
    keys: tuple[Expr | None, ...]  # None: `**value` unpacks a mapping here
    values: tuple[Expr, ...]


@dataclass(slots=True)
class Comprehension(Node):
    target: Expr  # a Name, or a TupleExpr/ListExpr of targets
    iter: Expr
    ifs: tuple[Expr, ...]


@dataclass(slots=True)
class ListComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


@dataclass(slots=True)
class SetComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


@dataclass(slots=True)
class DictComp(Node):
    key: Expr
    value: Expr
    generators: tuple[Comprehension, ...]


@dataclass(slots=True)
class GeneratorExp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


@dataclass(slots=True)
class NamedExpr(Node):
    """`target := value`, the assignment expression."""

    target: Name
    value: Expr


@dataclass(slots=True)
class Yield(Node):
    value: Expr | None


@dataclass(slots=True)
class YieldFrom(Node):
    value: Expr


Expr = Union[  # noqa: UP007 (a runtime alias; `|` of classes needs 3.10 types)
    Constant, FString, Name, Attribute, Subscript, Slice, Starred, Call, UnaryOp, BinOp,
    BoolOp, Compare, IfExp, Lambda, ListExpr, TupleExpr, SetExpr, DictExpr, ListComp, SetComp,
    DictComp, GeneratorExp, NamedExpr, Yield, YieldFrom,
]

# ------------------------------------------------------------------ statements


@dataclass(slots=True)
class ExprStmt(Node):
    value: Expr


@dataclass(slots=True)
class Assign(Node):
    """`a = b = value`: targets are Name, Attribute, Subscript, TupleExpr or ListExpr."""

    targets: tuple[Expr, ...]
    value: Expr


@dataclass(slots=True)
class AnnAssign(Node):
    """`target: annotation [= value]`; the annotation is kept but never evaluated."""

    target: Expr  # Name, Attribute or Subscript
    annotation: Expr
    value: Expr | None


@dataclass(slots=True)
class AugAssign(Node):
    target: Expr  # Name, Attribute or Subscript
    op: str  # the binary operator: "+", "-", "*", "/", "//", "%", "**", "@"
    value: Expr


@dataclass(slots=True)
class If(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]  # an `elif` is a nested If here


@dataclass(slots=True)
class For(Node):
    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(slots=True)
class While(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(slots=True)
class Break(Node):
    pass


@dataclass(slots=True)
class Continue(Node):
    pass


@dataclass(slots=True)
class Pass(Node):
    pass


@dataclass(slots=True)
class FunctionDef(Node):
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    returns: Expr | None = None  # the `-> annotation`, as Param's
    decorators: tuple[Expr, ...] = ()  # applied last to first, as Python does


@dataclass(slots=True)
class ClassDef(Node):
    name: str
    bases: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...] = ()


@dataclass(slots=True)
class Global(Node):
    names: tuple[str, ...]


@dataclass(slots=True)
class Nonlocal(Node):
    names: tuple[str, ...]


@dataclass(slots=True)
class Delete(Node):
    targets: tuple[Expr, ...]  # Name, Attribute, Subscript, or a TupleExpr/ListExpr of them


@dataclass(slots=True)
class Return(Node):
    value: Expr | None


@dataclass(slots=True)
class WithItem(Node):
    context_expr: Expr
    optional_vars: Expr | None


@dataclass(slots=True)
class With(Node):
    items: tuple[WithItem, ...]
    body: tuple[Stmt, ...]


# ------------------------------------------------------------ match statement (patterns)


@dataclass(slots=True)
class MatchValue(Node):
    """A literal or dotted-name pattern: matches what compares equal."""

    value: Expr


@dataclass(slots=True)
class MatchSingleton(Node):
    """`None`, `True`, `False`: matches by identity."""

    value: bool | None


@dataclass(slots=True)
class MatchSequence(Node):
    patterns: tuple[Node, ...]


@dataclass(slots=True)
class MatchStar(Node):
    name: str | None  # None: `*_`


@dataclass(slots=True)
class MatchMapping(Node):
    keys: tuple[Expr, ...]
    patterns: tuple[Node, ...]
    rest: str | None


@dataclass(slots=True)
class MatchClass(Node):
    cls: Expr
    patterns: tuple[Node, ...]
    kwd_attrs: tuple[str, ...]
    kwd_patterns: tuple[Node, ...]


@dataclass(slots=True)
class MatchAs(Node):
    """`pattern as name`, a capture (`name`: pattern None) or the wildcard (both None)."""

    pattern: Node | None
    name: str | None


@dataclass(slots=True)
class MatchOr(Node):
    patterns: tuple[Node, ...]


@dataclass(slots=True)
class MatchCase(Node):
    pattern: Node
    guard: Expr | None
    body: tuple[Stmt, ...]


@dataclass(slots=True)
class Match(Node):
    subject: Expr
    cases: tuple[MatchCase, ...]


@dataclass(slots=True)
class ExceptHandler(Node):
    type: Expr | None  # a Name, an Attribute, or a TupleExpr of them
    name: str | None
    body: tuple[Stmt, ...]


@dataclass(slots=True)
class Try(Node):
    body: tuple[Stmt, ...]
    handlers: tuple[ExceptHandler, ...]
    orelse: tuple[Stmt, ...]
    finalbody: tuple[Stmt, ...]


@dataclass(slots=True)
class Raise(Node):
    exc: Expr | None
    cause: Expr | None = None


@dataclass(slots=True)
class Assert(Node):
    test: Expr
    msg: Expr | None


@dataclass(slots=True)
class Alias(Node):
    name: str  # dotted: "torch.nn.functional"
    asname: str | None


@dataclass(slots=True)
class Import(Node):
    names: tuple[Alias, ...]


@dataclass(slots=True)
class ImportFrom(Node):
    module: str  # dotted
    names: tuple[Alias, ...]


@dataclass(slots=True)
class Module(Node):
    body: tuple[Stmt, ...]


Stmt = Union[  # noqa: UP007
    ExprStmt, Assign, AnnAssign, AugAssign, If, For, While, Break, Continue, Pass, FunctionDef,
    ClassDef, Global, Nonlocal, Delete, Return, With, Try, Raise, Assert, Import, ImportFrom,
    Match,
]
