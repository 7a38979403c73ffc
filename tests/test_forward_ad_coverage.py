"""Forward-mode AD coverage: every op with a backward (every engine Function) has a forward
formula (`jvp`), or is one torch refuses too (`no_forward_ad`, torch's own
NotImplementedError, measured against torch 2.13 below), or is listed here as not done
yet. A new op without any of the three fails, and so does a listed one that gains a
formula, so nothing is silently missing.
"""
from __future__ import annotations

import importlib
import pkgutil

import pytest

import gradtrace.engine.ops as ops
from gradtrace.engine.node import Function

# ops torch 2.13 has a forward formula for (derivatives.yaml, or a decomposition torch.func
# and forward-mode AD use) that gradtrace has not written yet, by module
NOT_YET = {
    "complex_ops": "PolarBackward0",
    "sparse_products": "MmBackward0 SparseAddmmBackward0",
    "activations": "EluBackwardBackward0 GeluBackwardBackward0 GluBackward0 "
        "GluBackwardBackward0 LogSigmoidBackwardBackward0 RreluWithNoiseBackward0 "
        "RreluWithNoiseBackwardBackward0 SoftplusBackwardBackward0",
    "attention": "SafeSoftmaxBackward0 ScaledDotProductFlashAttentionForCpuBackward0",
    "cholesky_solve": "CholeskyInverseBackward0 CholeskySolveBackward0",
    "conv": "ConvolutionBackwardBackward0",
    "creation": "FillBackward0 FillBackward2",
    "decompositions": "LinalgQrBackward0",
    "float_bits": "FrexpBackward0",
    "fractional_pool": "FractionalMaxPool2DBackward0 FractionalMaxPool3DBackward0",
    "gamma_sampling": "PoissonBackward0",
    "householder": "LinalgHouseholderProductBackward0",
    "logic_inplace": "EqBackward0 EqBackward1 GeBackward0 GeBackward1 GtBackward0 GtBackward1 "
        "LeBackward0 LeBackward1 LtBackward0 LtBackward1 NeBackward0 NeBackward1",
    "losses": "BinaryCrossEntropyBackward0 BinaryCrossEntropyBackwardBackward0 "
        "BinaryCrossEntropyWithLogitsBackward0 SmoothL1LossBackwardBackward0",
    "lu": "LinalgLuBackward0 LinalgLuFactorExBackward0 LinalgLuSolveBackward0 "
        "LuUnpackBackward0",
    "matrices": "DiagonalBackward0_copy",
    "matrix_exp": "LinalgMatrixExpBackward0",
    "nodes": "MvBackward0 BmmBackward0",
    "normalization": "NativeBatchNormBackwardBackward0 NativeLayerNormBackwardBackward0",
    "piecewise": "HardswishBackwardBackward0",
    "reductions": "AminmaxBackward0",
    "renorm": "RenormBackward0",
    "sampling": "BernoulliBackward0 BernoulliBackward1 BernoulliBackward2 CauchyBackward0 "
        "ExponentialBackward0 NormalBackward0 NormalBackward1 NormalBackward2 NormalBackward3 "
        "RandomBackward0 RandomBackward1 RandomBackward2 UniformBackward0 GeometricBackward0 "
        "LogNormalBackward0",
    "as_strided": "AsStridedBackward0",
    "scatter_reduce": "ScatterReduceBackward0",
    "spectral": "LinalgEighBackward0 LinalgLstsqBackward0 LinalgPinvBackward0 "
        "LinalgSvdBackward0",
    "subscript": "FillBackward3",
    "tensor_info": "FillBackward1",
    "triangular_solve": "TriangularSolveBackward0",
    "weighted": "PreluKernelBackwardBackward0 TrilinearBackward0",

}

# engine classes that are no op of their own: the `_fw_primal` view (it has no tangent by
# definition), module-hook and view-replay wrappers, and the NotImplemented nodes torch
# gives ops without any derivative (their backward raises; they carry no tangent), and
# gradcheck's UndefinedGradBackward (a probe node of its own backward check)
NOT_OPS = {"Identity", "BackwardHookFunctionBackward", "ViewFunction", "NotImplemented",
           "UndefinedGradBackward"}


