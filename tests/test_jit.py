"""torch.jit (issue 12): traced and scripted functions and modules print what torch 2.13
printed (tests/data/jit, recorded under ATEN_CPU_CAPABILITY=avx2): the nodes their graphs
record (Scalar overloads, a traced convolution's ConvolutionBackward1, a full slice's
SliceBackward0), values and gradients to the last bit, reprs and types; and what gradtrace
does not reproduce is refused with a located NotSupportedError, never run differently."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from recorded_samples import assert_prints_recording, assert_recording_is_live_torch

from gradtrace.runner import run_text

SCRIPTS = Path(__file__).parent / "data" / "jit"
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.gt"))


def _run(text: str) -> tuple[str, object]:
    out = io.StringIO()
    result = run_text(text, "<jit>", stdout=out)
    return out.getvalue(), result.error


@pytest.mark.parametrize("name", NAMES)
def test_jit_script_prints_what_torch_printed(name: str) -> None:
    script = SCRIPTS / f"{name}.gt"
    out = io.StringIO()
    result = run_text(script.read_text(), str(script), stdout=out)
    assert result.error is None, result.error
    assert_prints_recording(script, out.getvalue())


@pytest.mark.parametrize("name", NAMES)
def test_jit_recording_agrees_with_live_torch(name: str) -> None:
    assert_recording_is_live_torch(SCRIPTS / f"{name}.gt")


PRELUDE = "import torch\nimport torch.nn as nn\n"

# (script, a piece of the NotSupportedError's message): each is something torch does
# differently from eager code in a way gradtrace does not reproduce
REFUSED = {
    "second_scripted_call_with_grad": (
        "def f(x):\n    return (x * 2).sin()\ns = torch.jit.script(f)\n"
        "x = torch.ones(2, requires_grad=True)\ns(x)\ns(x)\n", "DifferentiableGraph"),
    "first_scripted_call_under_no_grad": (
        "s = torch.jit.script(nn.Linear(2, 2))\nwith torch.no_grad():\n"
        "    s(torch.ones(2))\n", "DifferentiableGraph"),
    "print_inside_script": (
        "@torch.jit.script\ndef f(x):\n    print(x)\n    return x\nf(torch.ones(1))\n",
        "print() inside a torch.jit scripted callable"),
    "non_tensor_argument_to_script": (
        "@torch.jit.script\ndef f(x, n):\n    return x * n\nf(torch.ones(1), 2)\n",
        "not a tensor (int)"),
    "script_method_second_call_with_grad": (
        "class M(torch.jit.ScriptModule):\n    def __init__(self):\n        super().__init__()\n"
        "        self.w = nn.Parameter(torch.ones(2))\n    @torch.jit.script_method\n"
        "    def f(self, x):\n        return (x * self.w).sin()\n"
        "m = M()\nm.f(torch.ones(2))\nm.f(torch.ones(2))\n", "DifferentiableGraph"),
    "script_method_unannotated_number": (
        "class M(torch.jit.ScriptModule):\n    @torch.jit.script_method\n"
        "    def f(self, x, n):\n        return x * n\nM().f(torch.ones(1), 2)\n",
        "not a tensor (int)"),
    "tensor_to_bool_while_tracing": (
        "def f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
        "torch.jit.trace(f, torch.ones(2))\n", "a Python boolean while torch.jit.trace"),
    "item_while_tracing": (
        "def f(x):\n    return x * x.sum().item()\ntorch.jit.trace(f, torch.ones(2))\n",
        "item() while torch.jit.trace"),
    "traced_call_with_other_shape": (
        "t = torch.jit.trace(lambda x: x * 2, torch.ones(2))\nt(torch.ones(3))\n",
        "other shapes or dtypes"),
    "random_ops_with_check_trace": (
        "t = torch.jit.trace(lambda x: x + torch.rand(2), torch.ones(2))\n",
        "draws random numbers"),
    "unmeasured_node_in_trace": (
        "x = torch.ones(3, requires_grad=True)\n"
        "t = torch.jit.trace(lambda a: a.cumsum(0), x)\n", "CumsumBackward0"),
    "inplace_node_in_script": (
        "@torch.jit.script\ndef f(x):\n    y = x * 2\n    y.add_(x)\n    return y\n"
        "f(torch.ones(2, requires_grad=True))\n", "in-place op"),
    "same_padding_in_trace": (
        "torch.jit.trace(nn.Conv2d(1, 1, 3, padding='same'), torch.ones(1, 1, 4, 4))\n",
        "conv2d(padding='same')"),
    "graph_text": (
        "print(torch.jit.script(nn.Linear(2, 2)).graph)\n", "TorchScript's text"),
    "code_text": (
        "@torch.jit.script\ndef f(x):\n    return x\nprint(f.code)\n", "TorchScript's text"),
    "trace_of_module_with_hooks": (
        "m = nn.Linear(2, 2)\nm.register_forward_hook(lambda mod, i, o: o * 2)\n"
        "torch.jit.trace(m, torch.ones(2))\n", "with hooks"),
    "scripted_lambda": ("torch.jit.script(lambda x: x)\n", "a lambda"),
    "scripted_generator": (
        "def g(x):\n    yield x\ntorch.jit.script(g)\n", "generator"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_jit_refuses_what_it_does_not_reproduce(case: str) -> None:
    script, message = REFUSED[case]
    _, error = _run(PRELUDE + script)
    assert error is not None and error.kind == "NotSupportedError", error
    assert message in error.message
    assert error.span is not None


def test_trace_runs_forward_three_times_then_never_prints() -> None:
    out, error = _run(PRELUDE + (
        "def f(x):\n    print('ran', torch.jit.is_tracing())\n    return x * 2\n"
        "t = torch.jit.trace(f, torch.ones(2))\nprint('traced')\nt(torch.ones(2))\n"
        "t(torch.ones(2))\n"))
    assert error is None
    assert out == "ran True\nran True\nran False\ntraced\n"


def test_trace_without_check_draws_random_numbers_as_the_graph_does() -> None:
    out, error = _run(PRELUDE + (
        "torch.manual_seed(0)\n"
        "t = torch.jit.trace(lambda x: x + torch.rand(2), torch.ones(2), check_trace=False)\n"
        "print(t(torch.ones(2)), t(torch.ones(2)), torch.rand(1))\n"))
    assert error is None
    # torch 2.13: the trace run draws once, each call once more
    assert out == "tensor([1.0885, 1.1320]) tensor([1.3074, 1.6341]) tensor([0.4901])\n"


def test_scripted_module_shares_parameters_and_has_its_own_training_flag() -> None:
    out, error = _run(PRELUDE + (
        "m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))\ns = torch.jit.script(m)\n"
        "s.eval()\nprint(s.training, m.training, s[0].weight is m[0].weight)\n"))
    assert error is None
    assert out == "False True True\n"


def test_class_body_qualname_names_the_class() -> None:
    out, error = _run("class A:\n    __qualname__ = 'x.B'\nprint(A, A.__qualname__)\n")
    assert error is None
    assert out == "<class '__main__.x.B'> x.B\n"


def test_tracer_warning_is_torch_warning_class_for_filters() -> None:
    out, error = _run(PRELUDE + (
        "import warnings\n"
        "warnings.filterwarnings('ignore', category=torch.jit.TracerWarning)\n"
        "w = torch.jit.TracerWarning('w')\n"
        "print(torch.jit.TracerWarning, issubclass(torch.jit.TracerWarning, Warning), "
        "isinstance(w, Warning), repr(w))\n"
        "try:\n    raise torch.linalg.LinAlgError('x')\nexcept RuntimeError as e:\n"
        "    print(type(e), isinstance(e, torch.linalg.LinAlgError))\n"))
    assert error is None
    # as torch 2.13 prints them
    assert out == ("<class 'torch.jit._trace.TracerWarning'> True True TracerWarning('w')\n"
                   "<class 'torch._C._LinAlgError'> True\n")
