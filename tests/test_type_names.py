"""type() of objects scripts print the class of: torch's grad-mode context managers and
random.Random print their module-qualified class as under torch and CPython."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gradtrace.runner import run_text

SCRIPT = textwrap.dedent("""\
    import random
    import torch
    for c in [torch.no_grad(), torch.enable_grad(), torch.set_grad_enabled(True),
              torch.inference_mode(), random.Random(0)]:
        print(type(c), type(c).__name__)
    print(type(torch.no_grad()) == type(torch.no_grad()))
""")


def test_grad_mode_and_random_instances_print_their_module_qualified_class():
    pytest.importorskip("torch")
    result = run_text(SCRIPT)
    assert result.error is None, result.error.format(result.source)
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert result.stdout == done.stdout
    assert "<class 'torch.autograd.grad_mode.no_grad'> no_grad" in result.stdout
