"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 77
(the errors nn layers and losses raise on wrong input, as GitHub issues quote them) found:

- RNNCell/LSTMCell/GRUCell check their input and hidden sizes as ATen's rnn cells do
  ("input has inconsistent input_size", "Input batch size 5 doesn't match hidden0 batch
  size 2", "hidden1 has inconsistent hidden_size"; a single tensor for LSTMCell's (h, c) is
  the parser's "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors"), where
  gradtrace's matmuls and broadcasting refused them in their own words;
- F.max_pool1d without indices runs ATen's check_max_pool1d ("max_pool1d() Invalid computed
  output size: 0", its kernel, padding and dilation messages, zero-size inputs), where
  gradtrace gave the 2-D pool's "Output size is too small";
- binary_cross_entropy_with_logits's weight and pos_weight broadcast as torch's in-place
  steps do (numpy's "operands could not be broadcast" leaked out), F.binary_cross_entropy's
  weight through torch.broadcast_shapes and its loss of the input's shape; torch.broadcast_
  shapes names a mismatching argument as it was given (torch.Size([4]), [4], (4,));
- bundled library code (nn.Linear's F.linear, nn.LayerNorm, nn.ReLU) given a list or None
  is refused by torch's argument parser ("linear(): argument 'input' (position 1) must be
  Tensor, not list") instead of an engine AttributeError; Module.add_module names a class
  or function by torch.typename ("torch.nn.modules.activation.ReLU is not a Module
  subclass");
- addmm expands its bias with expand's words ("The expanded size of the tensor (4) must
  match the existing size (5) ... Target sizes: [2, 4].  Tensor sizes: [5]"), addmm_ refuses
  a self of another shape than the product first ("Bad in-place call"), and F.linear
  flattens a contiguous input into one addmm when the bias has one dim that is not 1 (as
  torch 2.13 does, measured), else runs matmul and an add, where gradtrace flattened every
  3-D input and refused a (2, 4) bias torch takes;
- masked_scatter checks dtypes, then the mask's, in masked_scatter__cpu's words ("but
  gotFloat and Double", "only supports boolean masks", "Number of elements of source <
  number of ones in mask");
- load_state_dict's _IncompatibleKeys is torch's namedtuple subclass (a tuple, _fields);
- nll_loss (and cross_entropy's class-index path) checks the target's dtype after its
  shapes, as the kernels do: a 2-D Float target of 2-D logits is "0D or 1D target tensor
  expected, multi-target not supported", not the dtype error;
- mse/l1/smooth_l1/huber losses of a target (or input) that is no tensor fail as torch's
  `target.size()` does ("'list' object has no attribute 'size'"), not on 'shape'.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

PROLOGUE = """import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
def t(f):
    try:
        r = f()
        print("OK", tuple(r.shape) if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(type(e).__name__ + ":", str(e))
"""

RNN_CELL_CHECKS = PROLOGUE + """
x = torch.randn(5, 3)
for cell in (nn.RNNCell(3, 4), nn.RNNCell(3, 4, nonlinearity="relu"), nn.GRUCell(3, 4),
             nn.GRUCell(3, 4, bias=False)):
    t(lambda: cell(x, torch.randn(2, 4)))
    t(lambda: cell(torch.randn(5, 7)))
    t(lambda: cell(torch.randn(5, 7), torch.randn(2, 9)))
    t(lambda: cell(x, torch.randn(5, 6)))
    t(lambda: cell(torch.randn(3), torch.randn(6)))
    t(lambda: cell(torch.randn(4), torch.randn(4)))
    t(lambda: cell(x, torch.randn(5, 4)))
lstm = nn.LSTMCell(3, 4)
t(lambda: lstm(x, (torch.randn(2, 4), torch.randn(5, 4))))
t(lambda: lstm(x, (torch.randn(5, 4), torch.randn(2, 4))))
t(lambda: lstm(x, (torch.randn(5, 4), torch.randn(5, 6))))
t(lambda: lstm(x, (torch.randn(5, 6), torch.randn(2, 4))))
t(lambda: lstm(torch.randn(5, 2), (torch.randn(2, 4), torch.randn(2, 4))))
t(lambda: lstm(torch.randn(3), (torch.randn(5), torch.randn(4))))
t(lambda: lstm(x, (torch.randn(5, 4), torch.randn(5, 4)))[1])
t(lambda: lstm(x)[0])
t(lambda: lstm(x, torch.randn(1, 4)))
t(lambda: lstm(torch.randn(1, 3), torch.randn(1, 4)))
"""

MAX_POOL1D_CHECKS = PROLOGUE + """
xr = torch.randn(1, 1, 1, requires_grad=True)
t(lambda: F.max_pool1d(torch.randn(1, 1, 1), 2))
t(lambda: F.max_pool1d(xr, 2))
with torch.no_grad():
    t(lambda: F.max_pool1d(xr, 2))
t(lambda: F.max_pool1d(torch.randn(1, 1, 1), 2, return_indices=True)[0])
t(lambda: nn.MaxPool1d(3, stride=2)(torch.randn(2, 4, 2)))
t(lambda: nn.MaxPool1d(3, stride=2, return_indices=True)(torch.randn(2, 4, 2))[0])
t(lambda: F.max_pool1d(torch.randn(2, 5), 3, padding=2))
t(lambda: F.max_pool1d(torch.randn(2, 5), 3, padding=2, dilation=2))
t(lambda: F.max_pool1d(torch.randn(2, 5, requires_grad=True), 3, padding=2))
t(lambda: F.max_pool1d(torch.randn(2, 5), 0))
t(lambda: F.max_pool1d(torch.randn(2, 5), 2, stride=0))
t(lambda: F.max_pool1d(torch.randn(2, 5), 2, padding=-1))
t(lambda: F.max_pool1d(torch.randn(2, 5), 2, dilation=0))
t(lambda: F.max_pool1d(torch.randn(2, 5), 6, ceil_mode=True))
t(lambda: F.max_pool1d(torch.randn(2, 5), 3, stride=7, padding=1, ceil_mode=True))
t(lambda: F.max_pool1d(torch.randn(2, 5), 3, stride=2, padding=1, dilation=2, ceil_mode=True))
t(lambda: F.max_pool1d(torch.randn(2, 1), 1, stride=2, ceil_mode=True))
t(lambda: F.max_pool1d(torch.randn(2, 0), 2))
t(lambda: F.max_pool1d(torch.randn(0, 5), 2))
t(lambda: F.max_pool1d(torch.randn(3, 0, 5), 2))
t(lambda: F.max_pool1d(torch.randn(3, 2, 0), 2))
t(lambda: F.max_pool1d(torch.randn(3, 2, 4).long(), 2))
t(lambda: torch.max_pool1d(torch.randn(3, 2, 1), 2))
"""

BCE_WEIGHT_BROADCASTING = PROLOGUE + """
x = torch.randn(4, 5)
y = torch.rand(4, 5)
bce = F.binary_cross_entropy_with_logits
for weight in (torch.rand(4), torch.rand(3, 4, 5), torch.rand(5), torch.rand(4, 1), None):
    for pos_weight in (torch.rand(4), torch.rand(3, 4, 5), torch.rand(3, 1, 1), torch.rand(5),
                       torch.rand(4, 1), torch.rand(2, 5), None):
        t(lambda: bce(x, y, weight=weight, pos_weight=pos_weight))
        t(lambda: bce(x, y, weight=weight, pos_weight=pos_weight, reduction="none"))
    t(lambda: F.binary_cross_entropy(x.sigmoid(), y, weight=weight))
t(lambda: nn.BCEWithLogitsLoss(weight=torch.rand(4))(x, y))
t(lambda: nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))(torch.randn(4, 2), torch.rand(4, 2)))
t(lambda: F.binary_cross_entropy_with_logits(torch.randn(4, 10, 10), torch.rand(4, 10, 10),
                                             pos_weight=torch.tensor([1., 1.])))
for shapes in [((4, 5), (4,)), (torch.Size([4, 5]), torch.Size([4])), ((4, 5), [4]),
               (torch.Size([4, 5]), (3, 1, 4)), ((2,), (3,), (4,))]:
    t(lambda: torch.broadcast_shapes(*shapes))
"""

LIBRARY_ARGUMENTS_PARSED = PROLOGUE + """
t(lambda: nn.Linear(3, 2)([1., 2., 3.]))
t(lambda: nn.Linear(3, 2)((torch.randn(3),)))
t(lambda: nn.Linear(3, 2)(None))
t(lambda: nn.Embedding(4, 2)([1, 2]))
t(lambda: nn.LayerNorm(3)([1., 2., 3.]))
t(lambda: nn.ReLU()([1., 2.]))
t(lambda: nn.Linear(3, 2)(torch.randn(2, 3)))
t(lambda: nn.Sequential(nn.Linear(3, 2), nn.ReLU)(torch.randn(2, 3)))
t(lambda: nn.Sequential(nn.Linear(3, 2), "relu"))
t(lambda: nn.Sequential(nn.Linear(3, 2), F.relu))
t(lambda: nn.ModuleList([nn.Linear(3, 2), nn.ReLU]))
t(lambda: nn.Module().add_module("a", nn.ReLU))
t(lambda: nn.Module().add_module("a", 3))
t(lambda: nn.Module().add_module("a", torch.zeros(2)))
t(lambda: nn.ModuleDict({"a": [nn.ReLU()]}))
"""

LINEAR_AND_ADDMM_BIAS = PROLOGUE + """
torch.set_printoptions(precision=10)
m1 = torch.randn(2, 3)
m2 = torch.randn(3, 4)
x3 = torch.randn(5, 2, 3)
x4 = torch.randn(5, 2, 2, 3)
xt = torch.randn(2, 5, 3).transpose(0, 1)
for shape in [(4,), (5,), (1,), (), (2, 1), (3, 1), (1, 4), (1, 3), (2, 2), (2, 4), (4, 2),
              (8, 1), (1, 1), (1, 2, 4), (2, 2, 4), (1, 1, 4), (2, 1, 1), (5, 2, 1), (5, 1, 4),
              (1, 1, 1, 4)]:
    b = torch.randn(shape)
    t(lambda: torch.addmm(b, m1, m2))
    for x in (m1, x3, x4, xt):
        def run():
            y = F.linear(x, m2.t(), b)
            print(y.grad_fn.name() if y.grad_fn else None, y.sum().item())
            return y
        t(run)
for shape in [(2, 2), (2, 4), (4,), (1, 4), (2, 4, 1)]:
    t(lambda: torch.randn(shape).addmm_(m1, m2))
x = torch.randn(5, 2, 3, requires_grad=True)
b = torch.randn(1, 4, requires_grad=True)
y = F.linear(x, m2.t(), b)
y.pow(2).sum().backward()
print(y.grad_fn.name(), b.grad, x.grad.sum().item())
"""

MASKED_SCATTER_AND_INCOMPATIBLE_KEYS = PROLOGUE + """
m = torch.tensor([True, False, True])
t(lambda: torch.zeros(3).masked_scatter_(m, torch.ones(3).double()))
t(lambda: torch.zeros(3).masked_scatter(m, torch.ones(3).double()))
t(lambda: torch.masked_scatter(torch.zeros(3), m, torch.ones(3).double()))
t(lambda: torch.zeros(3, dtype=torch.long).masked_scatter_(m, torch.ones(3)))
t(lambda: torch.zeros(3).masked_scatter_(torch.tensor([1, 0, 1]), torch.ones(3).double()))
t(lambda: torch.zeros(3).masked_scatter(torch.tensor([1, 0, 1]), torch.ones(3)))
t(lambda: torch.zeros(3).masked_scatter_(m, torch.ones(1)))
t(lambda: torch.zeros(3, requires_grad=True).masked_scatter(m, torch.ones(1)))
t(lambda: torch.zeros(3).masked_scatter_(torch.ones(2, 3, dtype=torch.bool), torch.ones(6)))
t(lambda: torch.zeros(3).masked_scatter(m, torch.arange(4.)))
r = nn.Linear(2, 2).load_state_dict(nn.Linear(2, 2).state_dict())
print(r, isinstance(r, tuple), type(r).__name__, type(r).__mro__[1].__name__, r._fields,
      r == ([], []), tuple(r), repr(r), str(r))
r = nn.Linear(2, 2).load_state_dict({"weight": torch.zeros(2, 2), "w": torch.ones(1)},
                                    strict=False)
missing, unexpected = r
print(r, r._asdict(), r.missing_keys, len(r), r.count([]), r.index(["w"]), missing, unexpected,
      type(r).__module__, type(r).__qualname__, r._replace(missing_keys=[]), r[0], r[-1])
"""

NLL_TARGET_CHECK_ORDER = PROLOGUE + """
x = torch.randn(4, 5)
for tgt in [torch.rand(4, 6), torch.rand(4), torch.rand(3), torch.rand(3, 6), torch.tensor(2.),
            torch.rand(4, 5), torch.rand(4, 5).double(), torch.randint(0, 5, (4,)).int(),
            torch.randint(0, 5, (4, 2)).int(), torch.rand(4, 2, 2), torch.tensor([1])]:
    t(lambda: F.cross_entropy(x, tgt))
    t(lambda: F.nll_loss(x, tgt))
    t(lambda: F.nll_loss(torch.randn(5), tgt))
    t(lambda: F.nll_loss(torch.randn(4, 5, 2, 2), tgt))
    t(lambda: F.nll_loss(torch.randn(4, 5, 2), tgt))
    t(lambda: F.nll_loss(torch.randn(4, 5, 3, 2, 2), tgt))
    t(lambda: F.nll_loss(x, tgt, weight=torch.ones(3)))
    t(lambda: F.cross_entropy(torch.randn(4, 5, 2), tgt))
"""

POINTWISE_LOSS_OF_A_LIST = PROLOGUE + """
x = torch.randn(3)
for loss in (nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(), nn.HuberLoss(),
             nn.SmoothL1Loss(beta=0.0)):
    t(lambda: loss(x, [1., 2., 3.]))
    t(lambda: loss(x, 1.0))
    t(lambda: loss(x, None))
    t(lambda: loss([1., 2., 3.], x))
    t(lambda: loss(x, (1, 2, 3)))
for f in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
    t(lambda: f(x, [1., 2., 3.]))
    t(lambda: f(3, x))
    t(lambda: f(x, torch.tensor([1., 2., 3.])))
"""


@pytest.mark.parametrize("script", [RNN_CELL_CHECKS, MAX_POOL1D_CHECKS, BCE_WEIGHT_BROADCASTING,
                                    LIBRARY_ARGUMENTS_PARSED, LINEAR_AND_ADDMM_BIAS,
                                    MASKED_SCATTER_AND_INCOMPATIBLE_KEYS, NLL_TARGET_CHECK_ORDER,
                                    POINTWISE_LOSS_OF_A_LIST],
                         ids=["rnn_cells", "max_pool1d", "bce_weights", "library_arguments",
                              "linear_bias", "masked_scatter_incompatible_keys",
                              "nll_target_order", "pointwise_loss_of_a_list"])
def test_nn_errors_are_worded_as_torch_words_them(script: str) -> None:
    assert gradtrace_output(script) == torch_output(script)
