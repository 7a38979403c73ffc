"""Householder products: torch.geqrf (GeqrfBackward0, which has no derivative),
torch.linalg.householder_product / torch.orgqr (LinalgHouseholderProductBackward0) and
torch.ormqr (OrmqrBackward0), through MKL's ?geqrf / ?orgqr / ?ormqr as torch's CPU kernels
call them (engine/lapack.py).

The backward is FunctionsManual.cpp's householder_product_backward: with
Kᵢ = Hᵢ₊ … Q_gradᴴ Hᵢ₋ updated one reflector at a time (H(σᵢ) = H(τᵢ)⁻¹ on the left, H(τᵢ) on
the right), vᵢ's gradient is -τᵢ (vᵢᴴ Kᵢ)ᴴ - τᵢ Kᵢ vᵢ and τᵢ's is -vᵢᴴ Kᵢ vᵢ; ormqr_backward
reuses it, in reverse order when left == transpose.
"""
from __future__ import annotations

import numpy as np

from ...errors import TorchRuntimeError
from .. import lapack
from ..formulas import undefined, vjp
from ..grad_mode import GRAD_MODE
from ..node import Function
from ..tensor import Tensor
from ._util import no_derivative
from .decompositions import named_return
from .linalg import matmul
from .lu import lapack_dtype
from .matrices import tril
from .reductions import ReturnTypes
from .select_views import narrow
from .views import mT, squeeze, unsqueeze

GeqrfReturn = named_return("geqrf", "a", "tau")


# -- geqrf -----------------------------------------------------------------------------


class GeqrfBackward0(Function):
    """torch.geqrf: derivatives.yaml has `not_implemented("geqrf")`, so the node exists and
    its backward raises."""

    __slots__ = ()
    no_forward_ad = "geqrf"  # torch has no forward-mode formula (measured)
    multi_output = True
    materialize_grads = False
    formulas = (undefined("self"),)

    def forward(self, a: Tensor) -> list[np.ndarray]:
        packed, tau = lapack.geqrf(a.array)
        return [lapack.column_major(packed), tau]

    def backward(self, *grads: Tensor | None) -> Tensor:
        raise no_derivative("geqrf")


def geqrf(a: Tensor) -> ReturnTypes:
    if a.array.ndim < 2:
        raise TorchRuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    lapack_dtype(a, "geqrf_cpu")
    return GeqrfReturn(*GeqrfBackward0.call(a))


# -- householder_product ---------------------------------------------------------------


def _check_householder(v: Tensor, tau: Tensor) -> None:
    fname = "torch.linalg.householder_product"
    if v.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: input must have at least 2 dimensions.")
    m, n = v.array.shape[-2:]
    if m < n:
        raise TorchRuntimeError(f"{fname}: input.shape[-2] must be greater than or equal to "
                                "input.shape[-1]")
    k = tau.array.shape[-1] if tau.array.ndim else 1
    if n < k:
        raise TorchRuntimeError(f"{fname}: input.shape[-1] must be greater than or equal to "
                                "tau.shape[-1]")
    if v.array.ndim - tau.array.ndim != 1:
        raise TorchRuntimeError(
            f"{fname}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.array.ndim} and input.ndim is equal to {v.array.ndim}")
    if v.array.ndim > 2 and tau.array.shape[:-1] != v.array.shape[:-2]:
        raise TorchRuntimeError(
            f"{fname}: Expected batch dimensions of tau to be equal to input.shape[:-2], but "
            f"got {list(tau.array.shape[:-1])}")
    if tau.dtype is not v.dtype:
        raise TorchRuntimeError(f"{fname}: tau dtype {tau.dtype.scalar_type} does not match "
                                f"input dtype {v.dtype.scalar_type}")
    lapack_dtype(v, "orgqr_cpu")


class LinalgHouseholderProductBackward0(Function):
    __slots__ = ()
    formulas = (
        vjp("input", "householder_product_backward({grad}, {result}, {input}, {tau})[0]"),
        vjp("tau", "householder_product_backward({grad}, {result}, {input}, {tau})[1]"),
    )

    def forward(self, v: Tensor, tau: Tensor) -> np.ndarray:
        self.save("input", v)
        self.save("tau", tau)
        return lapack.column_major(lapack.orgqr(v.array, tau.array))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return householder_product_backward(grad, self.unpack("result"), self.unpack("input"),
                                            self.unpack("tau"))


