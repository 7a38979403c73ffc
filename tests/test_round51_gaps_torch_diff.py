"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 51
(torch.nn.utils and torch.utils) found: detectron2's FrozenBatchNorm2d.convert_frozen_batchnorm
names `nn.modules.batchnorm.SyncBatchNorm`, which was refused, and reading or setting a
state_dict's `_metadata` (the modules' versions its _load_from_state_dict overrides see) was
refused.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SYNC_BATCHNORM = """import torch
from torch import nn
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4),
                    nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4, momentum=None, affine=False)))
net[1].weight.data.uniform_()
sync = nn.SyncBatchNorm.convert_sync_batchnorm(net)
print(sync)
print(sync is net, sync[1].weight is net[1].weight, sync[1].process_group)
print(isinstance(sync[1], nn.modules.batchnorm._BatchNorm), nn.modules.batchnorm.SyncBatchNorm)
x = torch.randn(2, 3, 5, 5, requires_grad=True)
y = sync[1](sync[0](x))
print(y.grad_fn.name(), y[0, :, 0, 0])
y.pow(2).sum().backward()
print(sync[1].weight.grad, sync[1].running_mean, sync[1].num_batches_tracked)
bn = sync[2][1]
for _ in range(2):
    bn(torch.randn(6, 4))
print(bn.running_var, bn.num_batches_tracked)
bn.eval()
print(bn(torch.ones(2, 4)))
s = nn.SyncBatchNorm(3, eps=1e-3, bias=False, process_group='g')
print(s, s.process_group, list(s.state_dict()))
print(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3d(2)))
for bad in [torch.randn(4), torch.randn(2, 0, 3)]:
    try:
        s(bad)
    except ValueError as e:
        print('ValueError:', e)
"""


def test_sync_batchnorm_runs_as_in_a_single_process() -> None:
    """SyncBatchNorm and convert_sync_batchnorm: without a process group torch's forward is
    F.batch_norm, with its own input checks and repr."""
    assert gradtrace_output(SYNC_BATCHNORM) == torch_output(SYNC_BATCHNORM)


STATE_METADATA = """import copy
from collections import OrderedDict
import torch
from torch import nn

class Old(nn.Linear):
    _version = 3
    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
        print('version', prefix, local_metadata.get('version'))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

torch.manual_seed(0)
net = nn.Sequential(Old(2, 2), nn.Sequential(nn.BatchNorm1d(2)))
sd = net.state_dict()
print(sd._metadata)
print(getattr(sd, '_metadata', None) is sd._metadata, hasattr(sd, '_metadata'))
print(copy.deepcopy(sd)._metadata == sd._metadata)
print(net.load_state_dict(sd))
plain = OrderedDict(sd)
print(hasattr(plain, '_metadata'), getattr(plain, '_metadata', 'none'))
try:
    plain._metadata
except AttributeError as e:
    print('AttributeError:', e)
plain._metadata = {'': {'version': 1}, '0': {'version': 1}}
print(net.load_state_dict(plain))
plain._metadata = None
print(plain._metadata, net.load_state_dict(plain))
del plain._metadata
print(hasattr(plain, '_metadata'))
try:
    del plain._metadata
except AttributeError as e:
    print('AttributeError:', e)
del sd._metadata['0']
net.load_state_dict(sd)
"""


def test_state_dict_metadata_is_read_set_and_deleted() -> None:
    """`state_dict._metadata`: the versions state_dict records, which load_state_dict hands
    to each module's _load_from_state_dict; set, replaced by None, deleted, or absent
    (Python's AttributeError) on an OrderedDict of the script's own."""
    assert gradtrace_output(STATE_METADATA) == torch_output(STATE_METADATA)


WEAKREF = """import weakref
import torch
from torch import nn
m = nn.Linear(2, 2)
r = weakref.ref(m.weight)
print(r() is m.weight, r() is None)
mr = weakref.ref(m)
print(type(mr()).__name__, callable(mr))
t = torch.ones(2)
rt = weakref.ref(t)
del t
print(rt())
class A:
    pass
a = A()
ra = weakref.ref(a)
print(ra() is a, ra == weakref.ref(a))
del a
print(ra(), ra == ra, repr(ra).endswith('; dead>'))
print(type(ra).__name__, type(ra).__module__, type(ra))
for bad in [1, 'x', [1], {}, (1,), None]:
    try:
        weakref.ref(bad)
    except TypeError as e:
        print('TypeError:', e)
"""


