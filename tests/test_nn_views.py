"""torch.nn in the views (issue 12 item 6): parameters are named by their module path, the
trace files tensors and nodes under the module call that recorded them, and `explain`
tells a module call at the user's line. (What nn prints is in tests/conformance_extra/nn_*.)
"""
from __future__ import annotations

import io

from gradtrace.render import explain as ex
from gradtrace.render.json import document, validate
from gradtrace.runner import run_text

NET = """
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.body(x))


model = Net()
for name, p in model.named_parameters():
    pass
x = torch.randn(2, 3)
out = model(x)
out.sum().backward()
"""


def traced(text: str):
    result = run_text(text, stdout=io.StringIO(), trace=True)
    assert result.error is None, result.error
    return result


def test_parameters_are_named_by_module_path_even_after_a_loop_variable_held_them():
    doc = document(traced(NET))
    validate(doc)
    names = {t["label"] for t in doc["tensors"] if t.get("module")}
    assert {"model.body.0.weight", "model.body.0.bias", "model.head.weight",
            "model.head.bias"} <= names
    assert "p" not in names  # the loop's last `p` is model.head.bias, named by its path


def test_trace_files_parameters_nodes_and_outputs_under_their_module():
    doc = document(traced(NET))
    module_of = {t["label"]: t.get("module") for t in doc["tensors"]}
    assert module_of["model.body.0.weight"] == "model.body.0"
    assert module_of["model.head.bias"] == "model.head"
    assert module_of["out"] == "model.head"  # made by the innermost call: the head's addmm
    nodes = {n["name"]: n.get("module") for n in doc["nodes"]}
    assert nodes["ReluBackward0"] == "model.body.1"
    assert nodes["SumBackward0"] is None  # `out.sum()` is the script's, outside any module
    accumulate = [n.get("module") for n in doc["nodes"] if n["kind"] == "accumulate_grad"]
    assert set(accumulate) == {"model.body.0", "model.head"}


def test_module_call_events_name_path_type_and_depth():
    doc = document(traced(NET))
    calls = [e["facts"] for e in doc["events"] if e["kind"] == "module_call"]
    assert [(c["module"], c["type"], c["depth"]) for c in calls] == [
        ("model", "Net", 0), ("model.body", "Sequential", 1), ("model.body.0", "Linear", 2),
        ("model.body.1", "ReLU", 2), ("model.head", "Linear", 1)]


def test_a_module_no_script_name_reaches_has_no_path():
    result = traced("import torch\nimport torch.nn as nn\n"
                    "y = nn.Linear(2, 1)(torch.ones(1, 2))\n")
    calls = [e.facts for e in result.trace.events if e.kind == "module_call"]
    assert calls == [{"type": "Linear", "depth": 0, "module": None}]


def test_explain_tells_the_module_call_and_the_parameters_at_the_users_lines():
    explanation = ex.explain(traced(NET), "en")
    said = [(s.line, s.text) for s in explanation.steps]
    assert (22, "model (Net) runs its forward: what it records is filed under model, at "
                "this line.") in said
    assert (15, "Inside it, model.body.0 (Linear) runs its forward.") in said  # in forward
    parameter = [text for line, text in said if text.startswith("model.head.weight = ")]
    assert parameter and "is a parameter of model.head" in parameter[0]
    assert not [s for s in explanation.steps if s.kind.startswith("grad_mode")]  # init's


def test_zero_grad_is_told_as_clearing_each_parameters_grad():
    explanation = ex.explain(traced(NET + "model.zero_grad()\n"), "en")
    cleared = [s.text for s in explanation.steps if s.kind == "grad.cleared.library"]
    assert len(cleared) == 1  # one sentence for the call, naming every parameter by path
    assert cleared[0].startswith(
        "`model.zero_grad()` set model.body.0.weight.grad, model.body.0.bias.grad, "
        "model.head.weight.grad and model.head.bias.grad to None")


def test_a_module_calls_intermediates_are_named_by_the_call_or_op_that_made_them():
    """Inside `model(x)`, the tensors nn's own code made and did not return to the script
    are named after the inner module call (`model.body.0(x)`) or the op (`t(...)`), so
    the views do not give every one of them the script's expression `self.body(x)`."""
    result = traced(NET)
    labels = [t["label"] for t in document(result)["tensors"]]
    assert {"t(model.body.0.weight)", "model.body.0(x)", "t(model.head.weight)"} <= set(labels)
    assert labels.count("self.body(x)") == 1  # what Sequential returned to the script
    assert "out" in labels


def test_a_library_functions_return_value_keeps_the_scripts_expression():
    result = traced("import torch\nimport torch.nn.functional as F\n"
                    "x = torch.ones(2, 3, requires_grad=True)\n"
                    "print(F.mse_loss(x * 2, torch.zeros(2, 3)).sum())\n")
    labels = {t["label"] for t in document(result)["tensors"]}
    assert "F.mse_loss(x * 2, torch.zeros(2, 3))" in labels


def test_explain_says_which_intermediate_of_a_linear_a_node_belongs_to():
    explanation = ex.explain(traced(NET), "en")
    texts = [s.text for s in explanation.steps]
    assert any("recorded TBackward0 as the grad_fn of `t(model.head.weight)`" in t
               for t in texts)
    assert not any("`model(x)` was computed by TBackward0" in t for t in texts)


def test_op_names_follow_torchs_spelling_of_the_node():
    from gradtrace.naming import op_name
    assert [op_name(n) for n in ("TBackward0", "MseLossBackward0", "NativeLayerNormBackward0",
                                 "AddmmBackward0", "CopySlices", "LegendreBackward")] == [
        "t", "mse_loss", "native_layer_norm", "addmm", "CopySlices", "legendre"]
