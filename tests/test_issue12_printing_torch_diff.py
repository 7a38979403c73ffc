"""Differential tests against live PyTorch 2.13 for issue 12 (a script prints what torch
prints): torch's classes that stand for the engine's (the grad-mode managers, torch.finfo and
iinfo, torch.device, torch.Generator, the anomaly and saved-tensor-hook managers) print,
name themselves and compare as torch's, never as `gradtrace.engine...`; torch.Generator is a
class; the Tensor methods torch writes in Python print as functions and bound methods;
torch.full and fill_ convert out-of-range numbers as torch does; uniform_ checks its bounds.

Skipped unless torch is importable.
"""
from __future__ import annotations

import types

import pytest
from script_runs import address_free, each_expression, gradtrace_output, torch_output

from gradtrace.interpreter.torch_functions import _recorded_file

torch = pytest.importorskip("torch")


def _same(script: str) -> None:
    """The script prints the same under both, object addresses aside."""
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


CLASSES = [
    "torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled", "torch.inference_mode",
    "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.set_grad_enabled", "torch.finfo", "torch.iinfo", "torch.device",
    "torch.Generator", "torch.autograd.detect_anomaly", "torch.autograd.set_detect_anomaly",
    "torch.autograd.graph.saved_tensors_hooks", "torch.autograd.graph.save_on_cpu",
    "torch.autograd.graph.disable_saved_tensors_hooks"]


def test_torch_classes_print_and_name_themselves_like_torch() -> None:
    expressions = [e for cls in CLASSES for e in (
        cls, f"{cls}.__name__", f"{cls}.__qualname__", f"{cls}.__module__", f"type({cls})",
        f"{cls}.nope")]
    _same(each_expression(expressions))


def test_torch_class_instances_and_their_types_like_torch() -> None:
    made = ["torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(True)",
            "torch.set_grad_enabled(False)", "torch.inference_mode()",
            "torch.inference_mode(False)", "torch.finfo()", "torch.iinfo(torch.int8)",
            "torch.device('cpu')", "torch.Generator()", "torch.manual_seed(0)",
            "torch.autograd.set_detect_anomaly(False)",
            "torch.autograd.graph.saved_tensors_hooks(abs, abs)",
            "torch.autograd.graph.save_on_cpu()"]
    expressions = [e for value in made for e in (
        value, f"str({value})", f"type({value})", f"type({value}).__name__",
        f"type({value}).__module__")]
    checks = ["type(torch.no_grad()) is torch.no_grad", "type(torch.finfo()) is torch.finfo",
              "type(torch.device('cpu')) is torch.device",
              "type(torch.Generator()) is torch.Generator",
              "isinstance(torch.no_grad(), torch.no_grad)",
              "isinstance(torch.enable_grad(), torch.no_grad)",
              "isinstance(torch.Generator(), torch.Generator)",
              "isinstance(torch.finfo(), (torch.iinfo, torch.finfo))",
              "isinstance(1, torch.device)",
              "issubclass(torch.enable_grad, torch.no_grad)",
              "issubclass(torch.autograd.graph.save_on_cpu, "
              "torch.autograd.graph.saved_tensors_hooks)",
              "issubclass(torch.no_grad, torch.no_grad)", "torch.no_grad == torch.no_grad",
              "torch.autograd.grad_mode.no_grad is torch.no_grad",
              "type(torch.no_grad).__name__", "[torch.no_grad, torch.Generator]",
              "{'mode': torch.set_grad_enabled}", "torch.is_grad_enabled()"]
    _same(each_expression(expressions + checks) + "torch.set_grad_enabled(True)\n")


def test_grad_mode_managers_still_work_and_print_inside_with() -> None:
    _same("""import torch
x = torch.ones(2, requires_grad=True)
with torch.no_grad() as a:
    print(a, (x * 2).requires_grad)
with torch.set_grad_enabled(False) as b:
    print(b, (x * 2).requires_grad)
    with torch.enable_grad():
        print((x * 2).requires_grad)


@torch.no_grad
def f(t):
    return t * 2


@torch.enable_grad()
def g(t):
    return t * 2


print(f(x).requires_grad, g(x).requires_grad, torch.is_grad_enabled())
""")


def test_generator_is_a_class_with_torch_s_constructor_and_methods() -> None:
    made = ["torch.Generator('cpu')", "torch.Generator(device='cpu')",
            "torch.Generator(torch.device('cpu'))", "torch.Generator('cpu:0')",
            "torch.Generator(None)", "torch.Generator('cuda')", "torch.Generator('cuda:1')",
            "torch.Generator('mps')", "torch.Generator('xpu')", "torch.Generator('meta')",
            "torch.Generator('lazy')", "torch.Generator('hpu')", "torch.Generator('mtia')",
            "torch.Generator('privateuseone')", "torch.Generator('foo')",
            "torch.Generator(1)", "torch.Generator('cpu', 'cpu')"]
    uses = ["g.manual_seed(3) is g", "g.initial_seed()", "g.device", "g.manual_seed",
            "g.seed", "g.get_state", "g.initial_seed", "torch.rand(2, generator=g)",
            "g.manual_seed(3).initial_seed()", "torch.randn(2, generator=g.manual_seed(5))",
            "g.set_state(torch.Generator().get_state()) is g", "torch.rand(2, generator=g)",
            "torch.default_generator", "type(torch.default_generator)",
            "torch.Generator.manual_seed", "type(torch.Generator.manual_seed)",
            "torch.Generator.manual_seed(g, 3) is g", "torch.Generator.initial_seed(g)",
            "torch.Generator.manual_seed(1, 3)", "torch.Generator.manual_seed()",
            "torch.Generator.manual_seed.__qualname__", "torch.Generator.get_state.__name__",
            "torch.Generator.initial_seed(torch.ones(1))",
            "list(map(torch.Generator.initial_seed, [g]))"]
    _same(each_expression(made + uses, "g = torch.Generator()"))