def _functions() -> list[type[Function]]:
    for module in pkgutil.iter_modules(ops.__path__):
        importlib.import_module(f"gradtrace.engine.ops.{module.name}")
    importlib.import_module("gradtrace.engine.batching.nodes")  # its ops count too
    importlib.import_module("gradtrace.engine.gradcheck")
    seen: set[type[Function]] = set()
    stack = [Function]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return sorted((c for c in seen if not c.__name__.startswith("_")
                   and c.__name__ not in NOT_OPS), key=lambda c: (c.__module__, c.__name__))


def _key(cls: type[Function]) -> str:
    return f"{cls.__module__.rsplit('.', 1)[-1]}.{cls.__name__}"


def _not_yet() -> set[str]:
    return {f"{module}.{name}" for module, names in NOT_YET.items() for name in names.split()}


def test_every_op_has_a_forward_formula_a_torch_refusal_or_a_listed_gap():
    missing = [_key(c) for c in _functions()
               if c.jvp is None and c.no_forward_ad is None and _key(c) not in _not_yet()]
    assert not missing, f"ops without a forward formula, refusal or NOT_YET entry: {missing}"


def test_the_list_of_gaps_names_only_ops_still_without_a_formula():
    by_key = {_key(c): c for c in _functions()}
    stale = sorted(k for k in _not_yet() if k not in by_key or by_key[k].jvp is not None
                   or by_key[k].no_forward_ad is not None)
    assert not stale, f"NOT_YET entries that are no longer gaps: {stale}"


def test_an_op_torch_refuses_is_never_given_a_formula_too():
    both = [_key(c) for c in _functions() if c.jvp is not None and c.no_forward_ad is not None]
    assert not both


# torch's refusals, measured: a snippet reaching each op torch has no forward formula for
REFUSED = {
    "acosh_": "(d * 1.0 + 1).acosh_()",
    "asinh_": "(d * 1.0).asinh_()",
    "atanh_": "(d * 0.1).atanh_()",
    "_euclidean_dist": "torch.cdist(d, d, compute_mode='use_mm_for_euclid_dist')",
    "geqrf": "torch.geqrf(d)",
    "igamma": "torch.igamma(d, d)",
    "igammac": "torch.igammac(d, d)",
    "index_reduce": "d.index_reduce(0, torch.tensor([0, 1, 0]), d, 'prod')",
    "multi_margin_loss": "F.multi_margin_loss(d, torch.tensor([0, 1, 2]))",
    "special_zeta": "torch.special.zeta(d + 1, d)",
    "_unique2": "torch.unique(d)",
    "unique_dim": "torch.unique(d, dim=0)",
    "unique_consecutive": "torch.unique_consecutive(d)",
    "_weight_norm_interface": "torch._weight_norm(d, torch.ones(1, 4), 1)",
    "_cdist_forward": "torch.cdist(d, d)",
    "_pdist_forward": "F.pdist(d)",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_torch_refuses_forward_ad_where_gradtrace_does(name):
    torch = pytest.importorskip("torch")
    from gradtrace.runner import run_text

    script = ("import torch\nimport torch.nn.functional as F\n"
              "import torch.autograd.forward_ad as fwAD\n"
              "x = torch.linspace(0.5, 1.6, 12).reshape(3, 4)\n"
              "with fwAD.dual_level():\n"
              "    d = fwAD.make_dual(x, torch.ones(3, 4))\n"
              "    try:\n"
              f"        {REFUSED[name]}\n"
              "        print('ran')\n"
              "    except NotImplementedError as err:\n"
              "        print(str(err).splitlines()[0])\n")
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(script, "<torch>", "exec"), {"torch": torch})  # noqa: S102
    expected = buffer.getvalue()
    assert f"forward AD with {name} that" in expected
    result = run_text(script)
    assert result.error is None and result.stdout == expected
