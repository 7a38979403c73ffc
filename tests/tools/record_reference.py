"""Record torch's node, next_functions and saved values for reference-table rows.

Run under a Python with torch 2.13 from the repository root:

    PYTHONPATH=. python tests/tools/record_reference.py EXPR [EXPR ...]

Prints one `| `EXPR` | Node | next:nr, ... | key=value; ... |` row per expression, in the
format of shared/reference/torch-2.13-ops.md, evaluated with the inputs of
tests/test_ops_reference_added.py (`reference_inputs`), for pasting into its TABLE.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn.functional as F  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_ops_reference_added import reference_inputs  # noqa: E402


def env() -> dict:
    out = {"torch": torch, "F": F}
    for name, array in reference_inputs().items():
        t = torch.tensor(array)
        if t.is_floating_point() and name not in ("rm", "rv"):
            t.requires_grad_()
        out[name] = t
    return out


def describe(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"tensor[{', '.join(map(str, value.shape))}]"
    return repr(value)


def row(expr: str) -> str:
    result = eval(expr, env())  # noqa: S307 - the caller's own expressions
    if isinstance(result, tuple):
        result = result[0]
    fn = result.grad_fn
    nexts = ", ".join("None" if n is None else
                      f"{n.name().replace('torch::autograd::', '')}:{nr}"
                      for n, nr in fn.next_functions)
    saved = "; ".join(f"{k[7:]}={describe(getattr(fn, k))}"
                      for k in sorted(dir(fn)) if k.startswith("_saved_"))
    return f"| `{expr}` | {fn.name()} | {nexts} | {saved} |"


if __name__ == "__main__":
    for expression in sys.argv[1:]:
        print(row(expression))
