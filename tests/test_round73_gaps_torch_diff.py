"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 73
(kernel methods and MCMC) found.

- matmul of two 3-D tensors whose batches differ, one of them of batch 1: torch squeezes the
  batch-1 operand to a matrix when it requires grad (SqueezeBackward1) and folds the other
  into one mm (UnsafeViewBackward0 over MmBackward0; through mT and a contiguous copy when the
  squeezed one is on the left), where gradtrace expanded both into a bmm (measured: with the
  batch-1 operand not requiring grad, or both of batch 1, or either 4-D, it stays a bmm).
- a torch.jit scripted or traced callable's 3-D matmul records eager's nodes (mm or bmm,
  _unsafe_view, _reshape_alias, squeeze.dim) and cos records CosBackward0: gradtrace refused
  them as nodes not measured (tests/data/jit/jit_expression_nodes.gt covers the graphs), and
  its refusals said "scriptd" for "scripted".

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import file_runs, gradtrace_output, torch_output
from test_ops_torch_diff import check_case

torch = pytest.importorskip("torch")

MATMUL_BATCH_ONE = [
    "B[:1] @ C", "B @ C[:1]", "B.detach()[:1] @ C", "B @ C.detach()[:1]", "B[:1] @ C[:1]",
    "B[:1] @ C.detach()", "B.detach() @ C[:1]", "torch.matmul(B, C[:1])", "B[:1].matmul(C)",
    "B.unsqueeze(0) @ C[:1]", "B @ C[:1].unsqueeze(0)", "B.transpose(1, 2)[:, :2] @ C[:1, :2]",
    "B[:1] @ C[:1, :, :2].expand(4, 3, 2)", "torch.bmm(B, C[:1].expand(4, 3, 5))",
]


@pytest.mark.parametrize("code", MATMUL_BATCH_ONE)
def test_matmul_of_a_batch_one_operand_matches_torch(code: str) -> None:
    check_case(code)


MATMUL_BITS = """import torch
torch.manual_seed(0)
a = torch.randn(3, 4, 5, requires_grad=True)
b = torch.randn(1, 5, 6, requires_grad=True)
for left, right in ((a, b), (b.mT, a.mT), (a.detach(), b), (a, b.detach()),
                    (a.transpose(1, 2).contiguous().transpose(1, 2), b)):
    out = left @ right
    print(out.grad_fn.name(), out.is_contiguous(), out.stride())
    print(out.tolist())
    if out.requires_grad:
        ga = torch.autograd.grad((out * out.detach().cos()).sum(),
                                 [t for t in (a, b) if t.requires_grad])
        print([g.tolist() for g in ga])
with torch.no_grad():
    out = a @ b
print(out.requires_grad, out.tolist())
"""


def test_matmul_of_a_batch_one_operand_has_torchs_bits() -> None:
    assert gradtrace_output(MATMUL_BITS) == torch_output(MATMUL_BITS)


JIT_MATMUL_COS = """import torch
import numpy as np

@torch.jit.script
def encode(v: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    vp = 2 * np.pi * v @ b.T
    return torch.cat((torch.cos(vp), torch.sin(vp)), dim=-1)

torch.manual_seed(0)
v = torch.randn(3, 4, 2, requires_grad=True)
b = torch.randn(4, 2) * 10
out = encode(v, b)
print(out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
out.sum().backward()
print(v.grad.tolist())
traced = torch.jit.trace(lambda x: torch.cos(x @ x.mT), (v,))
print(traced(v).sum().item())
try:
    traced(v.detach()).exp_()
    encode(v, b)
except Exception as e:
    print(type(e).__name__)
"""


def test_scripted_3d_matmul_and_cos_record_eagers_nodes(tmp_path) -> None:
    torch_run, result, _ = file_runs(JIT_MATMUL_COS, tmp_path, "jit_matmul_cos", check=True)
    assert result.stdout.splitlines() == torch_run.stdout.splitlines()[:3]
    # a second scripted call with grad is a DifferentiableGraph, which gradtrace refuses
    assert result.error is not None and "DifferentiableGraph" in result.error.message


def test_jit_refusals_name_scripted_and_traced_callables() -> None:
    out = gradtrace_output("import torch\n@torch.jit.script\ndef f(x):\n    return x.erf()\n"
                           "f(torch.ones(2, requires_grad=True))\n")
    assert "inside a torch.jit scripted callable is not supported" in out, out
    out = gradtrace_output("import torch\nf = torch.jit.trace(lambda x: x.erf(), "
                           "(torch.ones(2, requires_grad=True),))\n")
    assert "inside a torch.jit traced callable is not supported" in out, out


MODULE_WITHOUT_INIT = """import torch.nn as nn

class Encoding(nn.Module):
    def __init__(self, sigma):
        self.sigma = sigma

    def _get_sigma(self):
        return self.sigma

class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

print(Encoding(1.0).sigma)
try:
    Scaled()._get_scale
except AttributeError as e:
    print(e)
{last}
"""


@pytest.mark.parametrize("last", ["Encoding(1.0)(3)", "Encoding(1.0)._get_sigm",
                                  "Scaled().scal", "Scaled()._get_name_"])
def test_uncaught_attribute_error_suggests_what_python_does(tmp_path, last: str) -> None:
    """Python's "Did you mean" comes from dir(obj): nn.Module.__dir__ reads _parameters,
    which a module whose __init__ skipped Module.__init__ does not have, so none is shown
    (jmclong's PositionalEncoding); with Module.__init__ run, the closest name is."""
    script = MODULE_WITHOUT_INIT.replace("{last}", last)
    torch_run, result, _ = file_runs(script, tmp_path, "module_without_init")
    assert result.stdout == torch_run.stdout
    error = result.error
    assert f"{error.printed_kind}: {error.uncaught_message}" == \
        torch_run.stderr.strip().splitlines()[-1]


INDEX_PUT_LAYOUT = """import torch
torch.manual_seed(0)
out = torch.randn(12, 7, requires_grad=True)
w = torch.arange(36.).view(6, 6)
def pdist2(x, y):
    p = (x ** 2).sum(1).view(-1, 1) + (y ** 2).sum(1).view(1, -1) - 2.0 * torch.mm(x, y.t())
    p[p < 0] = 0
    return p
p = pdist2(out[:6], out[6:])
print(p.grad_fn.name(), p.grad_fn(w.t())[0].stride())
for k in (torch.exp(-p / 9.0).t(), p.t(), torch.exp(-p / 9.0)):
    out.grad = None
    (k * w).sum().backward(retain_graph=True)
    print(out.grad.tolist())
a = torch.randn(4, 3).t()
print(torch.index_put(a, (a > 0,), torch.tensor(0.)).stride(),
      torch.index_put(a, (torch.tensor([0, 2]),), torch.ones(4)).stride(),
      torch.index_put(a[:, ::2], (torch.tensor([1]),), torch.ones(2), accumulate=True).stride())
"""


def test_index_put_keeps_a_transposed_layout_as_torchs_clone_does() -> None:
    """index_put is `self.clone(preserve_format).index_put_(...)`: IndexPutBackward0's
    gradient of a transposed incoming gradient stays transposed, and the mm backward behind
    it then rounds as torch's (fengliu90's MMD-D: `Pdist[Pdist<0]=0` under a transposed
    kernel), where gradtrace's row-major copy took the other BLAS path (measured 1 ulp)."""
    expected = torch_output(INDEX_PUT_LAYOUT)
    assert "Error" not in expected
    assert gradtrace_output(INDEX_PUT_LAYOUT) == expected
