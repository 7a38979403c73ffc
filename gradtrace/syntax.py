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

# Generated `__eq__` and `__repr__` cost ~0.2 ms of start-up per class (66 classes, every
# process); nodes compare by identity, and one `__repr__` on Node serves every class.
node = dataclass(slots=True, eq=False, repr=False)


@node
class Node:
    span: Span

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__dataclass_fields__)
        return f"{type(self).__name__}({fields})"


# ----------------------------------------------------------------- expressions


@node
class Constant(Node):
    value: int | float | str | bytes | bool | None


@node
class FormattedValue(Node):
    """`{value!conversion:spec}` inside an f-string."""

    value: Expr
    conversion: str | None  # "r", "s" or None
    spec: str | FString | None  # an FString when it holds fields: `{x:{width}.4f}`


@node
class FString(Node):
    parts: tuple[str | FormattedValue, ...]


@node
class Name(Node):
    id: str


@node
class Attribute(Node):
    value: Expr
    attr: str


@node
class Slice(Node):
    lower: Expr | None
    upper: Expr | None
    step: Expr | None


@node
class Subscript(Node):
    value: Expr
    index: Expr  # a Slice, a TupleExpr of indices, or any expression


@node
class Starred(Node):
    """`*value` in a call's arguments or a list/tuple display."""

    value: Expr


@node
class Keyword(Node):
    arg: str | None  # None: `**value` (keyword arguments unpacked from a mapping)
    value: Expr


@node
class Call(Node):
    func: Expr
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]


@node
class UnaryOp(Node):
    op: str  # "-", "+", "not", "~"
    operand: Expr


@node
class BinOp(Node):
    left: Expr
    op: str  # "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^"
    right: Expr


@node
class BoolOp(Node):
    op: str  # "and", "or"
    values: tuple[Expr, ...]


@node
class Compare(Node):
    left: Expr
    ops: tuple[str, ...]  # "==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"
    comparators: tuple[Expr, ...]


@node
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


@node
class Param(Node):
    name: str
    default: Expr | None
    kind: str = POSITIONAL
    annotation: Expr | None = None  # (a string constant under `from __future__ import
    # annotations`); evaluated when the function's `__annotations__` is first read


@node
class Lambda(Node):
    params: tuple[Param, ...]
    body: Expr


@node
class ListExpr(Node):
    elts: tuple[Expr, ...]


@node
class TupleExpr(Node):
    elts: tuple[Expr, ...]


@node
class SetExpr(Node):
    elts: tuple[Expr, ...]


@node
class DictExpr(Node):
    keys: tuple[Expr | None, ...]  # None: `**value` unpacks a mapping here
    values: tuple[Expr, ...]


@node
class Comprehension(Node):
    target: Expr  # a Name, or a TupleExpr/ListExpr of targets
    iter: Expr
    ifs: tuple[Expr, ...]


@node
class ListComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


@node
class SetComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


@node
class DictComp(Node):
    key: Expr
    value: Expr
    generators: tuple[Comprehension, ...]


@node
class GeneratorExp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]


@node
class NamedExpr(Node):
    """`target := value`, the assignment expression."""

    target: Name
    value: Expr


@node
class Yield(Node):
    value: Expr | None


@node
class YieldFrom(Node):
    value: Expr


Expr = Union[  # noqa: UP007 (a runtime alias; `|` of classes needs 3.10 types)
    Constant, FString, Name, Attribute, Subscript, Slice, Starred, Call, UnaryOp, BinOp,
    BoolOp, Compare, IfExp, Lambda, ListExpr, TupleExpr, SetExpr, DictExpr, ListComp, SetComp,
    DictComp, GeneratorExp, NamedExpr, Yield, YieldFrom,
]

# ------------------------------------------------------------------ statements


@node
class ExprStmt(Node):
    value: Expr


@node
class Assign(Node):
    """`a = b = value`: targets are Name, Attribute, Subscript, TupleExpr or ListExpr."""

    targets: tuple[Expr, ...]
    value: Expr


