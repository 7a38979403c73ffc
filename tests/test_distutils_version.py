"""`from distutils.version import LooseVersion` (old scripts' torch version checks) runs
setuptools' distutils.version as bundled library code: the same comparisons, reprs,
errors and DeprecationWarning as Python 3.11 with setuptools installed."""
from __future__ import annotations

import contextlib
import io
import warnings

import pytest

from gradtrace.runner import run_text

SCRIPT = """from distutils.version import LooseVersion, StrictVersion
import torch
print(LooseVersion(torch.__version__) >= LooseVersion("1.7"))
print(LooseVersion("1.10.0") > LooseVersion("1.9"), LooseVersion("2.0a1") < "2.0")
print(repr(LooseVersion("1.2.3rc1")), str(StrictVersion("1.2")), StrictVersion("1.2.3a1"))
print(StrictVersion("0.4.1") < StrictVersion("0.4.1b2"), LooseVersion("3") == "3")
print(LooseVersion("1.2.3").version, StrictVersion("2.1").version)
try:
    StrictVersion("1.x")
except ValueError as err:
    print(err)
"""


def _python_output() -> tuple[str, list[str]]:
    pytest.importorskip("setuptools")
    torch = pytest.importorskip("torch")
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        exec(SCRIPT.replace("import torch\n", ""), {"torch": torch})  # noqa: S102
    return out.getvalue(), sorted({str(w.message) for w in caught
                                   if w.category is DeprecationWarning})


def test_loose_and_strict_versions_compare_print_and_fail_as_in_python() -> None:
    expected, messages = _python_output()
    result = run_text(SCRIPT, "versions.gt")
    assert result.error is None
    assert result.stdout == expected
    assert messages == ["distutils Version classes are deprecated. Use packaging.version "
                        "instead."]


def test_each_version_object_warns_deprecation_at_the_script_line() -> None:
    stderr = io.StringIO()
    run_text("from distutils.version import LooseVersion\nv = LooseVersion('1.0')\n",
             "versions.gt", stderr=stderr)
    assert stderr.getvalue() == (
        "versions.gt:2: DeprecationWarning: distutils Version classes are deprecated. Use "
        "packaging.version instead.\n  v = LooseVersion('1.0')\n")
