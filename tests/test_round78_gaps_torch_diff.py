"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 78
(graph neural networks in plain torch) found:

- numpy's set routines on tensors and arrays: np.isin (PyG's negative_sampling checks its
  samples for true negatives with `np.isin(rnd, idx)` and `torch.from_numpy(mask)`),
  np.setdiff1d, np.intersect1d (return_indices) and np.union1d; np.isin's kind='table'
  allocates one bool per integer of the test elements' range, sized against the limits
  first;
- (in test_sparse_torch_diff.py) a sparse COO tensor's transpose/swapaxes/swapdims and
  to_sparse_coo; (in test_language.py) an instance's own dunder attribute (`self.__mu__`,
  PyG's VGAE.encode).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

from gradtrace.runner import run_text

torch = pytest.importorskip("torch")

SET_ROUTINES = """import random
import numpy as np
import torch
random.seed(0)
idx = torch.tensor([1, 4, 7, 9])
rnd = torch.tensor(random.sample(range(30), 12))
mask = np.isin(rnd, idx)
print(mask, mask.dtype, torch.from_numpy(mask).to(torch.bool))
print(rnd[~torch.from_numpy(mask)])
print(np.isin(rnd, idx, invert=True), np.isin([[1, 2], [4, 5]], [4, 1]))
print(np.isin(np.arange(6), [2, 3], kind='table'), np.isin(np.arange(6), [2, 3], kind='sort'))
print(np.isin(3, [1, 3]), np.isin(np.array([1.5, 2.0]), torch.tensor([2.0])))
print(np.isin(rnd, idx.numpy(), assume_unique=True))
print(np.setdiff1d(np.arange(10), idx), np.setdiff1d([5, 1, 5, 3], [3], assume_unique=True))
print(np.intersect1d(rnd, np.arange(5, 15)), np.intersect1d([3, 1, 2], [2, 3, 4],
                                                             return_indices=True))
print(np.union1d(idx, [0, 4, 11]), np.union1d([[1, 2]], [[3]]))
try:
    np.isin([1], [2], kind='fast')
except ValueError as e:
    print('ValueError', e)
"""


def test_numpy_set_routines_are_numpys() -> None:
    assert gradtrace_output(SET_ROUTINES) == torch_output(SET_ROUTINES)


def test_isin_lookup_table_is_sized_against_the_limits() -> None:
    result = run_text("import numpy as np\nprint(np.isin([0], [0, 10**12], kind='table'))\n")
    assert result.error is not None and result.error.kind == "LimitError", result.error
    result = run_text("import numpy as np\nprint(np.isin([0], [0, 10**12]))\n")
    assert result.error is None and result.stdout == "[ True]\n"