@node
class AnnAssign(Node):
    """`target: annotation [= value]`; the annotation is kept but never evaluated."""

    target: Expr  # Name, Attribute or Subscript
    annotation: Expr
    value: Expr | None


@node
class AugAssign(Node):
    target: Expr  # Name, Attribute or Subscript
    op: str  # the binary operator: "+", "-", "*", "/", "//", "%", "**", "@"
    value: Expr


@node
class If(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]  # an `elif` is a nested If here


@node
class For(Node):
    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@node
class While(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@node
class Break(Node):
    pass


@node
class Continue(Node):
    pass


@node
class Pass(Node):
    pass


@node
class FunctionDef(Node):
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    returns: Expr | None = None  # the `-> annotation`, as Param's
    decorators: tuple[Expr, ...] = ()  # applied last to first, as Python does


@node
class ClassDef(Node):
    name: str
    bases: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...] = ()


@node
class Global(Node):
    names: tuple[str, ...]


@node
class Nonlocal(Node):
    names: tuple[str, ...]


@node
class Delete(Node):
    targets: tuple[Expr, ...]  # Name, Attribute, Subscript, or a TupleExpr/ListExpr of them


@node
class Return(Node):
    value: Expr | None


@node
class WithItem(Node):
    context_expr: Expr
    optional_vars: Expr | None


@node
class With(Node):
    items: tuple[WithItem, ...]
    body: tuple[Stmt, ...]


# ------------------------------------------------------------ match statement (patterns)


@node
class MatchValue(Node):
    """A literal or dotted-name pattern: matches what compares equal."""

    value: Expr


@node
class MatchSingleton(Node):
    """`None`, `True`, `False`: matches by identity."""

    value: bool | None


@node
class MatchSequence(Node):
    patterns: tuple[Node, ...]


@node
class MatchStar(Node):
    name: str | None  # None: `*_`


@node
class MatchMapping(Node):
    keys: tuple[Expr, ...]
    patterns: tuple[Node, ...]
    rest: str | None


@node
class MatchClass(Node):
    cls: Expr
    patterns: tuple[Node, ...]
    kwd_attrs: tuple[str, ...]
    kwd_patterns: tuple[Node, ...]


@node
class MatchAs(Node):
    """`pattern as name`, a capture (`name`: pattern None) or the wildcard (both None)."""

    pattern: Node | None
    name: str | None


@node
class MatchOr(Node):
    patterns: tuple[Node, ...]


@node
class MatchCase(Node):
    pattern: Node
    guard: Expr | None
    body: tuple[Stmt, ...]


@node
class Match(Node):
    subject: Expr
    cases: tuple[MatchCase, ...]


@node
class ExceptHandler(Node):
    type: Expr | None  # a Name, an Attribute, or a TupleExpr of them
    name: str | None
    body: tuple[Stmt, ...]


@node
class Try(Node):
    body: tuple[Stmt, ...]
    handlers: tuple[ExceptHandler, ...]
    orelse: tuple[Stmt, ...]
    finalbody: tuple[Stmt, ...]


@node
class Raise(Node):
    exc: Expr | None
    cause: Expr | None = None


@node
class Assert(Node):
    test: Expr
    msg: Expr | None


@node
class Alias(Node):
    name: str  # dotted: "torch.nn.functional"
    asname: str | None


@node
class Import(Node):
    names: tuple[Alias, ...]


@node
class ImportFrom(Node):
    module: str  # dotted
    names: tuple[Alias, ...]


@node
class Module(Node):
    body: tuple[Stmt, ...]


Stmt = Union[  # noqa: UP007
    ExprStmt, Assign, AnnAssign, AugAssign, If, For, While, Break, Continue, Pass, FunctionDef,
    ClassDef, Global, Nonlocal, Delete, Return, With, Try, Raise, Assert, Import, ImportFrom,
    Match,
]