def test_weakref_ref_follows_the_objects_life() -> None:
    """weakref.ref (torch_ema keeps its parameters so): the object while the script holds
    it, None once the last reference is gone, Python's TypeError for ints, strs, lists,
    dicts, tuples and None."""
    assert gradtrace_output(WEAKREF) == torch_output(WEAKREF)


PACKED_SEQUENCE_METHODS = """import torch
from torch.nn.utils.rnn import pack_sequence, pad_packed_sequence
a, b, c = torch.tensor([1., 2, 3]), torch.tensor([4., 5]), torch.tensor([6.])
p = pack_sequence([b, a, c], enforce_sorted=False)
print(torch.ones(2).is_pinned(), p.is_pinned(), p.is_cuda)
for q in [p.half(), p.long(), p.int(), p.short(), p.char(), p.byte(), p.double(), p.float(),
          p.cpu(), p.cpu(dtype=torch.float64), p.to(torch.int64), p.to("cpu")]:
    print(q.data.dtype, q.sorted_indices, q is p)
print(pad_packed_sequence(p.long(), batch_first=True))
try:
    p.cuda()
except (AssertionError, RuntimeError) as e:
    print(type(e).__name__, e)
"""


def test_packed_sequence_has_torchs_conversions() -> None:
    """PackedSequence's half/long/int/short/char/byte, cpu(*args), cuda() and is_pinned()
    (Tensor.is_pinned(): False on the CPU), as torch/nn/utils/rnn.py writes them."""
    assert gradtrace_output(PACKED_SEQUENCE_METHODS) == torch_output(PACKED_SEQUENCE_METHODS)


LINALG_KEYWORDS = """import torch
torch.manual_seed(0)
A = torch.randn(3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
A.requires_grad_()
B = torch.randn(3, 2, dtype=torch.float64)
S = A.detach() @ A.detach().T
X = torch.linalg.solve(A=A, B=B)
X.sum().backward()
print(X, A.grad)
print(torch.linalg.solve(A.detach(), B=B).sum(), torch.linalg.solve_ex(A=S, B=B).result.sum())
print(torch.linalg.det(A=S), torch.linalg.inv(A=S).sum(), torch.linalg.slogdet(A=S).logabsdet)
print(torch.linalg.inv_ex(A=S).info, torch.linalg.qr(A=S).R.diagonal().abs())
print(torch.linalg.svdvals(A=S), torch.linalg.svd(A=S).S, torch.linalg.diagonal(A=S))
print(torch.linalg.cholesky(input=S), torch.linalg.cholesky_ex(input=S).info)
print(torch.linalg.eigh(input=S).eigenvalues, torch.linalg.eigvalsh(input=S, UPLO='U'))
print(torch.linalg.matrix_norm(input=S), torch.linalg.norm(input=S))
print(torch.linalg.vector_norm(input=B))
print(torch.linalg.pinv(input=S).sum(), torch.linalg.matrix_rank(input=S))
print(torch.linalg.cond(input=S))
print(torch.linalg.lstsq(input=S, b=B).solution.sum())
print(torch.linalg.matrix_power(input=S, n=2).sum())
print(torch.linalg.solve_triangular(input=S.triu(), B=B, upper=True).sum())
LU, piv = torch.linalg.lu_factor(A=S)
print(torch.linalg.lu_solve(LU=LU, pivots=piv, B=B).sum(), torch.linalg.lu(A=S).U.diagonal())
print(torch.linalg.matrix_exp(input=S / 10).sum(), torch.linalg.tensorinv(input=S, ind=1).sum())
print(torch.linalg.tensorsolve(input=S, other=B[:, 0]).sum())
for call in [lambda: torch.linalg.solve(a=S, B=B), lambda: torch.linalg.det(a=S),
             lambda: torch.linalg.lu_solve(LU, piv, b=B)]:
    try:
        call()
    except TypeError as e:
        print('TypeError:', e)
print(torch.linalg.eigh(a=S).eigenvalues, torch.linalg.eigvals(x=S).real)
print(torch.linalg.householder_product(input=S, tau=torch.ones(2, dtype=torch.float64) / 2))
"""


