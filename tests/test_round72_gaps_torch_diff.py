"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 72
(recommender systems and ranking) found: GRU4REC-pytorch's main prints its configuration by
`sorted(args.__dict__.items())` of an argparse.Namespace, whose __dict__ gradtrace refused;
DLRM's create_emb saves and restores numpy's global stream around per-table seeds with
np.random.get_state()/set_state(), which gradtrace did not offer; and DLRM's tables are
nn.EmbeddingBag(np.int64(n), m), which torch's repr shows as `EmbeddingBag(np.int64(10), 4,
mode='sum')` (its extra_repr formats every value by repr) where gradtrace printed `10`;
and Scott Rome's two-tower post hashes ids into its embedding tables by
`int(hashlib.md5(s.encode('utf-8')).hexdigest(), 16) % EMBED_TABLE_SIZE`, where hashlib was
an import-only module.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


ARGPARSE_NAMESPACE_DICT = """import argparse
p = argparse.ArgumentParser()
p.add_argument('--hidden_size', default=100, type=int)
p.add_argument('-sigma', type=float, default=None)
args = p.parse_args(['--hidden_size', '8'])
args.cuda = False
for attr, value in sorted(args.__dict__.items()):
    print("{}={}".format(attr.upper(), value))
print(vars(args) is args.__dict__, args.__dict__)
args.__dict__['k_eval'] = 5
args.__dict__.update(lr=0.1)
del args.__dict__['cuda']
print(args, args.k_eval, 'lr' in args, 'cuda' in args)
class Sub(argparse.Namespace):
    pass
s = Sub(x=1)
s.__dict__.setdefault('y', 2)
print(s, s.__dict__, argparse.Namespace(a=1) == argparse.Namespace(**{'a': 1}))
"""


def test_argparse_namespace_dict_is_live() -> None:
    """An argparse.Namespace's __dict__ is its live attribute dict (vars() the same dict):
    reading, writing, deleting and updating through it show in the namespace."""
    assert gradtrace_output(ARGPARSE_NAMESPACE_DICT) == torch_output(ARGPARSE_NAMESPACE_DICT)


NUMPY_RANDOM_STATE = """import numpy as np
np.random.seed(3)
s = np.random.get_state()
print(type(s).__name__, len(s), s[0], s[1].dtype, s[1].shape, s[1][:3], s[2], s[3], s[4])
a = np.random.rand(3)
np.random.set_state(s)
print(a, np.random.rand(3))
np.random.randn(1)  # leaves a cached gaussian in the state
s2 = np.random.get_state()
print(s2[2], s2[3], s2[4])
print(np.random.randn(2))
np.random.set_state(s2)
print(np.random.randn(2))
# DLRM's create_emb: per-table seeds, then the global stream restored
np.random.seed(123)
seeds = np.random.randint(low=0, high=100000, size=2)
saved = np.random.get_state()
tables = []
for seed in seeds:
    np.random.seed(seed)
    tables.append(np.random.uniform(-1, 1, size=(2, 2)).astype(np.float32))
np.random.set_state(saved)
print(seeds, tables[1], np.random.rand())
r = np.random.RandomState(5)
st = r.get_state()
x = r.uniform(size=2)
r.set_state(st)
print(x, r.uniform(size=2))
np.random.set_state(st)
print(np.random.rand())
for bad in [('MT19937', [1, 2]), 'MT19937', ('PCG64', np.zeros(624, dtype=np.uint32), 0)]:
    try:
        np.random.set_state(bad)
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_numpy_random_get_state_and_set_state() -> None:
    """np.random.get_state() gives numpy's legacy tuple ('MT19937', keys, pos, has_gauss,
    cached_gaussian) and set_state() restores the stream from it, for the global stream
    and a RandomState, with numpy's errors for a malformed state."""
    assert gradtrace_output(NUMPY_RANDOM_STATE) == torch_output(NUMPY_RANDOM_STATE)


EMBEDDING_BAG_REPR = """import numpy as np
import torch
import torch.nn as nn
print(nn.EmbeddingBag(np.int64(10), 4, mode='sum', sparse=True,
                      _weight=torch.zeros(10, 4)))
print(nn.EmbeddingBag(np.int64(10), np.int32(4), mode='max', max_norm=np.float32(1.5),
                      norm_type=np.float64(3.0), padding_idx=np.int64(2)))
print(nn.EmbeddingBag(5, 3, scale_grad_by_freq=True, max_norm=2.0, padding_idx=-1))
print(nn.ModuleList([nn.EmbeddingBag(n, 2) for n in np.array([3, 4])]))
print(nn.Embedding(np.int64(10), 4, padding_idx=np.int64(1), max_norm=np.float64(2.0)))
"""


def test_embedding_bag_repr_formats_values_by_repr() -> None:
    """nn.EmbeddingBag's extra_repr formats each value by repr, so a numpy size shows as
    `np.int64(10)` (nn.Embedding's formats by str, `10`)."""
    assert gradtrace_output(EMBEDDING_BAG_REPR) == torch_output(EMBEDDING_BAG_REPR)


HASHLIB_DIGESTS = """import hashlib
import copy
h = hashlib.md5(b'ab')
print(type(h), type(h).__name__, h.name, h.digest_size, h.block_size, h.hexdigest(), h.digest())
h.update(b'c')
g = h.copy()
g.update('x'.encode())
print(h.hexdigest(), g.hexdigest(), hashlib.md5(b'abc').hexdigest() == h.hexdigest())
EMBED_TABLE_SIZE = 1000
hash_f = lambda x: int(hashlib.md5(x.encode('utf-8')).hexdigest(),16) % EMBED_TABLE_SIZE
print([hash_f(str(s) + '_' + str(k)) for s in (1, 2) for k in ('DEFAULT', 5, 'a')])
for name in ['sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha3_256']:
    print(name, getattr(hashlib, name)(b'x').hexdigest(), hashlib.new(name, b'x').digest()[:4])
print(hashlib.new('SHA256').name, hashlib.md5(usedforsecurity=False).hexdigest(),
      hashlib.sha256(string=b'a').hexdigest()[:8], isinstance(h, type(g)), str(h)[:24])
for f in [lambda: hashlib.md5('a'), lambda: hashlib.md5(1), lambda: hashlib.md5([1]),
          lambda: copy.copy(h), lambda: copy.deepcopy([h]), lambda: hashlib.new('foo'),
          lambda: hashlib.new('md5', 'x'), lambda: hashlib.md5(b'a', b'b'),
          lambda: hashlib.md5(data=b'a'), lambda: h.update('s'), lambda: hashlib.sha256(None),
          lambda: h.hexdigest(1), lambda: h.foo, lambda: hashlib.foo, lambda: h.update(),
          lambda: hashlib.new()]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_hashlib_fixed_size_digests() -> None:
    """hashlib's md5/sha digests are CPython's (the hashing trick of recommender code:
    md5 of a salted id modulo a table size), with CPython's errors for a str, a non-buffer
    and a bad algorithm name, and copy() but not copy.copy of a hash object."""
    assert gradtrace_output(HASHLIB_DIGESTS) == torch_output(HASHLIB_DIGESTS)
