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


def test_scaled_dot_product_switches_are_a_runs_own():
    """torch.backends.cuda.enable_flash_sdp(False) (or an sdp_kernel block left by an
    error) does not reach the next run."""
    show = "import torch\nprint(torch.backends.cuda.flash_sdp_enabled(), " \
           "torch.backends.cuda.math_sdp_enabled())\n"
    first = run_text(show + "torch.backends.cuda.enable_flash_sdp(False)\n" + show)
    assert first.error is None and first.stdout == "True True\nFalse True\n"
    failed = run_text("import torch\nwith torch.backends.cuda.sdp_kernel(enable_math=False):\n"
                      "    1 / 0\n")
    assert failed.error is not None
    assert run_text(show).stdout == "True True\n"
