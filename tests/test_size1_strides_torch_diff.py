"""Differential tests against live PyTorch 2.13: the strides of a preserve_format copy
(empty_like, ones_like, zeros_like, full_like, rand_like, randn_like, clone, `.to`) of a
tensor with size-1 dims.

torch's empty_like keeps a non-overlapping and dense tensor's strides exactly, a size-1
dim's included (a (30, 1) transpose with strides (1, 30) gives (1, 30), though numpy calls
such an array row-major), and gives any other tensor infer_dense_strides of its strides,
where a size-1 dim takes the running stride (a (1, 30) view with strides (1, 30): (1, 1)).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

LIKE = """import torch
torch.manual_seed(0)
base = torch.randn(6, 5, 4)
cases = [torch.randn(1, 30).t(), base[:, :1], base[:1], base[:, :1].transpose(0, 2),
         base[:, 2:3, ::2], torch.randn(30, 1).expand(30, 4), torch.randn(1, 4).expand(3, 4),
         base[:, 3:4].permute(2, 1, 0), base.permute(2, 0, 1)[:, :1], torch.randn(5).unsqueeze(1),
         torch.randn(5).unsqueeze(0).t(), torch.randn(2, 1, 5).permute(2, 1, 0),
         torch.randn(1, 1, 5).transpose(0, 2), base[::2, :1, 1:2],
         torch.randn(3, 1, 1, 4).permute(3, 1, 0, 2), torch.randn(4, 1).t().unsqueeze(2),
         base.transpose(0, 1)[:1], torch.randn(1, 1), torch.randn(1, 1).t(), base[:1, :1, :1],
         torch.randn(7, 1, 3)[:, :, ::2], base[:, :1].expand(6, 3, 4),
         torch.randn(1, 7)[:, ::3].t()]
for v in cases:
    outs = [torch.ones_like(v), torch.empty_like(v), torch.zeros_like(v), torch.rand_like(v),
            v.clone(), torch.randn_like(v), torch.full_like(v, 2),
            v.clone(memory_format=torch.preserve_format), torch.zeros_like(v, dtype=torch.float64)]
    print(tuple(v.shape), v.stride(), [o.stride() for o in outs], v.is_contiguous(),
          outs[0].is_contiguous())
    r = torch.rand_like(v)
    print(r.flatten().tolist()[:6], r.t().stride() if r.dim() == 2 else r.transpose(0, -1).stride())
"""


def test_like_factories_and_clone_keep_torchs_strides_of_size_1_dims() -> None:
    """Transposes, expands, slices, permutations, size-1 dims in every place; the values
    rand_like draws in that memory order, and views of the copies."""
    assert gradtrace_output(LIKE) == torch_output(LIKE)


CASTS = """import torch
base = torch.randn(6, 5, 4)
for v in [torch.randn(1, 30).t(), base[:, :1].transpose(0, 2), torch.randn(5).unsqueeze(0).t(),
          base[:, 2:3, ::2], torch.randn(4, 1).t().unsqueeze(2), torch.randn(1, 7)[:, ::3].t()]:
    c = v.clone()
    print(v.to(torch.float64).stride(), v.double().stride(), v.to(torch.complex64).stride(),
          v.to(torch.int32).stride(),
          c.t().stride() if v.dim() == 2 else c.transpose(0, 2).stride(),
          c.is_contiguous(), torch.empty_like(v).unsqueeze(1).stride(),
          torch.empty_like(v)[:, :].stride())
"""


def test_casts_and_views_of_copies_keep_torchs_strides_of_size_1_dims() -> None:
    assert gradtrace_output(CASTS) == torch_output(CASTS)
