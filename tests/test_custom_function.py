"""Custom autograd Functions (engine/custom_function.py), driven from Python and from scripts.

- 20 scenarios (tests/custom_function_scenarios.py) log what torch 2.13 showed for them
  (tests/data/custom_function_cases.json, from tests/tools/record_custom_functions.py);
  gradtrace must log the same, and the same as live torch when it is installed.
- Gradients through a Function match finite differences in float64.
- Scripts' `class F(torch.autograd.Function)` (library code over the engine, through
  interpreter/autograd_function.py): the ctx as scripts see it, the sandbox around it,
  and the node in the report, graph, JSON and explanation. What torch prints for such
  classes is in tests/conformance_extra/function_*.gt.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from custom_function_scenarios import SCENARIOS, GradtraceBackend, TorchBackend, observe

from gradtrace.engine.custom_function import AutogradFunction, FunctionCtx
from gradtrace.engine.grad_mode import set_grad_enabled
from gradtrace.engine.gradcheck import GradcheckError, gradcheck
from gradtrace.engine.tensor import Tensor
from gradtrace.errors import NotSupportedError
from gradtrace.runner import RunResult, run_text

RECORDED = json.loads((Path(__file__).parent / "data" / "custom_function_cases.json")
                      .read_text())


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_custom_function_scenario_shows_what_torch_showed(name: str):
    assert observe(GradtraceBackend(), SCENARIOS[name]) == RECORDED["cases"][name]


def test_every_scenario_has_a_torch_recording():
    assert RECORDED["torch"].startswith("2.13")
    assert set(RECORDED["cases"]) == set(SCENARIOS)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_custom_function_scenario_matches_live_torch(name: str):
    pytest.importorskip("torch")
    assert observe(GradtraceBackend(), SCENARIOS[name]) == observe(TorchBackend(),
                                                                     SCENARIOS[name])


# ---------------------------------------------------------------------------- from Python


def legendre() -> AutogradFunction:
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return 0.5 * (5 * x ** 3 - 3 * x)

    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        x, = ctx.saved_tensors
        return grad * 1.5 * (5 * x ** 2 - 1)

    return AutogradFunction("LegendrePolynomial3", {"forward": forward,
                                                    "backward": backward}.get)


def test_gradient_through_a_function_matches_finite_differences():
    p3 = legendre()
    values = np.array([-1.2, -0.3, 0.0, 0.4, 1.7])
    x = Tensor(values.copy(), requires_grad=True)
    w = Tensor(np.array([0.5, -2.0, 1.5, 3.0, -1.0]))
    (p3.apply(x * x) * w).sum().backward()

    def f(v: np.ndarray) -> float:
        u = v * v
        return float((0.5 * (5 * u ** 3 - 3 * u) * w.array).sum())

    h = 1e-6
    numeric = [(f(values + h * e) - f(values - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(x.grad.array, numeric, rtol=1e-6, atol=1e-6)


def test_gradcheck_passes_a_correct_function_and_fails_a_wrong_one():
    x = Tensor(np.array([0.3, -0.7, 1.1]), requires_grad=True)
    assert gradcheck(legendre().apply, (x,))

    def wrong_backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        x, = ctx.saved_tensors
        return grad * 1.5 * (5 * x ** 2 + 1)

    wrong = AutogradFunction("Wrong", {"forward": legendre().lookup("forward"),
                                       "backward": wrong_backward}.get)
    assert not gradcheck(wrong.apply, (x,), raise_exception=False)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to "
                                             "input 0,\nnumerical:tensor"):
        gradcheck(wrong.apply, (x,))


def test_each_function_has_its_own_node_class_named_after_it():
    a, b = legendre(), legendre()
    assert a.node_class is not b.node_class
    assert a.node_class.__name__ == "LegendrePolynomial3Backward"
    y = a.apply(Tensor(np.array([1.0], dtype=np.float32), requires_grad=True))
    assert isinstance(y.grad_fn, a.node_class)
    assert repr(y) == "tensor([1.], grad_fn=<LegendrePolynomial3Backward>)"


def test_nothing_is_recorded_without_grad_but_forward_still_gets_a_ctx():
    seen = []

    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        seen.append(ctx.needs_input_grad)
        ctx.save_for_backward(x)
        return x * 2

    f = AutogradFunction("F", {"forward": forward}.get)
    x = Tensor(np.array([1.0]), requires_grad=True)
    with set_grad_enabled(False):
        y = f.apply(x)
    assert y.grad_fn is None and not y.requires_grad
    assert seen == [(True,)]


# ---------------------------------------------------------------------------- from scripts


def run(text: str) -> tuple[RunResult, str]:
    """Run a script with a trace; (result, what it wrote to stderr)."""
    err = io.StringIO()
    return run_text(text, "function.gt", stderr=err, trace=True), err.getvalue()


LEGENDRE = """import torch

