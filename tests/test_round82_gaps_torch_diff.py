"""Differential tests against live PyTorch 2.13 (and the numpy beside it) for the gaps the
realworld corpus's round 82 (physics and chemistry ML in plain torch) found: the n-body
simulator of vgsatorras/egnn (n_body_system/dataset/synthetic_sim.py) zeroes the self-forces
with np.fill_diagonal, in place, and builds the pairwise differences of the particles'
coordinates with np.subtract.outer. gradtrace's numpy refused both: fill_diagonal was not in
its table, and a ufunc's own methods (outer, reduce, accumulate, reduceat, at) were not
offered. fill_diagonal writes into the script's array (a view's base too), as numpy's;
given a tensor it fails as numpy does, reading `a.flat`. Probing the numpy such simulators
call found the index grids refused too (np.triu_indices for pair lists, tril_indices,
diag_indices, indices) and unravel_index, ravel_multi_index and trapezoid: offered now, the
grids sized against the element limit before numpy builds them.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

FILL_DIAGONAL = """import numpy as np
import torch
a = np.ones((3, 3))
print(np.fill_diagonal(a, 0))
print(a)
b = np.zeros((5, 3), dtype=bool)
np.fill_diagonal(b, 1, wrap=True)
print(b)
c = np.arange(8.0).reshape(2, 4)
v = c[:, 1:]
np.fill_diagonal(v, [7, 9])
print(c, v)
d = np.zeros((2, 2, 2), dtype=np.int64)
np.fill_diagonal(d, 5)
print(d.ravel())
for bad in (np.zeros(3), np.zeros((2, 3, 4)), torch.ones(2, 2)):
    try:
        np.fill_diagonal(bad, 1)
    except (ValueError, AttributeError) as e:
        print(type(e).__name__, e)
"""


def test_numpy_fill_diagonal_writes_in_place_as_numpys() -> None:
    assert gradtrace_output(FILL_DIAGONAL) == torch_output(FILL_DIAGONAL)


UFUNC_METHODS = """import numpy as np
x = np.array([0.5, -1.0, 2.0])
print(np.subtract.outer(x, x))
print(np.multiply.outer([1, 2], [[0, 1], [2, 3]]).shape, np.subtract.__name__)
print(np.add.reduce(np.arange(6).reshape(2, 3), axis=1), np.multiply.accumulate([1, 2, 3, 4]))
counts = np.zeros(4)
print(np.add.at(counts, [0, 1, 1, 3], 1), counts)
print(np.maximum.reduceat(np.arange(8), [0, 4, 5]), np.logical_or.reduce([False, True]))
try:
    np.add.at(counts, [9], 1)
except IndexError as e:
    print("IndexError", e)
"""


def test_numpy_ufunc_methods_outer_reduce_accumulate_at() -> None:
    assert gradtrace_output(UFUNC_METHODS) == torch_output(UFUNC_METHODS)


def test_a_ufunc_method_of_a_tensor_is_refused() -> None:
    out = gradtrace_output("import numpy as np\nimport torch\n"
                           "np.subtract.outer(torch.ones(2), torch.ones(2))\n")
    assert out == ("NotSupportedError np.subtract.outer() of a tensor is not supported by "
                   "gradtrace: use t.numpy()\n")


INDEX_GRIDS = """import numpy as np
calls = [("triu_indices", lambda: np.triu_indices(4, 1)),
         ("triu_indices m", lambda: np.triu_indices(3, 1, 5)),
         ("tril_indices", lambda: np.tril_indices(n=3, k=-1, m=2)),
         ("tril_indices empty", lambda: np.tril_indices(-1)),
         ("diag_indices", lambda: np.diag_indices(2, ndim=3)),
         ("indices sparse", lambda: np.indices((2,), dtype=np.int32, sparse=True)),
         ("indices", lambda: np.indices((2, 3))),
         ("unravel_index", lambda: np.unravel_index([1, 5], (2, 3), order='F')),
         ("ravel_multi_index", lambda: np.ravel_multi_index(([1], [2]), (2, 3))),
         ("ravel_multi_index bad", lambda: np.ravel_multi_index((5, 0), (2, 3))),
         ("trapezoid", lambda: np.trapezoid([[1, 2], [3, 4]], dx=0.5, axis=0)),
         ("triu_indices text", lambda: np.triu_indices('a'))]
for name, call in calls:
    try:
        print(name, call())
    except Exception as e:
        print(name, type(e).__name__, e)
x = np.arange(12.0).reshape(4, 3)
i, j = np.triu_indices(len(x), 1)
print(np.linalg.norm(x[i] - x[j], axis=1))
"""


def test_numpy_index_grids_unravel_and_trapezoid() -> None:
    assert gradtrace_output(INDEX_GRIDS) == torch_output(INDEX_GRIDS)


def test_numpy_index_grids_count_against_the_element_limit() -> None:
    from gradtrace.errors import LimitExceeded
    from gradtrace.runner import run_text

    for call in ("np.triu_indices(10**6)", "np.indices((10**5, 10**5))",
                 "np.diag_indices(10**5, ndim=10**4)"):
        result = run_text(f"import numpy as np\n{call}\n")
        assert isinstance(result.error, LimitExceeded), call
