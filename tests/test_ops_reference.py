# ruff: noqa: E501  (the reference table is copied verbatim)
"""Every row of the torch 2.13 reference table (shared/reference/torch-2.13-ops.md):
the node torch records, its next_functions (name, output_nr) and its saved values.

The rows are copied here verbatim; inputs follow the table: x, y are 2x3 float32 leaves
requiring grad, v and u 3-element leaves, M a 3x2 leaf, tgt an int64 target. The values
are chosen so every row is valid (y / 3 lies in [0, 1]; `x > 1` gives the table's mask).
"""
from __future__ import annotations

import ast
import re
from typing import Any

import numpy as np
import pytest
from ops_helpers import TORCH, F

from gradtrace.engine.node import AccumulateGrad, Node
from gradtrace.engine.tensor import Tensor

TABLE = r"""
| `x + y` | AddBackward0 | AccumulateGrad:0, AccumulateGrad:0 | alpha=1 |
| `x + 2` | AddBackward0 | AccumulateGrad:0, None | alpha=1 |
| `2 + x` | AddBackward0 | AccumulateGrad:0, None | alpha=1 |
| `x - y` | SubBackward0 | AccumulateGrad:0, AccumulateGrad:0 | alpha=1 |
| `x - 2` | SubBackward0 | AccumulateGrad:0, None | alpha=1 |
| `2 - x` | RsubBackward1 | AccumulateGrad:0 | alpha=1 |
| `x * y` | MulBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `x * 2` | MulBackward0 | AccumulateGrad:0, None | other=tensor[]; self=None |
| `x / y` | DivBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `x / 2` | DivBackward0 | AccumulateGrad:0, None | other=tensor[]; self=None |
| `2 / x` | MulBackward0 | ReciprocalBackward0:0, None | other=tensor[]; self=None |
| `-x` | NegBackward0 | AccumulateGrad:0 |  |
| `x ** 2` | PowBackward0 | AccumulateGrad:0 | exponent=2; self=tensor[2, 3] |
| `x ** y` | PowBackward1 | AccumulateGrad:0, AccumulateGrad:0 | exponent=tensor[2, 3]; result=tensor[2, 3]; self=tensor[2, 3] |
| `2 ** x` | PowBackward2 | AccumulateGrad:0 | exponent=tensor[2, 3]; result=tensor[2, 3]; self=2 |
| `x @ M` | MmBackward0 | AccumulateGrad:0, AccumulateGrad:0 | mat2=tensor[3, 2]; mat2_sym_sizes=(3, 2); mat2_sym_strides=(2, 1); self=tensor[2, 3]; self_sym_sizes=(2, 3); self_sym_strides=(3, 1) |
| `v @ u (1-D·1-D)` | DotBackward0 | AccumulateGrad:0, AccumulateGrad:0 | self=tensor[3]; tensor=tensor[3] |
| `x @ v (2-D·1-D)` | MvBackward0 | AccumulateGrad:0, AccumulateGrad:0 | self=tensor[2, 3]; vec=tensor[3] |
| `torch.mm(x, M)` | MmBackward0 | AccumulateGrad:0, AccumulateGrad:0 | mat2=tensor[3, 2]; mat2_sym_sizes=(3, 2); mat2_sym_strides=(2, 1); self=tensor[2, 3]; self_sym_sizes=(2, 3); self_sym_strides=(3, 1) |
| `torch.matmul(x, M)` | MmBackward0 | AccumulateGrad:0, AccumulateGrad:0 | mat2=tensor[3, 2]; mat2_sym_sizes=(3, 2); mat2_sym_strides=(2, 1); self=tensor[2, 3]; self_sym_sizes=(2, 3); self_sym_strides=(3, 1) |
| `x.exp()` | ExpBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.log()` | LogBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.sin()` | SinBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.cos()` | CosBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.tanh()` | TanhBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.sigmoid()` | SigmoidBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.relu()` | ReluBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.sqrt()` | SqrtBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.abs()` | AbsBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.neg()` | NegBackward0 | AccumulateGrad:0 |  |
| `x.reciprocal()` | ReciprocalBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.pow(3)` | PowBackward0 | AccumulateGrad:0 | exponent=3; self=tensor[2, 3] |
| `x.clamp(0.5, 2.0)` | ClampBackward1 | AccumulateGrad:0 | max=2.0; min=0.5; self=tensor[2, 3] |
| `x.clamp(min=1.0)` | ClampBackward1 | AccumulateGrad:0 | max=None; min=1.0; self=tensor[2, 3] |
| `torch.log1p(x)` | Log1PBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `torch.expm1(x)` | Expm1Backward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.sum()` | SumBackward0 | AccumulateGrad:0 | self_sym_sizes=(2, 3) |
| `x.sum(dim=1)` | SumBackward1 | AccumulateGrad:0 | dim=(1,); keepdim=False; self_sym_sizes=(2, 3) |
| `x.mean()` | MeanBackward0 | AccumulateGrad:0 | self_sym_numel=6; self_sym_sizes=(2, 3) |
| `x.mean(dim=0)` | MeanBackward1 | AccumulateGrad:0 | dim=(0,); keepdim=False; self_sym_numel=6; self_sym_sizes=(2, 3) |
| `x.max()` | MaxBackward1 | AccumulateGrad:0 | result=tensor[]; self=tensor[2, 3] |
| `x.max(dim=1)[0]` | MaxBackward0 | AccumulateGrad:0 | dim=1; indices=tensor[2]; keepdim=False; self_sym_sizes=(2, 3) |
| `x.min()` | MinBackward1 | AccumulateGrad:0 | result=tensor[]; self=tensor[2, 3] |
| `x.amax(dim=1)` | AmaxBackward0 | AccumulateGrad:0 | dim=(1,); keepdim=False; result=tensor[2]; self=tensor[2, 3] |
| `x.prod()` | ProdBackward0 | AccumulateGrad:0 | result=tensor[]; self=tensor[2, 3] |
| `x.norm()` | LinalgVectorNormBackward0 | AccumulateGrad:0 | dim=None; keepdim=False; ord=2; result=tensor[]; self=tensor[2, 3] |
| `x.var()` | VarBackward0 | AccumulateGrad:0 | correction=None; dim=None; keepdim=False; self=tensor[2, 3] |
| `x.std()` | StdBackward0 | AccumulateGrad:0 | correction=None; dim=None; keepdim=False; result=tensor[]; self=tensor[2, 3] |
| `x.logsumexp(dim=1)` | LogsumexpBackward0 | AccumulateGrad:0 | dim=(1,); keepdim=False; result=tensor[2]; self=tensor[2, 3] |
| `torch.maximum(x, y)` | MaximumBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `torch.minimum(x, y)` | MinimumBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `torch.where(x > 1, x, y)` | WhereBackward0 | AccumulateGrad:0, AccumulateGrad:0 | condition=tensor[2, 3] |
| `x.view(3, 2)` | ViewBackward0 | AccumulateGrad:0 | self_sym_sizes=(2, 3) |
| `x.reshape(6)` | ViewBackward0 | AccumulateGrad:0 | self_sym_sizes=(2, 3) |
| `x.flatten()` | ViewBackward0 | AccumulateGrad:0 | self_sym_sizes=(2, 3) |
| `x.t()` | TBackward0 | AccumulateGrad:0 |  |
| `x.T` | PermuteBackward0 | AccumulateGrad:0 | dims=(1, 0) |
| `x.transpose(0, 1)` | TransposeBackward0 | AccumulateGrad:0 | dim0=0; dim1=1 |
| `x.permute(1, 0)` | PermuteBackward0 | AccumulateGrad:0 | dims=(1, 0) |
| `x.unsqueeze(0)` | UnsqueezeBackward0 | AccumulateGrad:0 | dim=0 |
| `x.unsqueeze(0).squeeze(0)` | SqueezeBackward1 | UnsqueezeBackward0:0 | dim=0; self_sym_sizes=(1, 2, 3) |
| `x.unsqueeze(0).squeeze()` | SqueezeBackward0 | UnsqueezeBackward0:0 | self_sym_sizes=(1, 2, 3) |
| `v.expand(2, 3)` | ExpandBackward0 | AccumulateGrad:0 | self_sym_sizes=(3,) |
| `v.repeat(2)` | RepeatBackward0 | AccumulateGrad:0 | repeats=(2,); self_sym_sizes=(3,) |
| `x[0]` | SelectBackward0 | AccumulateGrad:0 | dim=0; index=0; self_sym_sizes=(2, 3) |
| `x[:, 1]` | SelectBackward0 | AccumulateGrad:0 | dim=1; index=1; self_sym_sizes=(2, 3) |
| `x[0:1]` | SliceBackward0 | AccumulateGrad:0 | dim=0; end=1; self_sym_sizes=(2, 3); start=0; step=1 |
| `x[0, 1]` | SelectBackward0 | SelectBackward0:0 | dim=0; index=1; self_sym_sizes=(3,) |
| `v[[0, 2]]` | IndexBackward0 | AccumulateGrad:0 | indices=(tensor([0, 2]),); self_sym_sizes=(3,) |
| `x[x > 1]` | IndexBackward0 | AccumulateGrad:0 | indices=(tensor([[False,  True,  True],
        [False, False,  True]]),); self_sym_sizes=(2, 3) |
| `x.unbind()[0]` | UnbindBackward0 | AccumulateGrad:0 | dim=0 |
| `torch.cat([x, y])` | CatBackward0 | AccumulateGrad:0, AccumulateGrad:0 | dim=0 |
| `torch.stack([x, y])` | StackBackward0 | AccumulateGrad:0, AccumulateGrad:0 | dim=0 |
| `x.clone()` | CloneBackward0 | AccumulateGrad:0 |  |
| `x.split(1)[0]` | SplitBackward0 | AccumulateGrad:0 | dim=0; self_sym_sizes=(2, 3); split_size=1 |
| `x.chunk(3, dim=1)[0]` | SplitBackward0 | AccumulateGrad:0 | dim=1; self_sym_sizes=(2, 3); split_size=1 |
| `torch.softmax(x, dim=1)` | SoftmaxBackward0 | AccumulateGrad:0 | dim=1; result=tensor[2, 3] |
| `F.softmax(x, dim=1)` | SoftmaxBackward0 | AccumulateGrad:0 | dim=1; result=tensor[2, 3] |
| `torch.log_softmax(x, dim=1)` | LogSoftmaxBackward0 | AccumulateGrad:0 | dim=1; result=tensor[2, 3] |
| `F.relu(x)` | ReluBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `F.leaky_relu(x - 1)` | LeakyReluBackward0 | SubBackward0:0 | negative_slope=0.01; self=tensor[2, 3] |
| `F.gelu(x)` | GeluBackward0 | AccumulateGrad:0 | approximate='none'; self=tensor[2, 3] |
| `F.silu(x)` | SiluBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `F.softplus(x)` | SoftplusBackward0 | AccumulateGrad:0 | beta=1; self=tensor[2, 3]; threshold=20 |
| `F.mse_loss(x, y)` | MseLossBackward0 | AccumulateGrad:0, AccumulateGrad:0 | reduction=1; self=tensor[2, 3]; target=tensor[2, 3] |
| `F.l1_loss(x, y)` | MeanBackward0 | AbsBackward0:0 | self_sym_numel=6; self_sym_sizes=(2, 3) |
| `F.cross_entropy(x, tgt)` | NllLossBackward0 | LogSoftmaxBackward0:0 | ignore_index=18446744073709551516; reduction=1; self=tensor[2, 3]; target=tensor[2]; total_weight=tensor[]; weight=None |
| `F.nll_loss(x.log_softmax(1), tgt)` | NllLossBackward0 | LogSoftmaxBackward0:0 | ignore_index=18446744073709551516; reduction=1; self=tensor[2, 3]; target=tensor[2]; total_weight=tensor[]; weight=None |
| `F.binary_cross_entropy(x.sigmoid(), y/3)` | BinaryCrossEntropyBackward0 | SigmoidBackward0:0, DivBackward0:0 | reduction=1; self=tensor[2, 3]; target=tensor[2, 3]; weight=None |
| `F.binary_cross_entropy_with_logits(x, y/3)` | BinaryCrossEntropyWithLogitsBackward0 | AccumulateGrad:0, DivBackward0:0 | pos_weight=None; reduction=1; self=tensor[2, 3]; target=tensor[2, 3]; weight=None |
| `F.linear(x, M.t())` | MmBackward0 | AccumulateGrad:0, TBackward0:0 | mat2=tensor[3, 2]; mat2_sym_sizes=(3, 2); mat2_sym_strides=(2, 1); self=tensor[2, 3]; self_sym_sizes=(2, 3); self_sym_strides=(3, 1) |
| `F.linear(x, M.t(), v[:2])` | AddmmBackward0 | SliceBackward0:0, AccumulateGrad:0, TBackward0:0 | alpha=1; beta=1; mat1=tensor[2, 3]; mat1_sym_sizes=(2, 3); mat1_sym_strides=(3, 1); mat2=tensor[3, 2]; mat2_sym_sizes=(3, 2); mat2_sym_strides=(2, 1) |
| `torch.dot(v, u)` | DotBackward0 | AccumulateGrad:0, AccumulateGrad:0 | self=tensor[3]; tensor=tensor[3] |
| `torch.outer(v, u)` | MulBackward0 | ViewBackward0:0, AccumulateGrad:0 | other=tensor[3]; self=tensor[3, 1] |
| `x.add(y)` | AddBackward0 | AccumulateGrad:0, AccumulateGrad:0 | alpha=1 |
| `x.mul(y)` | MulBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `x.sub(y)` | SubBackward0 | AccumulateGrad:0, AccumulateGrad:0 | alpha=1 |
| `x.div(y)` | DivBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
"""


