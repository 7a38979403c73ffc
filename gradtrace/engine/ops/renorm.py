"""torch.renorm / Tensor.renorm(_): each slice along `dim` whose p-norm exceeds maxnorm is
scaled down to it (RenormBackward0). The forward is torch's renorm_out kernel: the norm
over every other dim (linalg_vector_norm), a factor maxnorm / (norm + 1e-7) in the
tensor's dtype where the norm is larger, else 1, and self * factor. The backward is
torch's renorm_backward, op for op, so create_graph records its nodes."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes
from ..formulas import vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import apply_inplace
from .clones import to
from .norms import LinalgVectorNormBackward0, _norm_array, norm_backward, vector_norm
from .reductions import sum, where
from .scalar import add_scalar, mul_scalar
from .views import saved_int, signed


def _check(a: Tensor, p: Any, dim: int, maxnorm: Any) -> int:
    if float(p) <= 0:
        raise TorchRuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0:
        raise TorchRuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    ndim = a.array.ndim
    if ndim <= 1:
        raise TorchRuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} "
                                "dimensions")
    d = wrap_dim(dim, ndim)
    if not a.dtype.is_floating_point:  # the norm is taken first
        raise TorchRuntimeError("linalg.vector_norm: Expected a floating point or complex "
                                f"tensor as input. Got {a.dtype.scalar_type}")
    return d


class _DoubleNorm(LinalgVectorNormBackward0):
    """linalg_vector_norm(self, p, dims, keepdim=True, dtype=double) of a float32 `self`, as
    renorm_backward takes it: one LinalgVectorNormBackward0 on self, the norm in float64
    (its gradient to self is cast back to self's dtype)."""

    __slots__ = ()

    def forward(self, a: Tensor, ord: Any, dim: tuple[int, ...],  # noqa: A002
                keepdim: bool) -> np.ndarray:
        super().forward(a, ord, dim, keepdim)
        return _norm_array(a.array.astype(np.float64), dim, keepdim, float(ord))

    def backward(self, grad: Tensor) -> Tensor | None:
        out = super().backward(grad)
        dtype = self.input_meta[0][1]
        return out if out is None or out.dtype is dtype else to(out, dtype)


_DoubleNorm.__name__ = "LinalgVectorNormBackward0"


def _others(ndim: int, d: int) -> tuple[int, ...]:
    return tuple(i for i in range(ndim) if i != d)


class RenormBackward0(Function):
    """‖·‖ in the formula is the p-norm of each slice along dim, δ torch's 1e-7."""

    __slots__ = ()
    formulas = (vjp("self", "where(‖{self}‖ > {maxnorm}, {maxnorm} / (‖{self}‖ + δ) × ({grad} - "
                            "norm_backward(({self} × {grad}).sum(), {self}, {p}) / "
                            "(‖{self}‖ + δ)), {grad})"),)

    def forward(self, a: Tensor, p: Any, dim: int, maxnorm: Any) -> np.ndarray:
        d = _check(a, p, dim, maxnorm)
        self.save("self", a)
        self.save_attr(dim=saved_int(dim), maxnorm=maxnorm, p=p)
        x = a.array
        norm = _norm_array(x, _others(x.ndim, d), True, float(p))
        kind = x.dtype.type
        limit = kind(float(maxnorm))
        factor = np.where(norm > limit, limit / (norm + kind(1e-7)), kind(1)).astype(x.dtype)
        return x * factor

    def backward(self, grad: Tensor) -> Tensor:
        """renorm_backward computes in the CPU accumulate type (double for float32): the
        norm and the sum of self * grad in float64, the result cast back to grad's dtype."""
        a = self.attrs
        self_ = self.unpack("self")
        p, maxnorm = a["p"], a["maxnorm"]
        dims = _others(self_.array.ndim, wrap_dim(signed(a["dim"]), self_.array.ndim))
        acc = dtypes.float64
        norm = vector_norm(self_, p, dims, True) if self_.dtype is acc else \
            _DoubleNorm.call(self_, ord=p, dim=dims, keepdim=True)
        grad_output = sum(self_ * grad, dims, keepdim=True, dtype=acc)
        nb = norm_backward(grad_output, self_, norm, float(p), dims, True)
        invnorm = add_scalar(norm, 1e-7).reciprocal()  # C++ Scalar arithmetic: add.Scalar
        grad_norm = mul_scalar(invnorm, maxnorm) * (grad - invnorm * nb)
        return where(norm > maxnorm, to(grad_norm, grad.dtype), grad)


def renorm(input: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:  # noqa: A002
    return RenormBackward0.call(input, p=p, dim=dim, maxnorm=maxnorm)


def renorm_(input: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:  # noqa: A002
    return apply_inplace(RenormBackward0, input, p=p, dim=dim, maxnorm=maxnorm)


TENSOR_METHODS: dict[str, Any] = {"renorm": renorm, "renorm_": renorm_}
