"""Arguments are checked as torch's argument parser checks them (issue 16: `torch.exp(3)`
leaked `'int' object has no attribute 'requires_grad'`, `requires_grad=2` was accepted),
from the signatures recorded from torch (gradtrace/torch_signatures.json). The messages
were recorded from torch 2.13; where torch is installed they are also compared live."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradtrace.runner import run_text

# (call, torch's message or None where torch takes it), recorded from torch by
# tests/tools/record_torch_signatures.py; `t` is torch.ones(2, 2), `p` an nn.Parameter
_MESSAGES = json.loads(
    (Path(__file__).parent / "data" / "torch_argument_messages.json").read_text())
PARSER_RECORDED = [tuple(row) for row in _MESSAGES["calls"]]
# (call, "Kind: message" or None) for calls torch refuses with another kind than TypeError:
# ints past int64, non-Tensor inputs to torch.nn.functional's Python-level functions
OTHER_KINDS = [tuple(row) for row in _MESSAGES["other_kinds"]]

# (call, torch's message); None: torch accepts it
RECORDED = [
    ("torch.tensor(1., requires_grad=2)",
     "tensor(): argument 'requires_grad' must be bool, not int"),
    ("torch.tensor(1., requires_grad='a')",
     "tensor(): argument 'requires_grad' must be bool, not str"),
    ("torch.ones(2, requires_grad=1)", "ones(): argument 'requires_grad' must be bool, not int"),
    ("torch.ones(2, 3, requires_grad=1.0)",
     "ones(): argument 'requires_grad' must be bool, not float"),
    ("torch.full((2,), 1.0, requires_grad=1)",
     "full(): argument 'requires_grad' must be bool, not int"),
    ("torch.empty(2, requires_grad=1)", "empty(): argument 'requires_grad' must be bool, not int"),
    ("torch.zeros_like(torch.ones(2), requires_grad=1)",
     "zeros_like(): argument 'requires_grad' must be bool, not int"),
    ("torch.ones(2).requires_grad_(1)",
     "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not int"),
    ("torch.ones(2).requires_grad_(None)",
     "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not NoneType"),
    ("torch.ones(2).requires_grad_(requires_grad=2)",
     "requires_grad_(): argument 'requires_grad' must be bool, not int"),
    ("torch.ones(2, 2).sum(0, keepdim=None)",
     "sum(): argument 'keepdim' must be bool, not NoneType"),
    ("torch.ones(2, 2).sum(0, None)",
     "sum(): argument 'keepdim' (position 2) must be bool, not NoneType"),
    ("torch.sum(torch.ones(2, 2), 0, keepdim=None)",
     "sum(): argument 'keepdim' must be bool, not NoneType"),
    ("torch.ones(2, 2).mean(0, keepdim=1)", "mean(): argument 'keepdim' must be bool, not int"),
    ("torch.ones(2, requires_grad=torch.tensor(True))",
     "ones(): argument 'requires_grad' must be bool, not Tensor"),
    ("torch.zeros(2, requires_grad=None)", None),
    ("torch.ones(2, 2).sum(0, keepdim=True)", None),
    ("torch.ones(2).requires_grad_(False)", None),
]


def _outcome(call: str) -> str | None:
    result = run_text("import torch\nt = torch.ones(2, 2)\n"
                      f"p = torch.nn.Parameter(torch.ones(2, 2))\ny = {call}\n", "args.gt")
    if result.error is None:
        return None
    assert result.error.kind == "TypeError", result.error
    return str(result.error)


@pytest.mark.parametrize(("call", "message"), RECORDED, ids=[c for c, _ in RECORDED])
def test_bool_parameters_take_only_a_bool_as_torch_says(call: str, message: str | None):
    assert _outcome(call) == message


def test_the_script_can_catch_it_as_a_type_error():
    result = run_text("import torch\ntry:\n    torch.ones(2, requires_grad=1)\n"
                      "except TypeError as e:\n    print('caught', e)\n", "args.gt")
    assert result.error is None
    assert result.stdout == "caught ones(): argument 'requires_grad' must be bool, not int\n"


@pytest.mark.parametrize("call", [c for c, _ in RECORDED])
def test_the_recorded_messages_are_torch_s(call: str):
    torch = pytest.importorskip("torch")
    try:
        eval(call, {"torch": torch})  # noqa: S307 (the test's own literal calls)
    except TypeError as err:
        assert str(err) == dict(RECORDED)[call]
    else:
        assert dict(RECORDED)[call] is None


@pytest.mark.parametrize(("call", "message"), PARSER_RECORDED, ids=[c for c, _ in PARSER_RECORDED])
def test_every_parameter_kind_is_checked_with_torch_s_words(call: str, message: str | None):
    assert _outcome(call) == message


def test_the_error_is_located_at_the_call():
    result = run_text("import torch\nx = 1 + \\\n    torch.exp(3)\n", "args.gt")
    assert (result.error.kind, result.error.span.line) == ("TypeError", 3)


@pytest.mark.parametrize("call", [c for c, _ in PARSER_RECORDED])
def test_the_recorded_parser_messages_are_torch_s(call: str):
    torch = pytest.importorskip("torch")
    try:
        eval(call, {"torch": torch, "t": torch.ones(2, 2),  # noqa: S307 (literal calls)
                    "p": torch.nn.Parameter(torch.ones(2, 2))})
    except TypeError as err:
        assert str(err) == dict(PARSER_RECORDED)[call]
    else:
        assert dict(PARSER_RECORDED)[call] is None


def test_functional_s_python_level_functions_keep_their_own_signatures():
    # F.threshold and F.max_pool1d are Python functions in torch, with other parameters
    # than torch.threshold / torch.max_pool1d, and share gradtrace's engine function
    text = ("import torch\nimport torch.nn.functional as F\nx = torch.ones(1, 1, 4)\n"
            "print(F.threshold(x, 0.5, 2.0, False).shape, "
            "F.max_pool1d(x, 2, return_indices=False).shape)\n")
    result = run_text(text, "args.gt")
    assert result.error is None, result.error
    assert result.stdout == "torch.Size([1, 1, 4]) torch.Size([1, 1, 2])\n"


@pytest.mark.parametrize(("call", "message"), OTHER_KINDS, ids=[c for c, _ in OTHER_KINDS])
def test_ints_past_int64_and_functional_inputs_fail_as_in_torch(call: str, message: str | None):
    result = run_text(f"import torch\nt = torch.ones(2, 2)\ny = {call}\n", "args.gt")
    got = None if result.error is None else f"{result.error.kind}: {result.error}"
    assert got == message


# A Python int in [2**63, 2**64) is a uint64 scalar to torch: it converts to the other
# operand's dtype with C's wrap-around (printed by torch 2.13.0, avx2)
UINT64_SCALARS = [
    ("torch.ones(2) + 2 ** 63", "tensor([9.2234e+18, 9.2234e+18])"),
    ("torch.ones(2, dtype=torch.long) + 2 ** 63",
     "tensor([-9223372036854775807, -9223372036854775807])"),
    ("torch.ones(2, dtype=torch.long) * 2 ** 63",
     "tensor([-9223372036854775808, -9223372036854775808])"),
    ("torch.ones(2, dtype=torch.int32) + 2 ** 63", "tensor([1, 1], dtype=torch.int32)"),
    ("torch.ones(2, dtype=torch.long) + (2 ** 64 - 1)", "tensor([0, 0])"),
    ("torch.tensor(1) + 2 ** 63", "tensor(-9223372036854775807)"),
    ("torch.tensor([1.5], dtype=torch.float64) + (2 ** 64 - 1)",
     "tensor([1.8447e+19], dtype=torch.float64)"),
    ("torch.ones(2, dtype=torch.uint8) + 2 ** 63", "tensor([1, 1], dtype=torch.uint8)"),
    ("torch.ones(2, dtype=torch.long) > 2 ** 63", "tensor([True, True])"),
    ("torch.tensor([-1, -255, 3], dtype=torch.uint8)",
     "tensor([255,   1,   3], dtype=torch.uint8)"),
]


@pytest.mark.parametrize(("expression", "printed"), UINT64_SCALARS)
def test_ints_past_int64_are_uint64_scalars_as_in_torch(expression: str, printed: str):
    result = run_text(f"import torch\nprint({expression})\n", "uint64.gt")
    assert result.error is None
    assert result.stdout == printed + "\n"


def test_more_than_64_dimensions_are_refused_as_not_supported_not_a_numpy_error():
    for call in ("torch.zeros([1] * 70)", "torch.ones(1).view([1] * 65)",
                 "torch.ones(1)[(None,) * 70]"):
        result = run_text(f"import torch\ny = {call}\n", "dims.gt")
        assert result.error is not None and result.error.kind == "NotSupportedError", call
        assert "more than 64 dimensions" in str(result.error)


def test_every_recorded_signature_parses():
    # (parsed when a call first needs them: a malformed entry would otherwise surface only
    # in the one script that reaches it)
    from gradtrace.interpreter.torch_arguments import PARSERS

    for key, parser in PARSERS.items():
        for text, signature in zip(parser._texts, parser.signatures, strict=True):
            assert text.startswith(f"{parser.name}("), (key, text)
            assert signature.min_args <= signature.max_args, (key, text)
            assert signature.printed().startswith("("), (key, text)