def householder_product(v: Tensor, tau: Tensor) -> Tensor:
    _check_householder(v, tau)
    return LinalgHouseholderProductBackward0.call(v, tau)


def _transform(m: int, k: int, v: Tensor, t: Tensor, big_k: Tensor, in_place: bool,
               left: bool) -> Tensor:
    """apply_simple_transformation with u = v: (I - t v vᴴ) K (left) or K (I - t v vᴴ); in
    place (first-order backward) only rows/columns k: change, as v's first k entries are
    zero."""
    from .joins import cat

    if not in_place:
        if left:
            return big_k - (unsqueeze(t, -1) * v) * matmul(mT(v), big_k)
        return big_k - matmul(big_k, unsqueeze(t, -1) * v) * mT(v)
    tail = narrow(v, -2, k, m - k)
    if left:
        part = narrow(big_k, -2, k, m - k)
        part = part - (unsqueeze(t, -1) * tail) * matmul(mT(tail), part)
        return cat([narrow(big_k, -2, 0, k), part], -2) if k else part
    part = narrow(big_k, -1, k, m - k)
    part = part - matmul(part, unsqueeze(t, -1) * tail) * mT(tail)
    return cat([narrow(big_k, -1, 0, k), part], -1) if k else part


def householder_product_backward(grad: Tensor, result: Tensor, v_in: Tensor, tau: Tensor,
                                 flip_order: bool = False
                                 ) -> tuple[Tensor | None, Tensor | None]:
    from .creation import zeros_like
    from .matrices import tril_
    from .reductions import sum as sum_
    from .select_views import select
    from .view_inplace import copy_

    if v_in.array.size == 0 or tau.array.size == 0:
        return None, None
    m, n = v_in.array.shape[-2:]
    k = tau.array.shape[-1]
    eye = Tensor._wrap(np.eye(m, n, dtype=v_in.array.dtype))
    v = tril(v_in, -1) + eye  # the diagonal of ones the forward assumes
    first = narrow(v, -1, 0, k)
    sigma = tau / (tau * sum_(first * first, -2) - 1.0)
    big_k = matmul(result, mT(grad))
    in_place = not GRAD_MODE.enabled

    def column(x: Tensor, i: int) -> Tensor:
        return narrow(x, -1, i, 1)

    def update_grad(i: int, v_full: Tensor, t: Tensor, kk: Tensor) -> tuple[Tensor, Tensor]:
        vv = narrow(v_full, -2, i, m - i)
        v_h_k = matmul(mT(vv), narrow(kk, -2, i, m - i))
        k_v = matmul(narrow(kk, -1, i, m - i), vv)
        t_u = unsqueeze(t, -1)
        v_grad = squeeze(-t_u * v_h_k, -2) - squeeze(t_u * k_v, -1)
        tau_grad = -matmul(narrow(v_h_k, -1, i, m - i), vv)
        return v_grad, squeeze(squeeze(tau_grad, -1), -1)

    order = list(range(k))[::-1] if flip_order else list(range(k))
    left = not flip_order
    i0 = order[0]
    big_k = _transform(m, i0, column(v, i0), column(sigma, i0), big_k, in_place, left)
    # zeros filled column by column (select(-1, i).copy_), as torch's non-subclass path
    g_v = zeros_like(v_in)
    g_tau = zeros_like(tau)
    for pos, i in enumerate(order):
        v_i, t_i = column(v, i), column(tau, i)
        v_grad, tau_grad = update_grad(i, v_i, t_i, big_k)
        copy_(select(g_v, -1, i), v_grad)
        copy_(select(g_tau, -1, i), tau_grad)
        if pos + 1 < len(order):
            nxt = order[pos + 1]
            big_k = _transform(m, nxt, column(v, nxt), column(sigma, nxt), big_k, in_place,
                               left)
            big_k = _transform(m, i, v_i, t_i, big_k, in_place, not left)
    # forward reads only the strictly lower part of the input
    return tril_(g_v, -1), g_tau


# -- ormqr -----------------------------------------------------------------------------


