"""The trace of a long run stays small: large values are summarised, dead tensors let go.

A traced training loop used to keep every tensor it met alive and a copy of every
gradient, so `gradtrace run` and `explain` grew by megabytes per step. Now the trace
keeps arrays of more than `summary.FULL_LIMIT` elements as a `Summary` and lets go of
tensors only the trace still holds (their records keep a `TensorState`). These tests
check that the views cannot tell the difference, and that memory per step is bounded.
"""
from __future__ import annotations

import gc
import io
import json
import re
import tracemalloc

import numpy as np
import pytest
from rich.console import Console

from gradtrace import tracing
from gradtrace.engine import dtypes
from gradtrace.engine.tensor import Tensor
from gradtrace.engine.tensor_str import tensor_repr
from gradtrace.render import explain as ex
from gradtrace.render import values
from gradtrace.render.json import document, validate
from gradtrace.render.tables import print_report
from gradtrace.runner import run_text
from gradtrace.summary import FULL_LIMIT, Summary, keep

MLP = """import torch
N = 256
D = 16
H = 64
k = torch.arange(N * D, dtype=torch.float32).reshape(N, D)
X = torch.sin(k * 0.37)
Y = torch.cos(X @ torch.ones(D, 1) * 0.1)
W1 = (torch.cos(torch.arange(D * H, dtype=torch.float32).reshape(D, H)) * 0.2).requires_grad_()
W2 = (torch.sin(torch.arange(H, dtype=torch.float32).reshape(H, 1)) * 0.2).requires_grad_()
for step in range(STEPS):
    h = torch.tanh(X @ W1)
    loss = ((h @ W2 - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        W1 -= 0.1 * W1.grad
        W2 -= 0.1 * W2.grad
    W1.grad = None
    W2.grad = None
print(loss.item())
"""


