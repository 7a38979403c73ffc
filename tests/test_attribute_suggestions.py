"""An uncaught AttributeError on a tensor, an nn.Module (parameters, submodules and
attributes included), an optimizer or a scheduler ends with Python's "Did you mean: ...?"
as under torch: the names searched are torch 2.13's (gradtrace/torch_dirs.json, recorded by
tests/tools/record_torch_dirs.py). Expected lines recorded from python + torch 2.13."""
from __future__ import annotations

import pytest

from gradtrace.runner import run_text

PRELUDE = """\
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 2)
        self.scale = 2.0
    def forward(self, x):
        return self.fc1(x) * self.scale
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
t = torch.ones(2)
t.myattr = 1
"""

CASES = [
    # (a tensor with an attribute of its own has 750 names: Python searches none past 749)
    ("torch.zeros(3).sizee()",
     "AttributeError: 'Tensor' object has no attribute 'sizee'. Did you mean: 'size'?"),
    ("torch.zeros(3).requires_gard",
     "AttributeError: 'Tensor' object has no attribute 'requires_gard'. Did you mean: "
     "'requires_grad'?"),
    ('t.sizee()',
     "AttributeError: 'Tensor' object has no attribute 'sizee'"),
    ('t.requires_gard',
     "AttributeError: 'Tensor' object has no attribute 'requires_gard'"),
    ('t.myatr',
     "AttributeError: 'Tensor' object has no attribute 'myatr'"),
    ('t.xx',
     "AttributeError: 'Tensor' object has no attribute 'xx'"),
    ('net.fc',
     "AttributeError: 'Net' object has no attribute 'fc'. Did you mean: 'fc1'?"),
    ('net.forwad',
     "AttributeError: 'Net' object has no attribute 'forwad'. Did you mean: 'forward'?"),
    ('net.scal',
     "AttributeError: 'Net' object has no attribute 'scal'. Did you mean: 'scale'?"),
    ('net.paramters',
     "AttributeError: 'Net' object has no attribute 'paramters'. Did you mean: 'parameters'?"),
    ('net.fc1.weigth',
     "AttributeError: 'Linear' object has no attribute 'weigth'. Did you mean: 'weight'?"),
    ('opt.zero_gard',
     "AttributeError: 'SGD' object has no attribute 'zero_gard'. Did you mean: 'zero_grad'?"),
    ('nn.Sequential(nn.ReLU()).apend',
     "AttributeError: 'Sequential' object has no attribute 'apend'. Did you mean: 'append'?"),
    ('nn.Conv2d(1,1,3).kernal_size',
     "AttributeError: 'Conv2d' object has no attribute 'kernal_size'. Did you mean: "
     "'kernel_size'?"),
    ('nn.BatchNorm1d(2).running_meen',
     "AttributeError: 'BatchNorm1d' object has no attribute 'running_meen'. Did you mean: "
     "'running_mean'?"),
    ('torch.optim.lr_scheduler.StepLR(opt, 1).last_epok',
     "AttributeError: 'StepLR' object has no attribute 'last_epok'. Did you mean: 'last_epoch'?"),
]


@pytest.mark.parametrize(("expression", "torch_line"), CASES)
def test_uncaught_attribute_errors_suggest_torch_s_names(expression: str, torch_line: str):
    error = run_text(PRELUDE + expression + "\n").error
    assert error is not None
    assert f"{error.printed_kind}: {error.uncaught_message}" == torch_line


def test_a_caught_attribute_error_has_no_suggestion_in_its_text():
    result = run_text(PRELUDE + """\
try:
    net.fc
except AttributeError as e:
    print(e)
""")
    assert result.stdout == "'Net' object has no attribute 'fc'\n"
