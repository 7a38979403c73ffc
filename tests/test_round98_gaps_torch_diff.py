"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 98
(interpretability and gradient-based analysis) found: torch.trace adds the diagonal in
order in at::acc_type (double for float32) and rounds once (Hutch++'s reference trace of
B.T @ B came out one float32 step off), and refuses bool tensors before its dim check;
os.path.commonprefix (the loss-landscape net_plotter imports it to name direction files).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


TRACE = """import torch
torch.manual_seed(0)
B = torch.randn(60, 60)
A = B.T @ B
print(torch.trace(A).item(), A.trace().item(), A.diagonal().sum().item())
x = torch.randn(50, 70) * 1000
print(torch.trace(x).item(), torch.trace(x.t()).item(), torch.trace(x.double()).item())
print(torch.trace((torch.randn(40, 30) * 1e3).half()).item())
print(torch.trace(torch.randint(-100, 100, (9, 9), dtype=torch.int8)))
print(torch.trace(torch.randint(0, 255, (9, 5), dtype=torch.uint8)).dtype)
print(torch.trace(torch.zeros(0, 3)), torch.trace(torch.ones(4, 4, dtype=torch.float64)))
w = torch.randn(30, 30, requires_grad=True)
t = (w * 3).trace()
t.backward()
print(t.item(), t.grad_fn.name(), w.grad.sum().item())
for bad in (torch.ones(3, dtype=torch.bool), torch.ones(2, 2, dtype=torch.bool),
            torch.ones(3, 4, 5)):
    try:
        torch.trace(bad)
    except (RuntimeError, NotImplementedError) as e:
        print(type(e).__name__, e)
"""


def test_trace_accumulates_in_the_cpu_acc_type_and_rounds_once() -> None:
    """trace_cpu's sum runs over the diagonal in order in acc_type<scalar_t, false>
    (float32 in double, float16 in float, integers in int64) and is rounded at the end."""
    assert gradtrace_output(TRACE) == torch_output(TRACE)


COMMONPREFIX = """import os
from os.path import commonprefix
from pathlib import Path
print(commonprefix(['cifar10/trained_nets/a/model_1.t7', 'cifar10/trained_nets/b/model_2.t7']))
print(repr(os.path.commonprefix([])), repr(commonprefix(('abc',))), repr(commonprefix(['x', 'y'])))
print(commonprefix([Path('ckpt/a.pt'), 'ckpt/b.pt']), commonprefix(['same', 'same']))
file1, file2 = 'runs/one/m.pt', 'runs/two/m.pt'
prefix = commonprefix([file1, file2])
prefix = prefix[0:prefix.rfind('/')]
print(prefix, file2[len(prefix)+1: file2.rfind('/')])
try:
    commonprefix(['a', 1])
except TypeError as e:
    print(e)
"""


def test_os_path_commonprefix_of_a_list_of_paths() -> None:
    """posixpath.commonprefix: the leading characters a list or tuple of paths shares."""
    assert gradtrace_output(COMMONPREFIX) == torch_output(COMMONPREFIX)
