"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round
46 (LLM building blocks) found: Hugging Face's Mixtral MoE block indexes its ModuleList of
experts with a row of `nonzero()` (`self.experts[expert_idx]`, a one-element int64
tensor), which torch's containers take through operator.index; gradtrace's refused any
tensor. (`import gc` and complex index_select are tested in test_pystd.py and
test_complex_torch_diff.py.)

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output, torch_outputs_in_child

torch = pytest.importorskip("torch")


CONTAINER_TENSOR_INDICES = """import torch
torch.manual_seed(0)
m = torch.nn.ModuleList([torch.nn.Linear(2, 1) for _ in range(3)])
s = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh())
p = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(1) * i) for i in range(2)])
print(m[torch.tensor([2])], m[torch.tensor(-1)], s[torch.tensor(1)], p[torch.tensor([[1]])])
hit = torch.tensor([[0, 1, 0], [1, 1, 0], [0, 0, 1]]).sum(0).gt(0).nonzero()
for idx in hit:
    print(idx, m[idx].weight.shape)
for bad in (torch.tensor([1.0]), torch.tensor([0, 1]), torch.tensor(5), torch.tensor([]),
            "a", 1.5, None):
    for container in (m, s, p):
        try:
            print(container[bad])
        except (TypeError, IndexError) as e:
            print(type(e).__name__, e)
m[torch.tensor(0)] = torch.nn.Identity()
del m[torch.tensor([1])]
s[torch.tensor(0)] = torch.nn.Sigmoid()
print(m, s)
"""


def test_containers_take_one_element_integer_tensors_as_indices_like_torch() -> None:
    assert gradtrace_output(CONTAINER_TENSOR_INDICES) == torch_output(CONTAINER_TENSOR_INDICES)


SDP_SWITCHES = """import torch
import torch.nn.functional as F
b = torch.backends.cuda
print(b.flash_sdp_enabled(), b.math_sdp_enabled(), b.mem_efficient_sdp_enabled(),
      b.cudnn_sdp_enabled())
torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 5, 8).unbind(0)
q.requires_grad_()
flash = F.scaled_dot_product_attention(q, k, v, is_causal=True)
with b.sdp_kernel(enable_flash=False, enable_mem_efficient=False, enable_math=True) as ctx:
    print(ctx, b.flash_sdp_enabled(), b.math_sdp_enabled(), b.mem_efficient_sdp_enabled())
    math = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled())
print(flash.grad_fn.name(), math.grad_fn.name())
print(math)
math.sum().backward()
print(q.grad)
b.enable_math_sdp(False)
print(F.scaled_dot_product_attention(q, k, v).grad_fn.name())
for args in ((q, k, v), (q[0], k[0], v[0])):
    for flash_on in (True, False):
        b.enable_flash_sdp(flash_on)
        try:
            F.scaled_dot_product_attention(*args)
        except RuntimeError as e:
            print("RuntimeError", e)
b.enable_flash_sdp(True)
b.enable_math_sdp(True)
for setter in (b.enable_flash_sdp, b.enable_math_sdp, b.enable_mem_efficient_sdp,
               b.enable_cudnn_sdp):
    for bad in (1, None):
        try:
            setter(bad)
        except RuntimeError as e:
            print("RuntimeError", e)
with b.sdp_kernel(enable_flash=False):
    try:
        with b.sdp_kernel(enable_math=False):
            F.scaled_dot_product_attention(q, k, v)
    except RuntimeError as e:
        print("RuntimeError", e)
    print(b.flash_sdp_enabled(), b.math_sdp_enabled())
print(b.flash_sdp_enabled(), b.math_sdp_enabled())
"""


def test_scaled_dot_product_switches_choose_the_kernel_like_torch() -> None:
    stdout, error = torch_outputs_in_child({"s": SDP_SWITCHES})["s"]  # (torch's switches are
    assert not error  # global: a child keeps this process's torch as it was)
    assert gradtrace_output(SDP_SWITCHES) == stdout


