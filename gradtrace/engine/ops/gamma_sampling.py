"""torch's samplers of the gamma family as ops: _standard_gamma (and its reparameterised
gradient _standard_gamma_grad), _sample_dirichlet and poisson, drawing from the generator
as torch's CPU kernels do (engine/gamma_sampling.py)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchValueError
from .. import gamma_sampling
from ..formulas import local, undefined
from ..generator import Generator, resolve
from ..node import Function
from ..tensor import Tensor
from ._util import no_derivative, not_implemented
from .creation import zeros_like


def _floating(a: Tensor, kernel: str) -> np.ndarray:
    if not a.dtype.is_floating_point:
        raise not_implemented(kernel, a.dtype)
    return a.array


class StandardGammaBackward0(Function):
    __slots__ = ()
    no_forward_ad = "_standard_gamma"  # torch has no forward-mode formula (measured)
    formulas = (local("self", "_standard_gamma_grad({self}, {result})"),)

    def forward(self, a: Tensor, gen: Generator) -> np.ndarray:
        self.save("self", a)
        return gamma_sampling.standard_gamma(_floating(a, "gamma_cpu"), gen)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * standard_gamma_grad(self.unpack("self"), self.unpack("result"))


class StandardGammaGradBackward0(Function):
    """_standard_gamma_grad(self, output): torch has no derivative for it."""

    __slots__ = ()
    no_forward_ad = "_standard_gamma_grad"  # torch has no forward-mode formula (measured)
    formulas = (undefined("self"),)

    def forward(self, a: Tensor, output: Tensor) -> np.ndarray:
        return gamma_sampling.standard_gamma_grad(a.array, output.array.astype(a.array.dtype))

    def backward(self, grad: Tensor) -> Tensor:
        raise no_derivative("_standard_gamma_grad")


class SampleDirichletNotImplemented(Function):
    """_sample_dirichlet records torch's NotImplemented node."""

    __slots__ = ()
    formulas = (undefined("self"),)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, a: Tensor, gen: Generator) -> np.ndarray:
        return gamma_sampling.dirichlet(_floating(a, "dirichlet"), gen)

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::_sample_dirichlet is not implemented")


SampleDirichletNotImplemented.__name__ = "NotImplemented"


class DirichletGradNotImplemented(Function):
    """_dirichlet_grad(x, alpha, total): torch's NotImplemented node, whose next_functions are
    the inputs that require grad, in order (the values come as arrays beside them)."""

    __slots__ = ()
    formulas = (undefined("input", each=True),)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, *differentiable: Tensor, x: np.ndarray, alpha: np.ndarray,
                total: np.ndarray) -> np.ndarray:
        return gamma_sampling.dirichlet_grad(x, alpha, total)

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::_dirichlet_grad is not implemented")


DirichletGradNotImplemented.__name__ = "NotImplemented"


class BinomialNotImplemented(Function):
    """binomial(count, prob) records torch's NotImplemented node."""

    __slots__ = ()
    formulas = (undefined("count"), undefined("prob"))

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, count: Tensor, prob: Tensor, gen: Generator) -> np.ndarray:
        return gamma_sampling.binomial(count.array, prob.array, gen)

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::binomial is not implemented")


BinomialNotImplemented.__name__ = "NotImplemented"


class PoissonBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "0"),)

    def forward(self, a: Tensor, gen: Generator) -> np.ndarray:
        rates = _floating(a, "poisson_cpu")
        if (rates < 0).any() or np.isnan(rates).any():
            raise TorchRuntimeError("invalid Poisson rate, expected rate to be non-negative")
        return gamma_sampling.poisson(rates, gen)

    def backward(self, grad: Tensor) -> Tensor:
        return zeros_like(grad)


def standard_gamma(a: Tensor, generator: Generator | None = None) -> Tensor:
    return StandardGammaBackward0.call(a, gen=resolve(generator))


def standard_gamma_grad(a: Tensor, output: Tensor) -> Tensor:
    return StandardGammaGradBackward0.call(a, output=output)


def sample_dirichlet(a: Tensor, generator: Generator | None = None) -> Tensor:
    return SampleDirichletNotImplemented.call(a, gen=resolve(generator))


def dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    dtype = x.dtype
    for t in (alpha, total):
        if t.dtype != dtype:
            raise TorchRuntimeError(f"expected scalar type {dtype.tensor_type[:-6]} but found "
                                    f"{t.dtype.tensor_type[:-6]}")
    _floating(x, "_dirichlet_grad_cpu")
    inputs = [t for t in (x, alpha, total) if t.requires_grad]
    return DirichletGradNotImplemented.call(*inputs, x=x.array, alpha=alpha.array,
                                            total=total.array)


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    if not count.dtype.is_floating_point:
        raise TorchValueError("binomial only supports floating-point dtypes for count, got: "
                              f"{count.dtype.tensor_type[:-6]}")
    if prob.dtype != count.dtype:
        raise TorchRuntimeError(f"Found dtype {prob.dtype.tensor_type[:-6]} but expected "
                                f"{count.dtype.tensor_type[:-6]}")
    return BinomialNotImplemented.call(count, prob, gen=resolve(generator))


def poisson(a: Tensor, generator: Generator | None = None) -> Tensor:
    return PoissonBackward0.call(a, gen=resolve(generator))


TORCH_FUNCTIONS: dict[str, Any] = {
    "_standard_gamma": standard_gamma, "_standard_gamma_grad": standard_gamma_grad,
    "_sample_dirichlet": sample_dirichlet, "_dirichlet_grad": dirichlet_grad,
    "binomial": binomial, "poisson": poisson,
}
