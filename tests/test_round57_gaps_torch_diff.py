"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 57
(multi-task learning, domain adaptation and distillation) found while probing the PyTorch
0.3-era idioms its older repositories use: a tensor's `volatile` flag (`if not
x.volatile:` in NoisyNet layers, `states.volatile = True` before inference) was refused,
where torch 2.13 keeps it as a property that warns: reading it gives False, setting it
changes nothing.

Skipped unless torch is importable.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from script_runs import file_runs

torch = pytest.importorskip("torch")


VOLATILE = """import torch
from torch.autograd import Variable
x = torch.randn(2, requires_grad=True)
for i in range(2):
    print(x.volatile)
x.volatile = True
x.volatile = 5
print(x.volatile, x.requires_grad, x.is_leaf)
p = torch.nn.Parameter(torch.ones(1))
v = Variable(torch.zeros(3), volatile=True)
print(p.volatile, v.volatile, v.requires_grad, (x * 2).volatile)
if not x.volatile:
    print('training path')
"""


def test_volatile_reads_false_and_writes_nothing_with_torchs_warnings(tmp_path: Path) -> None:
    """THPVariable_get_volatile warns "volatile was removed (Variable.volatile is always
    False)" and returns False; THPVariable_set_volatile warns that it has no effect (as
    Variable(..., volatile=True) does) and leaves the tensor as it was: each warning once
    per script line, at that line."""
    torch_run, result, err = file_runs(VOLATILE, tmp_path, "volatile", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert err.replace("volatile.gt", str(tmp_path / "volatile.py")) == torch_run.stderr
    assert torch_run.stderr.count("UserWarning") == 7
