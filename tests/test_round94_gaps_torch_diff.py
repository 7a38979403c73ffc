"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 94
(continual, federated and distillation training) found: `import fnmatch` (Avalanche's
Synaptic Intelligence plugin skips the parameters whose names match exclusion patterns),
and tqdm.auto's bar, which outside a notebook is tqdm.asyncio's tqdm_asyncio: it takes an
iterator of its iterable as it is made and iterates the iterable again in its loop, so a
DataLoader wrapped in it draws its base seed from torch's generator twice (Avalanche's MAS
plugin wraps its importance pass's DataLoader in `tqdm(dataloader)` from tqdm.auto).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


FNMATCH = """import fnmatch
from fnmatch import fnmatch as fm, fnmatchcase
print(fm("0.weight", "0.*"), fm("layer.bias", "*.weight"), fnmatchcase("A.b", "a.*"))
print(fm("A.b", "a.*"), fm("bn.running_mean", "bn*"), fm("fc.weight", "fc.[!b]*"))
print(fnmatch.filter(["a.weight", "b.bias", "c.weight"], "*.weight"))
print(fnmatch.filter(("x1", "y2", "z1"), "[xy]1"), fnmatch.translate("a?[!x]*"))
print(fm(b"ab", b"a*"), fnmatchcase("a*", "a[*]"))
for args in [(1, "a"), ("a", 1), ("a", None), ("a", b"a"), ("a", [1])]:
    try:
        print(fm(*args))
    except TypeError as e:
        print("TypeError", e)
for args in [(1, "a"), ("a", 1), ("a", 2.5)]:
    try:
        print(fnmatchcase(*args))
    except TypeError as e:
        print("TypeError", e)
excluded = {"bn", "head.*"}
names = ["conv.weight", "bn.weight", "bn.bias", "head.fc.weight", "head", "bnx.weight"]
print([n for n in names if not any(fm(n, p) or fm(n, p + ".*") for p in excluded)])
"""


def test_fnmatch_matches_names_as_python_does() -> None:
    """fnmatch, fnmatchcase, filter and translate give Python's results on strings and
    bytes, and Python's TypeErrors for numbers, None, lists and mixed str/bytes."""
    assert gradtrace_output(FNMATCH) == torch_output(FNMATCH)


TQDM_DRAWS = """import torch
import tqdm.auto as tqdm_auto
from tqdm import tqdm as std_tqdm
from tqdm.auto import tqdm, trange
from tqdm.asyncio import tqdm_asyncio
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
ds = TensorDataset(torch.arange(6.), torch.arange(6))
dl = DataLoader(ds, batch_size=4)
bar = tqdm(dl)
print(torch.rand(1), type(bar).__name__, len(bar))
for batch in bar:
    pass
print(torch.rand(1))
for batch in std_tqdm(dl):
    pass
print(torch.rand(1))
for i, batch in enumerate(tqdm(DataLoader(ds, batch_size=2, shuffle=True))):
    print(i, batch[1])
print(torch.rand(1))
it = iter([1, 2, 3])
print(next(it), list(tqdm(it)), list(trange(3)), list(tqdm_asyncio(range(2))))
gen = (x * 2 for x in range(3))
print(list(tqdm_auto.tqdm(gen, total=3)), tqdm is tqdm_asyncio)
try:
    tqdm(5)
except TypeError as e:
    print("TypeError", e)
with torch.no_grad():
    bar = tqdm(dl, disable=True)
print(torch.rand(1), [b[1] for b in bar], torch.rand(1))
"""


def test_tqdm_auto_iterates_its_dataloader_once_more_as_it_is_made() -> None:
    """tqdm.auto.tqdm is tqdm_asyncio: `iter(iterable)` in __init__ (even when disabled)
    then the loop's own iteration, so a DataLoader draws two base seeds; std tqdm draws
    one; an iterator or generator is not advanced by it; a non-iterable raises
    Python's TypeError as the bar is made."""
    assert gradtrace_output(TQDM_DRAWS) == torch_output(TQDM_DRAWS)
