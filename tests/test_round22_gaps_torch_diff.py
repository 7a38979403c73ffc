"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 22
found (nanoGPT's model.py and train.py): the flash-attention output's layout (torch
allocates it as empty_like(query), so a (B, T, H, E) query's output is laid out (B, T, H, E)
and the model's `y.transpose(1, 2).contiguous()` copies nothing: no CloneBackward0 in the
graph), and `inspect.signature` (configure_optimizers asks whether AdamW takes `fused`),
with typing aliases' `__module__`, which its formatannotation reads; and the PyTorch
char-RNN generation tutorial's deprecated overload `p.data.add_(-lr, p.grad.data)`.

Skipped unless torch is importable.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from script_runs import file_runs, gradtrace_output, torch_output, torch_outputs_in_child

torch = pytest.importorskip("torch")


SDPA_LAYOUTS = """import torch
F = torch.nn.functional
torch.manual_seed(0)

def graph(fn):
    names = []
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names

def show(q, k, v, **kw):
    o = F.scaled_dot_product_attention(q, k, v, **kw)
    print(q.stride(), "->", o.stride(), o.is_contiguous(), o.shape)
    y = o.transpose(1, 2).contiguous()
    print(graph(y.grad_fn)[:3], y.is_contiguous())
    if o.requires_grad:
        o.sum().backward()

x = torch.randn(2, 6, 48, requires_grad=True)
q, k, v = x.split(16, dim=2)
q, k, v = (t.view(2, 6, 2, 8).transpose(1, 2) for t in (q, k, v))
show(q, k, v, is_causal=True)
print(x.grad.stride(), x.grad.sum())
show(q.detach(), k.detach(), v.detach())
b = torch.randn(2, 3, 5, 4)
show(b, b, b)
show(b, b.transpose(1, 2).contiguous().transpose(1, 2), b)
t = b.transpose(1, 2).contiguous().transpose(1, 2)
show(t, b, b)
show(t, t, t, is_causal=True)
wide = torch.randn(2, 5, 3, 8)[:, :, :, :4].transpose(1, 2)
show(wide, wide, wide)
heads = torch.randn(3, 2, 5, 4).transpose(0, 1)
show(heads, heads, heads)
show(t, t, t, attn_mask=torch.ones(5, 5, dtype=torch.bool).tril())
"""


def test_flash_attention_output_is_laid_out_like_the_query_as_torch() -> None:
    assert gradtrace_output(SDPA_LAYOUTS) == torch_output(SDPA_LAYOUTS)


INSPECT = """import inspect
import torch
from typing import List, Optional, Tuple

def f(a, b=2, *args, c, d=(1, 2), **kw):
    pass

def g(x: int, /, y: float = 1.5, *, z: Optional[int] = None) -> torch.Tensor:
    pass

def h(p, /, q, *, r: List[int] = [], s: Tuple[int, str] = (1, 'a'), t: list[int] = None):
    pass

class Net(torch.nn.Module):
    def __init__(self, n_in, n_out=3, *, bias: bool = True):
        super().__init__()

    def forward(self, x):
        return x

    @staticmethod
    def helper(u, v=0):
        return u

class Plain:
    pass

class Child(Net):
    pass

@torch.no_grad()
def decorated(m, n=4):
    return m

for fn in (f, g, h, Net, Net(2).forward, Net.forward, Net.helper, Plain, Child, decorated,
           lambda x, y=1, *z: x):
    sig = inspect.signature(fn)
    print(sig, repr(sig), len(sig.parameters), list(sig.parameters))
    print(sig.parameters)
    for name, p in sig.parameters.items():
        print(name, p, repr(p), p.kind, repr(p.kind), p.kind.description,
              p.default is inspect.Parameter.empty, p.annotation is p.empty, int(p.kind))
    print(sig.return_annotation)
for cls in (torch.optim.AdamW, torch.optim.SGD, torch.optim.Adam, torch.nn.Linear):
    params = inspect.signature(cls).parameters
    print('fused' in params, 'nope' in params, list(params))
    print([(p.name, p.default, str(p.kind)) for p in params.values()])
print(inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.KEYWORD_ONLY == 3)
print(inspect.Parameter.empty, inspect.Signature.empty)
print(inspect.signature(f) == inspect.signature(f), inspect.signature(f) == inspect.signature(g))
print(inspect.signature(f).parameters['d'] == inspect.signature(f).parameters['d'])
print(Optional[int].__module__, List.__module__, list[int].__module__)
inspect.signature(3)
"""


def test_inspect_signature_of_script_functions_and_classes_like_python() -> None:
    # in a child: exec here would inherit this file's `from __future__ import annotations`
    stdout, error = torch_outputs_in_child({"inspect": INSPECT})["inspect"]
    assert gradtrace_output(INSPECT) == stdout + error.replace(": ", " ", 1) + "\n"


DEPRECATED_OVERLOADS = """import torch
a = torch.ones(3, requires_grad=True)
b = torch.arange(3.)
print(torch.addcmul(a, 2, b, b))
c = a.detach().clone()
print(c.add_(-0.5, b))
print(a.add(2, b), a.sub(2, b), torch.add(a, 2, b), torch.sub(a, 3, b))
print(c.addcmul_(2, b, b), c.addcdiv(2, b, b + 1), c.sub_(1, b))
m = torch.ones(2, 2)
x = torch.eye(2)
print(torch.addmm(2, m, 3, x, x), torch.addmm(2, m, x, x), m.addmm(2, 3, x, x))
print(m.addmm(0.5, x, x), a.add(2, other=b), a.add(b, alpha=2))
print(torch.add(a.detach(), 2, b, out=torch.empty(3)))
y = a.add(2, b).sum()
y.backward()
print(a.grad, y.grad_fn.next_functions[0][0].name())
print(torch.baddbmm(1, torch.ones(1, 2, 2), 2, torch.ones(1, 2, 2), torch.ones(1, 2, 2)))
try:
    a.add(2, 3)
except TypeError as e:
    print(e)
"""


@pytest.mark.parametrize("first", ["", "print(torch.ones(2).add_(3, torch.ones(2)))\n"])
def test_deprecated_overloads_run_and_warn_once_like_torch(tmp_path: Path, first: str) -> None:
    """torch's parser takes a deprecated overload (`p.data.add_(-lr, p.grad.data)`, the
    char-RNN tutorial's update) as the current one, warning once per process whichever
    function (TORCH_WARN_ONCE); gradtrace's parser took it and then called the engine with
    the arguments in the old order (a TypeError)."""
    text = DEPRECATED_OVERLOADS.replace("import torch\n", "import torch\n" + first)
    torch_run, result, err = file_runs(text, tmp_path, "deprecated", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert err.replace("deprecated.gt", "PATH") == \
        torch_run.stderr.replace(str(tmp_path / "deprecated.py"), "PATH")
    assert torch_run.stderr.count("is deprecated") == 1


LSTM_LAYOUTS = """import torch
torch.manual_seed(0)
emb = torch.nn.Embedding(10, 6)
for kwargs in (dict(), dict(batch_first=True), dict(num_layers=2, dropout=0.0)):
    lstm = torch.nn.LSTM(6, 4, **kwargs)
    for x in (emb(torch.randint(0, 10, (3, 5))).permute(1, 0, 2), emb(torch.randint(0, 10, (5, 3))),
              emb(torch.randint(0, 10, (5, 3)))[::2]):
        o, (h, c) = lstm(x)
        fn, names = o.grad_fn, []
        while fn is not None:
            names.append(fn.name())
            fn = fn.next_functions[0][0] if fn.next_functions else None
        print(names, o.shape, o.is_contiguous())
"""


def test_lstm_copies_a_non_contiguous_input_as_torch() -> None:
    """torch's mkldnn_rnn makes any input contiguous (CloneBackward0 for a permuted one, the
    sentiment models' `x.permute(1, 0, 2)` into a dropout of p=0); gradtrace copied only a
    batch_first one."""
    assert gradtrace_output(LSTM_LAYOUTS) == torch_output(LSTM_LAYOUTS)