def parse_rows(text: str) -> list[tuple[str, str, str, str]]:
    """The table's rows as (expression, node, next_functions, saved) strings."""
    rows: list[str] = []
    for line in text.strip("\n").split("\n"):
        if line.startswith("| `"):
            rows.append(line)
        else:  # a saved tensor printed over several lines
            rows[-1] += "\n" + line
    out = []
    for row in rows:
        expr, node, nexts, saved = (p.strip() for p in row.strip().strip("|").split("|"))
        expr = re.sub(r"\s*\(\d-D·\d-D\)", "", expr.strip("`"))
        out.append((expr, node, nexts, saved))
    return out


ROWS = parse_rows(TABLE)


def make_env() -> dict[str, Any]:
    f32 = np.float32
    return {
        "torch": TORCH, "F": F,
        "x": Tensor(np.array([[0.5, 1.5, 2.0], [0.2, 0.8, 1.2]], dtype=f32), requires_grad=True),
        "y": Tensor(np.array([[1.0, 2.0, 0.5], [2.5, 1.5, 0.3]], dtype=f32), requires_grad=True),
        "v": Tensor(np.array([0.3, -1.2, 0.7], dtype=f32), requires_grad=True),
        "u": Tensor(np.array([1.1, 0.4, -0.6], dtype=f32), requires_grad=True),
        "M": Tensor(np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], dtype=f32),
                    requires_grad=True),
        "tgt": Tensor(np.array([0, 2], dtype=np.int64)),
    }


