"""Which of equal values torch's CPU selection kernels report, against live PyTorch 2.13:
topk's std::partial_sort (k * 64 <= n) or std::nth_element plus std::sort of the first
k - 1, kthvalue's quick_select_template, median's and nanmedian's std::nth_element (ties by
index, except a row of NaNs), emulated swap by swap in gradtrace/engine/ops/std_sort.py.
Hypothesis draws tie-heavy rows (few distinct integer values, NaNs, signed zeros) at lengths
around the k * 64 switch and libstdc++'s 16-element insertion-sort threshold. Skipped unless
torch is importable."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

from gradtrace.engine.ops.quantiles import nanmedian  # noqa: E402
from gradtrace.engine.ops.sorting import kthvalue, median, sort, topk  # noqa: E402
from gradtrace.engine.ops.std_sort import (  # noqa: E402
    nth_element_order,
    partial_sort_order,
    quick_select_order,
    std_sort_order,
)
from gradtrace.engine.tensor import Tensor  # noqa: E402

LENGTHS = [1, 2, 3, 4, 5, 15, 16, 17, 18, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192,
           193, 255, 256, 257, 639, 640, 641]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8"]


@st.composite
def tie_rows(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    n = draw(st.sampled_from(LENGTHS))
    dtype = draw(st.sampled_from(DTYPES))
    distinct = draw(st.sampled_from([1, 2, 3, 5, 1000]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, min(distinct, 100 if dtype in ("int8", "uint8") else distinct),
                        (3, n)).astype(dtype)
    if rows.dtype.kind == "f":
        if draw(st.booleans()):
            rows[rng.random(rows.shape) < draw(st.sampled_from([0.05, 0.3, 1.0]))] = np.nan
        if draw(st.booleans()):
            rows = np.where((rows == 0) & (rng.random(rows.shape) < 0.5), -rows, rows)
    k = draw(st.sampled_from(sorted({0, 1, 2, 3, n // 64, n // 64 + 1, n // 2, n - 1, n})))
    return rows, max(min(k, n), 0)


def _same(ours: tuple, theirs: tuple) -> None:
    assert ours[1].array.tolist() == theirs[1].tolist()
    assert np.array_equal(np.signbit(ours[0].array), np.signbit(theirs[0].numpy()))
    assert np.array_equal(ours[0].array, theirs[0].numpy(), equal_nan=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_rows())
def test_selection_reports_the_index_torchs_kernels_leave(case):
    rows, k = case
    ours, theirs = Tensor(rows), torch.from_numpy(rows)
    for dim, t_rows in ((1, ours), (0, Tensor(np.ascontiguousarray(rows.T)))):
        t_theirs = torch.from_numpy(t_rows.array)
        for largest in (True, False):
            for sorted_ in (True, False):
                _same(topk(t_rows, k, dim, largest, sorted_),
                      torch.topk(t_theirs, k, dim, largest, sorted_))
    kk = max(k, 1)
    _same(kthvalue(ours, kk, 1), torch.kthvalue(theirs, kk, 1))
    _same(kthvalue(ours, kk, 1, keepdim=True), torch.kthvalue(theirs, kk, 1, keepdim=True))
    _same(median(ours, 1), torch.median(theirs, 1))
    _same(nanmedian(ours, 1), torch.nanmedian(theirs, 1))
    assert sort(ours, 1)[1].array.tolist() == torch.sort(theirs, 1)[1].tolist()


def test_topk_of_a_long_row_of_ties_is_fast_and_torchs():
    rng = np.random.default_rng(0)
    row = rng.integers(0, 3, 100_000).astype(np.float32)
    for k, largest, sorted_ in ((1562, True, True), (1563, True, True), (50_000, True, True),
                                (50_000, False, False), (99_999, True, True)):
        assert (topk(Tensor(row), k, 0, largest, sorted_)[1].array.tolist()
                == torch.topk(torch.from_numpy(row), k, 0, largest, sorted_)[1].tolist())
    assert (kthvalue(Tensor(row), 50_000)[1].array.tolist()
            == torch.kthvalue(torch.from_numpy(row), 50_000)[1].tolist())


def test_emulations_select_what_they_promise():
    keys = [3, 1, 2, 1, 0, 5, 4, 1] * 5
    ranked = sorted(keys)
    assert [keys[i] for i in partial_sort_order(keys, 7)[:7]] == ranked[:7]
    for nth in (0, 7, 20, 39):
        order = nth_element_order(keys, nth)
        assert keys[order[nth]] == ranked[nth] and sorted(order) == list(range(40))
        assert max(keys[i] for i in order[:nth + 1]) == ranked[nth]
        order = quick_select_order(keys, nth)
        assert keys[order[nth]] == ranked[nth] and sorted(order) == list(range(40))
    assert nth_element_order([], 0) == [] and quick_select_order([7], 0) == [0]


def _adversary(n: int, run: object) -> np.ndarray:
    """McIlroy's antiquicksort: values fixed lazily as `run` compares them, so that its
    partitions go as badly as they can (introselect and introsort reach their heap
    fallbacks); the values never fixed stay equal (the largest)."""
    val, state = [n] * n, {"solid": 0, "candidate": 0}

    class Key:
        __slots__ = ("i",)

        def __init__(self, i: int) -> None:
            self.i = i

        def __lt__(self, other: Key) -> bool:
            x, y = self.i, other.i
            if val[x] == n and val[y] == n:
                frozen = x if x == state["candidate"] else y
                val[frozen], state["solid"] = state["solid"], state["solid"] + 1
            if val[x] == n:
                state["candidate"] = x
            elif val[y] == n:
                state["candidate"] = y
            return val[x] < val[y]

    run([Key(i) for i in range(n)])
    return np.array(val, dtype=np.float32)


@pytest.mark.parametrize("n", [100, 1000, 3000])
def test_adversarial_rows_reach_the_fallbacks_as_torch(n):
    for nth in (n // 4, n // 2, n - 1):
        row = _adversary(n, lambda keys, nth=nth: nth_element_order(keys, nth))
        for x in (row, row.round(-1)):  # and with ties
            for sorted_ in (True, False):
                assert (topk(Tensor(x), nth + 1, 0, False, sorted_)[1].array.tolist()
                        == torch.topk(torch.from_numpy(x), nth + 1, 0, False,
                                      sorted_)[1].tolist())
        row = _adversary(n, lambda keys, nth=nth: quick_select_order(keys, nth))
        for x in (row, row.round(-1)):
            assert (kthvalue(Tensor(x), nth + 1)[1].array.tolist()
                    == torch.kthvalue(torch.from_numpy(x), nth + 1)[1].tolist())
    row = _adversary(n, std_sort_order)
    for x in (row, row.round(-1)):
        assert sort(Tensor(x), 0)[1].array.tolist() == torch.sort(torch.from_numpy(x))[1].tolist()


SCRIPT = """
import torch
torch.manual_seed(3)
x = torch.zeros(1024)
x[[100, 249, 362, 661]] = 1
print(torch.topk(x, 4))
print(x.topk(4, largest=False, sorted=False).indices, x.kthvalue(3), x.median(0))
for dt in [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.float16,
           torch.float64]:
    a = torch.randint(0, 3, (3, 70)).to(dt)
    print(dt, a.topk(5).indices.tolist(), a.topk(5, largest=False, sorted=False).indices.tolist())
    print(a.kthvalue(20).indices.tolist(), a.median(1).indices.tolist(),
          a.topk(2, dim=0).indices[:, :10].tolist())
    print(torch.max(a, 1).indices.tolist(), torch.min(a, 0).indices[:8].tolist(),
          a.argmax(1).tolist(), a.argmin(1).tolist())
    print(a.sort(stable=False)[1][:, :20].tolist(), a.argsort(0)[:, :5].tolist(),
          a.msort()[:, :5].tolist())
