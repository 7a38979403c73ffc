"""torch.nn.parameter's UninitializedParameter and UninitializedBuffer: the placeholders a
lazy module (nn.LazyLinear, ...) holds until its first call infers their shapes. They print
as `<UninitializedParameter>`; `materialize` gives one its shape (uninitialised memory, as
torch.empty) and makes it what it stands for: a Parameter, or a plain tensor for a buffer
(torch changes the object's class in place, so references to it stay valid)."""
from __future__ import annotations

from typing import Any

from . import dtypes
from .tensor import Parameter, Tensor


class UninitializedParameter(Parameter):
    """A Parameter of no shape yet (`requires_grad` as given)."""

    __slots__ = ()

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: dtypes.DType | None = None) -> None:
        from .ops.creation import empty

        super().__init__(empty(0, dtype=dtype, device=device), requires_grad)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(Tensor):
    """A buffer of no shape yet."""

    __slots__ = ()

    def __init__(self, requires_grad: bool = False, device: Any = None,
                 dtype: dtypes.DType | None = None) -> None:
        from .ops.creation import empty

        source = empty(0, dtype=dtype, device=device)
        for name in Tensor.__slots__:
            if name != "__weakref__":
                setattr(self, name, getattr(source, name))
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    __str__ = __repr__


def is_lazy(t: Any) -> bool:
    """torch.nn.parameter.is_lazy."""
    return isinstance(t, (UninitializedParameter, UninitializedBuffer))


def materialize(t: Tensor, shape: Any, dtype: dtypes.DType | None = None) -> None:
    """UninitializedTensorMixin.materialize: torch.empty(shape) as the data, then the class
    it stands for."""
    from .ops.creation import empty

    data = empty(*tuple(shape), dtype=dtype or t.dtype)
    requires_grad = t.requires_grad
    for name in Tensor.__slots__:
        if name not in ("__weakref__", "requires_grad"):
            setattr(t, name, getattr(data, name))
    t.__class__ = Parameter if isinstance(t, UninitializedParameter) else Tensor
    t.requires_grad = requires_grad
