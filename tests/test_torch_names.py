"""The recorded catalog of torch's names (gradtrace/torch_names.json) that tells a name
gradtrace lacks ("not supported by gradtrace") from one nobody has (Python's
AttributeError/ImportError), and lets `hasattr` answer as under torch. What scripts print
is checked against torch by tests/conformance_extra/lang_builtin_and_torch_names.gt."""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
from pathlib import Path

import pytest

from gradtrace import stdlib, torch_namespace
from gradtrace.runner import run_text

CATALOG = Path(stdlib.__file__).parent / "torch_names.json"


def test_every_importable_namespace_is_in_the_catalog():
    from gradtrace.interpreter.modules import IMPORTABLE_PYTHON_MODULES

    recorded = json.loads(CATALOG.read_text())["names"]
    assert set(recorded) == {*torch_namespace.MODULES, *IMPORTABLE_PYTHON_MODULES, "torch.Tensor"}


def test_catalog_holds_what_live_torch_213_has():
    """Every name torch's modules hold, and no other: a submodule attribute exists only once
    something imported it, so a recorded name live torch lacks must be such a submodule."""
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13"):
        pytest.skip(f"recorded from torch 2.13, this is {torch.__version__}")
    recorded = json.loads(CATALOG.read_text())["names"]
    for dotted in torch_namespace.MODULES:
        module = importlib.import_module(dotted)
        live = {n for n in dir(module) if not n.startswith("__")}
        plain = {n for n in live if not inspect.ismodule(getattr(module, n))}
        assert plain <= set(recorded[dotted]), (dotted, sorted(plain - set(recorded[dotted])))
        for name in set(recorded[dotted]) - live:
            assert importlib.util.find_spec(f"{dotted}.{name}") is not None, (dotted, name)


def test_a_name_torch_has_but_gradtrace_lacks_is_refused_as_not_supported():
    result = run_text("import torch\ntorch.compile\n")
    assert result.error.kind == "NotSupportedError"
    assert "'torch.compile' is not supported by gradtrace" in result.error.message


def test_a_real_tensor_method_gradtrace_lacks_is_not_supported_not_missing():
    result = run_text("import torch\ntorch.ones(1).share_memory_()\n")
    assert result.error.kind == "NotSupportedError"
    assert "'Tensor.share_memory_' is not supported by gradtrace" in result.error.message


def test_import_of_a_missing_name_fails_when_the_statement_runs_not_before():
    result = run_text("import torch\nprint('first')\nfrom torch import nope\n")
    assert result.stdout == "first\n"
    assert result.error.kind == "ImportError"
    assert result.error.span.line == 3


def test_builtins_hold_no_route_to_their_python_functions():
    for name in ("fn", "twin", "__call__", "__globals__", "__closure__"):
        result = run_text(f"print.{name}\n")
        assert result.error is not None, name
        assert result.error.kind in ("AttributeError", "NotSupportedError"), name