LOAD_PRE_HOOKS = """import torch
from torch import nn

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wqkv = nn.Linear(4, 12, bias=False)
        self.handle = self._register_load_state_dict_pre_hook(self.load_hook)

    def load_hook(self, state_dict, prefix, *args):
        print("hook", prefix, sorted(state_dict), len(args))
        if prefix + "wq.weight" in state_dict:
            wq = state_dict.pop(prefix + "wq.weight")
            wk = state_dict.pop(prefix + "wk.weight")
            wv = state_dict.pop(prefix + "wv.weight")
            state_dict[prefix + "wqkv.weight"] = torch.cat([wq, wk, wv])

def with_module(module, state_dict, prefix, *args):
    print("with module", type(module).__name__, prefix)

torch.manual_seed(0)
model = nn.Sequential(Attention())
model[0]._register_load_state_dict_pre_hook(with_module, with_module=True)
model[0].register_load_state_dict_pre_hook(with_module)
sd = {"0.wq.weight": torch.ones(4, 4), "0.wk.weight": torch.zeros(4, 4),
      "0.wv.weight": torch.full((4, 4), 2.0)}
print(model.load_state_dict(sd))
print(model[0].wqkv.weight[:, 0])
model[0].handle.remove()
try:
    model.load_state_dict({"0.wq.weight": torch.ones(4, 4)})
except RuntimeError as e:
    print(str(e).splitlines()[0])
"""


def test_private_load_state_dict_pre_hook_without_the_module_like_torch() -> None:
    assert gradtrace_output(LOAD_PRE_HOOKS) == torch_output(LOAD_PRE_HOOKS)


SDPA_KERNEL = """import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.attention
print([(m, int(getattr(SDPBackend, m))) for m in SDPBackend.__members__])
print(repr(SDPBackend.MATH), str(SDPBackend.MATH), SDPBackend.FLASH_ATTENTION.name,
      SDPBackend.CUDNN_ATTENTION.value, torch.nn.attention.WARN_FOR_UNFUSED_KERNELS)
b = torch.backends.cuda
torch.manual_seed(0)
q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
with sdpa_kernel(SDPBackend.MATH) as ctx:
    print(ctx, b.flash_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled())
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(out)
with torch.nn.attention.sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH,
                                     SDPBackend.MATH], set_priority=True):
    print(b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled())
with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
    try:
        F.scaled_dot_product_attention(q, k, v)
    except RuntimeError as e:
        print("RuntimeError", e)
print(b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled())
for bad in ("math", (SDPBackend.MATH,), None):
    try:
        with sdpa_kernel(bad):
            pass
    except AssertionError as e:
        print("AssertionError", e)
print(SDPBackend.MATH == 0, SDPBackend.MATH in [SDPBackend.MATH],
      isinstance(SDPBackend.MATH, SDPBackend))
"""


def test_sdpa_kernel_and_sdp_backend_like_torch() -> None:
    stdout, error = torch_outputs_in_child({"s": SDPA_KERNEL})["s"]  # (torch's switches are
    assert not error  # global: a child keeps this process's torch as it was)
    assert gradtrace_output(SDPA_KERNEL) == stdout


FUNCTION_DOC = """def add_start_docstrings(*docstr):
    def docstring_decorator(fn):
        fn.__doc__ = "".join(docstr) + (fn.__doc__ if fn.__doc__ is not None else "")
        return fn
    return docstring_decorator

class P:
    @add_start_docstrings("Args: scores. ")
    def __call__(self, scores):
        \"\"\"Filter.\"\"\"
        return scores

@add_start_docstrings("A", "B")
def f():
    pass

print(repr(P.__call__.__doc__), repr(P().__call__.__doc__), repr(f.__doc__))
f.__doc__ = 5
print(f.__doc__)
f.__doc__ = None
print(f.__doc__)
try:
    P().__call__.__doc__ = "x"
except AttributeError as e:
    print("AttributeError", e)
"""


def test_function_doc_is_writable_like_python() -> None:
    assert gradtrace_output(FUNCTION_DOC) == torch_output(FUNCTION_DOC)