def test_the_recorded_python_tensor_methods_are_torch_s() -> None:
    live = {name: [m.__name__, m.__qualname__, m.__module__] for name in dir(torch.Tensor)
            if isinstance(m := getattr(torch.Tensor, name), types.FunctionType)}
    assert _recorded_file()["tensor_methods"] == live


# torch's Tensor methods written in Python that gradtrace has (and C ones beside them)
PYTHON_METHODS = ["backward", "register_hook", "register_post_accumulate_grad_hook", "norm",
                  "split", "unique", "unique_consecutive", "unflatten", "lu", "storage",
                  "resize", "add", "detach", "mul_", "item"]


def test_tensor_methods_torch_writes_in_python_print_as_functions() -> None:
    expressions = [e for name in PYTHON_METHODS for e in (
        f"torch.Tensor.{name}", f"type(torch.Tensor.{name})",
        f"torch.Tensor.{name}.__name__", f"torch.Tensor.{name}.__qualname__",
        f"t.{name}", f"type(t.{name})", f"t.{name}.__name__", f"t.{name}.__qualname__",
        f"t.{name}.__module__", f"str(t.{name})")]
    _same(each_expression(expressions, "t = torch.ones(2)"))


def test_python_tensor_methods_still_call() -> None:
    _same("""import torch
t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(torch.Tensor.split(t, 2), t.split(1), torch.Tensor.norm(t), t.unique())
h = t.register_hook(lambda g: g * 2)
(t * t).sum().backward()
print(t.grad, h)
torch.Tensor.backward((t * 3).sum())
print(t.grad, list(map(torch.Tensor.norm, [t, t * 2])))
""")


FILL_VALUES = ["2**63", "2**63 - 1", "-2**63", "-2**63 - 1", "2**64", "2**64 - 1", "300",
               "-300", "-1", "128", "-129", "70000", "1e10", "1e39", "-1e39", "float('inf')",
               "float('nan')", "3.5", "-255", "-256", "2**31", "True", "1e300"]