b = torch.randint(0, 3, (4, 40)).float()
b[b == 0] = -0.0
b[1, ::2] = 0.0
b[2, 5:30] = float('nan')
w = b.clone().requires_grad_()
v, i = w.topk(10, largest=False)
v.sum().backward()
print(v, i, w.grad)
w.grad = None
v, i = w.topk(3, dim=0, sorted=False)
(v * torch.arange(40.)).sum().backward()
print(v, i, w.grad)
w.grad = None
v, i = w.kthvalue(7, 1, keepdim=True)
(v * 2).sum().backward()
print(v, i, w.grad, type(v.grad_fn).__name__)
w.grad = None
v, i = w.nanmedian(1)
v.sum().backward()
print(v, i, w.grad)
w.grad = None
v, i = w.median(0)
v.sum().backward()
print(v, i, w.grad.sum(0))
print(torch.nanmedian(torch.full((3, 50), float('nan')), 1))
c = torch.randint(0, 3, (5, 6, 70)).float()
for r in [c.topk(3, dim=0), c.topk(2, dim=1), c.topk(2, dim=2, sorted=False),
          c.kthvalue(2, 0), c.kthvalue(2, 1, keepdim=True), c.median(0), c.nanmedian(1),
          c.transpose(0, 2).topk(3, 1), c.transpose(0, 2).kthvalue(3, 0)]:
    print(r.indices.view(-1)[:12].tolist(), r.values.stride(), r.indices.stride(),
          r.values.is_contiguous(), r.indices.is_contiguous())
