"""torch's meta device (issue 12, the reasoning-about-shapes recipe): tensors with a
shape, a dtype and strides and no data. Each script is run by gradtrace and by python +
torch 2.13 and must print the same (and end with the same error).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import torch_outputs_in_child

from gradtrace.runner import run_text

pytest.importorskip("torch")

PRELUDE = """import torch
m = torch.empty(2, 3, device="meta")
"""

# views, copies and elementwise results of meta tensors too big for a zero-filled stand-in
HUGE_VIEWS = """\
n = 10**5
a = torch.empty(n, 3, n, device="meta")
p = a.permute(2, 0, 1)
print(p.stride(), p.is_contiguous(), p[5].stride(), p[:, 1].stride(),
      p[::3, :, 1:].stride())
print([t.stride() for t in a.unbind(1)], [t.stride() for t in a.split(2, 1)],
      [t.stride() for t in a.chunk(2, 2)])
print(a.diagonal(0, 0, 2).stride(), a.unfold(2, 4, 2).stride(), a.unsqueeze(1).stride(),
      a[:, :1].squeeze(1).stride())
print(a.movedim(0, 2).stride(), a.narrow(2, 5, 10).stride(), a.flatten().stride(),
      a.transpose(0, 1).flatten(1).stride())
print(p.reshape(n, -1).stride(), p.contiguous().stride(), a.mT.stride(),
      a.swapaxes(0, 2).stride(), a[..., None].stride())
print(a.view(3 * n, n).stride(), a.expand(2, n, 3, n).stride(),
      a[None].expand(4, -1, -1, -1).stride())
try:
    p.view(-1)
except RuntimeError as e:
    print(e)
lin = torch.nn.Linear(n, 2 * n, device="meta")
x = torch.empty(4, n, device="meta", requires_grad=True)
y = lin(x)
print(y.stride(), y.grad_fn, y.grad_fn.next_functions)
y.sum().backward()
print(x.grad.stride(), lin.weight.grad.stride(), lin.bias.grad.stride(),
      lin.weight.t().stride())
w = torch.empty(n, n, device="meta").t()
print(torch.empty_like(w).stride(), w.clone().stride(), (w * 2).stride(),
      (w + w.t()).stride(), w.to(torch.float16).stride())
