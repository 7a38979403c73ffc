"""Differential tests against live PyTorch 2.13: where an elementwise result lies in memory
(TensorIterator orders its dims by the first operand whose strides tell them apart), and
sums that walk that memory.

torch.where, lerp, addcmul, addcdiv and clamp with tensor bounds hand their operands to
TensorIterator in a fixed order (where: condition first), so `torch.where(c, a.t(), b)` is
column-major when `c` is; numpy lays such results out row-major. masked_fill fills a
contiguous clone. A full sum of a dense tensor in any dim order is the cascade over its
memory, as for a contiguous one. Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

OPERANDS = """import torch
torch.manual_seed(0)
a = torch.randn(300, 257)
b = torch.randn(257, 300)
c = a.t() > 0.1
w = torch.rand(257, 300)
"""

RESULTS = [
    "torch.where(c, a.t(), b)", "torch.where(b > 0, a.t(), b)", "torch.where(c, b, a.t())",
    "torch.where(c, a.t(), 0.)", "torch.where(c.t().contiguous().t(), b, b)",
    "torch.lerp(a.t(), b, 0.3)", "torch.lerp(a.t(), b, w)", "torch.lerp(b, a.t(), w)",
    "torch.addcmul(a.t(), b, w, value=0.7)", "torch.addcmul(b, a.t(), w)",
    "torch.addcdiv(a.t(), b, w + 1, value=0.7)", "torch.addcdiv(b, b, a.t().exp())",
    "torch.clamp(a.t(), min=b, max=b + 1)", "torch.clamp(b, min=a.t())",
    "a.t().masked_fill(c, 0.5)", "b.masked_fill(c, 0.5)", "torch.maximum(a.t(), b)",
]


@pytest.mark.parametrize("expr", RESULTS)
def test_elementwise_results_lie_in_memory_as_torchs_and_sum_alike(expr: str) -> None:
    script = OPERANDS + f"""o = {expr}
print(o.stride(), o.is_contiguous())
print(o.sum().item(), o.sum(0)[:4].tolist(), o.sum(1)[:4].tolist(), o.mean().item())
"""
    assert gradtrace_output(script) == torch_output(script)


def test_gradients_through_where_and_lerp_of_transposes_match_torch() -> None:
    script = OPERANDS + """a.requires_grad_()
w.requires_grad_()
y = torch.where(c, a.t() * 2, b) + torch.lerp(a.t(), b, w)
(y * y).sum().backward()
print(a.grad.stride(), a.grad.sum().item(), w.grad.sum().item(), w.grad.stride())
"""
    assert gradtrace_output(script) == torch_output(script)


FULL_SUMS = """import torch
torch.manual_seed(1)
shapes = [(3, 5), (64, 9), (300, 257), (513, 129), (17, 33, 65), (40, 30, 50), (2, 100000)]
perms = {2: [(1, 0)], 3: [(1, 0, 2), (2, 1, 0), (0, 2, 1), (2, 0, 1)]}
for dt in [torch.float32, torch.float64]:
    for s in shapes:
        base = torch.randn(s).to(dt)
        for p in perms[len(s)]:
            x = base.permute(p)
            print(x.sum().item(), x.mean().item(), x.nansum().item(),
                  x.sum(dim=tuple(range(x.dim())), keepdim=True).shape)
"""


def test_a_full_sum_of_a_permuted_dense_tensor_sums_its_memory_like_torch() -> None:
    """Past torch's grain size (2 x 100000) too: the two threads' halves of its memory."""
    assert gradtrace_output(FULL_SUMS) == torch_output(FULL_SUMS)


def test_a_float16_mean_sums_in_float32_and_divides_there_like_torch() -> None:
    """mean_out casts half to float, sums, divides by the count in float and casts back:
    a count past float16's range (77,100) divided in float16 gave -0.0."""
    script = """import torch
torch.manual_seed(1)
for s in [(3, 5), (64, 9), (300, 257), (7, 40000), (100001, 2), (5, 6, 7)]:
    x = torch.randn(s).half() * 3
    print(x.mean().item(), x.mean(0).flatten()[:3].tolist(),
          x.mean(-1, keepdim=True).flatten()[:3].tolist())
"""
    assert gradtrace_output(script) == torch_output(script)


