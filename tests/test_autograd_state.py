"""Autograd state real code sets (issue 12): torch.autograd.graph.saved_tensors_hooks (and
save_on_cpu, disable_saved_tensors_hooks), torch.set_default_dtype and inference tensors.

What torch prints for each behaviour is recorded in tests/conformance_extra (saved_tensors_*,
inference_tensors, default_dtype_float64; torch 2.13.0, ATEN_CPU_CAPABILITY=avx2) and checked
there; here: the state is the run's own, the engine calls the hooks once per saved tensor and
once per read, the views say what happened, and the same cases against live torch.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gradtrace.engine import dtypes
from gradtrace.engine.grad_mode import inference_mode
from gradtrace.engine.saved_hooks import HOOKS, saved_tensors_hooks
from gradtrace.engine.tensor import Tensor
from gradtrace.errors import TorchRuntimeError, TorchTypeError
from gradtrace.render import explain as ex
from gradtrace.render.json import document, validate
from gradtrace.runner import run_text

HERE = Path(__file__).parent
CASES = sorted(p for pattern in ("saved_tensors_hooks_*.gt", "inference_tensors.gt",
                                 "default_dtype_float64.gt")
               for p in (HERE / "conformance_extra").glob(pattern))
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def test_the_recorded_cases_are_there():
    assert len(CASES) == 7
    assert all(c.with_suffix(".out").exists() for c in CASES)


# ---------------------------------------------------------------- the run's own state


def test_default_dtype_never_leaks_into_the_next_run():
    first = run_text("import torch\ntorch.set_default_dtype(torch.float64)\n"
                     "print(torch.tensor([1.5]).dtype)\n")
    assert first.error is None and first.stdout == "torch.float64\n"
    second = run_text("import torch\nprint(torch.get_default_dtype(), torch.tensor(1.5))\n")
    assert second.stdout == "torch.float32 tensor(1.5000)\n"
    assert dtypes.DEFAULT_FLOAT is dtypes.float32


def test_hooks_left_pushed_by_an_error_never_reach_the_next_run():
    first = run_text("import torch\nwith torch.autograd.graph.saved_tensors_hooks("
                     "lambda t: t, lambda p: p):\n    raise ValueError('out')\n")
    assert first.error is not None and first.error.kind == "ValueError"
    assert HOOKS.stack == [] and HOOKS.disabled is None
    second = run_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = x.sin()\n"
                      "print(y.grad_fn._saved_self is x)\n")
    assert second.stdout == "True\n"  # no hook ran: the saved tensor is x itself


def test_default_dtype_rejects_what_torch_rejects():
    with pytest.raises(TorchTypeError, match="^only floating-point types are supported as "):
        dtypes.set_default_dtype(dtypes.int64)
    with pytest.raises(TorchTypeError, match="^invalid dtype object: only floating-point"):
        dtypes.set_default_dtype("float64")
    assert dtypes.get_default_dtype() is dtypes.float32


def test_python_floats_and_factories_follow_the_default_dtype():
    result = run_text("import torch\ntorch.set_default_dtype(torch.float64)\n"
                      "a = torch.tensor([1, 2]) * 0.5\nb = torch.zeros(2)\nc = torch.tensor(0.1)\n")
    for name in "abc":
        assert result.variables[name].dtype is dtypes.float64, name
    assert result.variables["c"].array.item() == 0.1  # not float32's 0.10000000149


# ---------------------------------------------------------------- the engine's hook calls


def test_pack_runs_once_per_saved_tensor_and_unpack_once_per_read():
    calls: list[str] = []
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)

    def pack(t: Tensor) -> tuple[str, Tensor]:
        calls.append("pack")
        return ("packed", t)

    def unpack(p: tuple[str, Tensor]) -> Tensor:
        calls.append("unpack")
        return p[1]

    hooks = saved_tensors_hooks(pack, unpack)
    hooks.__enter__()
    try:
        y = x * x.exp()  # exp saves its result, mul saves both operands
    finally:
        hooks.__exit__(None, None, None)
    assert calls == ["pack"] * 3
    calls.clear()
    y.sum().backward()
    assert calls == ["unpack"] * 3
    np.testing.assert_allclose(x.grad.array, np.exp([1.0, 2.0]) * (1 + np.array([1.0, 2.0])))


def test_an_unpacked_leaf_sends_its_gradient_to_the_original_leaf():
    x = Tensor(np.array([3.0]), requires_grad=True)
    hooks = saved_tensors_hooks(lambda t: t.detach(), lambda p: p)
    hooks.__enter__()
    try:
        y = x * x
    finally:
        hooks.__exit__(None, None, None)
    saved = y.grad_fn.unpack("self", always_reattach=True)
    assert saved is not x and saved.requires_grad and saved.grad_fn is None
    from gradtrace.engine.tensor import gradient_edge

    assert gradient_edge(saved)[0] is gradient_edge(x)[0]  # the same AccumulateGrad


def test_a_pack_hook_runs_with_grad_mode_off_and_may_not_change_its_input():
    seen = []
    x = Tensor(np.array([1.0]), requires_grad=True)
    from gradtrace.engine.grad_mode import GRAD_MODE

    def pack(t: Tensor) -> Tensor:
        seen.append(GRAD_MODE.enabled)
        t.add_(1)
        return t

    hooks = saved_tensors_hooks(pack, lambda p: p)
    hooks.__enter__()
    try:
        with pytest.raises(TorchRuntimeError, match="^A saved tensor pack hook is modifying"):
            (x * 1).sin()
    finally:
        hooks.__exit__(None, None, None)
    assert seen == [False]


# ---------------------------------------------------------------- inference tensors


def test_inference_tensors_are_made_in_inference_mode_and_views_share_it():
    normal = Tensor(np.ones(2))
    with inference_mode():
        made = Tensor(np.ones(2))
        view_of_normal = normal.view(2)
        product = normal * 2
    assert made.is_inference() and product.is_inference()
    assert not view_of_normal.is_inference() and not normal.is_inference()
    assert made.view(2).is_inference() and made.detach().is_inference()
    assert not made.clone().is_inference()
    with pytest.raises(TorchRuntimeError, match="^Inference tensors do not track version"):
        made.script_version()


def test_inplace_on_an_inference_tensor_writes_then_raises_like_torch():
    with inference_mode():
        t = Tensor(np.ones(2))
    with pytest.raises(TorchRuntimeError, match="^Inplace update to inference tensor outside"):
        t.mul_(3)
    assert t.array.tolist() == [3.0, 3.0]  # torch's check runs after its kernel wrote


# measured under torch 2.13: accumulating into an inference .grad and mark_dirty of an
# inference tensor raise; embedding's max_norm renorm of an inference weight does not
INFERENCE_WRITES = """import torch
x = torch.ones(3, requires_grad=True)
with torch.inference_mode():
    x.grad = torch.zeros(3)
    w = torch.ones(5, 3)
