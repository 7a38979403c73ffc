"""Differential tests against live PyTorch 2.13: a warning torch's own Python raises with
its location inside torch (an nn module's implicit softmax dim, stacklevel=5, lands on
Module._wrapped_call_impl; RNNBase's dropout warning, stacklevel=2, on RNN's, LSTM's or
GRU's __init__) is shown once per place under Python's default filter, whichever script
line made the call; gradtrace showed it once per script line. (gradtrace prints such a
warning at the script's line, the torch file's path being the machine's.)

Skipped unless torch is importable.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from script_runs import file_runs

torch = pytest.importorskip("torch")

PLACES = """import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.ones(2, 3)
s = nn.Softmax()
s(x)
s(x)
nn.Softmax()(x)
nn.Softmin()(x)
nn.Softmin()(x)
nn.LogSoftmax()(x)
F.softmax(x)
F.softmax(x)
for i in range(2):
    F.log_softmax(x)
class Net(nn.Module):
    def forward(self, x):
        return F.softmax(x)
Net()(x)
Net()(x)
a = nn.LSTM(2, 2, dropout=0.5)
b = nn.LSTM(2, 2, dropout=0.5)
c = nn.GRU(2, 2, dropout=0.5)
d = nn.RNN(2, 2, dropout=0.5)
e = nn.RNN(2, 2, dropout=0.5, nonlinearity="relu")
f = nn.LSTM(2, 2, dropout=0.25)
l1 = nn.MSELoss(size_average=True)
l2 = nn.L1Loss(size_average=True)
l3 = F.mse_loss(x, x, size_average=True)
print("done")
"""


def _warnings(stderr: str) -> list[str]:
    """Each warning's category and message, in order."""
    return [re.sub(r"^.*?:\d+: ", "", line) for line in stderr.splitlines()
            if "Warning: " in line]


def _script_lines(stderr: str, name: str) -> list[str]:
    """The script lines of the warnings shown at one."""
    return re.findall(rf"{re.escape(name)}:(\d+): ", stderr)


def test_warnings_from_torch_code_show_once_per_place(tmp_path: Path) -> None:
    torch_run, result, err = file_runs(PLACES, tmp_path, "places", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert _warnings(err) == _warnings(torch_run.stderr)
    assert len(_warnings(torch_run.stderr)) == 13
    # those torch places in the script are at the same lines; the others at the first
    # script line that reached their place in torch
    theirs = _script_lines(torch_run.stderr, str(tmp_path / "places.py"))
    assert theirs == ["12", "13", "15", "18"]
    assert _script_lines(err, "places.gt") == ["6", "9", "11", *theirs, "21", "23", "24",
                                               "26", "27", "29"]
