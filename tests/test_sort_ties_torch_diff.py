"""torch.sort/argsort leave equal values where libstdc++'s std::sort leaves them (it is not
stable past 16 elements), except a long 1-d integer sort (a stable radix sort) and
stable=True: measured against torch 2.13."""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SCRIPT = """
import torch
torch.manual_seed({seed})
a = {make}
print(a.sort(descending={desc})[1].tolist())
print(a.sort(descending={desc}, stable=True)[1].tolist())
print(torch.argsort(a, dim=-1, descending={desc}).tolist())
print(a.sort(0, descending={desc})[1].tolist())
"""

MAKERS = {
    "int_ties": "torch.randint(0, 4, (3, 40))",
    "all_equal": "torch.zeros(2, 70)",
    "float_ties_and_nan": "torch.randint(0, 3, (50,)).float()"
                          ".index_fill(0, torch.tensor([3, 9, 30]), float('nan'))",
    "signed_zeros": "torch.tensor([0.0, -0.0] * 12 + [1.0, -1.0] * 5)",
    "bool": "torch.rand(4, 33) > 0.5",
    "short_rows_are_stable": "torch.randint(0, 2, (5, 16))",
}


@pytest.mark.parametrize("desc", [False, True])
@pytest.mark.parametrize("make", sorted(MAKERS))
def test_sort_leaves_ties_where_torch_leaves_them(make, desc):
    script = SCRIPT.format(seed=len(make), make=MAKERS[make], desc=desc)
    assert gradtrace_output(script) == torch_output(script)


def test_long_integer_sort_is_torchs_stable_radix_sort():
    script = ("import torch\na = torch.zeros(32768, dtype=torch.long)\n"
              "i = a.sort()[1]\nprint(bool((i == torch.arange(32768)).all()), i[:3].tolist())\n"
              "b = torch.zeros(32767, dtype=torch.long)\nprint(b.sort()[1][:3].tolist())\n")
    assert gradtrace_output(script) == torch_output(script)
