"""The view forward-mode AD makes of a dual tensor's primal (torch's `_fw_primal`): what
`forward_ad.unpack_dual` returns and what the tangent formulas read for a primal that
requires grad."""
from __future__ import annotations

import numpy as np

from ..formulas import local
from ..tensor import Tensor
from .views import ViewFunction


class Identity(ViewFunction):
    """The node of forward_ad.unpack_dual's primal (torch's `_fw_primal` view): a C++ node
    torch shows as `CppFunction`, named torch::autograd::Identity."""

    __slots__ = ()
    formulas = (local("self", "1"),)
    python_type_name = "CppFunction"  # type(node).__name__ in torch (measured)

    def forward(self, a: Tensor) -> np.ndarray:
        return a.array.view()

    def backward(self, grad: Tensor) -> Tensor:
        return grad

    def name(self) -> str:
        return "torch::autograd::Identity"

    def __repr__(self) -> str:
        return f"<CppFunction object at {id(self):#x}>"
