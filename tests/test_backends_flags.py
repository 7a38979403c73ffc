"""torch.backends switches (cudnn.deterministic, cuda.matmul.allow_tf32, ...) are a run's
own: a script that sets them leaves the next run in the same process at torch's defaults,
as a new Python process would be."""
from __future__ import annotations

from gradtrace.runner import run_text

SHOW = ("import torch\n"
        "print(torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark,\n"
        "      torch.backends.cuda.matmul.allow_tf32)\n")


def test_a_run_starts_from_torchs_default_backend_switches():
    first = run_text(SHOW + "torch.backends.cudnn.deterministic = True\n"
                            "torch.backends.cudnn.benchmark = True\n"
                            "torch.backends.cuda.matmul.allow_tf32 = True\n" + SHOW)
    assert first.error is None
    assert first.stdout == "False False False\nTrue True True\n"
    second = run_text(SHOW)
    assert second.error is None
    assert second.stdout == "False False False\n"


def test_a_failed_run_does_not_leave_its_switches_set():
    failed = run_text("import torch\ntorch.backends.cudnn.enabled = False\n1 / 0\n")
    assert failed.error is not None
    assert run_text("import torch\nprint(torch.backends.cudnn.enabled)\n").stdout == "True\n"
