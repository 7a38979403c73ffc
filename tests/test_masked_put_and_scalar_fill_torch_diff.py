"""Differential tests against live PyTorch for two things real scripts hit when they assign
through a boolean mask: `t[mask] = v` (index_put_) with a one-element value is torch's
masked_fill_ of v.item() (canDispatchToMaskedFill), so v's dtype need not match t's, while a
put through integer indices or of several values still demands matching dtypes; and numbers
written by fill_ / masked_fill_ / that path go through c10's checked_convert (its
"value cannot be converted to type T without overflow" errors, truncation, unsigned wrap).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

MASKED_PUTS = [
    # the GitHub issue 156212 rewrite: a Long 0-dim value into a float tensor
    "x = torch.zeros(3); x[torch.tensor([True, False, True])] = torch.tensor(1); print(x)",
    "x = torch.zeros(3); x[torch.tensor([True, False, True])] = torch.tensor([7]); print(x)",
    "x = torch.zeros(3); x[torch.tensor([True, False, True])] = torch.tensor([[7]]); print(x)",
    "x = torch.zeros(3); x[torch.tensor([True, False, True])] = torch.tensor([7, 8]); print(x)",
    "x = torch.zeros(3); x[torch.tensor([0, 2])] = torch.tensor(4); print(x)",
    "x = torch.zeros(2, 3); x[:, torch.tensor([True, False, True])] = torch.tensor(4); print(x)",
    "x = torch.zeros(2, 3); x[torch.tensor([True, False]), ...] = torch.tensor(7); print(x)",
    "x = torch.zeros(2, 3); x[torch.tensor([True, False]), 1:] = torch.tensor(9); print(x)",
    "x = torch.zeros(2, 3); x[torch.tensor([0]), torch.tensor([True, False, True])] = "
    "torch.tensor(4); print(x)",
    "x = torch.zeros(3); x[torch.tensor([True, False])] = torch.tensor(1); print(x)",
    "x = torch.zeros(3); x[torch.tensor([1, 0, 1], dtype=torch.uint8)] = torch.tensor(7.)",
    "x = torch.zeros(3, dtype=torch.long); x[torch.tensor([True, False, True])] = "
    "torch.tensor(2.7); print(x)",
    "x = torch.zeros(3, dtype=torch.long); x[torch.tensor([True, False, True])] = "
    "torch.tensor(True); print(x)",
    "x = torch.zeros(3, dtype=torch.long); x[torch.tensor([True, False, True])] = "
    "torch.tensor(float('nan'))",
    "x = torch.zeros(3); print(x.index_put_((torch.tensor([True, False, True]),), "
    "torch.tensor(5)))",
    "x = torch.zeros(3); print(torch.index_put(x, (torch.tensor([True, False, True]),), "
    "torch.tensor(5)))",
    "x = torch.zeros(3); x.index_put_((torch.tensor([True, False, True]),), torch.tensor(5), "
    "accumulate=True)",
    "x = torch.zeros(3); x.index_put_((torch.tensor([[True, False, True]]),), torch.tensor(5.))",
    "x = torch.zeros(3); x.index_put_((torch.tensor([[True], [False], [True]]),), "
    "torch.tensor(5.))",
    # gradients: the value's is the masked sum, in the value's own dtype and shape
    "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
    "v = torch.tensor(5., dtype=torch.float64, requires_grad=True)\n"
    "y = x * 1; y[torch.tensor([True, False, True])] = v\n"
    "print(y, y.grad_fn.name(), [f[0].name() for f in y.grad_fn.next_functions])\n"
    "(y * torch.tensor([1., 2., 3.])).sum().backward(); print(x.grad, v.grad)",
    "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
    "v = torch.tensor([5.], requires_grad=True)\n"
    "y = x * 1; y[torch.tensor([True, False, True])] = v\n"
    "(y * torch.tensor([1., 2., 3.])).sum().backward(); print(x.grad, v.grad)",
    "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
    "y = x * 1; y[x > 1.5] = torch.tensor(0)\n"
    "y.sum().backward(); print(y, x.grad)",
]

VALUES = ["300", "-1", "-129", "-256", "2**40", "1e30", "float('nan')", "float('inf')", "-2.5",
          "True", "70000.0", "1e39", "2**63 - 1"]
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool"]


@pytest.mark.parametrize("code", MASKED_PUTS)
def test_a_one_element_put_through_a_bool_mask_is_a_masked_fill_like_torch(code: str) -> None:
    script = f"import torch\n{code}\n"
    assert gradtrace_output(script) == torch_output(script)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_and_masked_fill_convert_numbers_with_torchs_overflow_checks(dtype: str) -> None:
    script = f"""import torch
m = torch.tensor([True, False])
for v in [{", ".join(VALUES)}]:
    for how in ('fill', 'fillT', 'mfill', 'mfillT', 'put', 'set'):
        w = torch.zeros(2, dtype=torch.{dtype})
        try:
            if how == 'fill':
                w.fill_(v)
            elif how == 'fillT':
                w.fill_(torch.tensor(v))
            elif how == 'mfill':
                w.masked_fill_(m, v)
            elif how == 'mfillT':
                w.masked_fill_(m, torch.tensor(v))
            elif how == 'put':
                w[m] = torch.tensor(v)
            else:
                w[0] = torch.tensor(v)
            print(how, w[0].item())
        except RuntimeError as e:
            print(how, e)
"""
    assert gradtrace_output(script) == torch_output(script)