class P3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        ctx.constant = 3
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        print(ctx.constant, ctx.needs_input_grad, torch.is_grad_enabled())
        return grad_output * 1.5 * (5 * input ** 2 - 1)

a = torch.tensor(0.25, requires_grad=True)
x = torch.tensor([-1.0, 0.0, 1.0])
p = P3.apply(x * 0.75 + a)
loss = (p ** 2).sum()
loss.backward()
print(p.grad_fn, p.grad_fn.name(), a.grad)
"""


def test_a_function_class_runs_its_forward_and_backward():
    result, _ = run(LEGENDRE)
    assert result.error is None, result.error
    assert result.stdout.splitlines() == [
        "3 (True,) False",
        f"<torch.autograd.function.P3Backward object at {id(result.variables['p'].grad_fn):#x}> "
        "P3Backward tensor(13.0210)",
    ]


def test_the_views_show_a_function_node_like_any_other():
    from rich.console import Console

    from gradtrace.render.drawing import draw
    from gradtrace.render.explain import explain, print_explanation
    from gradtrace.render.json import document
    from gradtrace.render.tables import SECTIONS, print_report

    result, _ = run(LEGENDRE)
    console = Console(file=io.StringIO(), width=120)
    print_report(console, result, SECTIONS)
    report = console.file.getvalue()
    assert "(P3Backward #3, 0) → p · line 18: P3.apply(x * 0.75 + a)" in report
    assert "saved (freed by backward #1): saved_tensors[0] = input@12 (version 0)" in report
    assert "P3Backward #3 (p)" in report  # a step of the backward table
    node = next(n for n in document(result)["nodes"] if n["name"] == "P3Backward")
    assert node["line"] == 18 and node["released"]
    assert [s["name"] for s in node["saved"]] == ["saved_tensors[0]"]
    assert 'label="P3Backward #3\\nline 18: P3.apply(x * 0.75 + a)"' in draw(result.trace, "dot")
    for lang, words in (("en", ("P3.apply runs P3's forward with grad mode off",
                                "`P3.apply(x * 0.75 + a)`: `x * 0.75 + a` requires grad, so "
                                "autograd recorded P3Backward as the grad_fn of p.",
                                "and ran P3.backward, the backward your class defines; it "
                                "returned: → `x * 0.75 + a`:")),
                        ("zh", ("P3.apply 在梯度模式关闭的情况下运行 P3 的 forward",
                                "运行了你的类定义的 P3.backward，它返回：→ `x * 0.75 + a`"))):
        console = Console(file=io.StringIO(), width=200)
        print_explanation(console, explain(result, lang))
        story = console.file.getvalue()
        assert all(w in story for w in words), story
        assert "saved_tensors[0] = `x * 0.75 + a`" in story or lang == "zh"


def test_explain_names_torchs_own_python_backward_as_torchs_not_the_scripts():
    from rich.console import Console

    from gradtrace.render.explain import explain, print_explanation

    result, _ = run("import torch\nx = torch.ones(4, requires_grad=True)\n"
                    "y = (x * 2).resize(2, 2)\ny.sum().backward()\n")
    assert result.error is None, result.error
    for lang, words in (("en", "ran Resize.backward, torch's own backward written in Python "
                               "(torch.autograd._functions.tensor); it returned: → `x * 2`"),
                        ("zh", "运行了 torch 自己用 Python 写的 Resize.backward"
                               "（torch.autograd._functions.tensor），它返回：→ `x * 2`")):
        console = Console(file=io.StringIO(), width=200)
        print_explanation(console, explain(result, lang))
        story = console.file.getvalue()
        assert words in story and "your class" not in story and "你的类" not in story, story


def test_what_apply_records_is_the_users_operation_not_library_bookkeeping():
    result, _ = run(LEGENDRE.replace("p = P3.apply", "with torch.no_grad():\n"
                                     "    q = P3.apply(x)\np = P3.apply"))
    assert result.error is None, result.error
    ops = [e for e in result.trace.events if e.kind == "op" and e.facts["name"] == "P3Backward"]
    assert [e.facts["node"] is None for e in ops] == [True, False]
    assert not any(e.facts.get("library") for e in ops)
    assert [e.line for e in ops] == [19, 20]


CTX = """import torch

