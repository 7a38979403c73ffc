"""record_conformance.py keeps torch's whole uncaught exception in NAME.err: a message that
spans lines (load_state_dict's key lists) is compared whole, not by its last line."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "record_conformance", Path(__file__).parent / "tools" / "record_conformance.py")
record_conformance = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(record_conformance)

MULTILINE = """\
/x/loss.py:630: UserWarning: Using a target size
  return F.mse_loss(input, target, reduction=self.reduction)
Traceback (most recent call last):
  File "/tmp/case.gt", line 66, in <module>
    m.load_state_dict({'fc.weight': torch.zeros(5, 10)}, strict=True)
  File "/venv/torch/nn/modules/module.py", line 2638, in load_state_dict
    raise RuntimeError(
RuntimeError: Error(s) in loading state_dict for RenamedModel:
\tMissing key(s) in state_dict: "fc.bias", "extra.weight".\x20
"""

ONE_LINE = """\
Traceback (most recent call last):
  File "/tmp/case.gt", line 3, in <module>
    torch.stack([a, b])
    ^^^^^^^^^^^^^^^^^^^
RuntimeError: stack expects each tensor to be equal size
"""


def test_final_exception_keeps_every_line_of_a_multiline_message():
    assert record_conformance.final_exception(MULTILINE) == (
        "RuntimeError: Error(s) in loading state_dict for RenamedModel:\n"
        '\tMissing key(s) in state_dict: "fc.bias", "extra.weight".')


def test_final_exception_of_a_one_line_message_is_that_line():
    assert record_conformance.final_exception(ONE_LINE) == (
        "RuntimeError: stack expects each tensor to be equal size")


def test_final_exception_without_a_traceback_is_the_last_line():
    assert record_conformance.final_exception("warning\nKilled\n") == "Killed"
