"""Attribute access through the per-type allow-lists in `stdlib`."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import stdlib
from ..engine.dtypes import DType
from ..engine.node import AccumulateGrad, Node
from ..engine.ops.reductions import ReturnTypes
from ..engine.shapes import Size
from ..engine.tensor import RemovableHandle, Tensor
from ..errors import (
    GradtraceError,
    NotSupportedError,
    ScriptError,
)
from ..source import Span
from .runtime import PYTHON_ERRORS


class Attributes:
    """Reading and writing attributes of script values."""

    def get_attribute(self, obj: Any, name: str, span: Span) -> Any:
        """Attribute access through the per-type tables in `stdlib` only."""
        try:
            result = self._get_attribute(obj, name)
        except GradtraceError as err:
            err.at(span)
            raise
        if self.tracer is not None:
            self.tracer.attribute_read(obj, name, result)
        return result

    def _get_attribute(self, obj: Any, name: str) -> Any:
        if isinstance(obj, Tensor):
            getter = stdlib.TENSOR_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            method = stdlib.TENSOR_METHODS.get(name)
            if method is not None:
                return stdlib.BoundMethod(obj, method, name)
            if name in stdlib.NOT_SUPPORTED_METHODS:
                raise NotSupportedError(stdlib.NOT_SUPPORTED_METHODS[name])
            return self._missing(obj, name)
        if isinstance(obj, stdlib.Namespace):
            if name in obj.table:
                return obj.table[name]
            if stdlib.is_private(name):
                raise stdlib.not_supported_attribute(obj, name)
            raise NotSupportedError(f"'{obj.name}.{name}' is not supported by gradtrace")
        if isinstance(obj, Node):
            if name == "variable" and isinstance(obj, AccumulateGrad):
                return obj.variable
            getter = stdlib.NODE_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            method = stdlib.NODE_METHODS.get(name)
            if method is not None:
                return stdlib.BoundMethod(obj, method, name)
            if name.startswith("_saved_"):
                return stdlib.node_saved(obj, name)
            return self._missing(obj, name)
        table: dict[str, Callable[..., Any]] | None = None
        if isinstance(obj, DType):
            getter = stdlib.DTYPE_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
        elif isinstance(obj, ReturnTypes):
            getter = stdlib.RETURN_TYPES_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            table = stdlib.TUPLE_METHODS
        elif isinstance(obj, Size):
            table = stdlib.SIZE_METHODS
        elif isinstance(obj, list):
            table = stdlib.LIST_METHODS
        elif isinstance(obj, tuple):
            table = stdlib.TUPLE_METHODS
        elif isinstance(obj, dict):
            table = stdlib.DICT_METHODS
        elif isinstance(obj, str):
            if name == "format":
                return stdlib.BoundMethod(obj, self.format_method, name)
            table = stdlib.STR_METHODS
        elif isinstance(obj, RemovableHandle):
            table = stdlib.HANDLE_METHODS
        elif isinstance(obj, ScriptError) and name == "args":
            return (obj.message,)
        if table is not None and name in table:
            return stdlib.BoundMethod(obj, self._guarded(table[name]), name)
        return self._missing(obj, name)

    def _guarded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Python methods of lists/strings: their errors become the script's errors."""
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err), kind=type(err).__name__) from None

        return call

    def _missing(self, obj: Any, name: str) -> Any:
        if stdlib.is_private(name):
            raise stdlib.not_supported_attribute(obj, name)
        raise ScriptError(f"'{stdlib.owner_name(obj)}' object has no attribute '{name}'",
                          kind="AttributeError")

    def set_attribute(self, obj: Any, name: str, value: Any) -> None:
        if self.tracer is not None:
            self.tracer.attribute_write(self._set_attribute, obj, name, value)
        else:
            self._set_attribute(obj, name, value)

    def _set_attribute(self, obj: Any, name: str, value: Any) -> None:
        if isinstance(obj, Tensor):
            setter = stdlib.TENSOR_SETTERS.get(name)
            if setter is not None:
                setter(obj, value)
                return
            if name in stdlib.TENSOR_ATTRIBUTES or name in stdlib.TENSOR_METHODS:
                raise ScriptError(
                    f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable",
                    kind="AttributeError")
        if stdlib.is_private(name):
            raise stdlib.not_supported_attribute(obj, name)
        raise NotSupportedError(
            f"setting attribute '{name}' on {stdlib.owner_name(obj)} is not supported")

