"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 30
(training-technique code: GNNs, MoE, contrastive losses, MAML) found:

* torch.spmm of dense matrices (pygcn's GraphConvolution): mm, with MmBackward0, mm's
  errors and out=;
* the factories' `size=` keyword (pyGAT's `torch.zeros(size=(in, out))`);
* numpy.finfo / numpy.iinfo (the MoE's `np.finfo(float).eps`);
* `import torch.distributed` and `torch.distributed.nn` with no process group (SimCLR's
  NT_Xent, open_clip's loss);
* string literals shared as CPython's compiler shares them, so `name is 'conv2d'`
  (MAML-Pytorch's learner.py) answers as in Python.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SPMM = each_expression([
    "torch.spmm(a, b)",
    "torch.spmm(a, b).grad_fn.name()",
    "torch.spmm(input=a, mat2=b).shape",
    "torch.spmm(a, a)",
    "torch.spmm(torch.ones(3), b)",
    "torch.spmm(a, torch.ones(3))",
    "torch.spmm(a, b.long())",
    "torch.spmm(a, b, out=torch.empty(2, 4))",
    "torch.autograd.grad(torch.spmm(a, b).sum(), a)[0]",
], "a = torch.arange(6.).reshape(2, 3).requires_grad_()\nb = torch.arange(12.).reshape(3, 4)\n")


def test_spmm_of_dense_matrices_is_mm() -> None:
    assert gradtrace_output(SPMM) == torch_output(SPMM)


SIZE_KEYWORD = each_expression([
    "torch.zeros(size=(2, 3))",
    "torch.ones(size=[2])",
    "torch.empty(size=(1, 2)).shape",
    "torch.zeros(size=torch.Size([2]), dtype=torch.int64)",
    "torch.zeros(2, size=(2, 3))",
    "torch.ones(size=2)",
    "torch.zeros(size=(2, -1))",
])


def test_factories_take_size_by_keyword() -> None:
    assert gradtrace_output(SIZE_KEYWORD) == torch_output(SIZE_KEYWORD)


NUMPY_TYPE_INFO = each_expression([
    "np.finfo(float)",
    "np.finfo(float).eps",
    "type(np.finfo(np.float32).eps)",
    "np.finfo('float32').max",
    "np.finfo(np.zeros(2, np.float32).dtype).tiny",
    "np.finfo(1.0).resolution",
    "np.finfo(float) == np.finfo(np.float64)",
    "np.iinfo(np.int32)",
    "np.iinfo('int64').max",
    "np.finfo(int)",
    "np.iinfo(float)",
    "np.finfo(float).nope",
    "torch.tensor([0.0, 1.0]).clamp(min=np.finfo(np.float32).eps)",
], "import numpy as np\n")


def test_numpy_finfo_and_iinfo_give_numpys_numbers() -> None:
    assert gradtrace_output(NUMPY_TYPE_INFO) == torch_output(NUMPY_TYPE_INFO)


DISTRIBUTED = each_expression([
    "dist.is_available()",
    "dist.is_initialized()",
    "dist.get_rank()",
    "dist.get_world_size()",
    "dist.all_reduce(torch.ones(2))",
    "dist_nn.all_gather(torch.ones(2))",
    "dist.get_world_size() if dist.is_initialized() else 1",
], "import torch.distributed as dist\nimport torch.distributed.nn as dist_nn\n")


def test_torch_distributed_imports_without_a_process_group() -> None:
    assert gradtrace_output(DISTRIBUTED) == torch_output(DISTRIBUTED)


STRING_IDENTITY = """
name = 'conv2d'
def is_conv(x):
    return x is 'conv2d', x is 'conv 2d', x == 'conv2d'
print(is_conv(name), is_conv(''.join(['conv', '2d'])), is_conv('conv 2d'))
spaced = 'conv 2d'
print(spaced is 'conv 2d', 'a' is 'a', '' is '', 'x-y'[1] is '-')
config = [('relu', [True]), ('bn', [8])]
print([n is 'relu' for n, _ in config], [n is 'bn' for n, _ in config])
"""


def test_equal_string_literals_are_one_object_as_in_cpython() -> None:
    assert gradtrace_output(STRING_IDENTITY) == torch_output(STRING_IDENTITY)
