"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 54
(detection and segmentation building blocks) found: ssd.pytorch's nms resizes its scratch
tensors with `w.resize_as_(xx2)`, which was refused; CenterNet's gaussian2D builds its kernel
over `np.ogrid[-m:m+1, -n:n+1]`, which was refused, and its losses pass the old
reduction='elementwise_mean', which was an error; torchvision's encode_boxes is decorated with
torch.jit._script_if_tracing, which was refused; YOLACT's scripted box utilities take a bool
(`decode(loc, priors, use_yolo_regressors: bool = False)`), which was refused.

Skipped unless torch is importable.
"""
from __future__ import annotations

import io

import pytest
from script_runs import file_runs, gradtrace_output, run_text, torch_output

torch = pytest.importorskip("torch")


RESIZE_AS = """import torch
w = torch.tensor([1., 2., 3.])
print(w.resize_as_(torch.zeros(2, 2)).shape, w._version)
print(w.resize_as_(torch.zeros(1, dtype=torch.long)), w.dtype, w._version)
y = torch.ones(5)
print(torch.resize_as_(y, torch.zeros(3)), y._version)
print(type(torch.resize_as_).__name__, repr(torch.resize_as_)[:30])
print(y.resize_as_(torch.empty(0)).numel())
with torch.no_grad():
    z = torch.ones(3, requires_grad=True)
    try:
        z.resize_as_(torch.zeros(1, 3))
    except RuntimeError as err:
        print("under no_grad:", err)
    print(z.detach().resize_as_(torch.zeros(1, 3)).shape, z.shape)
try:
    torch.ones(3, requires_grad=True).resize_as_(y)
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    y.resize_as_(3)
except TypeError as err:
    print("TypeError:", err)
"""


def test_resize_as_takes_the_template_s_shape() -> None:
    """Tensor.resize_as_ and torch.resize_as_: resize_ to the template's shape (its dtype not
    taken), a version bump, and resize_'s refusal of a tensor that requires grad, under
    no_grad too."""
    assert gradtrace_output(RESIZE_AS) == torch_output(RESIZE_AS)


RESIZE_STRIDED = """import torch
a = torch.tensor([[1., 2.], [3., 4.]]).t()
print(a.resize_(4))
b = torch.tensor([[1., 2., 3.], [4., 5., 6.]]).t()
print(b.resize_(2, 2), b.is_contiguous())
x = torch.arange(10.)
y = x[:2]
y.resize_(5)
y[4] = 40.
print(y, x)
z = torch.arange(6.).view(2, 3)[:, 1:]
print(z.resize_(3))
w = torch.arange(4.).view(2, 2).t()
w.resize_(2, 3)
print(w[0], w.shape)
m = torch.arange(6.).view(2, 3).t() * 1
print(m.stride(), m.resize_(6))
q = torch.arange(6.).view(2, 3).t() * 1
q.resize_(8)
print(q[:6])
"""


def test_resize_reads_a_strided_tensors_storage_in_memory_order() -> None:
    """resize_ keeps the tensor's storage and reads it in memory order from the tensor's
    offset (a transposed tensor gives its storage's order, not its logical one; a narrowed
    one grows into the rest of its storage and shares it; a result laid out transposed owns
    its memory in that order); growing past the storage copies the storage's elements
    first."""
    assert gradtrace_output(RESIZE_STRIDED) == torch_output(RESIZE_STRIDED)


GRIDS = """import numpy as np
y, x = np.ogrid[-2:3, -1:2]
print(y, x, y.shape, x.shape, type(np.ogrid[0:3]).__name__)
print(np.mgrid[0:2, 0:3], np.mgrid[0:1:5j].tolist(), np.ogrid[0:1:3j, 0:2])
print(np.mgrid[-1.5:1.5:1.0].dtype, np.ogrid[3:0:-1])
print(repr(np.ogrid)[:48], repr(np.mgrid)[:48])
print(np.r_[0:1:3j, 5])
m, n = [(ss - 1.) / 2. for ss in (5, 5)]
yy, xx = np.ogrid[-m:m+1,-n:n+1]
h = np.exp(-(xx * xx + yy * yy) / (2 * 1.5 * 1.5))
h[h < np.finfo(h.dtype).eps * h.max()] = 0
print(h.round(4))
hm = np.zeros((6, 6), dtype=np.float32)
part = hm[1:4, 2:5]
np.maximum(part, h[:3, :3] * 2, out=part)
print(hm)
"""


def test_numpy_ogrid_and_mgrid_make_meshes_of_slices() -> None:
    """np.ogrid / np.mgrid indexed with slices (steps, float bounds, complex counts), and
    np.maximum(..., out=) writing through a view of the script's array, as numpy does."""
    assert gradtrace_output(GRIDS) == torch_output(GRIDS)