print(torch.max(b, 1), torch.min(b, 1))
"""

EDGE_SCRIPT = """
import torch
a = torch.tensor([[True, False, True]])
e = torch.zeros(0, dtype=torch.bool)
s = torch.tensor(True)
for f in [lambda: a.topk(1), lambda: a.topk(0), lambda: a.topk(5), lambda: s.topk(1),
          lambda: a.kthvalue(1), lambda: a.kthvalue(5), lambda: s.kthvalue(1),
          lambda: e.kthvalue(1), lambda: a.median(1), lambda: a.median(),
          lambda: s.median(0), lambda: e.median(0), lambda: a.nanmedian(1),
          lambda: a.nanmedian(), lambda: s.nanmedian(0), lambda: e.nanmedian(0),
          lambda: a.mode(1), lambda: a.sort(1), lambda: a.max(1),
          lambda: torch.zeros(2, 0).kthvalue(1), lambda: torch.zeros(0, 2).kthvalue(1, 0),
          lambda: torch.zeros(0, 2).kthvalue(1), lambda: torch.zeros(2, 0).median(1),
          lambda: torch.zeros(0, 3).median(1), lambda: torch.zeros(0, 3).nanmedian(0),
          lambda: torch.zeros(3, 0).topk(0), lambda: torch.zeros(0, 3).topk(2)]:
    try:
        print(f())
    except Exception as err:
        print(type(err).__name__, err)
"""


@pytest.mark.parametrize("script", [SCRIPT, EDGE_SCRIPT], ids=["ties", "bool_and_empty"])
def test_selection_ties_in_a_script_print_as_torch(script):
    assert gradtrace_output(script) == torch_output(script)


def test_topk_of_long_rows_partitions_and_agrees_with_torch():
    """Rows much longer than k (a vocabulary's logits) take argpartition and a sort of the
    k + 1 picked; equal values there, or the (k + 1)-th tied with the next, still report
    torch's indices, and a row with a NaN takes the full sort."""
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((6, 5000)).astype(np.float32)
    rows[1, rows[1].argsort()[-12:]] = 7.0  # the top 12 equal
    rows[2, [10, 20, 30]] = 9.0, 8.0, 8.0  # k = 2: the 2nd and 3rd equal
    rows[3, [10, 20, 30, 40]] = 9.0, 8.5, 8.0, 8.0  # k = 3: the 3rd and 4th equal
    rows[4, 77] = np.nan
    rows[5] = np.round(rows[5] * 2)  # small integers: ties everywhere
    ints = rng.integers(-50, 50, (3, 4000))
    for data in (rows, ints):
        for k in (1, 2, 3, 10):
            for largest in (True, False):
                want = torch.from_numpy(data).topk(k, largest=largest)
                got = topk(Tensor(data), k, largest=largest)
                assert np.array_equal(got[1].array, want.indices.numpy()), (k, largest)
                assert np.array_equal(got[0].array, want.values.numpy(), equal_nan=True)