def test_linalg_functions_take_torchs_keyword_names() -> None:
    """torch.linalg's keyword names (`solve(A=, B=)`, `eigh(input=)`, `lu_solve(LU=, pivots=,
    B=)`; a forum answer's Cayley map calls `torch.linalg.solve(A=eye + A, B=eye - A)`), and
    torch's TypeError for the lower-case names its parser does not take."""
    assert gradtrace_output(LINALG_KEYWORDS) == torch_output(LINALG_KEYWORDS)


ARANGE_OUT = """import torch
b = torch.empty(0).long(); r = torch.arange(4, out=b); print(r is b, b, b._version)
f = torch.empty(2); print(torch.arange(1, 2.5, 0.5, out=f), f._version)
i = torch.zeros(3, dtype=torch.int32); print(torch.arange(3, out=i), i._version)
try: torch.arange(3, out=torch.empty(3), dtype=torch.int64)
except Exception as e: print(type(e).__name__, e)
try: torch.arange(3, out=torch.empty(3, requires_grad=True))
except Exception as e: print(type(e).__name__, e)
g = torch.empty(5); v = g[:2]; torch.arange(5, out=g); print(v, g)
h = torch.empty(2, 3); print(torch.arange(6, out=h))
print(torch.arange(2.5, out=torch.empty(0, dtype=torch.int64)))
t = torch.empty(3); print(torch.arange(3, out=t, requires_grad=True))
print(torch.arange(0, 1, 0.1, out=torch.empty(10, dtype=torch.float64)))
for args in [(2.5,), (0.5, 3.7), (1, 2.5, 0.5), (-1.5, 2), (3.9,), (0, 10, 2.5), (5, 0, -1.5)]:
    for dt in (torch.int64, torch.int32, torch.uint8, torch.int16):
        try: print(args, dt, torch.arange(*args, out=torch.empty(0, dtype=dt)))
        except Exception as e: print(args, dt, type(e).__name__, e)
"""


def test_arange_writes_into_out() -> None:
    """torch.arange(out=) (fairseq's buffered_arange and convert_padding_direction): the
    range in out's dtype, its shape kept when the sizes match, else resized with torch's
    warning; an integer out truncates start and step to int64 as arange_out does."""
    assert gradtrace_output(ARANGE_OUT) == torch_output(ARANGE_OUT)


FUNCTION_ATTRIBUTES = """import torch
def f(x):
    if not hasattr(f, "calls"):
        f.calls = 0
    f.calls += 1
    return x * f.calls
print(f(2), f(2), f.calls, getattr(f, "nope", "default"))
f._private = [1]
print(f._private)
del f.calls
print(hasattr(f, "calls"))
try:
    del f.calls
except AttributeError as e:
    print("AttributeError:", e)
try:
    f.missing
except AttributeError as e:
    print("AttributeError:", e)
class A:
    def m(self):
        return 1
A.m.tag = "x"
print(A().m.tag, A.m.tag)
f.__doc__ = "doc"
print(f.__doc__)
"""


def test_script_functions_take_attributes() -> None:
    """A script function's own attributes (Python's function __dict__: fairseq's
    `buffered_arange.buf`), read through its methods too, deleted, and Python's
    AttributeError for one never set."""
    assert gradtrace_output(FUNCTION_ATTRIBUTES) == torch_output(FUNCTION_ATTRIBUTES)


DISTRIBUTED_DATA_PARALLEL = """import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
m = nn.Linear(2, 2)
print(type(m) in (nn.parallel.DataParallel, nn.parallel.DistributedDataParallel),
      DDP is nn.parallel.DistributedDataParallel)
print(isinstance(nn.DataParallel(m), DDP), issubclass(DDP, nn.Module), DDP.__name__,
      DDP.__module__)
for kw in [{}, {"device_ids": [0]}, {"delay_all_reduce_named_params": []}]:
    try:
        DDP(m, **kw)
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
"""


def test_distributed_data_parallel_is_a_class_without_a_process_group() -> None:
    """nn.parallel.DistributedDataParallel names a class (YOLOv5's is_parallel compares
    types with it); making one is torch's ValueError with no process group."""
    assert gradtrace_output(DISTRIBUTED_DATA_PARALLEL) == torch_output(DISTRIBUTED_DATA_PARALLEL)
