"""Copies as Python and torch make them: copy.deepcopy / copy.copy, and torch.save /
torch.load over files kept in the run's memory (what torch printed for the scripts in
tests/data/torch_scripts/copies/ is checked by test_torch_scripts.py)."""
from __future__ import annotations

from gradtrace.runner import run_text


def test_each_load_is_a_new_copy_and_the_file_keeps_what_was_saved():
    result = run_text(
        "import torch\nx = torch.ones(2, requires_grad=True)\ntorch.save({'x': x}, 'a.pt')\n"
        "with torch.no_grad():\n    x.add_(1)\n"
        "a, b = torch.load('a.pt'), torch.load('a.pt')\n"
        "print(a['x'], a['x'] is b['x'], a['x'].is_leaf, a['x'].grad)\n", "copies.gt")
    assert result.error is None
    assert result.stdout == "tensor([1., 1.], requires_grad=True) False True None\n"


def test_files_of_one_run_are_gone_in_the_next():
    run_text("import torch\ntorch.save(1, 'kept.pt')\n", "first.gt")
    result = run_text("import torch\ntorch.load('kept.pt')\n", "second.gt")
    assert result.error is not None and result.error.kind == "FileNotFoundError"
    assert str(result.error) == "[Errno 2] No such file or directory: 'kept.pt'"


def test_saving_to_anything_but_a_file_name_is_refused_as_not_supported():
    result = run_text("import torch\ntorch.save(1, 3)\n", "handle.gt")
    assert result.error is not None and result.error.kind == "NotSupportedError"