def _values(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Values that pick every number format: plain, all equal, integral, wide range,
    with NaN, huge."""
    return [rng.standard_normal(n), np.ones(n), np.arange(n) - n / 2,
            rng.standard_normal(n) * 10.0 ** rng.integers(-9, 9, n),
            np.where(rng.random(n) < 0.1, np.nan, rng.standard_normal(n)),
            rng.integers(-10**12, 10**12, n) * 1.0]


def _arrays(rng: np.random.Generator, shapes):
    for shape in shapes:
        n = int(np.prod(shape))
        for dt in (np.float32, np.float64, np.float16, np.int64, np.uint8, np.bool_):
            for a in _values(rng, n):
                with np.errstate(all="ignore"):
                    yield a.astype(dt).reshape(shape)


def _reference_cell(array: np.ndarray, limit: int) -> str:
    """array_cell as it was written first: the whole tensor_repr, then summarise."""
    text = tensor_repr(array, dtypes.from_numpy(array.dtype))
    text = " ".join(part.strip() for part in text.splitlines())
    inner = re.sub(r",\s*dtype=torch\.\w+$", "", text[len("tensor("):-1])
    return values.summarise(" ".join(inner.split()), limit)


# -- values: a summary shows what the whole array shows --------------------------------


def test_a_summary_prints_like_the_whole_array():
    rng = np.random.default_rng(0)
    shapes = [(1001,), (2000,), (40, 50), (512, 128), (7, 7, 7, 7), (3, 400), (1, 5000)]
    for a in _arrays(rng, shapes):
        for view in (a, a.T):
            summary = Summary.of(view)
            for limit in (20, 30, 40, 60):
                assert values.array_cell(summary, limit) == values.array_cell(view, limit), \
                    (view.shape, view.dtype, limit)


def test_long_cells_format_only_what_they_show():
    rng = np.random.default_rng(1)
    shapes = [(130,), (512, 1), (1, 512), (30, 30), (10, 10, 10), (2, 3, 4, 5), (1000,)]
    for a in _arrays(rng, shapes):
        for view in (a, a.T):
            for limit in (8, 20, 24, 30, 40, 60):
                assert values.array_cell(view, limit) == _reference_cell(view, limit), \
                    (view.shape, view.dtype, limit)


def test_keep_copies_small_arrays_and_summarises_large_ones():
    small = np.arange(FULL_LIMIT, dtype=np.float32)
    kept = keep(small)
    assert isinstance(kept, np.ndarray) and kept is not small and np.array_equal(kept, small)
    small[0] = 5  # the copy does not follow later writes
    assert kept[0] == 0
    large = np.ones((FULL_LIMIT + 1,), dtype=np.float64)
    summary = keep(large)
    assert isinstance(summary, Summary)
    assert summary.shape == large.shape and summary.uniform
    assert summary.head.tolist() == [1.0] * 8 and summary.corners.tolist() == [1.0] * 6
    large[-1] = np.nan
    assert not Summary.of(large).uniform


# -- the tracer ----------------------------------------------------------------------


def test_the_trace_lets_go_of_tensors_only_it_holds():
    result = run_text(MLP.replace("STEPS", "40"), trace=True)
    assert result.error is None
    trace = result.trace
    live = [r for r in trace.tensors.values() if isinstance(r.tensor, Tensor)]
    gone = [r for r in trace.tensors.values() if isinstance(r.tensor, tracing.TensorState)]
    assert len(live) + len(gone) == len(trace.tensors)
    # at most the tensors made since the last pass over the live ones are still held
    assert len(live) < tracing.Tracer.LET_GO_EVERY and len(gone) > 10 * 40
    # a record of a dead tensor still answers everything the views ask
    state = next(r.tensor for r in gone if r.tensor.grad_fn is not None)
    assert state.shape and state.dtype.name == "float32" and not state.is_leaf
    assert state._version == state._version_counter.value
    doc = document(result)  # (validated in test_large_values_in_the_json_document_...)
    assert len(doc["tensors"]) == len(trace.tensors)
    gone_ids = {r.id for r in gone}
    h = [t for t in doc["tensors"] if t["shape"] == [256, 64] and t["id"] in gone_ids]
    assert len(h) > 40 and all("summary" in t["value"] for t in h)
    named_h = doc["tensors"][doc["variables"]["h"] - 1]
    assert np.array(named_h["value"]["data"]).shape == (256, 64)  # alive: complete


def test_trace_memory_per_step_is_bounded():
    def retained(steps: int) -> int:
        gc.collect()
        tracemalloc.start()
        try:
            result = run_text(MLP.replace("STEPS", str(steps)), trace=True)
            result.trace._let_go()  # what a later pass would let go of anyway
            gc.collect()
            size, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert result.error is None and len(result.trace.backward_calls) == steps
        return size

    retained(3)  # imports and caches
    per_step = (retained(60) - retained(20)) / 40
    # each step makes three 256x64 arrays (64 KiB each) and ~20 small values; the trace
    # keeps about 70 KB per step of them (it kept about 1 MB when it kept every tensor)
    assert per_step < 200_000, per_step


def test_in_place_hazards_match_a_scan_of_every_node(monkeypatch):
    """The storage index finds what scanning every node's saved tensors finds."""
    def scan(self, tensor):
        found = []
        for record in self.nodes.values():
            node = record.node
            if not node.saved or node.released:
                continue
            for key, saved in node.saved.items():
                if saved is None or saved.tensor._version_counter is tensor._version_counter:
                    continue
                if np.shares_memory(saved.tensor.array, tensor.array):
                    found.append({"node": record.id, "saved": key,
                                  "tensor": self.tensor(saved.tensor).id})
        return found

    indexed = tracing.Tracer._shared_storage_hazards
    checked = []

    def both(self, tensor):
        expected = scan(self, tensor)
        got = indexed(self, tensor)
        assert got == expected
        checked.append(len(got))
        return got

    monkeypatch.setattr(tracing.Tracer, "_shared_storage_hazards", both)
    script = (
        "import torch\n"
        "a = torch.ones(3, requires_grad=True)\n"
        "b = a * 2\n"
        "c = b * b\n"
        "b.data.mul_(10)\n"  # through .data: same memory, another version counter
        "d = torch.ones(3, requires_grad=True)\n"
        "e = d * d\n"
        "f = torch.zeros(3)\n"
        "d.data = f\n"  # d now lives in f's memory
        "f.add_(1)\n"  # ... so this changes what e saved
        "v = b.data[1:]\n"
        "v.mul_(2)\n"  # a view of the .data: still the same memory
        "b.data.unsqueeze(0).mul_(2)\n"  # an as_strided view (unsqueeze's): the same memory
        "c.sum().backward()\n"
        "e.sum().backward()\n"
        "print(a.grad, d.grad)\n")
    result = run_text(script, trace=True)
    assert result.error is None
    assert checked and sum(checked) >= 4  # mul_, add_ and the views' mul_ each found some


def test_saved_tensors_are_filed_by_storage_only_when_an_in_place_change_reads_them(
        monkeypatch):
    """A training step's graph is released by its backward before the update changes the
    weights in place, so its nodes are never filed; a graph still alive is filed when an
    in-place change asks which saved tensors share its memory."""
    filed = []
    file = tracing.Tracer._file

    def counting(self, record):
        filed.append(record.name)
        file(self, record)

    monkeypatch.setattr(tracing.Tracer, "_file", counting)
    script = ("import torch\n"
              "w = torch.ones(3, requires_grad=True)\n"
              "x = torch.arange(3.0)\n"
              "for _ in range(3):\n"
              "    loss = ((x * w).tanh() * w).sum()\n"
              "    loss.backward()\n"
              "    with torch.no_grad():\n"
              "        w -= 0.1 * w.grad\n"
              "    w.grad = None\n")
    result = run_text(script, trace=True)
    assert result.error is None and filed == []
    result = run_text(script + "y = x * w\nwith torch.no_grad():\n    w.mul_(2)\n",
                      trace=True)
    assert result.error is None and filed == ["MulBackward0"]


# -- views of a traced run with large tensors -----------------------------------------


BIG = """import torch
x = torch.arange(2000.0, requires_grad=True)
w = torch.ones(2000, requires_grad=True)
y = (x * w).sum()
z = torch.relu(x - 10.0).sum() + (w * 3.0).exp().sum()
y.backward()
z.backward()
print(x.grad[:3], w.grad[:3])
"""


def test_large_values_in_the_json_document_are_summarised():
    result = run_text(BIG, trace=True)
    doc = document(result)
    validate(doc)
    op = next(e for e in doc["events"] if e["kind"] == "op" and e["facts"]["values"]
              and e["facts"]["values"][0]["shape"] == [2000])
    summary = op["facts"]["values"][0]["summary"]
    assert len(summary["first"]) == 8 and len(summary["corners"]) == 6
    assert isinstance(summary["all_equal"], bool)
    x = doc["tensors"][doc["variables"]["x"] - 1]
    assert len(x["value"]["data"]) == 2000 and len(x["grad"]["data"]) == 2000  # alive
    first = doc["backward"][0]["steps"][0]
    assert first["sent"][0]["grad"]["summary"]["all_equal"] is True


def test_explain_and_report_work_from_summaries():
    result = run_text(BIG, trace=True)
    explanation = ex.explain(result)
    text = " ".join(ex.render_text(explanation, 100).split())
    # w is all ones (the summary knows): ∂(x * w)/∂x = w is shown as one number; x by its
    # corner values and shape
    assert ("∂`x * w`/∂x = w = 1. and ∂`x * w`/∂w = x = [0.0000e+00, 1.0000e+00, …, "
            "1.9990e+03] (shape [2000])") in text
    # every fact stays small: summaries, not 2000-element lists
    facts = json.dumps(ex.to_json(explanation), allow_nan=False, ensure_ascii=False)
    assert len(facts) < 60_000
    out = io.StringIO()
    print_report(Console(file=out, width=100), run_text(BIG, trace=True))
    assert "[0.0000e+00, 1.0000e+00, …, 1.9990e+03]" in out.getvalue()


@pytest.mark.parametrize("steps", [3])
def test_explain_repeats_only_count_later_visits(steps):
    result = run_text(MLP.replace("STEPS", str(steps)), trace=True)
    explanation = ex.explain(result)
    counted = [s for s in explanation.steps if s.kind == "summary.repeats"]
    assert len(counted) == 1  # said once, at the end
    loop_lines = counted[0].facts["lines"].split(", ")
    assert counted[0].facts["count"] == (steps - ex.MAX_REPEATS) * len(loop_lines)



def test_a_process_running_script_after_script_collects_the_finished_runs_cycles(
        monkeypatch):
    """The runner splices each run's objects into the oldest generation, where CPython's
    rule for full collections does not count them: without runner._collect_earlier_runs,
    a notebook or test suite running script after script kept every finished run's
    cycles (a run of this script leaves ~4,000 objects). With the rule's factor at 0, every
    run collects what the runs before it left."""
    from gradtrace import runner

    monkeypatch.setattr(runner, "GARBAGE_FACTOR", 0)
    text = ("class Node:\n    def __init__(self):\n        self.me = self\n"
            "nodes = [Node() for _ in range(300)]\n")
    run_text(text)
    run_text(text)
    before = len(gc.get_objects())
    for _ in range(20):
        run_text(text)
    per_run = (len(gc.get_objects()) - before) / 20
    assert per_run < 100, per_run
    monkeypatch.setattr(runner, "GARBAGE_FACTOR", 10**9)  # never: the cycles stay
    before = len(gc.get_objects())
    for _ in range(20):
        run_text(text)
    assert (len(gc.get_objects()) - before) / 20 > 300
