"""Python's protocols on script values: truth, iteration, items."""
from __future__ import annotations

from typing import Any

from ..engine.shapes import Size
from ..engine.tensor import Tensor
from ..errors import (
    GradtraceError,
    ScriptError,
)
from ..source import Span
from .runtime import PYTHON_ERRORS, type_name


class Protocols:
    """Truth, iteration and subscripts of script values."""

    def truth(self, value: Any, span: Span) -> bool:
        try:
            return bool(value)
        except GradtraceError as err:
            err.at(span)
            raise

    def iterate(self, value: Any, span: Span, label: Span | None = None) -> Any:
        """Iterate a script value (a tensor unbinds, like torch's Tensor.__iter__).

        Errors point at `span`; the unbind is labelled with `label` (an assignment's
        statement), else with `span`.
        """
        if isinstance(value, Tensor):
            if value.ndim == 0:
                raise ScriptError("iteration over a 0-d tensor", span, kind="TypeError")
            self.current_span = label or span
            try:
                return iter(value.unbind(0))
            except GradtraceError as err:
                err.at(span)
                raise
        if isinstance(value, (list, tuple, str, range, dict, Size, zip, enumerate)) or \
                type(value).__name__ in ("dict_keys", "dict_values", "dict_items",
                                         "list_reverseiterator", "reversed"):
            return iter(value)
        raise ScriptError(f"'{type_name(value)}' object is not iterable", span,
                          kind="TypeError")

    def get_item(self, obj: Any, index: Any) -> Any:
        if isinstance(obj, Tensor):
            return obj[index]
        if isinstance(obj, (list, tuple, str, dict, Size, range)):
            try:
                return obj[index]
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err) if not isinstance(err, KeyError) else repr(index),
                                  kind=type(err).__name__) from None
        raise ScriptError(f"'{type_name(obj)}' object is not subscriptable", kind="TypeError")

    def set_item(self, obj: Any, index: Any, value: Any) -> None:
        if isinstance(obj, Tensor):
            from ..engine.ops.views import setitem

            setitem(obj, index, value)
            return
        if isinstance(obj, (list, dict)):
            try:
                obj[index] = value
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err), kind=type(err).__name__) from None
            return
        raise ScriptError(f"'{type_name(obj)}' object does not support item assignment",
                          kind="TypeError")

