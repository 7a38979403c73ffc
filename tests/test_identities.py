"""id() numbers objects uniquely among those alive at once and reuses a dead object's number
for the next one of its kind, as CPython's memory reuse does (interpreter/identities.py):
the Deep Learning with PyTorch idiom `id(points.storage()) == id(points_t.storage())` prints
True. Tensors and graph nodes keep their numbers, so every view prints the same.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

from gradtrace.interpreter import Limits
from gradtrace.runner import run_text

torch = pytest.importorskip("torch")

TEMPORARIES = """import torch
import warnings
warnings.simplefilter("ignore")
points = torch.tensor([[1.0, 4.0], [2.0, 1.0], [3.0, 5.0]])
points_t = points.t()
print(id(points.storage()) == id(points_t.storage()))
kept = points.storage()
print(id(kept) == id(points_t.storage()), id(kept) == id(kept))
class Net:
    def forward(self):
        return 1
print(id(Net()) == id(Net()))
print(len({id(Net()) for _ in range(4)}))
nets = [Net() for _ in range(4)]
print(len(set(map(id, nets))), id(nets[0]) == id(nets[0]))
print(id(object()) == id(object()))
model = torch.nn.Linear(2, 2)
ids = list(map(id, model.parameters()))
print(ids == [id(p) for p in model.parameters()], ids[0] == ids[1])
print(id(points) == id(points), id(points) == id(points.view(6)))
print(id(points.grad_fn) == id(None))
"""


def test_temporaries_share_numbers_and_live_objects_do_not_as_in_cpython() -> None:
    assert gradtrace_output(TEMPORARIES) == torch_output(TEMPORARIES)


def test_every_view_prints_what_the_quiet_run_prints() -> None:
    quiet = run_text(TEMPORARIES)
    traced = run_text(TEMPORARIES, trace=True)
    assert quiet.error is None and traced.error is None
    assert traced.stdout == quiet.stdout


def test_tensors_keep_their_numbers_for_the_run() -> None:
    """CPython would reuse a dead tensor's address; the views keep tensors alive to show
    them, so a tensor's number is never given to another (the same under every view)."""
    script = "import torch\nprint(id(torch.ones(2)) == id(torch.zeros(3)))\n"
    assert run_text(script).stdout == run_text(script, trace=True).stdout == "False\n"


def test_the_limit_counts_objects_numbered_and_alive() -> None:
    limits = Limits(max_sequence=100)  # ten live numbers
    alive = "class C:\n    pass\nkeep = [C() for _ in range(11)]\nprint(list(map(id, keep)))\n"
    result = run_text(alive, limits=limits)
    assert result.error is not None and result.error.kind == "LimitError"
    assert "numbered 10 live objects" in result.error.message
    dead = "class C:\n    pass\nprint(len({id(C()) for _ in range(50)}))\n"
    result = run_text(dead, limits=limits)
    assert result.error is None and result.stdout == "1\n"


def test_a_deepcopy_memo_keyed_by_id_finds_the_copy() -> None:
    script = """import copy
class Box:
    def __init__(self):
        self.items = [1, 2]
    def __deepcopy__(self, memo):
        new = Box()
        memo[id(self)] = new
        new.items = copy.deepcopy(self.items, memo)
        return new
b = Box()
pair = copy.deepcopy([b, b])
print(pair[0] is pair[1], pair[0] is not b, pair[0].items)
"""
    assert gradtrace_output(script) == torch_output(script)
