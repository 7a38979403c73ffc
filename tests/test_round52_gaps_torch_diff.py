"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 52
(Kaggle notebooks and competition code) found: pytorch-lr-finder's StateCacher imports
`tempfile` for gettempdir() even when it caches in memory, which was refused.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, run_text, torch_output

torch = pytest.importorskip("torch")


TEMPFILE = """import os
import tempfile
from tempfile import gettempdir, gettempprefix
d = tempfile.gettempdir()
print(type(d).__name__, os.path.isabs(d), d == gettempdir(), tempfile.tempdir == d)
print(gettempprefix(), tempfile.gettempprefix(), tempfile.template)
fn = os.path.join(d, "state_{}_{}.pt".format("model", 7))
print(fn == d + "/state_model_7.pt", os.path.basename(fn))
print(repr(tempfile.gettempdir).split(" at ")[0], tempfile.gettempprefix.__name__)
try:
    tempfile.gettempdir(d)
except TypeError as e:
    print("TypeError:", e)
"""


def test_tempfile_names_the_temporary_folder() -> None:
    """tempfile.gettempdir() and gettempprefix() as Python's (the folder cached in
    tempfile.tempdir), and the folder is /tmp, as on Linux without TMPDIR."""
    assert gradtrace_output(TEMPFILE) == torch_output(TEMPFILE)
    assert run_text("import tempfile\nprint(tempfile.gettempdir())").stdout == "/tmp\n"