def short_name(node: Node | None) -> str:
    if node is None:
        return "None"
    return "AccumulateGrad" if isinstance(node, AccumulateGrad) else node.name()


def expected_next(text: str) -> list[tuple[str, int | None]]:
    out: list[tuple[str, int | None]] = []
    for item in text.split(", "):
        if item == "None":
            out.append(("None", None))
        else:
            name, nr = item.rsplit(":", 1)
            out.append((name, int(nr)))
    return out


def expected_saved(text: str) -> dict[str, str]:
    if not text:
        return {}
    return dict(item.split("=", 1) for item in text.split("; "))


def saved_values(node: Node) -> dict[str, Any]:
    values: dict[str, Any] = dict(node.attrs or {})
    for key in node.saved or {}:
        values[key] = node.unpack(key)
    return values


def check_saved(key: str, got: Any, want: str) -> None:
    match = re.fullmatch(r"tensor\[(.*)\]", want)
    if match:
        assert isinstance(got, Tensor), f"{key}: expected a tensor, got {got!r}"
        shape = tuple(int(s) for s in match.group(1).split(", ") if s)
        assert tuple(got.shape) == shape, f"{key}: shape {tuple(got.shape)} != {shape}"
    elif want.startswith("(tensor("):  # a tuple of index tensors: compare torch's printout
        printed = repr(tuple(got))
        assert printed == want, f"{key}: {printed} != {want}"
    else:
        value = ast.literal_eval(want)
        assert got == value and type(got) is type(value), f"{key}: {got!r} != {value!r}"


@pytest.mark.parametrize(("expr", "node", "nexts", "saved"), ROWS, ids=[r[0] for r in ROWS])
def test_reference_row(expr: str, node: str, nexts: str, saved: str) -> None:
    env = make_env()
    result = eval(expr, env)  # noqa: S307 - the table's fixed expressions
    fn = result.grad_fn
    assert fn is not None and fn.name() == node
    got_next = [(short_name(n), None if n is None else nr) for n, nr in fn.next_functions]
    assert got_next == expected_next(nexts)
    want = expected_saved(saved)
    got = saved_values(fn)
    assert sorted(got) == sorted(want)
    for key, text in want.items():
        check_saved(key, got[key], text)


def test_table_is_complete() -> None:
    assert len(ROWS) == 98


def test_inputs_match_the_tables_mask() -> None:
    x = make_env()["x"]
    assert (x.array > 1).tolist() == [[False, True, True], [False, False, True]]