print(w.contiguous().is_contiguous(), w.is_contiguous(), w.t().is_contiguous())
"""

SCRIPTS = {
    "factories_print": "print(m, m.device, m.is_meta, repr(m.device))\n"
                       "print(torch.zeros(2, 3, device='meta', requires_grad=True))\n"
                       "print(torch.ones(3, dtype=torch.float64, device='meta'))\n"
                       "print(torch.arange(5, device='meta'), torch.full((2,), 3, "
                       "device='meta'))\n"
                       "print(torch.zeros(0, device='meta'), torch.zeros((), device='meta'))\n"
                       "print(torch.empty(2, 3, device='meta', dtype=torch.float16, "
                       "requires_grad=True))\n"
                       "print(torch.rand(2, device=torch.device('meta')), "
                       "torch.randn(4, 5, device='meta').shape)\n"
                       "print(torch.tensor([1, 2], device='meta'), torch.eye(3, "
                       "device='meta'), torch.linspace(0, 1, 7, device='meta'))",
    "like_factories": "print(torch.zeros_like(m), torch.ones_like(m, dtype=torch.int32))\n"
                      "print(torch.rand_like(m), torch.randn_like(m).shape, m.new_zeros(4))\n"
                      "print(torch.empty_like(torch.ones(2, 2), device='meta'))",
    "sampling_draws_nothing": "torch.manual_seed(0)\ntorch.rand(3, device='meta')\n"
                              "torch.randn(3, device='meta')\nprint(torch.rand(2))",
    "ops_shapes_and_dtypes": "a = torch.ones(4, 3, device='meta')\n"
                             "print(a + 1, (a * 2).exp().sum(0, keepdim=True))\n"
                             "print(a.t() @ a, a.to(torch.float64), a > 0, a.int())\n"
                             "print(a.reshape(2, 6).shape, a[1:, :2].shape, a.unsqueeze(0).shape)\n"
                             "print(torch.cat([a, a]).shape, torch.stack([a, a], 1).shape)\n"
                             "print(a.softmax(-1), a.mean(), a.argmax(1))\n"
                             "print(a + torch.tensor(2.0))",
    "strides": "a = torch.ones(2, 3, device='meta')\n"
               "print(a.stride(), a.t().stride(), a.t().contiguous().stride())\n"
               "print(a.t().is_contiguous(), a.expand(4, 2, 3).stride(), (a.t() * 2).stride())\n"
               "print(torch.empty_strided((2, 3), (1, 2), device='meta').stride())",
    "autograd": "w = torch.zeros(2, 3, device='meta', requires_grad=True)\n"
                "c = (w * 2).sum()\nprint(c, c.grad_fn, c.grad_fn.next_functions)\n"
                "c.backward()\nprint(w.grad)\n"
                "y = torch.nn.functional.relu(w @ torch.ones(3, 4, device='meta'))\n"
                "print(y)\n"
                "print(torch.autograd.grad(y.sum(), w))",
    "first_grad_is_kept_at_version_0": "w = torch.empty(3, 4, device='meta', requires_grad=True)\n"
                                       "(w * 2 + 1).exp().sum().backward()\n"
                                       "print(w.grad._version, w.grad.stride())\n"
                                       "(w * 3).sum().backward()\nprint(w.grad._version)",
    "huge_view_strides": HUGE_VIEWS,
    "huge_without_memory": "h = torch.empty(10**12, device='meta')\n"
                           "print(h.shape, (h * 2 + 1).exp().shape, torch.zeros_like(h).shape)\n"
                           "print(h.sum(), h.view(10**6, 10**6).t().shape)",
    "nn_layers": "conv = torch.nn.Conv2d(3, 5, 2, device='meta')\n"
                 "print(conv.weight, conv.bias.shape)\n"
                 "print(conv(torch.rand(2, 3, 10, 10, device='meta')))\n"
                 "lin = torch.nn.Linear(4, 2, device='meta')\n"
                 "print(lin(torch.randn(8, 4, device='meta')))\n"
                 "big = torch.rand(2**10, 3, 2**16, 2**16, device='meta')\n"
                 "print(conv(big).shape, torch.nn.functional.max_pool2d(big, 2).shape)",
    "device_context": "with torch.device('meta'):\n"
                      "    a = torch.randn(3, 4)\n    lin = torch.nn.Linear(4, 2)\n"
                      "    print(torch.get_default_device())\n"
                      "print(a, lin.weight.device, lin(a), torch.ones(1))",
    "to_empty": "with torch.device('meta'):\n    lin = torch.nn.Linear(2, 2)\n"
                "lin.to_empty(device='cpu')\nprint(lin.weight.device, lin.weight.shape)\n"
                "lin2 = torch.nn.Linear(2, 3).to('meta')\nprint(lin2.weight)",
    "to_meta": "x = torch.rand(3, 4, requires_grad=True)\nprint(x.to('meta'), "
               "x.detach().to('meta'))",
    "item_error": "torch.empty(1, device='meta').item()",
    "item_many_error": "m.item()",
    "tolist_error": "m.tolist()",
    "float_error": "float(torch.empty((), device='meta'))",
    "numpy_error": "m.numpy()",
    "to_cpu_error": "m.to('cpu')",
    "cpu_error": "m.cpu()",
    "mixed_meta_cpu_error": "m + torch.ones(2, 3)",
    "mixed_cpu_meta_error": "torch.ones(2, 3) * m",
    "copy_into_meta": "print(m.copy_(torch.ones(2, 3)), m.add_(1), m.zero_(), m._version)",
    "copy_out_of_meta_error": "torch.ones(2, 3).copy_(m)",
    "load_state_dict": "torch.manual_seed(0)\nsrc = torch.nn.Linear(3, 2)\n"
                       "with torch.device('meta'):\n    dst = torch.nn.Linear(3, 2)\n"
                       "print(dst.load_state_dict(src.state_dict()), dst.weight)\n"
                       "dst.load_state_dict(src.state_dict(), assign=True)\nprint(dst.weight)",
    "deepcopy": "import copy\nw = torch.nn.Linear(3, 2, device='meta')\nc = copy.deepcopy(w)\n"
                "print(c.weight, copy.deepcopy(m.t()).stride(), c.weight is w.weight)",
    "module_to_cpu_error": "with torch.device('meta'):\n    lin = torch.nn.Linear(2, 2)\n"
                           "lin.to('cpu')",
    "format_and_iterate": "z = torch.zeros((), device='meta')\nprint(f'{z} {m!r}')\n"
                          "print([r for r in m], len(m), m.unbind(1))",
    "huge_matmul_and_views": "h = torch.empty(2**20, 2**20, device='meta')\n"
                             "print((h @ h).shape, h.sum(1, keepdim=True).shape, h.numel())\n"
                             "print(h[::2, 1:].shape, h.to(torch.float16), h.t().exp().shape)",
}

def _normalise(text: str) -> str:
    import re

    return re.sub(r" at 0x[0-9a-f]+>", " at 0x?>", text)


@pytest.fixture(scope="module")
def torch_outputs() -> dict[str, list[str]]:
    scripts = {name: PRELUDE + code + "\n" for name, code in SCRIPTS.items()}
    return torch_outputs_in_child(scripts)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_meta_script_prints_what_torch_prints(name: str, torch_outputs: dict) -> None:
    want_out, want_error = torch_outputs[name]
    result = run_text(PRELUDE + SCRIPTS[name] + "\n")
    assert _normalise(result.stdout) == _normalise(want_out)
    if want_error:
        assert result.error is not None, want_error
        assert want_error == f"{result.error.kind}: {result.error.message}"
    else:
        assert result.error is None, result.error