DTYPES = ["", ", dtype=torch.int8", ", dtype=torch.int16", ", dtype=torch.int32",
          ", dtype=torch.int64", ", dtype=torch.uint8", ", dtype=torch.bool",
          ", dtype=torch.float16", ", dtype=torch.bfloat16", ", dtype=torch.float32",
          ", dtype=torch.float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_full_converts_out_of_range_numbers_like_torch(dtype: str) -> None:
    """One element (scalar_fill) takes a number into float16 and bfloat16 unchecked; more
    (or none) check it."""
    expressions = [f"torch.full({shape}, {v}{dtype})" for v in FILL_VALUES
                   for shape in ("(2,)", "(1,)", "()", "(0,)", "(1, 1)")]
    _same(each_expression(expressions, dtype=True))


def test_fill_and_tensor_of_out_of_range_numbers_like_torch() -> None:
    expressions = [
        "torch.zeros(1, dtype=torch.half).fill_(70000)",
        "torch.zeros(2, dtype=torch.half).fill_(70000)",
        "torch.zeros((), dtype=torch.half).fill_(-1e39)",
        "torch.zeros(3, dtype=torch.bfloat16).fill_(1e39)",
        "torch.zeros(2, dtype=torch.half).fill_(65504)", "torch.full_like(h.expand(3), 1e5)",
        "torch.zeros(1, dtype=torch.half).fill_(1e39)", "torch.fill(h, 70000)",
        "torch.zeros(1, dtype=torch.bfloat16).fill_(1e39)", "torch.zeros(1).fill_(1e39)",
        "torch.zeros(1).fill_(2**64)", "torch.zeros(1).fill_(-2**63 - 1)",
        "torch.zeros(1, dtype=torch.int8).fill_(2**63)",
        "torch.zeros(1, dtype=torch.int8).fill_(300)",
        "torch.zeros(1, dtype=torch.uint8).fill_(-1)",
        "torch.zeros(1, dtype=torch.int32).fill_(1e10)",
        "torch.full_like(h, 70000)", "h.new_full((1,), 70000)",
        "torch.zeros(1, dtype=torch.int8).new_full((1,), 300)",
        "torch.full_like(torch.zeros(1, dtype=torch.int8), 300)",
        "h.masked_fill(torch.tensor([True]), 70000)",
        "h.masked_fill(torch.tensor([True]), 2**64)",
        "torch.tensor([2**63])", "torch.tensor(2**64)", "torch.tensor([1, 2**63])",
        "torch.tensor([300], dtype=torch.int8)", "torch.tensor([2**31], dtype=torch.int32)",
        "torch.tensor(-1, dtype=torch.uint8)", "torch.tensor([2**63], dtype=torch.float64)",
        "torch.tensor(2**63 - 1)", "torch.tensor(-2**63)"]
    _same(each_expression(expressions, "h = torch.ones(1, dtype=torch.half)", dtype=True))


UNIFORM = [
    "torch.zeros(2, dtype=torch.half).uniform_(-1e5, 1e5)",
    "torch.zeros(2, dtype=torch.half).uniform_(-70000, 0)",
    "torch.zeros(2, dtype=torch.half).uniform_(0, 65504)",
    "torch.zeros(2, dtype=torch.half).uniform_(0, 65520)",
    "torch.zeros(2, dtype=torch.half).uniform_(0, 70000)",
    "torch.zeros(2, dtype=torch.half).uniform_(-65504, 65504)",
    "torch.zeros(2, dtype=torch.half).uniform_(-60000, 60000)",
    "torch.zeros(2, dtype=torch.half).uniform_(-30000, 30000)",
    "torch.zeros(2, dtype=torch.half).uniform_(float('inf'), 1)",
    "torch.zeros(2, dtype=torch.half).uniform_(0, float('nan'))",
    "torch.zeros(2, dtype=torch.half).uniform_(1, 0)",
    "torch.zeros(2, dtype=torch.half).uniform_(70000, 0)",
    "torch.zeros(2).uniform_(-1e39, 1e39)", "torch.zeros(2).uniform_(-1e38, 1e38)",
    "torch.zeros(2).uniform_(-3e38, 3e38)", "torch.zeros(2).uniform_(0, float('inf'))",
    "torch.zeros(2, dtype=torch.double).uniform_(-1e308, 1e308)",
    "torch.zeros(2, dtype=torch.double).uniform_(0, 1e308)",
    "torch.zeros(2, dtype=torch.double).uniform_(-float('inf'), 0)",
    "torch.zeros(2, dtype=torch.half).uniform_(**{'from': -1e5, 'to': 0})",
]


def test_uniform_checks_its_bounds_like_torch() -> None:
    _same(each_expression(UNIFORM, "torch.manual_seed(0)"))


def test_hook_handles_and_torch_s_metaclasses_like_torch() -> None:
    classes = ["torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.nn.Parameter",
               "torch.nn.parameter.UninitializedParameter",
               "torch.nn.parameter.UninitializedBuffer", "torch.autograd.Variable",
               "torch.autograd.graph.Node", "torch.Size", "torch.dtype", "torch.Generator"]
    expressions = [f"type({c})" for c in classes] + [
        "h", "type(h)", "type(h).__name__", "type(h).__module__", "isinstance(h, type(h))",
        "type(torch.Tensor) == type", "isinstance(torch.Tensor, type)"]
    setup = "h = torch.ones(1, requires_grad=True).register_hook(lambda g: g)"
    _same(each_expression(expressions, setup))


SCALAR_OPS = ["z + 300", "z - 300", "z * 300", "300 + z", "z + 2**40", "z.add(300)",
              "z.mul(-129)", "z == 300", "z < 300", "z + 2**63", "torch.add(z, 300)",
              "z.clamp(max=300)", "z.clamp(max=300.5)", "z.clamp(-300, 300)",
              "z.clamp(min=-1)", "z.clamp(min=2**63)", "z.clamp(min=-2**63 - 1)",
              "z.masked_fill(z == 0, 300)", "z // 300", "z % 300", "z.sub(2**62)",
              "z + 1", "z.clamp(1, 2)"]


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_python_ints_past_an_integer_dtype_wrap_or_raise_like_torch(dtype: str) -> None:
    """`int8 + 300` wraps the number as torch casts it (numpy refuses it); clamp's bounds
    are checked conversions."""
    _same(each_expression(SCALAR_OPS, f"z = torch.zeros(2, dtype=torch.{dtype}) + 3",
                          dtype=True))


def test_disable_saved_tensors_hooks_is_a_function_like_torch_s() -> None:
    _same("""import torch
from torch.autograd.graph import disable_saved_tensors_hooks
d = disable_saved_tensors_hooks("no hooks")
print(disable_saved_tensors_hooks, type(disable_saved_tensors_hooks),
      disable_saved_tensors_hooks.__name__, disable_saved_tensors_hooks.__qualname__,
      disable_saved_tensors_hooks.__module__)
print(d, type(d), type(d).__name__, type(d).__module__, isinstance(d, type(d)))
x = torch.ones(2, requires_grad=True)
with d:
    print((x * 2).sum())


@disable_saved_tensors_hooks("nope")
def f(t):
    return t * 3


print(f(x), f(x))
try:
    with disable_saved_tensors_hooks("inner"):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
except RuntimeError as e:
    print(e)
""")
