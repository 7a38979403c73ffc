"""A copy with memory_format=preserve (clone, empty_like, zeros_like, .to) of a dense tensor
takes its strides exactly, a size-1 dimension's included, as torch's empty_strided does.
Expected lines recorded from torch 2.13 (CPU) running the same script."""
from __future__ import annotations

from gradtrace.runner import run_text

SCRIPT = """\
import torch
w = torch.zeros(3, 4)
a = torch.zeros(2, 3, 4).transpose(0, 2).unsqueeze(1)
for v in (w.t().unsqueeze(0), a, a.unsqueeze(0)):
    print(tuple(v.shape), v.stride(), v.clone().stride(), torch.empty_like(v).stride(),
          v.to(torch.float64).stride(), torch.zeros_like(v).stride(),
          v.clone(memory_format=torch.contiguous_format).stride())
"""

TORCH = "".join(f"{line}\n" for line in (
    "(1, 4, 3) (4, 1, 4) (4, 1, 4) (4, 1, 4) (4, 1, 4) (4, 1, 4) (12, 3, 1)",
    "(4, 1, 3, 2) (1, 12, 4, 12) (1, 12, 4, 12) (1, 12, 4, 12) (1"
    ", 12, 4, 12) (1, 12, 4, 12) (6, 6, 2, 1)",
    "(1, 4, 1, 3, 2) (4, 1, 12, 4, 12) (4, 1, 12, 4, 12) (4, 1, 1"
    "2, 4, 12) (4, 1, 12, 4, 12) (4, 1, 12, 4, 12) (24, 6, 6, 2, 1)",
))

# unsqueeze next to a size-1 dim: torch's unsqueeze gives the new dim sizes[d] * strides[d]
# (numpy's expand_dims gave the size-1 dims others), and a dense copy keeps them
SIZE_ONE_NEIGHBOURS = """\
import torch
b = torch.zeros(2, 1, 1, 3).transpose(0, 3).unsqueeze(1)
print(b.stride(), b.clone().stride())
"""
TORCH_SIZE_ONE_NEIGHBOURS = "(1, 3, 3, 3, 3) (1, 3, 3, 3, 3)\n"


def test_preserve_copies_keep_a_dense_tensor_s_strides_size_one_dims_included():
    result = run_text(SCRIPT)
    assert result.error is None
    assert result.stdout == TORCH


def test_unsqueeze_beside_size_one_dims_has_torch_s_strides():
    assert run_text(SIZE_ONE_NEIGHBOURS).stdout == TORCH_SIZE_ONE_NEIGHBOURS
