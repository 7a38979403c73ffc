"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 91
(Gaussian processes and Bayesian deep learning in plain torch) found: a tensor stored into
one element of a numpy array (`tlqw_vec[i] = tlqw` in a Bayes-by-Backprop sample_predict,
where tlqw requires grad), which numpy converts through the element type's number protocol
(float(t), int(t), ...), not through `__array__`.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


ELEMENT_SET = """import numpy as np
import torch
def t(label, f):
    try:
        r = f()
        print(label, 'ok', r)
    except Exception as e:
        print(label, type(e).__name__, e)
a = torch.tensor(2.5, requires_grad=True)
b = torch.tensor([2.5], requires_grad=True)
c = torch.tensor([2.5, 3.5], requires_grad=True)
def s(arr, idx, v):
    arr[idx] = v
    return arr
t('0d', lambda: s(np.zeros(3), 1, a))
t('1el', lambda: s(np.zeros(3), 1, b))
t('2el', lambda: s(np.zeros(3), 1, c))
t('slice0d', lambda: s(np.zeros(3), slice(0, 2), a))
t('slice2', lambda: s(np.zeros(3), slice(0, 2), c))
t('int0d', lambda: s(np.zeros(3, dtype=np.int64), 1, a))
t('f32', lambda: s(np.zeros(3, dtype=np.float32), 1, a))
t('bool', lambda: s(np.zeros(3, dtype=bool), 1, a))
t('2d row', lambda: s(np.zeros((2, 2)), 1, c))
t('2d el', lambda: s(np.zeros((2, 2)), (1, 1), a))
t('list idx', lambda: s(np.zeros(3), [0, 1], a))
t('0-d array ()', lambda: s(np.zeros(()), (), a))
t('0-d array ...', lambda: s(np.zeros(()), Ellipsis, a))
t('bool idx', lambda: s(np.zeros(3), np.array([True, False, True]), a))
t('np int idx', lambda: s(np.zeros(3), np.int64(1), a))
t('tensor idx', lambda: s(np.zeros(3), torch.tensor(1), a))
t('out of range', lambda: s(np.zeros(3), 5, a))
t('int into float', lambda: s(np.zeros(3), 1, torch.tensor(3)))
t('empty', lambda: s(np.zeros(3), 1, torch.tensor([])))
t('uint8 overflow', lambda: s(np.zeros(3, dtype=np.uint8), 1, torch.tensor(300)))
t('text', lambda: s(np.zeros(3, dtype='U3'), 1, torch.tensor(2.5)))
with torch.no_grad():
    t('no_grad', lambda: s(np.zeros(3), 1, a))
"""


def test_a_tensor_stored_into_one_array_element_is_converted_as_a_number() -> None:
    """`arr[i] = t` with a full index converts t by float()/int()/bool()/str() as numpy's
    element setter does (a tensor that requires grad is accepted there, with float's
    UserWarning); any other index still reads t as an array and refuses one that requires
    grad."""
    assert gradtrace_output(ELEMENT_SET) == torch_output(ELEMENT_SET)


NEW_SIZE_KEYWORD = """import torch
x = torch.ones(2, dtype=torch.float64)
def t(label, f):
    try:
        r = f()
        print(label, 'ok', r.shape, r.dtype)
    except Exception as e:
        print(label, type(e).__name__, e)
t('empty kw', lambda: x.new_empty(size=(2, 3)))
t('empty kw size', lambda: x.new_empty(size=torch.Size([3])))
t('empty kw list', lambda: x.new_empty(size=[1, 2], dtype=torch.int64))
t('zeros kw', lambda: x.new_zeros(size=(2, 3)))
t('ones kw', lambda: x.new_ones(size=(4,), requires_grad=True))
t('zeros kw int', lambda: x.new_zeros(size=3))
t('both', lambda: x.new_zeros(2, size=3))
t('none', lambda: x.new_zeros())
t('full kw', lambda: x.new_full(size=(2,), fill_value=3.0))
t('empty bad kw', lambda: x.new_empty(shape=(2,)))
print(x.new_zeros(size=(2,)), x.new_ones(size=[1, 2]))
"""


def test_tensor_new_factories_take_size_by_keyword() -> None:
    """x.new_empty(size=...), new_zeros(size=...) and new_ones(size=...) as torch's
    `new_*(SymIntArrayRef size, *, ...)` takes them (an HMC sampler's
    `x.new_empty(size=x.size()).normal_()`), exclusive with sizes by position."""
    assert gradtrace_output(NEW_SIZE_KEYWORD) == torch_output(NEW_SIZE_KEYWORD)
