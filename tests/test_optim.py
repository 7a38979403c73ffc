"""torch.optim as the views see it: an optimizer's step() is told as one update per parameter
(its rule, hyper-parameters, gradient, values before and after) on the user's line, and
zero_grad() as one sentence; the parity of the numbers themselves is in
tests/conformance_extra/optim_*.gt (recorded from torch 2.13)."""
from __future__ import annotations

import pytest

from gradtrace.errors import NotSupportedError
from gradtrace.render import explain as ex
from gradtrace.render.json import document, validate
from gradtrace.runner import run_text

SGD_MOMENTUM = """\
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.nn.Parameter(torch.tensor([0.5]))
opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)
for i in range(2):
    opt.zero_grad()
    loss = (w ** 2).sum() + (b * 3).sum()
    loss.backward()
    opt.step()
print(w.tolist(), b.tolist())
"""


def explained(text: str, lang: str = "en") -> ex.Explanation:
    return ex.explain(run_text(text, trace=True), lang)


def steps_of(explanation: ex.Explanation, kind: str) -> list[ex.Step]:
    return [s for s in explanation.steps if s.kind == kind]


def test_step_is_told_as_one_update_per_parameter_with_its_numbers():
    updates = steps_of(explained(SGD_MOMENTUM), "optimizer.update")
    assert [(u.line, u.facts["tensor"]) for u in updates] == [(9, "w"), (9, "b")] * 2
    first, second = updates[0], updates[2]
    assert first.facts["rule"] == "buf = w.grad; w ← w - lr·buf"
    assert second.facts["rule"] == "buf = momentum·buf + w.grad; w ← w - lr·buf"
    assert first.facts["before"] == [1.0, -2.0] and first.facts["grad"] == [2.0, -4.0]
    # buf = grad on the first step: w - 0.1 * grad, rounded to float32 as torch does
    assert first.facts["after"] == pytest.approx([0.8, -1.6], rel=1e-6)
    assert "SGD.step() updated w in place by buf = w.grad; w ← w - lr·buf" in first.text
    assert "(lr=0.1, momentum=0.9)" in first.text
    assert "version 0 → 1" in first.text


def test_the_update_ops_inside_step_are_not_told_one_by_one():
    e = explained(SGD_MOMENTUM)
    at_step = [s.kind for s in e.steps if s.line == 9]
    assert set(at_step) == {"optimizer.update"}


def test_zero_grad_is_one_sentence_naming_every_cleared_gradient():
    (cleared,) = steps_of(explained(SGD_MOMENTUM), "grad.cleared.library")
    assert cleared.line == 6  # the first zero_grad found no gradient: nothing to tell
    assert cleared.facts["grads"] == ["w.grad", "b.grad"]
    assert "`opt.zero_grad()` set w.grad and b.grad to None" in cleared.text


def test_a_step_without_gradients_says_it_changed_nothing():
    e = explained("import torch\nw = torch.ones(2, requires_grad=True)\n"
                  "opt = torch.optim.Adam([w])\nopt.step()\n")
    (note,) = steps_of(e, "optimizer.no_update")
    assert note.line == 4 and "Adam.step() changed no parameter" in note.text


def test_chinese_tells_the_same_updates():
    en, zh = explained(SGD_MOMENTUM), explained(SGD_MOMENTUM, "zh")
    assert [s.kind for s in en.steps] == [s.kind for s in zh.steps]
    assert all(s.text for s in steps_of(zh, "optimizer.update"))


def test_json_document_carries_the_update_on_the_users_line():
    doc = document(run_text(SGD_MOMENTUM, trace=True))
    validate(doc)
    updates = [e for e in doc["events"] if e["kind"] == "param_update"]
    assert [e["line"] for e in updates] == [9] * 4
    assert {e["facts"]["optimizer"] for e in updates} == {"SGD"}
    steps = [e["facts"]["phase"] for e in doc["events"] if e["kind"] == "optimizer_step"]
    assert steps == ["begin", "end"] * 2
    inplace = [e for e in doc["events"] if e["kind"] == "inplace"]
    assert all(e["line"] == 9 and e["facts"]["library"] for e in inplace)
    # only the parameters' own changes are marked as part of the update (not the buffers')
    params = {doc["variables"]["w"], doc["variables"]["b"]}
    assert {e["facts"]["tensor"] for e in inplace if e["facts"].get("update")} == params
    assert not params & {e["facts"]["tensor"] for e in inplace if not e["facts"].get("update")}


def test_scheduler_changes_the_learning_rate_the_next_update_uses():
    text = SGD_MOMENTUM.replace(
        "for i in range(2):",
        "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)\n"
        "for i in range(2):").replace("    opt.step()\n", "    opt.step()\n    sched.step()\n")
    updates = steps_of(explained(text), "optimizer.update")
    assert [u.facts["numbers"] for u in updates] == ["lr=0.1, momentum=0.9"] * 2 + [
        "lr=0.05, momentum=0.9"] * 2


def test_fused_is_refused_not_run_differently():
    for optimizer, option in (("SGD", "fused"), ("Adam", "fused")):
        result = run_text("import torch\nw = torch.ones(2, requires_grad=True)\n"
                          f"opt = torch.optim.{optimizer}([w], lr=0.1, {option}=True)\n"
                          "w.grad = torch.ones(2)\nopt.step()\n")
        assert isinstance(result.error, NotSupportedError), option
        assert f"{optimizer}({option}=True) is not supported" in str(result.error)
        assert result.error.span.line == 5


def test_a_foreach_update_is_told_as_the_for_loop_s_per_parameter_update():
    text = ("import torch\nw = torch.ones(2, requires_grad=True)\n"
            "opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, foreach=True)\n"
            "for i in range(2):\n    opt.zero_grad()\n    (w * w).sum().backward()\n"
            "    opt.step()\n")
    updates = steps_of(explained(text), "optimizer.update")
    assert [u.facts["numbers"] for u in updates] == ["lr=0.1, momentum=0.9"] * 2


def test_a_users_own_optimizer_step_is_told_as_its_own_lines():
    e = explained("""\
import torch
class Plain(torch.optim.Optimizer):
    def __init__(self, params, lr):
        super().__init__(params, dict(lr=lr))
    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group['params']:
                p.add_(p.grad, alpha=-group['lr'])
w = torch.ones(2, requires_grad=True)
opt = Plain([w], lr=0.1)
(w * w).sum().backward()
opt.step()
""")
    assert not steps_of(e, "optimizer.no_update") and not steps_of(e, "optimizer.update")
    assert any(s.line == 9 and "changed w in place" in s.text for s in e.steps)