def _check_ormqr(a: Tensor, tau: Tensor, c: Tensor, left: bool) -> None:
    fname = "torch.ormqr"
    if a.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: input must have at least 2 dimensions.")
    if c.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    k = tau.array.shape[-1] if tau.array.ndim else 1
    if k != min(c.array.shape[side], a.array.shape[-1]):
        raise TorchRuntimeError(f"{fname}: tau.shape[-1] must be equal to "
                                "min(other.shape[-2], input.shape[-1])")
    if c.array.shape[side] != a.array.shape[-2]:
        raise TorchRuntimeError(f"{fname}: other.shape[{side}] must be equal to "
                                "input.shape[-2]")
    if a.array.ndim - tau.array.ndim != 1:
        raise TorchRuntimeError(
            f"{fname}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.array.ndim} and input.ndim is equal to {a.array.ndim}")
    if a.array.ndim != c.array.ndim:
        raise TorchRuntimeError(
            f"{fname}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {c.array.ndim} and input.ndim is equal to {a.array.ndim}")
    if a.array.ndim > 2:
        batch = a.array.shape[:-2]
        if tau.array.shape[:-1] != batch:
            raise TorchRuntimeError(
                f"{fname}: Expected batch dimensions of tau to be equal to input.shape[:-2], "
                f"but got {list(tau.array.shape[:-1])}")
        if c.array.shape[:-2] != batch:
            raise TorchRuntimeError(
                f"{fname}: Expected batch dimensions of other to be equal to "
                f"input.shape[:-2], but got {list(c.array.shape[:-2])}")
    if tau.dtype is not a.dtype:
        raise TorchRuntimeError(
            f"{fname}: Expected input and tau to have the same dtype, but input has dtype"
            f"{a.dtype.scalar_type} and tau has dtype {tau.dtype.scalar_type}")
    if c.dtype is not a.dtype:
        raise TorchRuntimeError(
            f"{fname}: Expected input and other to have the same dtype, but input has dtype"
            f"{a.dtype.scalar_type} and other has dtype {c.dtype.scalar_type}")
    lapack_dtype(a, "ormqr_cpu")


class OrmqrBackward0(Function):
    __slots__ = ()
    no_forward_ad = "ormqr"  # torch has no forward-mode formula (measured)
    formulas = (
        vjp("self", "householder_product_backward(…, {result}, {self}, {input2})[0]"),
        vjp("input2", "householder_product_backward(…, {result}, {self}, {input2})[1]"),
        vjp("input3", "ormqr({self}, {input2}, {grad}, {left}, ¬{transpose})"),
    )

    def forward(self, a: Tensor, tau: Tensor, c: Tensor, left: bool, transpose: bool
                ) -> np.ndarray:
        self.save("input2", tau)
        self.save("input3", c)
        self.save("self", a)
        self.save_attr(left=left, transpose=transpose)
        return lapack.column_major(lapack.ormqr(a.array, tau.array, c.array, left, transpose))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)
        self.show_saved_as("input2", "input3", "result", "self")

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
        left, transpose = self.attrs["left"], self.attrs["transpose"]
        a, tau, result = self.unpack("self"), self.unpack("input2"), self.unpack("result")
        g_c = ormqr(a, tau, grad, left, not transpose) if self.needs_input_grad(2) else None
        g_a = g_tau = None
        if self.needs_input_grad(0) or self.needs_input_grad(1):
            if left != transpose:
                hg, hr = (grad, result) if not transpose else (mT(grad), mT(result))
                g_a, g_tau = householder_product_backward(hg, hr, a, tau)
            else:
                hg, hr = (mT(result), mT(grad)) if not transpose else (result, grad)
                g_a, g_tau = householder_product_backward(hg, hr, a, tau, flip_order=True)
        return g_a, g_tau, g_c


def ormqr(a: Tensor, tau: Tensor, c: Tensor, left: bool = True, transpose: bool = False
          ) -> Tensor:
    _check_ormqr(a, tau, c, left)
    return OrmqrBackward0.call(a, tau, c, left=left, transpose=transpose)


LINALG_FUNCTIONS = {"householder_product": householder_product}
TENSOR_METHODS = {"geqrf": geqrf, "orgqr": householder_product, "ormqr": ormqr}