ELEMENTWISE_MEAN = """import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
t = torch.tensor([[0.0, -0.5, 1.0], [1.0, 1.0, 0.0]])
for fn in (F.l1_loss, F.mse_loss, F.smooth_l1_loss, F.huber_loss, F.soft_margin_loss,
           F.binary_cross_entropy_with_logits):
    out = fn(x, t, reduction='elementwise_mean')
    g, = torch.autograd.grad(out, x)
    print(fn.__name__, out, g)
print(F.smooth_l1_loss(x, t, reduction='elementwise_mean', beta=0.0))
labels = torch.tensor([2, 0])
print(F.cross_entropy(x, labels, reduction='elementwise_mean'),
      F.nll_loss(x.log_softmax(1), labels, reduction='elementwise_mean'),
      F.cross_entropy(x, labels, reduction='elementwise_mean', label_smoothing=0.1))
print(nn.L1Loss(reduction='elementwise_mean')(x, t),
      nn.CrossEntropyLoss(reduction='elementwise_mean').reduction)
print(F.kl_div(x.log_softmax(1), t.softmax(1), reduction='elementwise_mean'))
print(F.multi_margin_loss(x, labels, reduction='elementwise_mean'))
for call in (lambda: F.poisson_nll_loss(x, t, reduction='elementwise_mean'),
             lambda: F.triplet_margin_with_distance_loss(x, t, t, reduction='elementwise_mean'),
             lambda: F.gaussian_nll_loss(x, t, torch.ones(2, 3), reduction='elementwise_mean'),
             lambda: F.multilabel_soft_margin_loss(x, t, reduction='elementwise_mean'),
             lambda: F.l1_loss(x, t, reduction='elementwise_sum')):
    try:
        print(call())
    except ValueError as e:
        print("ValueError:", e)
"""


def test_elementwise_mean_reduction_is_mean() -> None:
    """reduction='elementwise_mean' is 'mean' (with torch's deprecation warning) wherever torch
    asks _Reduction.get_enum, functions and modules; poisson_nll_loss and
    triplet_margin_with_distance_loss (and the two that check 'valid') refuse it as torch
    does."""
    assert gradtrace_output(ELEMENTWISE_MEAN) == torch_output(ELEMENTWISE_MEAN)
    err = io.StringIO()
    run_text("import torch\nimport torch.nn.functional as F\n"
             "print(F.l1_loss(torch.ones(2), torch.zeros(2), reduction='elementwise_mean'))",
             stderr=err)
    assert "UserWarning: reduction='elementwise_mean' is deprecated. Please use " \
           "reduction='mean' instead." in err.getvalue()


SCRIPT_IF_TRACING = """import torch


@torch.jit._script_if_tracing
def encode(a, b):
    # type: (torch.Tensor, torch.Tensor) -> torch.Tensor
    'Doc.'
    return torch.log(a / b) * 2


@torch.jit.script_if_tracing
def double(x):
    return x * 2


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = encode(x, torch.tensor([0.5, 4.0]))
print(y, encode.__name__, encode.__doc__, double(x).grad_fn.name())
print(encode.__qualname__, double.__name__)
y.sum().backward()
print(x.grad)

"""


def test_script_if_tracing_runs_the_function_itself() -> None:
    """torch.jit._script_if_tracing and torch.jit.script_if_tracing keep the function's name
    and doc and run it eagerly (its nodes recorded)."""
    assert gradtrace_output(SCRIPT_IF_TRACING) == torch_output(SCRIPT_IF_TRACING)


TRACED_SCRIPT_IF_TRACING = """

@torch.jit.script_if_tracing
def double(x):
    return x * 2


def f(t):
    return double(t) + 1


traced = torch.jit.trace(f, torch.ones(3))
print(traced(torch.arange(3.)))
"""

SCRIPTED_SCALARS = """import torch


@torch.jit.script
def scale(x, factor: float, flag: bool = False, n: int = 1):
    if flag:
        return x * factor + n
    return x * factor


x = torch.tensor([1.0, 2.0])
print(scale(x, 2.5), scale(x, 2.5, True), scale(x, 0.5, True, 3), scale(x, 1.5, flag=True))
with torch.no_grad():
    print(scale(x, 3.0, False, 2))
"""


def test_scripted_function_takes_annotated_scalars(tmp_path) -> None:
    """A torch.jit.script function called with positional bool, int and float arguments for
    parameters annotated so, as TorchScript takes them (with grad and under no_grad); run as
    files, where torch can read the function's source to script it."""
    torch_run, result, _ = file_runs(SCRIPTED_SCALARS + TRACED_SCRIPT_IF_TRACING, tmp_path,
                                     "scripted_scalars", check=True)
    assert result.error is None and result.stdout == torch_run.stdout
    unannotated = "import torch\n@torch.jit.script\ndef f(x, k):\n    return x * k\n" \
                  "print(f(torch.ones(2), 3))\n"
    assert "annotated bool, int or float" in str(run_text(unannotated).error)


ARANGE_END = """import torch
print(torch.arange(end=4), torch.arange(end=3, dtype=torch.float32), torch.arange(1, end=4))
print(torch.arange(start=1, end=4), torch.arange(end=6, start=2, step=2))
print(torch.arange(end=2.5), torch.arange(start=0.5, end=2, step=0.5))
for call in (lambda: torch.arange(start=3), lambda: torch.arange(5, step=2),
             lambda: torch.arange()):
    try:
        print(call())
    except TypeError as e:
        print("TypeError:", str(e).splitlines()[0])
t = torch.zeros(3, dtype=torch.long)
print(torch.arange(end=3, out=t), t)
"""


def test_arange_takes_end_by_keyword() -> None:
    """torch.arange's `end` by keyword (alone, after a positional start, with start and step
    by keyword), and torch's TypeErrors when it is missing."""
    assert gradtrace_output(ARANGE_END) == torch_output(ARANGE_END)
