"""`foreach=True` optimizers against live PyTorch 2.13. On the CPU torch's multi-tensor
update runs each `torch._foreach_*` op one tensor at a time; for SGD, Adam, AdamW, RMSprop,
Adagrad, Adamax, Adadelta and Rprop that is the for-loop update's arithmetic in its order,
so gradtrace's for-loop update gives torch's bits (it refused `foreach=True` before). NAdam,
RAdam and ASGD round differently in their multi-tensor form and are still refused, in words
that say why.

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


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "ASGD"])
def test_foreach_updates_that_round_differently_are_refused_with_the_reason(name: str):
    script = (f"import torch\nw = torch.ones(2, requires_grad=True)\n"
              f"opt = torch.optim.{name}([w], foreach=True)\nw.sum().backward()\nopt.step()\n")
    printed = gradtrace_output(script)
    assert f"{name}(foreach=True) is not supported: its multi-tensor update rounds " \
           "differently" in printed