class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.k = 2
        ctx._note = "kept"
        ctx.saved = 5          # a script attribute, not the node's saved tensors
        ctx.save_for_backward(x)
        return x * ctx.k

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        print(ctx.k, ctx._note, ctx.saved)
        return g * ctx.k

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = F.apply(x)
y.sum().backward()
print(x.grad, y.grad_fn.k)
"""


def test_a_script_stores_anything_on_ctx_without_reaching_its_internals():
    result, _ = run(CTX)
    assert result.error is None, result.error
    assert result.stdout == "2 kept 5\ntensor([2., 2.]) 2\n"


@pytest.mark.parametrize("expr, kind, message", [
    ("y.grad_fn.function", "AttributeError", "'FBackward' object has no attribute 'function'"),
    ("y.grad_fn.user_attrs", "AttributeError",
     "'FBackward' object has no attribute 'user_attrs'"),
    ("y.grad_fn.output_info", "AttributeError",
     "'FBackward' object has no attribute 'output_info'"),
    ("y.grad_fn.materialize_grads", "AttributeError",
     "attribute 'materialize_grads' of 'torch._C._FunctionBase' objects is not readable"),
    ("y.grad_fn.__class__.__dict__", "NotSupportedError", "__dict__"),
    ("y.grad_fn.__dict__", "NotSupportedError", "__dict__"),
    ("y.grad_fn._forward_cls", "NotSupportedError", "_forward_cls"),
    ("y.grad_fn.apply.__self__", "NotSupportedError", "__self__"),
])
def test_script_reads_of_ctx_internals_are_refused(expr: str, kind: str, message: str):
    result, _ = run(CTX.replace("print(x.grad, y.grad_fn.k)", f"print({expr})"))
    assert result.error is not None and result.error.kind == kind
    assert message in result.error.message


@pytest.mark.parametrize("stmt, message", [
    ("y.grad_fn.saved_tensors = ()",
     "attribute 'saved_tensors' of 'torch._C._FunctionBase' objects is not writable"),
    ("y.grad_fn.next_functions = ()",
     "attribute 'next_functions' of 'torch._C._FunctionBase' objects is not writable"),
    ("y.grad_fn.__class__ = 1", "__class__"),
    ("y.grad_fn.materialize_grads = 1",
     "set_materialize_grads received an invalid combination of arguments"),
])
def test_script_writes_to_ctx_properties_are_refused(stmt: str, message: str):
    result, _ = run(CTX.replace("print(x.grad, y.grad_fn.k)", stmt))
    assert result.error is not None and message in result.error.message


def test_a_script_cannot_break_the_node_through_ctx_attributes():
    text = CTX.replace("y.sum().backward()", "y.grad_fn.next = 1\ny.grad_fn.released = 1\n"
                                             "y.grad_fn.hooks = 3\ny.sum().backward()")
    result, _ = run(text)
    assert result.error is None, result.error
    assert result.stdout == "2 kept 5\ntensor([2., 2.]) 2\n"


NAN = """import torch

class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")
"""


def test_anomaly_metadata_a_script_scribbled_on_is_still_reported():
    result, stderr = run(NAN + """
torch.autograd.set_detect_anomaly(True)
x = torch.tensor([1.0], requires_grad=True)
y = F.apply(x)
y.grad_fn.metadata["traceback_"] = 5
y.grad_fn.metadata["parent_"] = y.grad_fn
y.sum().backward()
""")
    assert result.error.kind == "RuntimeError"
    assert result.error.message == "Function 'FBackward' returned nan values in its 0th output."
    assert "UserWarning: Error detected in FBackward. Traceback of forward call that caused " \
           "the error:\n5 (Triggered internally" in stderr


def test_anomaly_traceback_is_the_script_call_stack_without_library_frames():
    result, stderr = run(NAN + """
def model(t):
    return F.apply(t)

with torch.autograd.detect_anomaly():
    y = model(torch.tensor([1.0], requires_grad=True))
    y.sum().backward()
