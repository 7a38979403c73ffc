"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round
46 (LLM building blocks) found: Hugging Face's Mixtral MoE block indexes its ModuleList of
experts with a row of `nonzero()` (`self.experts[expert_idx]`, a one-element int64
tensor), which torch's containers take through operator.index; gradtrace's refused any
tensor. (`import gc` and complex index_select are tested in test_pystd.py and
test_complex_torch_diff.py.)

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


CONTAINER_TENSOR_INDICES = """import torch
torch.manual_seed(0)
m = torch.nn.ModuleList([torch.nn.Linear(2, 1) for _ in range(3)])
s = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh())
p = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(1) * i) for i in range(2)])
print(m[torch.tensor([2])], m[torch.tensor(-1)], s[torch.tensor(1)], p[torch.tensor([[1]])])
hit = torch.tensor([[0, 1, 0], [1, 1, 0], [0, 0, 1]]).sum(0).gt(0).nonzero()
for idx in hit:
    print(idx, m[idx].weight.shape)
for bad in (torch.tensor([1.0]), torch.tensor([0, 1]), torch.tensor(5), torch.tensor([]),
            "a", 1.5, None):
    for container in (m, s, p):
        try:
            print(container[bad])
        except (TypeError, IndexError) as e:
            print(type(e).__name__, e)
m[torch.tensor(0)] = torch.nn.Identity()
del m[torch.tensor([1])]
s[torch.tensor(0)] = torch.nn.Sigmoid()
print(m, s)
"""


def test_containers_take_one_element_integer_tensors_as_indices_like_torch() -> None:
    assert gradtrace_output(CONTAINER_TENSOR_INDICES) == torch_output(CONTAINER_TENSOR_INDICES)
