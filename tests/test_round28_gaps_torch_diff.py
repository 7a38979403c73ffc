"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 28
(generative-model tutorials: diffusion, flow matching, score matching, VAEs, normalizing
flows, energy models) found:

- `torch.nn.DataParallel(model)` (Yang Song's score-SDE tutorial wraps its ScoreNet in it)
  was refused; without an accelerator torch keeps the module and an empty device_ids, and
  forward calls the module (its repr, state_dict keys "module.*", gradients and Adam steps
  follow from that);
- a DataLoader over a numpy array (e-hulten's real-nvp-2d: `DataLoader(dataset=x)` with x
  a float32 array) stopped at the fetcher's `getattr(dataset, "__getitems__", None)`: an
  unknown dunder of a numpy array was refused instead of being Python's AttributeError.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import address_free, each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


DATA_PARALLEL = """import torch
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
dp = torch.nn.DataParallel(net, device_ids=[0, 1], output_device=0, dim=1)
print(dp)
print(dp.device_ids, dp.module is net, isinstance(dp, torch.nn.Module), type(dp))
print(torch.nn.parallel.DataParallel is torch.nn.DataParallel, hasattr(dp, "dim"))
print(list(dp.state_dict().keys()), [n for n, _ in dp.named_parameters()])
opt = torch.optim.Adam(dp.parameters(), lr=0.1)
x = torch.randn(5, 3)
for _ in range(2):
    opt.zero_grad()
    y = dp(x)
    loss = y.pow(2).mean()
    loss.backward()
    opt.step()
    print(loss.item(), y.grad_fn, net[0].weight.grad[0])
class Two(torch.nn.Module):
    def forward(self, a, scale=1.0):
        return a * scale
print(torch.nn.DataParallel(Two())(torch.ones(2), scale=3.0))
torch.nn.DataParallel(Two())(torch.ones(2), shift=1.0)
"""


def test_data_parallel_without_accelerators_matches_torch() -> None:
    assert address_free(gradtrace_output(DATA_PARALLEL)) == \
        address_free(torch_output(DATA_PARALLEL))


NUMPY_DATASET = """import numpy as np
import torch
from torch.utils.data import DataLoader
torch.manual_seed(0)
x = np.arange(20, dtype=np.float32).reshape(10, 2) / 7
for batch in DataLoader(dataset=x, batch_size=4, shuffle=True):
    print(batch, batch.dtype)
for batch in DataLoader(x[:, 0].astype(np.int64), batch_size=3):
    print(batch)
print(list(DataLoader(x, batch_size=5, drop_last=True))[1])
"""


def test_dataloader_over_a_numpy_array_matches_torch() -> None:
    assert gradtrace_output(NUMPY_DATASET) == torch_output(NUMPY_DATASET)


DUNDERS = [
    'hasattr(a, "__getitems__")', 'getattr(a, "__getitems__", None)',
    'hasattr(a, "__torch_function__")', 'getattr(a.dtype, "__getitems__", 7)',
    'hasattr(np.float32(2.0), "__getitems__")', 'getattr(a, "__nonsense__")',
    'getattr(np.int64(3), "__nonsense__")',
]


def test_unknown_dunders_of_numpy_values_match_torch() -> None:
    script = each_expression(DUNDERS, "import numpy as np\na = np.zeros(3, dtype=np.float32)")
    assert gradtrace_output(script) == torch_output(script)


MOMENTS = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for shape, groups in [((16, 64, 26, 26), 64), ((64, 16, 300), 16), ((2, 8, 33, 33), 2),
                      ((1, 2, 12345), 1), ((4, 3, 20, 40), 3)]:
    for dtype in (torch.float32, torch.float64):
        x = (torch.randn(shape, dtype=dtype) * 3 + 1).requires_grad_()
        y = F.group_norm(x, groups)
        z = F.layer_norm(x, x.shape[-1:])
        print(shape, dtype, y.double().pow(2).sum().item(), z.double().pow(2).sum().item())
        (y * y.detach().flip(-1)).sum().backward()
        print(x.grad.double().pow(2).sum().item())
"""


def test_rowwise_moments_of_short_last_chunks_match_torch() -> None:
    """Rows of 676 (5 chunks of 16 vectors and one of 4, the tutorial ScoreNet's
    GroupNorm(32, 32) on 26x26 maps) or 300 elements merge a short chunk into the cascade:
    AddMomentsVec's m2 is fmadd(delta m0, c delta, m2 + m2_add), whose factors round
    differently from delta (delta c m0) when m0 is no power of two (1 ulp of the variance,
    in a few rows in a thousand)."""
    assert gradtrace_output(MOMENTS) == torch_output(MOMENTS)
