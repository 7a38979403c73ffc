"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 56
(spiking networks and continual learning) found: GMvandeVen's continual-learning code takes
`default_collate` from torch.utils.data.dataloader (refused: the module exported DataLoader
and get_worker_info only), and sets its XdG gating masks by `torchType.new(gating_mask)` of
a numpy array (read as a size, a TypeError); GT-RIPL's Continual-Learning-Benchmark replaces
a model's logits by `types.MethodType(new_logits, model)` (refused) and looks its models up
by `models.__dict__[name]` (here a SimpleNamespace, whose __dict__ was refused) and its
optimizer by `torch.optim.__dict__[name]` (said missing; now a lookup-only view).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


DATALOADER_NAMES = """import torch
from torch.utils.data.dataloader import default_collate, default_convert, DataLoader
from torch.utils.data.dataloader import Dataset, IterableDataset, Sampler
from torch.utils.data.dataloader import SequentialSampler, RandomSampler, BatchSampler
from torch.utils.data.dataloader import get_worker_info
import torch.utils.data.dataloader as dl
print(default_collate is torch.utils.data.default_collate,
      default_convert is torch.utils.data.default_convert)
print(dl.RandomSampler is torch.utils.data.RandomSampler, dl.Dataset is torch.utils.data.Dataset,
      dl.BatchSampler is torch.utils.data.BatchSampler, get_worker_info())
batch = [(torch.tensor([1.0, 2.0]), 3), (torch.tensor([4.0, 5.0]), 6)]
x, y = default_collate(batch)
print(x, y, y.dtype)
print(default_convert([1, 2]), list(BatchSampler(SequentialSampler(range(5)), 2, False)))
data = torch.utils.data.TensorDataset(torch.arange(6.0), torch.arange(6))
loader = DataLoader(data, batch_size=4, collate_fn=(None or default_collate))
print([b for b in loader])
"""


def test_dataloader_module_exports_what_torch_imports_into_it() -> None:
    """torch/utils/data/dataloader.py imports default_collate, default_convert, the
    samplers and the dataset classes, and scripts import them from it: the same objects
    as torch.utils.data's."""
    assert gradtrace_output(DATALOADER_NAMES) == torch_output(DATALOADER_NAMES)


TENSOR_NEW_ARRAY = """import torch
import numpy as np
for t in (torch.zeros(2), torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.long),
          torch.zeros(2, dtype=torch.bool)):
    for a in (np.array([1.0, 0.0, 1.0]), np.array([2, 3]), np.array([True, False]),
              np.array([[1.5, 2.0], [3.0, 4.0]], dtype=np.float32), np.repeat(1., 4),
              np.array([7]), np.zeros((2, 0))):
        r = t.new(a)
        print(t.dtype, r.dtype, tuple(r.shape), r.tolist(), r.requires_grad)
    print(tuple(t.new(np.array(3)).shape), tuple(t.new(np.int64(2), 3).shape))
mask = np.repeat(1., 5)
mask[[0, 2]] = 0.
buffer = torch.ones(5)
buffer.set_(torch.zeros(1).detach().new(mask))
print(buffer, buffer.dtype)
print(torch.zeros(np.array(3)).shape, torch.zeros(2, np.array(3)).shape,
      torch.ones(4).view(np.array(2), np.int32(2)).shape)
"""


def test_tensor_new_reads_a_numpy_array_as_data() -> None:
    """Tensor.new(ndarray) is a tensor of the array's values in the tensor's dtype (torch's
    legacy constructor reads a sequence as data), as for a list; a 0-d array is a size, as
    torch's parser reads it as an int (as it does for any size: torch.zeros(np.array(3)))."""
    assert gradtrace_output(TENSOR_NEW_ARRAY) == torch_output(TENSOR_NEW_ARRAY)


METHOD_TYPE = """import types
from types import MethodType, SimpleNamespace
import torch
import torch.nn as nn
class A:
    def f(self):
        return 1
a = A()
print(type(a.f), type(a.f).__name__, type(a.f) is types.MethodType, MethodType)
def g(self, x):
    return (type(self).__name__, x)
m = MethodType(g, a)
print(type(m), m.__name__, isinstance(m, types.MethodType), m(3), m.__self__ is a)
print(isinstance(a.f, MethodType), isinstance(g, MethodType), callable(m))
for args in [(1, a), (print, None), (print,)]:
    try:
        MethodType(*args)
    except TypeError as e:
        print("TypeError", e)
# GT-RIPL's model surgery: a replaced method of an nn.Module
model = nn.Sequential(nn.Linear(3, 2))
def new_logits(self, x):
    return {'All': self[0](x)}
model.logits = MethodType(new_logits, model)
torch.manual_seed(0)
print(model.logits.__name__, model.logits(torch.ones(1, 3))['All'].shape)
models = SimpleNamespace(mlp=SimpleNamespace(MLP100=lambda: 'built'))
print(models.__dict__['mlp'].__dict__['MLP100'](), vars(models.mlp).keys())
ns = SimpleNamespace(a=1)
ns.__dict__['b'] = 2
print(ns, vars(ns) is ns.__dict__)
class Sub(SimpleNamespace):
    pass
print(vars(Sub(x=1)), Sub(x=1))
"""


def test_method_type_binds_and_simple_namespace_dict_is_live() -> None:
    """types.MethodType is the type of a bound method (`type(a.f)`, isinstance) and binds
    a function to an instance with CPython's checks; a SimpleNamespace's __dict__ and vars()
    are its live attribute dict."""
    assert gradtrace_output(METHOD_TYPE) == torch_output(METHOD_TYPE)


def test_a_module_dict_is_a_lookup_only_view() -> None:
    """`torch.optim.__dict__[name]` gives torch's optimizer class: a module's __dict__ is
    a lookup-only view of the names gradtrace offers (tests/test_module_dict.py), where it
    was refused (and before that said missing)."""
    script = ("import torch\nopt = torch.optim.__dict__['SGD']\n"
              "print(opt is torch.optim.SGD, opt.__name__)\n")
    assert gradtrace_output(script) == torch_output(script) == "True SGD\n"
