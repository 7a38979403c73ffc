"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 74
(classic vision tutorials and image operations) found: torch.meshgrid without `indexing`
warns by a TORCH_WARN_ONCE, once per run whichever line calls it (RAFT's coords_grid and
CorrBlock's radius lookup call it on different lines), even under an "always" filter.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_outputs_in_child

torch = pytest.importorskip("torch")


MESHGRID_WARNING = """import warnings
import torch
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    a = torch.arange(3)
    x, y = torch.meshgrid(a, a)
    for i in range(2):
        u, v = torch.meshgrid(torch.linspace(-1, 1, 2), a.float())
    w = torch.meshgrid([a, a], indexing="ij")
    p, q = torch.meshgrid(a, a)
    print(x.tolist(), v.tolist(), len(w), q.shape)
    for w in seen:
        print(w.category.__name__, str(w.message)[:70])
"""


def test_meshgrid_without_indexing_warns_once_per_run() -> None:
    """The warning is shown once per process, not once per calling line."""
    torch_stdout, _ = torch_outputs_in_child({"warn": MESHGRID_WARNING})["warn"]
    assert gradtrace_output(MESHGRID_WARNING) == torch_stdout
