"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 104
(diffusion and score models from scratch) found: torch._softmax_backward_data and
torch._log_softmax_backward_data called from a script (NVlabs EDM's AttentionOp.backward
calls `torch._softmax_backward_data(grad_output=..., output=..., dim=2,
input_dtype=torch.float32)`), and a factory's `layout=` keyword (EDM's
StackedRandomGenerator.randn_like passes `layout=input.layout` to torch.randn).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SOFTMAX_BACKWARD_DATA = """import torch
torch.manual_seed(0)
g = torch.randn(2, 3)
y = torch.softmax(torch.randn(2, 3), 1)
print(torch._softmax_backward_data(g, y, 1, torch.float32))
print(torch._softmax_backward_data(grad_output=g, output=y, dim=-2, input_dtype=torch.float64))
print(torch._softmax_backward_data(g, y, 1, torch.float32).is_contiguous())
gg = g.clone().requires_grad_()
r = torch._softmax_backward_data(gg, y, 1, torch.float32)
print(type(r.grad_fn).__name__, r.grad_fn.next_functions[1], r.grad_fn._saved_dim)
r.sum().backward()
print(gg.grad)
print(torch._softmax_backward_data(torch.tensor(2.), torch.tensor(.5), 0, torch.float32))
print(torch._log_softmax_backward_data(torch.tensor(2.), torch.tensor(-.5), -1, torch.float32))
ly = torch.log_softmax(torch.randn(3, 5, dtype=torch.float64), 0)
print(torch._log_softmax_backward_data(torch.randn(3, 5, dtype=torch.float64), ly, 0,
                                       torch.float64))
w = torch.softmax(torch.randn(2, 4, 6), 2)
dw = torch.randn(2, 4, 6)
print(torch._softmax_backward_data(dw, w, 2, torch.float32).sum(2))
try:
    torch._softmax_backward_data(g, torch.randn(2, 4), 1, torch.float32)
except RuntimeError as e:
    print(e)
for a in [(g.long(), y.long(), 1, torch.int64), (g.long(), y.long(), 0, torch.int64),
          (g, y, 0, torch.float16), (g, y.double(), 1, torch.float32), (g, y, 2, torch.float32),
          (g.double(), y, 1, torch.float64)]:
    for f in (torch._softmax_backward_data, torch._log_softmax_backward_data):
        try:
            print(f(*a))
        except Exception as e:
            print(type(e).__name__, e)
"""


def test_softmax_backward_data_called_from_a_script() -> None:
    """The two backward-data ops as torch functions: values, node and saved dim, a 0-d
    input as one element, and the meta function's and kernel's errors."""
    assert gradtrace_output(SOFTMAX_BACKWARD_DATA) == torch_output(SOFTMAX_BACKWARD_DATA)


LAYOUT = """import torch
torch.manual_seed(0)
x = torch.zeros(2, 3)
print(torch.zeros(2, layout=torch.strided), torch.ones(2, layout=None).layout)
print(torch.randn(2, layout=x.layout, dtype=torch.float64))
print(torch.rand(3, generator=torch.Generator().manual_seed(3), layout=torch.strided))
print(torch.randn_like(x, layout=torch.strided).shape, torch.empty(2, layout=torch.strided).shape)
print(torch.full((2,), 3.0, layout=torch.strided), torch.arange(3, layout=torch.strided))
gens = [torch.Generator('cpu').manual_seed(s) for s in (0, 1)]
print(torch.stack([torch.randn([3], generator=gen, dtype=x.dtype, layout=x.layout,
                               device=x.device) for gen in gens]))
try:
    torch.zeros(2, layout=3)
except TypeError as e:
    print(e)
"""


def test_factory_layout_keyword() -> None:
    """`layout=torch.strided` (or None) given to a factory is its default; a non-layout is
    refused by torch's parser."""
    assert gradtrace_output(LAYOUT) == torch_output(LAYOUT)
