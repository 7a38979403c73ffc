"""`foreach=True` optimizers against live PyTorch 2.13. On the CPU torch's multi-tensor
update runs each `torch._foreach_*` op one tensor at a time; for SGD, Adam, AdamW, RMSprop,
Adagrad, Adamax, Adadelta and Rprop that is the for-loop update's arithmetic in its order,
so gradtrace's for-loop update gives torch's bits (it refused `foreach=True` before). NAdam,
RAdam and ASGD round differently in their multi-tensor form: gradtrace runs that order,
parameter by parameter.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

TRAIN = """import torch
torch.manual_seed(0)
configs = [
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=1e-2)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    (torch.optim.Adam, dict(lr=1e-2, weight_decay=0.1, amsgrad=True)),
    (torch.optim.AdamW, dict(lr=1e-2, maximize=True)),
    (torch.optim.RMSprop, dict(lr=1e-2, momentum=0.9, centered=True, weight_decay=0.1)),
    (torch.optim.Adagrad, dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
    (torch.optim.Adamax, dict(lr=1e-2, weight_decay=0.1)),
    (torch.optim.Adadelta, dict(lr=1.0, weight_decay=0.1)),
    (torch.optim.Rprop, dict(lr=1e-2)),
]
for cls, options in configs:
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(9, 17), torch.nn.Tanh(), torch.nn.Linear(17, 2))
    opt = cls([{"params": model[0].parameters()},
               {"params": model[2].parameters(), "lr": options["lr"] / 2}],
              foreach=True, **options)
    for _ in range(5):
        opt.zero_grad()
        model(torch.randn(13, 9)).pow(2).mean().backward()
        opt.step()
    print(cls.__name__, opt.param_groups[0]["foreach"],
          [p.detach().double().sum().item() for p in model.parameters()],
          model[2].weight[0].tolist())
"""


def test_foreach_updates_give_torch_s_bits_where_torch_s_arithmetic_is_the_for_loop_s():
    assert gradtrace_output(TRAIN) == torch_output(TRAIN)


MULTI_TENSOR_ORDER = """import torch
O = torch.optim
decoupled = dict(lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True)
grid = [
    (O.NAdam, dict(lr=1e-2)), (O.NAdam, dict(lr=1e-2, weight_decay=0.1)), (O.NAdam, decoupled),
    (O.NAdam, dict(lr=1e-2, maximize=True, momentum_decay=0.01)),
    (O.RAdam, dict(lr=1e-2)), (O.RAdam, dict(lr=1e-2, weight_decay=0.1)), (O.RAdam, decoupled),
    (O.RAdam, dict(lr=1e-2, maximize=True)),
    (O.ASGD, dict(lr=1e-2)), (O.ASGD, dict(lr=1e-2, weight_decay=0.1)),
    (O.ASGD, dict(lr=1e-2, maximize=True, t0=2)),
    (O.ASGD, dict(lr=1e-2, weight_decay=0.1, maximize=True, lambd=1e-2, alpha=0.5)),
]
for cls, kw in grid:
    torch.manual_seed(1)
    m = torch.nn.Sequential(torch.nn.Linear(7, 13), torch.nn.Tanh(), torch.nn.Linear(13, 3))
    opt = cls([{'params': m[0].parameters()},
               {'params': m[2].parameters(), 'lr': kw['lr'] * 0.5}], foreach=True, **kw)
    for i in range(8):
        opt.zero_grad()
        m(torch.randn(17, 7)).pow(2).mean().backward()
        opt.step()
    print(cls.__name__, [p.detach().double().sum().item() for p in m.parameters()],
          m[2].weight[0].tolist())
    st = opt.state[m[2].weight]
    print(sorted(st.keys()), [v.tolist() if v.numel() == 1 else v.double().sum().item()
                              for k, v in sorted(st.items())])
"""


def test_foreach_updates_that_round_differently_run_torch_s_multi_tensor_order():
    """NAdam (√v / √(1 - β2^step) and two addcdivs), RAdam (the reciprocal buffer) and ASGD
    (one addcmul, eta computed on the step tensor): parameters and optimizer state."""
    assert gradtrace_output(MULTI_TENSOR_ORDER) == torch_output(MULTI_TENSOR_ORDER)