try:
    (x * 2).sum().backward()
except RuntimeError as e:
    print('accumulate:', e)
torch.nn.functional.embedding(torch.tensor([0, 1]), w, max_norm=0.1)
print('renorm:', bool((w.norm(dim=1)[:2] < 0.11).all()))
"""


def test_engine_writes_into_inference_tensors_check_them_where_torch_does():
    result = run_text(INFERENCE_WRITES)
    assert result.error is None, result.error
    assert result.stdout.splitlines() == [
        "accumulate: Inplace update to inference tensor outside InferenceMode is not "
        "allowed.You can make a clone to get a normal tensor before doing inplace update.See "
        "https://github.com/pytorch/rfcs/pull/17 for more details.", "renorm: True"]


# ---------------------------------------------------------------- the views

HOOKED = """import torch
x = torch.tensor([1., 2.], requires_grad=True)


def keep(t):
    return t.detach()


def give(p):
    return p


with torch.autograd.graph.saved_tensors_hooks(keep, give):
    y = x * x
y.sum().backward()
with torch.inference_mode():
    w = x * 2
"""


def test_the_json_names_the_hooks_that_packed_a_saved_tensor_and_inference_tensors():
    doc = document(run_text(HOOKED, trace=True))
    validate(doc)
    mul = next(n for n in doc["nodes"] if n["name"] == "MulBackward0")
    assert [s["packed"] for s in mul["saved"]] == [{"pack_hook": "keep", "unpack_hook": "give"}] * 2
    by_name = {name: doc["tensors"][tid - 1] for name, tid in doc["variables"].items()}
    assert by_name["w"]["is_inference"] and not by_name["x"]["is_inference"]


@pytest.mark.parametrize("lang, packed, inference", [
    ("en", "the pack hook keep ran once on each of _saved_self and _saved_other",
     "Inference mode is now on (torch.inference_mode())"),
    ("zh", "运行了 pack 钩子 keep", "推理模式已打开（torch.inference_mode()）"),
])
def test_explain_tells_the_hooks_and_inference_mode(lang: str, packed: str, inference: str):
    text = ex.render_text(ex.explain(run_text(HOOKED, trace=True), lang), width=1000)
    assert packed in text and "give" in text and inference in text


def test_the_report_tree_and_tensor_table_show_hooks_and_inference(tmp_path: Path):
    script = tmp_path / "hooked.gt"
    script.write_text(HOOKED)
    out = subprocess.run([sys.executable, "-m", "gradtrace", "run", "--width", "200",
                          str(script)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(HERE.parent)}).stdout
    assert "self = x (version 0) [packed by keep · unpacked by give]" in out
    w_row = next(line for line in out.splitlines() if line.startswith("w ") and "False" in line)
    assert "none: inference tensor" in w_row


# ---------------------------------------------------------------- live torch


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_case_matches_live_torch(case: Path):
    pytest.importorskip("torch")
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "avx2"}
    torch_out = subprocess.run([sys.executable, str(case)], capture_output=True, text=True,
                               env=env, check=True).stdout
    ours = subprocess.run([sys.executable, "-m", "gradtrace", "run", "--json", str(case)],
                          capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(HERE.parent)}).stdout
    assert ADDRESS.sub("0x?", json.loads(ours)["stdout"]) == ADDRESS.sub("0x?", torch_out)
