"""Scripts using the tensor API added for real code that only a script reaches (Tensor
methods and attributes of the interpreter's tables, torch's process switches, print
options): each is run by gradtrace and by python + torch, and must print the same.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import torch_outputs_in_child

from gradtrace.runner import run_text

pytest.importorskip("torch")

PRELUDE = """import torch
x = torch.tensor([[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]], requires_grad=True)
B = torch.arange(24.0).reshape(4, 2, 3)
"""

SCRIPTS = {
    "conversions": "print(x.byte(), (x * 100).char(), (x * 1000).short(), x.half())",
    "sizes": "print(x.ndimension(), x.nbytes, x.itemsize, B.nbytes, B.double().itemsize)",
    "storage_offset": "print(B[1:, 1].storage_offset(), x.t().storage_offset(),\n"
                      "      B[2].storage_offset(), x.storage_offset(),\n"
                      "      B[:, :, 2].storage_offset())",
    "predicates": "print(x.is_signed(), x.is_same_size(B), x[0, :1].is_nonzero(),\n"
                  "      x.is_complex(), torch.tensor([1]).is_signed())",
    "is_nonzero_error": "x.is_nonzero()",
    "sum_to_size": "y = x * 2\nprint(y.sum_to_size(1, 3), y.sum_to_size(3))\n"
                   "print(B.sum_to_size(4, 1, 1), y.sum_to_size(2, 3) is y)\n"
                   "print(y.sum_to_size(3).grad_fn.next_functions[0][0].name())",
    "sum_to_size_error": "x.sum_to_size(2)",
    "result_type": "print(torch.result_type(x, 2), torch.result_type(torch.tensor([1]), 2.5))\n"
                   "print(torch.result_type(torch.tensor([1]), x[0, 0]))\n"
                   "print(torch.result_type(torch.tensor([1], dtype=torch.int8), 1000))",
    "print_precision": "torch.set_printoptions(precision=2)\nprint(x, B / 7)\n"
                       "torch.set_printoptions(precision=6)\nprint(x * 1e-3)",
    "print_sci_mode": "torch.set_printoptions(sci_mode=False)\nprint(x * 1e-6, x * 1e9)\n"
                      "torch.set_printoptions(sci_mode=True)\nprint(x, B)",
    "print_threshold": "torch.set_printoptions(threshold=5, edgeitems=1)\n"
                       "print(B, torch.arange(10))\ntorch.set_printoptions(profile='full')\n"
                       "print(torch.arange(1500.0)[-3:])",
    "print_linewidth": "torch.set_printoptions(linewidth=30)\nprint(torch.arange(20.0) / 3, x)",
    "print_short": "torch.set_printoptions(profile='short')\n"
                   "print(torch.randn(50, generator=torch.Generator().manual_seed(0)))\n"
                   "torch.set_printoptions(profile='default')\nprint(x)",
    "threads": "torch.set_num_threads(1)\nprint(torch.get_num_threads())\n"
               "torch.manual_seed(0)\nw = torch.randn(64, 300)\nprint((w @ w.t()).sum().item())",
    "threads_error": "torch.set_num_threads(0)",
    "deterministic": "torch.use_deterministic_algorithms(True)\n"
                     "print(torch.are_deterministic_algorithms_enabled(),\n"
                     "      torch.is_deterministic_algorithms_warn_only_enabled(),\n"
                     "      torch.get_deterministic_debug_mode())\n"
                     "torch.set_float32_matmul_precision('high')\n"
                     "print(torch.get_float32_matmul_precision())",
    "special": "import torch.special\nprint(torch.special.expit(x), torch.special.ndtr(x))\n"
               "from torch.special import logit\n"
               "print(logit(torch.tensor([0.2, 0.7]), eps=0.25))",
    "print_precision_errors": "torch.set_printoptions(precision=-1)\nprint(x)",
    "print_precision_not_int": "torch.set_printoptions(precision=1.5)\nprint(x)",
    "meshgrid_warning": "a, b = torch.meshgrid(torch.arange(3), torch.arange(2))\nprint(a, b)",
}

# every script under one python + torch (its switches put back between them): what each
# printed, and the last line of its error ("" if none)
@pytest.fixture(scope="module")
def torch_outputs() -> dict[str, list[str]]:
    scripts = {name: PRELUDE + code + "\n" for name, code in SCRIPTS.items()}
    return torch_outputs_in_child(scripts)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_script_prints_what_torch_prints(name: str, torch_outputs: dict) -> None:
    want_out, want_error = torch_outputs[name]
    result = run_text(PRELUDE + SCRIPTS[name] + "\n")
    assert result.stdout == want_out
    if want_error:
        assert result.error is not None, want_error
        assert want_error == f"{result.error.kind}: {result.error.message}"
    else:
        assert result.error is None, result.error


def test_a_print_precision_past_the_limit_is_a_limit_error() -> None:
    """Every printed number would be that many digits long: refused before printing."""
    result = run_text("import torch\ntorch.set_printoptions(precision=10**9)\n"
                      "print(torch.ones(3))\n")
    assert result.stdout == ""
    assert result.error is not None and result.error.kind == "LimitError"
    assert "print precision 1,000,000,000" in result.error.message
