"""An uncaught error of a class that lives in a module prints as Python's traceback names it,
`module.qualname` (torch.autograd.gradcheck.GradcheckError, torch._C._LinAlgError,
json.decoder.JSONDecodeError), while the script still sees the class's own __name__ and
catches it by the name it imported. Each script also runs under the Python running the tests
(with torch where it is installed) and the last line of its traceback must match."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gradtrace.runner import run_text


def python_uncaught(text: str) -> str:
    """What Python's traceback prints after its last frame: `Kind: message`, every line."""
    done = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("  File ")) + 1
    while lines[start].startswith(" "):  # the frame's source line and carets
        start += 1
    return "\n".join(lines[start:])


def gradtrace_uncaught(text: str) -> str:
    result = run_text(text)
    assert result.error is not None, "expected an uncaught error"
    return f"{result.error.printed_kind}: {result.error.uncaught_message}".strip()


STDLIB = {
    "json": """\
        import json
        json.loads("{")
    """,
    "statistics": """\
        import statistics
        statistics.mean([])
    """,
    "re": """\
        import re
        re.compile("(")
    """,
    "dataclasses": """\
        import dataclasses
        @dataclasses.dataclass(frozen=True)
        class P:
            x: int = 0
        P().x = 1
    """,
}


@pytest.mark.parametrize("name", sorted(STDLIB))
def test_uncaught_stdlib_module_error_prints_its_module_qualified_name(name):
    text = textwrap.dedent(STDLIB[name])
    assert gradtrace_uncaught(text) == python_uncaught(text)


def test_uncaught_error_of_a_script_class_prints_its_bare_name():
    text = "class MyError(ValueError):\n    pass\nraise MyError('boom')\n"
    assert gradtrace_uncaught(text) == python_uncaught(text) == "MyError: boom"


TORCH = {
    "gradcheck": """\
        import torch
        from torch.autograd import Function, gradcheck

        class Wrong(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3

        gradcheck(Wrong.apply, torch.tensor([1.0, 2.0], dtype=torch.float64,
                                            requires_grad=True))
    """,
    "linalg": """\
        import torch
        torch.linalg.cholesky(torch.tensor([[1., 2.], [2., 1.]]))
    """,
}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_uncaught_torch_error_prints_as_torch_names_it(name):
    pytest.importorskip("torch")
    text = textwrap.dedent(TORCH[name])
    assert gradtrace_uncaught(text) == python_uncaught(text)


def test_a_caught_gradcheck_error_keeps_its_short_name_and_is_caught_by_it():
    result = run_text(textwrap.dedent("""\
        import torch
        from torch.autograd.gradcheck import GradcheckError
        try:
            torch.autograd.gradcheck(lambda x: x.detach() * 2,
                                     torch.ones(2, dtype=torch.float64, requires_grad=True))
        except GradcheckError as e:
            print(type(e).__name__, isinstance(e, RuntimeError))
    """))
    assert result.error is None, result.error.format(result.source)
    assert result.stdout == "GradcheckError True\n"


def test_the_cli_line_of_an_uncaught_gradcheck_error_names_its_module():
    result = run_text(textwrap.dedent(TORCH["gradcheck"]))
    assert result.error.format(result.source).startswith(
        "<script>:13:1: torch.autograd.gradcheck.GradcheckError: Jacobian mismatch")


NAME_ERRORS = {
    "module_global": "import torch\nout = torch.ones(2)\nprint(ou.shape)\n",
    "function_local_first": "gama_g = 1\ndef f(alpha, betta):\n    gamma = 1\n    return gama\n"
                            "f(1, 2)\n",
    "builtin": "lst = [1]\nprnt(lst)\n",
    "case_flip": "Model = 1\nprint(model)\n",
    "too_far": "abcdef = 1\nprint(xyz)\n",
    "first_of_ties": "bat = 1\ncat = 2\nprint(at)\n",
    "caught_then_uncaught": "value = 3\ntry:\n    valeu\nexcept NameError as e:\n"
                            "    print(e)\nprint(valeu)\n",
    "attribute_method": "class M:\n    def __init__(self):\n        self.count = 0\n"
                        "    def update(self, v):\n        self.count += v\nM().updat(1)\n",
    "attribute_instance": "class M:\n    def __init__(self):\n        self.value = 0\n"
                          "M().valeu\n",
    "attribute_dunder_near": "class M:\n    pass\nM().__init_\n",
    "attribute_dict_subclass": "class D(dict):\n    pass\nD().itmes()\n",
    "attribute_getattr_hook": "class M:\n    value = 1\n    def __getattr__(self, name):\n"
                              "        raise AttributeError(name)\nM().valeu\n",
}


@pytest.mark.parametrize("name", sorted(NAME_ERRORS))
def test_uncaught_name_and_attribute_errors_offer_pythons_did_you_mean(name):
    text = NAME_ERRORS[name]
    assert gradtrace_uncaught(text) == python_uncaught(text)


def test_a_caught_name_error_message_has_no_suggestion():
    assert run_text("value = 3\ntry:\n    valeu\nexcept NameError as e:\n    print(str(e))\n"
                    ).stdout == "name 'valeu' is not defined\n"
