"""Compiles assignment and `del` targets: names (local, global or nonlocal, as the scope
decided), unpacking (with one starred target), attributes and items."""
from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Any

from .. import syntax
from ..engine.tensor import Tensor
from ..errors import GradtraceError, NotSupportedError, ScriptError
from ..source import Span
from .objects import Instance
from .runtime import Code, Frame
from .scopes import mangle

Store = Callable[[Frame, Any], None]


class TargetCompiler:
    """Stores into assignment targets, and deletes them."""

    def source_text(self, span: Span | None) -> str | None:
        """The script's text of a one-line span."""
        if span is None or span.end_line != span.line:
            return None
        text = self.source.line_text(span.line)[span.column - 1:span.end_column - 1]
        return text.strip() or None

    def mangled(self, name: str) -> str:
        """`__x` inside a class body or its methods, as Python mangles it."""
        return mangle(name, self._scope.class_name)

    def compile_store(self, target: syntax.Expr, label: Span | None = None) -> Store:
        """Store into `target`; what the store runs (unpacking a tensor, writing an item or
        an attribute) is labelled with `label`, the `=` statement as for `+=`, else with the
        target (a loop's statement spans its whole body)."""
        label = label or target.span
        if isinstance(target, syntax.Name):
            return self._store_name(self.mangled(target.id), target.span)
        if isinstance(target, (syntax.TupleExpr, syntax.ListExpr)):
            return self._store_unpack(target, label)
        spans = self._spans
        if isinstance(target, syntax.Attribute):
            obj = self.compile_expr(target.value)
            attr = self.mangled(target.attr)
            span = target.span
            # a tensor stored in an attribute is bound to the target's text (`self.w`)
            name = None if self._scope.library else self.source_text(span)

            def store_attr(frame: Frame, value: Any) -> None:
                try:
                    o = obj(frame)
                    spans.current_span = label
                    self.set_attribute(o, attr, value)
                except GradtraceError as err:
                    err.at(span)
                    raise
                if name is not None and self.tracer is not None and type(o) is Instance:
                    self.tracer.bind(name, value, frame, span)

            return store_attr
        if isinstance(target, syntax.Subscript):
            obj = self.compile_expr(target.value)
            index = self.compile_index(target.index)
            span = target.span

            def store_item(frame: Frame, value: Any) -> None:
                try:
                    o, i = obj(frame), index(frame)
                    spans.current_span = label
                    self.set_item(o, i, value)
                except GradtraceError as err:
                    err.at(span)
                    raise

            return store_item
        raise NotSupportedError("cannot assign to this expression", target.span)

    def _store_name(self, name: str, span: Span | None = None) -> Store:
        """Store into a name; the tracer hears of it with the frame the name lives in and
        the name's place in the statement (`span`)."""
        scope = self._scope
        if name in scope.globals:
            module_frame = self._module_frame
            module = module_frame.vars
            bind = not scope.library

            def store_global(frame: Frame, value: Any) -> None:
                module[name] = value
                if bind and self.tracer is not None:
                    self.tracer.bind(name, value, module_frame, span)

            return store_global
        if name in scope.nonlocals:
            hops = scope.nonlocal_hops(name)
            bind = not scope.library

            def store_nonlocal(frame: Frame, value: Any) -> None:
                f = frame
                for _ in range(hops):
                    f = f.parent
                f.vars[name] = value
                if bind and self.tracer is not None:
                    self.tracer.bind(name, value, f, span)

            return store_nonlocal
        if scope.library:  # library locals are never the script's names
            def store_library(frame: Frame, value: Any) -> None:
                frame.vars[name] = value

            return store_library

        def store_name(frame: Frame, value: Any) -> None:
            frame.vars[name] = value
            if self.tracer is not None:
                self.tracer.bind(name, value, frame, span)

        return store_name

    def expr_NamedExpr(self, node: syntax.NamedExpr) -> Code:
        """`target := value`: the value, also stored in the target. Inside a comprehension
        the target belongs to the enclosing function (or module): PEP 572."""
        value = self.compile_expr(node.value)
        name = self.mangled(node.target.id)
        scope = self._scope
        hops = 0
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
            hops += 1
        with self.scope(scope):
            store = self._store_name(name, node.target.span)

        if hops == 0:
            def named(frame: Frame) -> Any:
                result = value(frame)
                store(frame, result)
                return result

            return named

        def named_outside(frame: Frame) -> Any:
            result = value(frame)
            owner = frame
            for _ in range(hops):
                owner = owner.parent
            store(owner, result)
            return result

        return named_outside

    def _store_unpack(self, target: syntax.TupleExpr | syntax.ListExpr, label: Span) -> Store:
        elts = target.elts
        starred = next((i for i, e in enumerate(elts) if isinstance(e, syntax.Starred)), None)
        stores = [self.compile_store(e.value if isinstance(e, syntax.Starred) else e, label)
                  for e in elts]
        span = target.span
        count = len(stores)

        if starred is None:
            def store_unpack(frame: Frame, value: Any) -> None:
                # as Python: read one more item than there are targets, never further
                items = list(islice(self.iterate(value, span, label), count + 1))
                if len(items) != count:
                    if len(items) < count:
                        msg = f"not enough values to unpack (expected {count}, got {len(items)})"
                    else:
                        msg = f"too many values to unpack (expected {count})"
                    raise ScriptError(msg, span, kind="ValueError")
                for store, item in zip(stores, items):
                    store(frame, item)

            return store_unpack
        after = count - starred - 1

        def store_starred(frame: Frame, value: Any) -> None:
            if isinstance(value, Tensor):
                items = list(self.iterate(value, span, label))
            else:
                items = list(self.materialize(value, "an unpacked sequence", span))
            if len(items) < count - 1:
                raise ScriptError(f"not enough values to unpack (expected at least {count - 1}, "
                                  f"got {len(items)})", span, kind="ValueError")
            rest = items[starred:len(items) - after]
            values = items[:starred] + [rest] + items[len(items) - after:]
            for store, item in zip(stores, values):
                store(frame, item)

        return store_starred

    def compile_delete(self, target: syntax.Expr) -> Code:
        """`del target`."""
        span = target.span
        if isinstance(target, syntax.Name):
            return self._delete_name(self.mangled(target.id), span)
        if isinstance(target, (syntax.TupleExpr, syntax.ListExpr)):
            parts = [self.compile_delete(e) for e in target.elts]

            def delete_all(frame: Frame) -> None:
                for part in parts:
                    part(frame)

            return delete_all
        if isinstance(target, syntax.Attribute):
            obj = self.compile_expr(target.value)
            attr = self.mangled(target.attr)

            def delete_attr(frame: Frame) -> None:
                try:
                    self.del_attribute(obj(frame), attr)
                except GradtraceError as err:
                    err.at(span)
                    raise

            return delete_attr
        if isinstance(target, syntax.Subscript):
            obj = self.compile_expr(target.value)
            index = self.compile_index(target.index)

            def delete_item(frame: Frame) -> None:
                try:
                    o, i = obj(frame), index(frame)
                    self.del_item(o, i)
                except GradtraceError as err:
                    err.at(span)
                    raise

            return delete_item
        raise NotSupportedError("cannot delete this expression", span)

    def _delete_name(self, name: str, span: Span | None) -> Code:
        scope = self._scope
        local = scope.kind == "function" and name in scope.locals
        if name in scope.globals:
            module = self._module_frame.vars

            def delete_global(frame: Frame) -> None:
                if module.pop(name, _GONE) is _GONE:
                    raise ScriptError(f"name '{name}' is not defined", span, kind="NameError")

            return delete_global
        hops = scope.nonlocal_hops(name) if name in scope.nonlocals else 0

        def delete_name(frame: Frame) -> None:
            f = frame
            for _ in range(hops):
                f = f.parent
            if f.vars.pop(name, _GONE) is _GONE:
                if local or hops:
                    raise ScriptError(f"cannot access local variable '{name}' where it is not "
                                      "associated with a value", span, kind="UnboundLocalError")
                raise ScriptError(f"name '{name}' is not defined", span, kind="NameError")

        return delete_name


_GONE: Any = object()
