"""Compiles assignment targets: names, unpacking, attributes, items."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import syntax
from ..errors import (
    GradtraceError,
    NotSupportedError,
    ScriptError,
)
from ..source import Span
from .runtime import Frame


class TargetCompiler:
    """Stores into assignment targets."""

    def compile_store(self, target: syntax.Expr,
                      label: Span | None = None) -> Callable[[Frame, Any], None]:
        """Store into `target`; what the store runs (unpacking a tensor, writing an item or
        an attribute) is labelled with `label`, the `=` statement as for `+=`, else with the
        target (a loop's statement spans its whole body)."""
        label = label or target.span
        if isinstance(target, syntax.Name):
            name = target.id

            def store_name(frame: Frame, value: Any) -> None:
                frame.vars[name] = value
                if self.tracer is not None:
                    self.tracer.bind(name, value)

            return store_name
        if isinstance(target, (syntax.TupleExpr, syntax.ListExpr)):
            stores = [self.compile_store(e, label) for e in target.elts]
            span = target.span
            count = len(stores)

            def store_unpack(frame: Frame, value: Any) -> None:
                items = list(self.iterate(value, span, label))
                if len(items) != count:
                    if len(items) < count:
                        msg = f"not enough values to unpack (expected {count}, got {len(items)})"
                    else:
                        msg = f"too many values to unpack (expected {count})"
                    raise ScriptError(msg, span, kind="ValueError")
                for store, item in zip(stores, items):
                    store(frame, item)

            return store_unpack
        if isinstance(target, syntax.Attribute):
            obj = self.compile_expr(target.value)
            attr = target.attr
            span = target.span

            def store_attr(frame: Frame, value: Any) -> None:
                try:
                    o = obj(frame)
                    self.current_span = label
                    self.set_attribute(o, attr, value)
                except GradtraceError as err:
                    err.at(span)
                    raise

            return store_attr
        if isinstance(target, syntax.Subscript):
            obj = self.compile_expr(target.value)
            index = self.compile_index(target.index)
            span = target.span

            def store_item(frame: Frame, value: Any) -> None:
                try:
                    o, i = obj(frame), index(frame)
                    self.current_span = label
                    self.set_item(o, i, value)
                except GradtraceError as err:
                    err.at(span)
                    raise

            return store_item
        raise NotSupportedError("cannot assign to this expression", target.span)

