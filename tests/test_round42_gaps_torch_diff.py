"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 42
(Stack Overflow and blog answers on loss targets, None gradients and freezing) found:
F.binary_cross_entropy_with_logits computes its loss in place on `1 - target`, so the loss
has the target's dtype (a float64 target gives a float64 loss, a float16 one a float16 loss)
and an integral or bool target is refused with the in-place step's error (the classic
"Long labels to BCEWithLogitsLoss" question), where gradtrace computed in the input's dtype
and took any target. The pointwise losses (smooth_l1, huber, mse's backward) computed an
integral or float64 target in numpy's float64 where torch's TensorIterator takes the
operands' common dtype, huber's backward refuses a target of another dtype, and kl_div
refuses integral targets. Class weights of another dtype than the input are refused by
nll_loss, and a module with full backward hooks worded an in-place change of its single
output as a multi-output view. Convolutions refused an input of another dtype than the
weight with oneDNN's message where torch checks the bias first or runs its slow kernels;
layer_norm and group_norm took parameters of another dtype, and batch_norm named the weight
before running_mean in its size check; pooling layers computed integral inputs their kernels
do not take, relu worded its refusal of a bool tensor as clamp_min's, bilinear computed
operands of different dtypes and cosine_similarity refused integral inputs by vector_norm;
vector norms of float16 tensors were float64; backward and grad counted the given
gradients with a message of their own and checked outputs and inputs in another order.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


BCE_LOGITS_TARGET_DTYPES = """import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
def show(f):
    try:
        r = f()
        print(r, r.dtype)
    except RuntimeError as e:
        print(type(e).__name__, e)
targets = [torch.tensor([1, 0, 1, 1]), torch.tensor([1, 0, 1, 1], dtype=torch.int32),
           torch.tensor([True, False, True, True]), torch.tensor([1, 0, 1, 1], dtype=torch.uint8),
           torch.tensor([0., 1., 1., 0.5], dtype=torch.float64),
           torch.tensor([0., 1., 1., 0.5], dtype=torch.float16)]
for tg in targets:
    show(lambda: nn.BCEWithLogitsLoss()(x, tg))
    show(lambda: F.binary_cross_entropy_with_logits(x.double(), tg, reduction="sum"))
    for pw in [torch.tensor([1., 2., 3., 4.], dtype=torch.float64), torch.tensor(3.0),
               torch.tensor([2, 3, 1, 1])]:
        show(lambda: F.binary_cross_entropy_with_logits(x, tg, pos_weight=pw,
                                                        weight=torch.tensor([1, 2, 3, 4])))
        show(lambda: F.binary_cross_entropy_with_logits(x, tg, pos_weight=pw, reduction="none"))
loss = F.binary_cross_entropy_with_logits(x, targets[4], pos_weight=torch.tensor(2.0))
loss.backward()
print(loss, x.grad, x.grad.dtype)
"""


def test_bce_with_logits_loss_takes_the_targets_dtype_as_torch() -> None:
    """The loss is `(1 - target).mul_(input).sub_(log_sigmoid(input) * log_weight)` then
    `.mul_(weight)`, each step computed in its operands' result type and kept in the
    target's: Long, Int and Byte targets fail the multiplication's cast, a bool target the
    subtraction; the input's gradient stays in the input's dtype."""
    assert gradtrace_output(BCE_LOGITS_TARGET_DTYPES) == torch_output(BCE_LOGITS_TARGET_DTYPES)


POINTWISE_LOSS_TARGET_DTYPES = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = (torch.randn(6) * 2).requires_grad_()
targets = [torch.randn(6, dtype=torch.float64) * 2, torch.tensor([0, 1, 2, -1, 3, 0]),
           torch.randn(6).half(), torch.tensor([0, 1, 1, 0, 1, 0], dtype=torch.int32)]
for tg in targets:
    for fn in [F.smooth_l1_loss, F.huber_loss, F.mse_loss, F.l1_loss]:
        for red in ["mean", "sum", "none"]:
            x.grad = None
            out = fn(x, tg, reduction=red)
            print(fn.__name__, tg.dtype, red, out.dtype, out.detach().double().sum().item())
            try:
                out.sum().backward()
                print(x.grad.dtype, x.grad.tolist())
            except RuntimeError as e:
                print(type(e).__name__, e)
tg = (torch.randn(6, dtype=torch.float64) * 2).requires_grad_()
gx, gt = torch.autograd.grad(F.mse_loss(x, tg), (x, tg), create_graph=True)
print(gx.tolist(), gt.tolist(), gt.dtype)
h = torch.randn(4).half().requires_grad_()
out = F.huber_loss(h, torch.randn(4).half(), delta=0.5)
out.backward()
print(out, h.grad, F.huber_loss(h, torch.randn(4)).dtype)
for call in [lambda: F.huber_loss(torch.tensor([1, 2]), torch.tensor([1.5, 2.0])),
             lambda: F.smooth_l1_loss(torch.tensor([1, 2]), torch.tensor([1.5, 2.0])),
             lambda: F.huber_loss(x.double(), torch.ones(6)).backward()]:
    try:
        print(call())
    except RuntimeError as e:
        print(type(e).__name__, e)
for a, b in [(torch.randn(3).log_softmax(0), torch.tensor([0, 1, 0])),
             (torch.randn(3).log_softmax(0), torch.tensor([True, False, True])),
             (torch.tensor([1, 2, 3]), torch.rand(3)),
             (torch.randn(3).log_softmax(0), torch.rand(3, dtype=torch.float64))]:
    try:
        print(F.kl_div(a, b, reduction="batchmean"))
    except RuntimeError as e:
        print(type(e).__name__, e)
"""


def test_pointwise_losses_compute_in_the_operands_common_dtype_as_torch() -> None:
    """smooth_l1_loss (structured) returns the common dtype of input and target (float32
    with an integral target, not numpy's float64); huber_loss writes it into empty_like(input)
    (float32 with a float64 target, an integral input refused) and its backward's
    TensorIterator, which does not promote, refuses a target of another dtype ("Found dtype
    Double but expected Float"); mse_loss_backward computes in the common dtype of input,
    target and grad_output, its norm in that dtype; kl_div refuses integral or bool
    inputs."""
    assert gradtrace_output(POINTWISE_LOSS_TARGET_DTYPES) == \
        torch_output(POINTWISE_LOSS_TARGET_DTYPES)


LOSS_WEIGHT_DTYPES = """import torch
import numpy as np
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
y = torch.tensor([0, 2, 1, 0])
for w in [torch.tensor([1., 2., 3.], dtype=torch.float64), torch.tensor([1, 2, 3]),
          torch.from_numpy(np.array([0.5, 2.0, 1.5])), torch.tensor([1., 2., 3.]).half(),
          torch.tensor(2.0, dtype=torch.float64)]:
    for name, call in [("ce", lambda: nn.CrossEntropyLoss(weight=w)(x, y)),
                       ("ce ls", lambda: F.cross_entropy(x, y, weight=w, label_smoothing=0.1)),
                       ("nll 2d", lambda: F.nll_loss(x.log_softmax(1).view(4, 3, 1, 1),
                                                     y.view(4, 1, 1), weight=w)),
                       ("nll oob", lambda: F.nll_loss(x, torch.tensor([0, 5, 1, 0]), weight=w)),
                       ("bce", lambda: F.binary_cross_entropy(x.sigmoid(), torch.ones(4, 3),
                                                              weight=w, reduction="none"))]:
        try:
            out = call()
            x.grad = None
            out.sum().backward()
            print(name, out.dtype, out.sum().item(), x.grad.dtype, x.grad.sum().item())
        except (RuntimeError, IndexError) as e:
            print(name, type(e).__name__, e)
p = torch.tensor(0.5, requires_grad=True)
loss = F.binary_cross_entropy(p, torch.tensor(1.))
loss.backward()
print(loss, p.grad, F.binary_cross_entropy(torch.tensor([0.25]), torch.tensor([1.])))
lp = torch.randn(4, 3).log_softmax(1).requires_grad_()
for w in [torch.tensor(2.0), torch.ones(2), torch.tensor([[1.], [2.], [3.]])]:
    for inp, tgt in [(lp.view(4, 3, 1, 1), y.view(4, 1, 1)), (lp.view(4, 3, 1), y.view(4, 1)),
                     (lp, y), (lp[0], y[0])]:
        try:
            out = F.nll_loss(inp, tgt, weight=w)
            lp.grad = None
            out.backward()
            print(out, lp.grad)
        except RuntimeError as e:
            print(inp.dim(), e)
"""


def test_loss_weights_of_another_dtype_as_torch() -> None:
    """nll_loss (and cross_entropy over it) reads its class weights as the input's scalar
    type and refuses another ("expected scalar type Float but found Double": class weights
    from numpy's float64), after the weight's size check and before the targets' bounds;
    binary_cross_entropy multiplies its loss and gradient by the weight in place, so both
    keep the input's dtype; a 0-d binary_cross_entropy (its logf's correctly rounded fma
    over 0-d operands) runs. nll_loss2d (3-d and 4-d inputs) counts the weight's elements
    only, with its own message, where nll_loss wants a 1-D weight of C values."""
    assert gradtrace_output(LOSS_WEIGHT_DTYPES) == torch_output(LOSS_WEIGHT_DTYPES)


BACKWARD_HOOK_VIEW_INPLACE = """import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.randn(1, 3, requires_grad=True)
def show(call):
    try:
        print(call())
    except RuntimeError as e:
        print(e)
relu_after_hooked = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True))
relu_after_hooked[0].register_full_backward_hook(lambda *a: print("hook"))
show(lambda: relu_after_hooked(x).sum().backward())
show(lambda: relu_after_hooked(x.detach()).sum().backward())
class Two(nn.Module):
    def forward(self, a):
        return a * 2, a * 3
two = Two()
two.register_full_backward_hook(lambda *a: print("two hook"))
def both_differentiable():
    p, q = two(x)
    p.add_(1)
show(both_differentiable)
class OneOfTwo(nn.Module):
    def forward(self, a):
        return a * 2, a.detach() * 3
one_of_two = OneOfTwo()
one_of_two.register_full_backward_hook(lambda *a: print("one of two hook"))
def one_differentiable():
    p, q = one_of_two(x)
    q.add_(1)
    p.add_(1)
show(one_differentiable)
pre = nn.Linear(3, 3)
pre.register_full_backward_pre_hook(lambda mod, go: print("pre", go[0].shape))
show(lambda: pre(x).mul_(2))
"""


def test_backward_hook_outputs_modified_inplace_word_the_error_as_torch() -> None:
    """A module with full backward hooks returns BackwardHookFunction's views of its
    outputs; torch's _wrap_outputs marks them IN_CUSTOM_FUNCTION when one output is
    differentiable (an nn.ReLU(inplace=True) after a hooked Linear: "This view was created
    inside a custom Function ...") and MULTI_OUTPUT_NODE when more are, where gradtrace
    always gave the multiple-views wording."""
    assert gradtrace_output(BACKWARD_HOOK_VIEW_INPLACE) == torch_output(BACKWARD_HOOK_VIEW_INPLACE)


CONV_DTYPE_MISMATCH = """import torch
import torch.nn as nn
import torch.nn.functional as F
def show(name, call):
    try:
        print(name, call().dtype)
    except RuntimeError as e:
        print(name, e)
kinds = [torch.float32, torch.float64, torch.int64, torch.float16]
for fn, shape, w_shape in [(F.conv1d, (1, 2, 5), (1, 2, 2)), (F.conv2d, (1, 2, 5, 5), (1, 2, 2, 2)),
                           (F.conv3d, (1, 2, 3, 3, 3), (1, 2, 2, 2, 2)),
                           (F.conv_transpose2d, (1, 2, 5, 5), (2, 1, 2, 2))]:
    for di in kinds:
        for dw in kinds:
            if di != dw:
                x, w = torch.ones(shape, dtype=di), torch.ones(w_shape, dtype=dw)
                show(f"{fn.__name__} {di} {dw}", lambda: fn(x, w))
                show(f"{fn.__name__} {di} {dw} bias", lambda: fn(x, w, torch.ones(1, dtype=di)))
xd = torch.ones(1, 2, 5, 5, dtype=torch.float64)
show("numpy images", lambda: nn.Conv2d(2, 1, 2)(xd))
show("unbatched", lambda: nn.Conv2d(2, 1, 2)(xd[0]))
show("bad channels", lambda: nn.Conv2d(3, 1, 2)(xd))
show("bad channels no bias", lambda: nn.Conv2d(3, 1, 2, bias=False)(xd))
show("kernel too big no bias", lambda: F.conv2d(xd, torch.ones(1, 2, 9, 9)))
show("bias size", lambda: F.conv2d(xd, torch.ones(1, 2, 2, 2), torch.ones(3, dtype=torch.float64)))
show("stride", lambda: F.conv2d(xd, torch.ones(1, 2, 2, 2), torch.ones(1), stride=-1))
show("same", lambda: F.conv2d(xd, torch.ones(1, 2, 3, 3), torch.ones(1), padding="same"))
show("same bias", lambda: F.conv2d(xd, torch.ones(1, 2, 3, 3, dtype=torch.float64), torch.ones(1),
                                   padding="same"))
show("double bias", lambda: F.conv2d(xd.float(), torch.ones(1, 2, 3, 3), torch.ones(1).double()))
show("oneDNN", lambda: F.conv2d(torch.ones(8, 16, 32, 32), torch.ones(16, 16, 3, 3).double()))
show("transposed", lambda: nn.ConvTranspose2d(2, 1, 2)(xd))
show("long", lambda: nn.Conv1d(2, 1, 2)(torch.ones(1, 2, 5, dtype=torch.long)))
"""


def test_convolution_dtype_mismatches_word_the_error_as_torch() -> None:
    """conv1d/2d/3d (integer padding) first refuse a bias of another dtype than the input,
    with C++ type names ("Input type (double) and bias type (float) should be the same":
    float64 numpy images into an nn.Conv2d); a weight of another dtype is refused after
    the shape checks, by oneDNN's type comparison where torch runs it (float32 that
    use_mkldnn takes) and as the slow kernels' "expected scalar type Double but found
    Float" elsewhere (float16 too, oneDNN capped at AVX2 as the corpus runs torch)."""
    assert gradtrace_output(CONV_DTYPE_MISMATCH) == torch_output(CONV_DTYPE_MISMATCH)


NORM_DTYPE_MISMATCH = """import torch
import torch.nn as nn
import torch.nn.functional as F
def show(name, call):
    try:
        out = call()
        print(name, out.dtype, out.detach().double().sum().item())
    except (RuntimeError, NotImplementedError) as e:
        print(name, type(e).__name__, e)
for dt in [torch.float64, torch.int64, torch.int32]:
    x = torch.arange(6).view(2, 3).to(dt)
    show(f"ln {dt}", lambda: nn.LayerNorm(3)(x))
    show(f"ln no affine {dt}", lambda: nn.LayerNorm(3, elementwise_affine=False)(x))
    show(f"F.ln weight {dt}", lambda: F.layer_norm(x, (3,), torch.ones(3)))
    show(f"ln bad shape {dt}", lambda: nn.LayerNorm(4)(x))
    show(f"gn {dt}", lambda: nn.GroupNorm(1, 3)(x.view(2, 3, 1)))
    show(f"gn no affine {dt}", lambda: nn.GroupNorm(1, 3, affine=False)(x.view(2, 3, 1)))
    show(f"bn {dt}", lambda: nn.BatchNorm1d(3)(x))
    show(f"bn eval {dt}", lambda: nn.BatchNorm1d(3).eval()(x))
    show(f"in {dt}", lambda: nn.InstanceNorm1d(3, affine=True)(x.view(2, 3, 1).expand(2, 3, 2)))
show("ln double weight", lambda: F.layer_norm(torch.ones(2, 3), (3,), torch.ones(3).double()))
show("ln float input double bias", lambda: F.layer_norm(torch.ones(2, 3), (3,), None,
                                                         torch.ones(3).double()))
for mod in [nn.BatchNorm1d(4), nn.BatchNorm1d(4).eval(), nn.BatchNorm1d(4, affine=False),
            nn.BatchNorm1d(4, track_running_stats=False)]:
    show(f"bn features {mod.training}", lambda: mod(torch.ones(2, 3)))
model = nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3))
show("numpy rows", lambda: model(torch.ones(2, 4, dtype=torch.float64)))
"""


def test_normalization_dtype_and_size_checks_as_torch() -> None:
    """layer_norm and group_norm refuse parameters of another dtype than the input first
    (torch's check_mixed_data_type: "all inputs must share same datatype" unless the input
    is float32 or a reduced float, then "expect parameter to have scalar type of Float"),
    and integral inputs by their kernels' NotImplementedError; batch_norm refuses an
    integral input by its kernel and checks running_mean, running_var, weight and bias
    sizes in that order ("running_mean should contain 3 elements not 4")."""
    assert gradtrace_output(NORM_DTYPE_MISMATCH) == torch_output(NORM_DTYPE_MISMATCH)


POOLING_INTEGRAL_INPUTS = """import torch
import torch.nn as nn
import torch.nn.functional as F
def show(name, call):
    try:
        out = call()
        print(name, out.dtype, out.sum().item())
    except (RuntimeError, NotImplementedError) as e:
        print(name, type(e).__name__, e)
long_cube = torch.arange(-20, 44).view(1, 1, 4, 4, 4)
print(F.avg_pool3d(long_cube, 3, 1, 1), F.avg_pool3d(long_cube, 2, divisor_override=3))
for dt in [torch.int64, torch.int32, torch.uint8, torch.bool]:
    x1 = torch.ones(1, 2, 4, dtype=dt)
    x2 = torch.ones(1, 2, 4, 4, dtype=dt)
    x3 = torch.ones(1, 2, 2, 4, 4, dtype=dt)
    show(f"max_pool1d {dt}", lambda: F.max_pool1d(x1, 2))
    show(f"max_pool1d indices {dt}", lambda: F.max_pool1d(x1, 2, return_indices=True)[0])
    show(f"max_pool2d {dt}", lambda: nn.MaxPool2d(2)(x2))
    show(f"max_pool3d {dt}", lambda: F.max_pool3d(x3, 2))
    show(f"avg_pool1d {dt}", lambda: F.avg_pool1d(x1, 2))
    show(f"avg_pool2d {dt}", lambda: nn.AvgPool2d(2)(x2))
    show(f"avg_pool3d {dt}", lambda: F.avg_pool3d(x3, 2))
    show(f"adaptive_max_pool2d {dt}", lambda: F.adaptive_max_pool2d(x2, 2))
    show(f"adaptive_avg_pool2d {dt}", lambda: nn.AdaptiveAvgPool2d(2)(x2))
    show(f"adaptive_avg_pool1d {dt}", lambda: F.adaptive_avg_pool1d(x1, 2))
    show(f"lp_pool2d {dt}", lambda: F.lp_pool2d(x2, 2, 2))
    show(f"relu {dt}", lambda: F.relu(x1))
    show(f"relu_ {dt}", lambda: nn.ReLU(inplace=True)(x1.clone()))
"""


def test_pooling_and_relu_refuse_the_dtypes_their_kernels_do_not_take() -> None:
    """Integral images (uint8 pixels) into pooling layers: max_pool1d without indices runs
    max_pool1d_impl (floating types only), max pooling with indices takes integers but not
    bool, avg_pool1d/2d/3d take int64 only (divided in int64), the adaptive pools floating
    types only, each
    refusal torch's NotImplementedError naming its kernel; relu refuses bool inputs with
    its own message."""
    assert gradtrace_output(POOLING_INTEGRAL_INPUTS) == torch_output(POOLING_INTEGRAL_INPUTS)


BILINEAR_COSINE_DTYPES = """import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
def show(name, call):
    try:
        out = call()
        print(name, out.dtype, out)
    except RuntimeError as e:
        print(name, e)
x = torch.randn(2, 3, dtype=torch.float64)
show("bilinear numpy rows", lambda: nn.Bilinear(3, 3, 1)(x, x))
show("bilinear no bias", lambda: F.bilinear(x, x, torch.ones(1, 3, 3)))
show("bilinear bias", lambda: F.bilinear(x.float(), x.float(), torch.ones(1, 3, 3),
                                         torch.ones(1).double()))
show("bilinear sizes and dtypes", lambda: F.bilinear(x, x, torch.ones(1, 4, 3)))
show("bilinear long", lambda: nn.Bilinear(3, 3, 1)(x.long(), x.long()))
show("cosine long float", lambda: F.cosine_similarity(torch.arange(6).view(2, 3), x.float()))
show("cosine long", lambda: F.cosine_similarity(torch.ones(2, 3, dtype=torch.long),
                                                torch.ones(2, 3, dtype=torch.long)))
show("cosine bool long", lambda: F.cosine_similarity(torch.ones(2, 3, dtype=torch.bool),
                                                     torch.ones(2, 3, dtype=torch.long)))
show("cosine float double", lambda: F.cosine_similarity(x.float(), x))
"""


def test_bilinear_and_cosine_similarity_dtypes_as_torch() -> None:
    """bilinear refuses operands of different dtypes first, naming each in C++ ("All tensors
    must have the same dtype, got input1: double, ..."); cosine_similarity refuses a
    non-floating common dtype and casts integral inputs to the common one."""
    assert gradtrace_output(BILINEAR_COSINE_DTYPES) == torch_output(BILINEAR_COSINE_DTYPES)


HALF_NORMS = """import torch
import torch.nn.functional as F
x = torch.tensor([[1., 2., 3.], [0.5, 0.25, 4.]]).half()
calls = [("norm", lambda: x.norm()), ("vn", lambda: torch.linalg.vector_norm(x, dim=1)),
         ("normalize", lambda: F.normalize(x)), ("cos", lambda: F.cosine_similarity(x, x.flip(0))),
         ("pdist", lambda: F.pairwise_distance(x, x.flip(0))),
         ("div", lambda: x / x.norm(dim=1, keepdim=True)),
         ("clamp", lambda: x.norm(dim=1).clamp_min(1e-12)), ("sum", lambda: (x * x).sum(1)),
         ("sqrt", lambda: x.sqrt()), ("add eps", lambda: x - x.flip(0) + 1e-6)]
for name, f in calls:
    try:
        r = f(); print(name, r.dtype, r)
    except Exception as e: print(name, type(e).__name__, e)
torch.manual_seed(0)
for shape, dim in [((7, 33), 1), ((5, 300), 1), ((40,), 0), ((3, 4, 5), (0, 2))]:
    y = (torch.randn(shape) * 3).half()
    for p in [2, 1, 3.5, float("inf")]:
        r = torch.linalg.vector_norm(y, p, dim)
        print(shape, p, r.dtype, r.float().sum().item(), r.view(-1)[:3])
yg = torch.randn(4, 6).half().requires_grad_()
F.normalize(yg).sum().backward()
print(yg.grad)
"""


def test_float16_norms_keep_their_dtype_as_torch() -> None:
    """vector_norm (and Tensor.norm, F.normalize, cosine_similarity, pairwise_distance over
    it) of a float16 tensor accumulates in float32 and returns float16, where gradtrace
    returned float64 values."""
    assert gradtrace_output(HALF_NORMS) == torch_output(HALF_NORMS)


BACKWARD_GRADIENT_COUNTS = """import torch
torch.manual_seed(0)
def t(f):
    try:
        r = f()
        print("ok", r)
    except Exception as e:
        print(type(e).__name__, e)
x = torch.randn(3, requires_grad=True)
y = x * 2
t(lambda: y.backward(torch.ones(2)))
t(lambda: y.backward(torch.ones(3, dtype=torch.float64), retain_graph=True))
print(x.grad)
t(lambda: y.backward(torch.ones(3, dtype=torch.long), retain_graph=True))
t(lambda: y.backward(torch.ones(1, 3), retain_graph=True))
t(lambda: y.backward(torch.tensor(1.0), retain_graph=True))
t(lambda: y.sum().backward(torch.ones(1), retain_graph=True))
t(lambda: y.sum().backward(torch.tensor(2.0, dtype=torch.float64), retain_graph=True))
print(x.grad)
half = torch.ones(3, dtype=torch.float16)
t(lambda: torch.autograd.grad(y, x, grad_outputs=half, retain_graph=True))
t(lambda: torch.autograd.grad(y, x, grad_outputs=torch.ones(4), retain_graph=True))
t(lambda: torch.autograd.grad([y, y], [x], grad_outputs=[torch.ones(3)], retain_graph=True))
t(lambda: torch.autograd.grad(y.sum(), [x, x], retain_graph=True))
t(lambda: torch.autograd.backward([y], [torch.ones(3), torch.ones(3)]))
t(lambda: y.backward(torch.ones(3, requires_grad=True)))
z = torch.ones(3, dtype=torch.float64, requires_grad=True)
w = (z * x).sum()
w.backward()
print(w.dtype, z.grad.dtype, x.grad.dtype, x.grad)
x = torch.randn(3)
for f in [lambda: x.backward(), lambda: (x*2).backward(torch.ones(2)),
          lambda: torch.autograd.backward([x], [None]),
          lambda: torch.autograd.grad([x.sum()], [x])]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_backward_gradient_counts_and_check_order_as_torch() -> None:
    """torch.autograd.backward/grad zip the outputs with the given gradients (_make_grads:
    extra gradients are dropped, shapes and implicit ones checked first), then the engine
    refuses fewer gradients than outputs ("got 2 tensors and 1 gradients"), an output not
    requiring grad, and only then a differentiated input that does not."""
    assert gradtrace_output(BACKWARD_GRADIENT_COUNTS) == torch_output(BACKWARD_GRADIENT_COUNTS)
