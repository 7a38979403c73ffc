"""Compiles definitions: `def`, `lambda` and `class`, with their decorators.

A function's body is compiled once, in its own scope (scopes.py), into a closure over
a fresh frame per call; a generator function's body into a Python generator function
(generators.py). A class body runs once in a `ClassFrame`; what it binds becomes the
class's namespace, and the functions defined in it get the class (for `super()`).
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from .. import stdlib, syntax
from ..engine.ops import creation
from ..errors import GradtraceError, LimitExceeded, NotSupportedError, ScriptError, TorchTypeError
from ..source import Span
from ..tensor_types import TENSOR, ScriptType
from .abc_checks import ABCMETA
from .builtin_classes import builtin_base
from .descriptors import set_names
from .dunders import OBJECT
from .enums import make_enum
from .enums import namespace as enum_namespace
from .exception_classes import exception_base, is_exception_kind
from .frame_locals import frame_layout
from .function_attributes import annotator, compile_annotation
from .generic_classes import ScriptGenericAlias, generic_parameters
from .namedtuple_bases import namedtuple_base
from .objects import (
    ANNOTATED,
    BuiltinType,
    ClassCell,
    ClassMethod,
    Method,
    OpaqueType,
    ScriptClass,
    StaticMethod,
    UserFunction,
    type_name,
)
from .runtime import ClassFrame, Code, Frame, ReturnSignal
from .scopes import Scope, class_scope, function_scope
from .signature import Signature
from .tensor_subclasses import TENSOR_BASE, is_tensor_class
from .tensor_subclasses import check_class as check_tensor_class
from .typecheck import is_autograd_function
from .typed_classes import (
    is_generic_base,
    make_namedtuple_class,
    make_typed_dict,
    typing_class_kind,
)
from .typing_generics import base_class, is_alias_base
from .typing_module import TypingName

MAX_CLASS_DEPTH = 100

METACLASS_CONFLICT = ("metaclass conflict: the metaclass of a derived class must be a "
                      "(non-strict) subclass of the metaclasses of all its bases")


def docstring(body: tuple[syntax.Stmt, ...]) -> str | None:
    if body and isinstance(body[0], syntax.ExprStmt) and \
            isinstance(body[0].value, syntax.Constant) and isinstance(body[0].value.value, str):
        return body[0].value.value
    return None


class DefinitionCompiler:
    """`def`, `lambda`, `class` and decorators."""

    @contextmanager
    def scope(self, scope: Scope) -> Any:
        outer = self._scope
        self._scope = scope
        try:
            yield scope
        finally:
            self._scope = outer

    def stmt_FunctionDef(self, node: syntax.FunctionDef) -> Code:
        make = self.compile_function(node.name, node.params, node.body, node.returns,
                                     self._def_lines(node))
        return self._define(node, make)

    def _def_lines(self, node: syntax.FunctionDef) -> tuple[int, int, int | None] | None:
        """A script `def`'s first line (its first decorator's), last line and its body's
        column (None for a body on the `def` line), for inspect.getsource; None for a
        definition the interpreter made (no span) or a library module's."""
        body = node.body[0].span
        if node.span is None or body is None or self._scope.library:
            return None
        first = min([node.span.line, *(d.span.line for d in node.decorators if d.span)])
        inline = self.source.line_text(body.line)[:body.column - 1].strip() != ""
        return first, node.span.end_line, None if inline else body.column

    def stmt_ClassDef(self, node: syntax.ClassDef) -> Code:
        return self._define(node, self.compile_class(node))

    def _define(self, node: syntax.FunctionDef | syntax.ClassDef,
                make: Callable[[Frame], Any]) -> Code:
        """Evaluate the decorators (first to last), make the definition, apply them (last
        to first), bind the name: Python's order."""
        decorators = [(self.compile_expr(d), d.span) for d in node.decorators]
        store = self._store_name(self.mangled(node.name))
        spans = self._spans
        if not decorators:
            return lambda frame: store(frame, make(frame))

        def run(frame: Frame) -> None:
            values = [(code(frame), span) for code, span in decorators]
            result = make(frame)
            for decorator, span in reversed(values):
                spans.current_span = span
                result = self.call(decorator, [result], {}, span)
            store(frame, result)

        return run

    def compile_function(self, name: str, params: tuple[syntax.Param, ...],
                         body: tuple[syntax.Stmt, ...] | syntax.Expr,
                         returns: syntax.Expr | None = None,
                         lines: tuple[int, int, int | None] | None = None
                         ) -> Callable[[Frame], UserFunction]:
        """A maker of the function object (defaults are evaluated when it runs, the
        annotations when first read: function_attributes.py); `lines`, a `def`'s first line
        (its first decorator's), last and its indented body's column, are what
        inspect.getsource reads."""
        parent = self._scope
        is_lambda = not isinstance(body, tuple)
        statements = () if is_lambda else body
        scope = function_scope(parent, name, params, statements, parent.library)
        if scope.names_locals:
            scope.frame_names = frame_layout(params, statements, scope.locals,
                                             scope.globals, scope.nonlocals,
                                             scope.class_name is not None)
        layout = _lazy_layout(scope, params, statements)
        defaults = [(p.name, self.compile_expr(p.default)) for p in params
                    if p.default is not None]
        annotations = [(p.name, compile_annotation(self, p.annotation)) for p in params
                       if p.annotation is not None]
        if returns is not None:
            annotations.append(("return", compile_annotation(self, returns)))
        with self.scope(scope):
            if is_lambda:
                code = self.compile_expr(body)
            elif scope.is_generator:
                code = self.compile_generator_body(body)
            else:
                code = self.compile_function_body(body)
        signature = Signature(params)
        qualname = scope.qualname
        in_class = parent.kind == "class"
        doc = None if is_lambda else docstring(body)
        module = self._module_name
        is_generator = scope.is_generator
        library = scope.library

        def make(frame: Frame) -> UserFunction:
            values = {n: d(frame) for n, d in defaults}
            if in_class:  # a method: it never sees the class body's names
                fn = UserFunction(name, qualname, signature, values, code, frame.parent,
                                  self, is_generator, frame.cell, doc, module, library)
            else:
                fn = UserFunction(name, qualname, signature, values, code, frame, self,
                                  is_generator, None, doc, module, library)
            if annotations:
                fn.annotate = annotator(annotations, frame)
            fn.lines = lines
            fn.layout = layout
            return fn

        return make

    def compile_function_body(self, body: tuple[syntax.Stmt, ...]) -> Code:
        """A body that ends in `return value` gives the value back without raising
        ReturnSignal (a `return` elsewhere still does)."""
        last = body[-1]
        if not isinstance(last, syntax.Return) or last.value is None:
            return self.compile_block(body)
        head = self.compile_block(body[:-1]) if len(body) > 1 else None
        value = self.compile_expr(last.value)
        span = last.span
        spans = self._spans
        tick = self.tick

        def run(frame: Frame) -> Any:
            if head is not None:
                head(frame)
            tick()
            spans.current_span = span
            try:
                return value(frame)
            except GradtraceError as err:
                err.at(span)
                raise
            finally:
                if creation.WARNINGS:
                    self._flush_engine_warnings()

        return run

    def expr_Lambda(self, node: syntax.Lambda) -> Code:
        return self.compile_function("<lambda>", node.params, node.body)

    def compile_class(self, node: syntax.ClassDef) -> Callable[[Frame], ScriptClass]:
        keywords = []  # `class B(Base, name="b")`: for __init_subclass__ (TypedDict's total)
        metaclass: tuple[Code, Span] | None = None
        for keyword in node.keywords:
            if keyword.arg is None:
                raise NotSupportedError("`**` in a class's keywords is not supported",
                                        keyword.span)
            if keyword.arg == "metaclass":
                metaclass = (self.compile_expr(keyword.value), keyword.span)
                continue
            keywords.append((keyword.arg, self.compile_expr(keyword.value)))
        for base in node.bases:
            if isinstance(base, syntax.Starred):
                raise NotSupportedError("`*` in a class's bases is not supported", base.span)
        bases = [(self.compile_expr(b), b.span) for b in node.bases]
        parent = self._scope
        scope = class_scope(parent, node.name, node.body, parent.library)
        with self.scope(scope):
            body = self.compile_block(node.body) if node.body else None
        name, qualname, span = node.name, scope.qualname, node.span
        doc = docstring(node.body)
        module = self._module_name
        library = parent.library

        def make(frame: Frame) -> Any:
            values = [(code(frame), s) for code, s in bases]
            declared = None if metaclass is None else \
                self.declared_metaclass(metaclass[0](frame), metaclass[1])
            options = {name: code(frame) for name, code in keywords}
            typed = typing_class_kind(values)
            if typed is not None and declared is not None:
                raise NotSupportedError(f"a {typed} with `metaclass=` is not supported", span)
            if typed is not None and set(options) - {"total"}:
                raise NotSupportedError("class keyword arguments other than a TypedDict's "
                                        "`total` are not supported here", span)
            plain = [(b.origin if type(b) is ScriptGenericAlias else base_class(self, b), s)
                     for b, s in values if not is_generic_base(b)]
            params = generic_parameters([b for b, _ in values],
                                        any(is_alias_base(b) for b, _ in values))
            meta = None if typed or declared is not None else \
                self.value_base_metaclass(values, plain, span)
            base = OBJECT if typed or meta is not None else self.class_bases(plain, span)
            first = base[0] if type(base) is tuple else base
            if type(base) is tuple:  # `class Mode(str, Enum)`: the enumeration decides
                first = next((b for b in base if b.enum is not None), first)
            cell = ClassCell()
            namespace = ClassFrame(enum_namespace(first, {"__module__": module,
                                                          "__qualname__": qualname,
                                                          "__doc__": doc}), frame, cell)
            if body is not None:
                running = self.running_frame
                if not library:  # the body's own frame, as CPython's (inspect.currentframe)
                    namespace.back = running
                    self.running_frame = namespace
                try:
                    body(namespace)
                except ReturnSignal:  # the parser only allows `return` inside functions
                    raise NotSupportedError("'return' outside function", span) from None
                finally:
                    self.running_frame = running
            attrs = namespace.vars if type(namespace.vars) is dict else dict(namespace.vars)
            if meta is not None:  # the metaclass, a base's type, makes the "class"
                if doc is None:
                    attrs.pop("__doc__", None)
                return self.call(meta, [name, tuple(b for b, _ in values), attrs], {}, span)
            return self.finish_class(name, qualname, module, values, typed, params,
                                     base, declared, options, attrs, cell, span)

        return make

    def type_new(self, name: Any, bases: Any, namespace: Any) -> Any:
        """`type(name, bases, dict)`: a class made as a `class` statement makes it, its
        namespace a copy of `dict` (string keys that could name a class attribute), its
        __module__ the calling module's and its __qualname__ `name` unless given."""
        for i, (value, kind) in enumerate(((name, str), (bases, tuple), (namespace, dict))):
            if not isinstance(value, kind):
                raise TorchTypeError(f"type.__new__() argument {i + 1} must be "
                                     f"{kind.__name__}, not {type_name(value)}")
        for key in namespace:
            if not isinstance(key, str) or not key.isidentifier():
                raise NotSupportedError(f"type(name, bases, dict) with the key {key!r} in dict "
                                        "is not supported (only names of attributes)")
        values = [(b, None) for b in bases]
        typed = typing_class_kind(values)
        if typed is not None or any(type(b) is ScriptGenericAlias or is_generic_base(b)
                                    or is_alias_base(b) for b in bases):
            raise NotSupportedError("type(name, bases, dict) of a typing class is not "
                                    "supported: use a `class` statement")
        base = self.class_bases([(base_class(self, b), None) for b in bases], None)
        if any(b.enum is not None for b in (base if type(base) is tuple else (base,))):
            raise NotSupportedError("type(name, bases, dict) of an enumeration is not "
                                    "supported: use a `class` statement")
        module = self._calling_module()
        attrs = {"__module__": module, "__qualname__": name, "__doc__": None, **namespace}
        return self.finish_class(name, name, module, values, None, None, base, None, {},
                                 attrs, ClassCell(), None)

    def _calling_module(self) -> str:
        """The `__name__` of the module whose code is running (type() sets a class's
        __module__ from it)."""
        frame = self.running_frame
        while frame is not None and frame.parent is not None:
            frame = frame.parent
        found = frame.vars.get("__name__") if frame is not None else None
        return found if isinstance(found, str) else "__main__"

    def finish_class(self, name: str, qualname: str, module: str, values: list[Any],
                     typed: str | None, params: Any, base: Any, declared: Any,
                     options: dict[str, Any], attrs: dict[str, Any], cell: ClassCell,
                     span: Span | None) -> Any:
        """type.__new__'s part of making a class, from its namespace once filled (by a class
        body, or given to `type(name, bases, dict)`): the class, its metaclass and typing
        records, enumeration members, __set_name__ and the parent's __init_subclass__."""
        shown = _class_qualname(attrs.pop("__qualname__", qualname))
        annotations = attrs.pop(ANNOTATED, {})  # name -> what evaluates its annotation
        annotated = tuple(annotations)
        owner = attrs.get("__module__")
        if "__eq__" in attrs and "__hash__" not in attrs:
            attrs["__hash__"] = None  # Python: __eq__ without __hash__ is unhashable
        if type(attrs.get("__new__")) is UserFunction:  # type.__new__ makes it static
            attrs["__new__"] = StaticMethod(attrs["__new__"])
        if type(attrs.get("__init_subclass__")) is UserFunction:  # and this a classmethod
            attrs["__init_subclass__"] = ClassMethod(attrs["__init_subclass__"])
        owner = owner if isinstance(owner, str) else module
        if typed == "NamedTuple":
            return make_namedtuple_class(self, name, owner, attrs, annotated)
        if typed == "TypedDict":
            return make_typed_dict(name, owner, annotated, [b for b, _ in values],
                                   bool(options.get("total", True)))
        cls = ScriptClass(name, shown, owner, base, attrs, self)
        if is_tensor_class(cls):  # class MyTensor(torch.Tensor)
            check_tensor_class(cls, span)
        cls.metaclass = declared or cls.metaclass
        if cls.metaclass is not None and any(  # ABCMeta against EnumType, FunctionMeta
                b.enum is not None or is_autograd_function(b) for b in cls.bases):
            raise ScriptError(METACLASS_CONFLICT, span, kind="TypeError")
        if any(is_generic_base(b) and b.name == "Protocol" for b, _ in values):
            self.protocol_classes.add(cls)
        cls.annotated = annotated
        if annotations:
            self.class_annotations[cls] = annotations
        if params is not None:
            self.generic_classes[cls] = params
        if any(type(b) is ScriptGenericAlias or is_alias_base(b) or is_generic_base(b)
               and b.args is not None for b, _ in values):
            self.orig_bases[cls] = tuple(b for b, _ in values)
        cell.cls = cls
        enums = [b for b in cls.bases if b.enum is not None]
        if enums and len(cls.bases) > 1 and not (  # a data type mixed in is fine
                len(enums) == 1 and len(cls.bases) == 2 and cls.builtin is not None
                and cls.bases[0].builtin is not None):
            raise NotSupportedError("an enumeration with mixin classes is not supported",
                                    span)
        if enums:
            make_enum(cls)
        set_names(self, cls)  # type.__new__: each attribute's __set_name__, then
        hook = super_lookup(cls, "__init_subclass__")  # the parent's hook
        if hook is not None:
            self.call(hook, [], options, span)
        return cls

    def value_base_metaclass(self, values: list[tuple[Any, Span | None]],
                             plain: list[tuple[Any, Span | None]], span: Span) -> Any:
        """The metaclass when a base is not a class (`class Exp(a_module)`), else None:
        as CPython's __build_class__, the most derived of the bases' types (a metaclass
        conflict TypeError when two are unrelated), which the class statement then calls
        with (name, bases, namespace) once the body has run."""
        if all(self.is_class(b) for b, _ in plain) or \
                any(isinstance(b, TypingName) for b, _ in plain):  # typing's own TypeError
            return None
        winner = self.type_of(values[0][0])
        for value, _ in values[1:]:
            kind = self.type_of(value)
            if kind is winner or self.issubclass_check(winner, kind):
                continue
            if not self.issubclass_check(kind, winner):
                raise ScriptError(METACLASS_CONFLICT, span, kind="TypeError")
            winner = kind
        return winner

    def declared_metaclass(self, value: Any, span: Span) -> OpaqueType | None:
        """`metaclass=`: abc.ABCMeta (a class whose instances check abstract methods and
        take registered virtual subclasses), or `type` (a plain class); no other."""
        if value is ABCMETA:
            return ABCMETA
        if value is self.builtins["type"]:
            return None
        what = getattr(value, "name", None) if self.is_class(value) else None
        raise NotSupportedError(f"metaclass={what or 'a ' + type_name(value)}: only "
                                "abc.ABCMeta is supported as a metaclass", span)

    def class_bases(self, bases: list[tuple[Any, Span | None]], span: Span | None
                    ) -> tuple[ScriptClass, ...] | ScriptClass:
        """A class's bases: `object` when none is given, else each a script or library
        class or one of Python's exceptions (exception_classes.py), no class twice; at most
        one builtin exception among them (its kind decides what catches the class)."""
        if not bases:
            return OBJECT
        found = tuple(self.class_base(base, where) for base, where in bases)
        for i, base in enumerate(found):
            if base in found[:i]:
                raise ScriptError(f"duplicate base class {base.name}", bases[i][1],
                                  kind="TypeError")
        builtins = {b.builtin for b in found} - {None}
        if len(builtins) > 1:
            raise ScriptError("multiple bases have instance lay-out conflict", span,
                              kind="TypeError")
        if builtins and any(b.exception_kind is not None for b in found):
            raise NotSupportedError("a class deriving from both a builtin type and an "
                                    "exception is not supported", span)
        kinds = {b.exception_kind for b in found} - {None}
        if len(kinds) > 1:
            raise NotSupportedError("a class deriving from two different builtin exceptions "
                                    f"({', '.join(sorted(kinds))}) is not supported",
                                    bases[1][1])
        if sum(len(b.mro) for b in found) >= MAX_CLASS_DEPTH:  # each class keeps its MRO
            raise LimitExceeded(f"a class hierarchy deeper than {MAX_CLASS_DEPTH} classes",
                                span)
        return found

    def class_base(self, base: Any, where: Span | None) -> ScriptClass:
        """One base: a script or library class, or one of Python's exceptions."""
        if type(base) is ScriptClass:
            return base
        if base is TENSOR:  # class MyTensor(torch.Tensor): tensor_subclasses.py
            return TENSOR_BASE
        if type(base) is stdlib.ExceptionType and is_exception_kind(base.kind):
            return exception_base(base.kind)  # class StopTraining(Exception)
        if type(base) is BuiltinType and base.module == "builtins":
            return builtin_base(base.type, where, base.name)  # class AttrDict(dict)
        if type(base) is BuiltinType and base.type in self.namedtuple_classes:
            return namedtuple_base(self, base)  # class Q(P), P a namedtuple class
        if isinstance(base, (ScriptType, stdlib.ExceptionType, BuiltinType)) or \
                type(base) is OpaqueType and base.module != "builtins":  # abc.ABCMeta
            raise NotSupportedError(f"subclassing {base!r} is not supported", where)
        # a value among type(name, bases, dict)'s bases: type.__new__ finds no metaclass
        # (a class statement calls the value's type instead: value_base_metaclass)
        raise ScriptError(METACLASS_CONFLICT, where, kind="TypeError")