ACTIVATIONS = {
    "relu": "torch.relu", "leaky_relu": "F.leaky_relu", "sigmoid": "torch.sigmoid",
    "tanh": "torch.tanh", "gelu_tanh": "lambda t: F.gelu(t, approximate='tanh')",
    "gelu": "F.gelu",
    "silu": "F.silu", "mish": "F.mish", "elu": "F.elu", "softplus": "F.softplus",
    "hardtanh": "F.hardtanh", "relu6": "F.relu6", "hardswish": "F.hardswish",
    "logsigmoid": "F.logsigmoid", "exp": "torch.exp", "square": "lambda t: t ** 2",
    "where": "lambda t: torch.where(t > 0.5, t, t * 2)", "hardsigmoid": "F.hardsigmoid",
    "prelu": "lambda t: F.prelu(t - 0.5, torch.tensor([0.25]))",
    "smooth_l1": "lambda t: F.smooth_l1_loss(t, t.detach().flip(0), reduction='none')",
    "huber": "lambda t: F.huber_loss(t, t.detach().flip(0), reduction='none')",
    "mse": "lambda t: F.mse_loss(t, t.detach().flip(0), reduction='none')",
    "softmax": "lambda t: t.softmax(1)", "layer_norm": "lambda t: F.layer_norm(t, (70,))",
}


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradients_lie_in_memory_as_torchs(name: str) -> None:
    """A backward kernel's result follows its first TensorIterator operand: the incoming
    gradient for most (sigmoid_backward(grad, output)), self for relu's threshold_backward
    and leaky_relu_backward; the hooks see the strides, a later sum their order. Operands
    in two layouts (self column-major, the gradient row-major) run the kernel's scalar code
    along the output's rows, not its vector body (gelu's exact float32 backward too: off
    oneDNN's path, a non-contiguous input runs GeluBackwardKernel)."""
    script = f"""import torch
import torch.nn.functional as F
torch.manual_seed(0)
f = {ACTIVATIONS[name]}
seen = []
x = torch.rand(37, 70, requires_grad=True)
g = torch.randn(37, 70)
h = x.t().contiguous().t()
h.register_hook(lambda grad: seen.append((grad.stride(), grad.sum(0)[:3].tolist())))
f(h).backward(g)
h2 = x * 1
h2.register_hook(lambda grad: seen.append((grad.stride(), grad.sum(1)[:3].tolist())))
f(h2).backward(g.t().contiguous().t())
print(seen)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_a_prelu_gradient_is_an_array_of_its_own_that_later_gradients_add_into() -> None:
    """_prelu_kernel_backward's results were read-only broadcast views: stolen by
    AccumulateGrad, the next backward's in-place accumulation raised ValueError."""
    script = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.rand(5, 7, requires_grad=True)
w = torch.tensor([0.25], requires_grad=True)
for _ in range(3):
    F.prelu(x * 1 - 0.5, w).backward(torch.randn(5, 7))
print(x.grad, w.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_hardsigmoid_backward_multiplies_by_a_floats_sixth_like_torch() -> None:
    """grad * opmath_t(1.0f / 6.0f): float32's 1/6 even for float64 (-3 * it is
    -0.5000000149011612), not grad / 6."""
    script = """import torch
for dt in [torch.float32, torch.float64]:
    x = torch.linspace(-2.9, 2.9, 50, dtype=dt, requires_grad=True)
    torch.nn.functional.hardsigmoid(x).backward(torch.linspace(-3, 7, 50, dtype=dt))
    print(x.grad.tolist())
"""
    assert gradtrace_output(script) == torch_output(script)


LAID_OUT = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
base = torch.randn(6, 40, 33)
layouts = {"c": base, "perm": base.permute(2, 0, 1).contiguous().permute(1, 2, 0),
           "t": base.transpose(1, 2).contiguous().transpose(1, 2),
           "slice": torch.randn(6, 40, 66)[:, :, ::2]}
i3 = torch.tensor([0, 2, 5])
for name, x in layouts.items():
    r = EXPR
    print(name, tuple(r.shape), r.stride(), r.sum().item(), r.sum(1).flatten()[:3].tolist())
"""

RESULTS_OF_OTHER_OPS = [
    # written into a contiguous result whatever the input's layout
    "torch.cat([x, x], 1)", "torch.stack([x, x], 1)", "x.roll(2, 1)", "x.cumsum(1)",
    "(x * 0.1 + 1).cumprod(1)", "x.logcumsumexp(2)", "x.cummax(1)[0]", "x.cummin(2)[1]",
    "F.log_softmax(x, 1)", "x.softmax(0)",
    # into empty_like(self): the input's own layout when dense
    "x.flip(1)", "x.sort(1)[0]", "x.sort(2, descending=True)[1]", "x.argsort(1)",
    "torch.atan2(x, x.flip(0))",
    # the index kernel's TensorIterator over the restrided input and the indices
    "x[:, [0, 2, 5]]", "x[[1, 0, 3]]", "x[..., [4, 1]]", "x[i3, i3]", "x[:, i3, i3]",
    "x[:, torch.tensor([[0, 1], [3, 2]])]", "x[i3, :, i3]", "x[:, base[0, :, 0] > 0]",
    "x[1, [2, 3]]",
]


@pytest.mark.parametrize("expr", RESULTS_OF_OTHER_OPS)
def test_other_results_lie_in_memory_as_torchs(expr: str) -> None:
    script = LAID_OUT.replace("EXPR", expr)
    assert gradtrace_output(script) == torch_output(script)