""")
    assert result.error.message == "Function 'FBackward' returned nan values in its 0th output."
    assert ('  File "function.gt", line 16, in <module>\n'
            '    y = model(torch.tensor([1.0], requires_grad=True))\n'
            '  File "function.gt", line 13, in model\n'
            '    return F.apply(t)\n'
            ' (Triggered internally at') in stderr


@pytest.mark.parametrize("body, kind, message", [
    ("forward = 3", "TypeError", "'int' object is not callable"),
    ("@staticmethod\n    def forward(ctx, x):\n        return x\n    backward = None",
     "TypeError", "'NoneType' object is not callable"),
])
def test_a_function_whose_methods_are_not_callable_fails_like_torch(body: str, kind: str,
                                                                     message: str):
    result, _ = run(f"import torch\nclass F(torch.autograd.Function):\n    {body}\n"
                    "F.apply(torch.ones(1, requires_grad=True)).sum().backward()\n")
    assert result.error.kind == kind
    assert message in result.error.message


def test_methods_come_from_script_bases_and_keywords_bind_to_forward():
    result, _ = run("""import torch

class Base(torch.autograd.Function):
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

class Times(Base):
    @staticmethod
    def forward(ctx, x, k=2):
        ctx.k = k
        return x * k

class Later(Base):
    @staticmethod
    def forward(x, k=3):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

x = torch.ones(2, requires_grad=True)
Times.apply(x, k=5).sum().backward()
Later.apply(x).sum().backward()
print(x.grad, Times.apply(x).grad_fn.name(), Later.apply(x, k=4))
try:
    Later.apply(x, j=1)
except TypeError as err:
    print(err)
""")
    assert result.error is None, result.error
    assert result.stdout == ("tensor([8., 8.]) TimesBackward tensor([4., 4.], "
                             "grad_fn=<LaterBackward>)\ngot an unexpected keyword argument 'j'\n")


@pytest.mark.parametrize("attr", ["fn", "__wrapped__", "__call__", "_x", "__globals__"])
def test_once_differentiable_wrappers_have_no_attributes_for_scripts(attr: str):
    result = run_text("from torch.autograd.function import once_differentiable\n"
                      "w = once_differentiable(lambda ctx, g: g * 2)\n"
                      f"print(w(None, 3))\nprint(w.{attr})\n")
    assert result.stdout == "6\n"
    assert result.error is not None
    assert result.error.kind in ("AttributeError", "NotSupportedError")


def test_functional_with_vectorize_and_create_graph_is_refused_not_guessed():
    from gradtrace.engine.functional import jacobian

    x = Tensor(np.array([1.0, 2.0]))
    with pytest.raises(NotSupportedError):
        jacobian(lambda t: t * t, x, vectorize=True, create_graph=True)
    assert jacobian(lambda t: t * t, x, vectorize=True).array.tolist() == [[2.0, 0.0],
                                                                            [0.0, 4.0]]


def test_anomaly_names_the_node_whose_backward_made_the_failing_one():
    result, stderr = run("""import torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = x.sqrt()
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    (g * 0).sum().backward()
""")
    assert result.error.message == "Function 'DivBackward0' returned nan values in its 1th output."
    assert ("function.gt:6: UserWarning: Error detected in DivBackward0. Traceback of forward "
            'call that caused the error:\n  File "function.gt", line 5, in <module>\n') in stderr
    assert ("function.gt:6: UserWarning: \n\nPrevious calculation was induced by SqrtBackward0. "
            "Traceback of forward call that induced the previous calculation:\n"
            '  File "function.gt", line 4, in <module>\n    y = x.sqrt()\n'
            " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
            "python_anomaly_mode.cpp:129.)") in stderr


def test_a_saved_output_after_a_non_tensor_output_is_traced():
    result, _ = run("""import torch

class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.save_for_backward(y)
        return 7, y

    @staticmethod
    def backward(ctx, g_int, g):
        y, = ctx.saved_tensors
        return g * y

x = torch.tensor([1.0, 2.0], requires_grad=True)
k, y = F.apply(x)
y.sum().backward()
print(k, y.output_nr, x.grad)
""")
    assert result.error is None, result.error
    assert result.stdout == "7 1 tensor([2., 4.])\n"
    node = result.trace.node(result.variables["y"].grad_fn)
    assert [s.name for s in node.saved] == ["saved_tensors[0]"]
    assert result.trace.tensors[node.saved[0].tensor_id].tensor is result.variables["y"]