def super_lookup(cls: ScriptClass, name: str) -> Any:
    """`super(cls, cls).name` for a classmethod hook: bound to `cls`, from the first class
    after it in its MRO that defines one (object's, at the latest)."""
    for klass in cls.mro[1:]:
        value = klass.attrs.get(name)
        if value is None:
            continue
        if type(value) is ClassMethod:
            return Method(cls, value.function)
        return value
    return None


def _class_qualname(value: Any) -> str:
    """A class body's `__qualname__ = "..."` names the class as Python's type() takes it."""
    if type(value) is not str:
        raise ScriptError(f"type __qualname__ must be a str, not {type_name(value)}",
                          kind="TypeError")
    return value


def _lazy_layout(scope: Scope, params: tuple[syntax.Param, ...],
                 statements: tuple[syntax.Stmt, ...]
                 ) -> Callable[[], tuple[tuple[str, ...], tuple[str, ...]]]:
    """The function's frame layout (frame_locals.frame_layout), worked out the first time
    a frame object's f_locals asks for it (inspect.currentframe()), not for every `def`."""
    def layout() -> tuple[tuple[str, ...], tuple[str, ...]]:
        if scope.frame_names is None:
            scope.frame_names = frame_layout(params, statements, scope.locals,
                                             scope.globals, scope.nonlocals,
                                             scope.class_name is not None)
        return scope.frame_names

    return layout
