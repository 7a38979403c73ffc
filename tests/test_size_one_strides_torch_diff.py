"""Differential tests against live PyTorch (issue 12): with torch's strides for size-1 dims,
unsqueeze, expand, view and reshape make their views with numpy's as_strided, whose result
chains to the array it views through a holder (`.base` is a DummyArray, whose `.base` is
the array). What reads the base chain must follow it there:

* backward's input buffer adds a gradient in place only into memory nothing else holds; a
  view made in backward (SumBackward's expand, SqueezeBackward's unsqueeze, ViewBackward's
  reshape) of the user's `grad_outputs` or of a tensor a view keeps alive is not such
  memory (a batch-1 Linear's Hessian-vector product added into the user's vector);
* a storage, a deepcopy and torch.save/load see the memory a view lives in, so views of one
  tensor still share it in the copy.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

from gradtrace.runner import run_text

torch = pytest.importorskip("torch")

SCRIPTS = {
    # the bias's gradient of the gradient reaches its buffer as views of `v` and `vw`
    "grad_outputs_are_not_added_into": """
import torch
w = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
b = torch.tensor([0.25], requires_grad=True)
out = torch.nn.functional.linear(torch.tensor([[1.0, 2.0, 3.0]]), w, b)
gw, gb = torch.autograd.grad((out ** 2).sum(), (w, b), create_graph=True)
v = torch.ones(1)
vw = torch.ones(1, 3)
print(torch.autograd.grad((gw, gb), (w, b), (vw, v)))
print(v, v._version, vw, vw._version)
""",
    # gh_anhtong_second_jvp_hvp_double_grad in small: the vector changed under the second
    # Hessian-vector product, so H @ vector printed other numbers
    "hessian_vector_products_of_a_batch_1_mlp": """
import torch
import torch.nn as nn
from torch.autograd import grad
from torch.nn.utils import parameters_to_vector
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 2), nn.Sigmoid(), nn.Linear(2, 1))
x = torch.randn(1, 3)
y = torch.randn(1, 1)
params = tuple(model.parameters())
vector = [torch.randn_like(p) for p in params]
for _ in range(2):
    loss = nn.functional.mse_loss(model(x), y)
    gradients = grad(loss, params, create_graph=True)
    print(grad(gradients, params, vector))
print(parameters_to_vector(vector))
""",
    # the first gradient in w's buffer is a view (of a temporary its view keeps alive, as
    # torch's view keeps its base): added out of place (version 0); a fresh first gradient
    # is added into in place (version 1)
    "only_unshared_gradients_are_added_into": """
import torch
for order in range(2):
    w = torch.tensor([[1.], [2.]], requires_grad=True)
    a = (w.view(2) * torch.tensor([2., 3.])).sum()
    b = (w.view(1, 2) * 3).sum()
    (a + b if order else b + a).backward()
    print(w.grad, w.grad._version, w.grad.stride())
    w = torch.tensor([[1., 2., 3.]], requires_grad=True)
    a = (w.squeeze(0) * 2).sum()
    b = (w * 3).sum()
    (a + b if order else b + a).backward()
    print(w.grad, w.grad._version, w.grad.stride())
""",
    "views_share_memory_in_copies_and_storages": """
import copy
import io
import torch
a = torch.arange(6.).reshape(2, 3)
u = a[1].unsqueeze(0)
e = a[:, :1].expand(2, 3)
print(u.untyped_storage().data_ptr() == a.untyped_storage().data_ptr(),
      u.untyped_storage().nbytes(), e.untyped_storage().nbytes())
c = copy.deepcopy([a, u, e])
c[0][1, 0] = 100.
print(c[1], c[2])
buf = io.BytesIO()
torch.save([a, u, e, a.view(1, 6), a.t().unsqueeze(1)], buf)
buf.seek(0)
loaded = torch.load(buf)
loaded[0][0, 0] = -5.
print(loaded, [t.stride() for t in loaded])
""",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_size_one_stride_views_behave_as_in_torch(name: str):
    script = SCRIPTS[name]
    assert gradtrace_output(script) == torch_output(script)


@pytest.mark.parametrize("write", ["add_(1)", "mul_(2)", "copy_(torch.ones(2, 3))"])
def test_a_write_into_an_expanded_view_is_refused_not_spread_over_its_base(write: str):
    # torch's in-place TensorIterator ops refuse an output with an expanded dim (else add_
    # would write each element of `a` twice); a script can catch the RuntimeError
    script = ("import torch\na = torch.zeros(1, 3)\ntry:\n"
              f"    a.expand(2, 3).{write}\nexcept RuntimeError as e:\n    print(e)\nprint(a)\n")
    result = run_text(script)
    assert result.error is None
    assert result.stdout.splitlines()[0] == (
        "unsupported operation: more than one element of the written-to tensor refers to a "
        "single memory location. Please clone() the tensor before performing the operation.")
