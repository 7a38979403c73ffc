"""One script's printed output under live torch (in this process) and under gradtrace, for
the torch-diff tests that compare them line for line."""
from __future__ import annotations

import contextlib
import io

from gradtrace.runner import run_text


def torch_output(script: str) -> str:
    """What `script` prints under torch; an exception's kind and message as its last line."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            exec(compile(script, "<torch>", "exec"), {})  # noqa: S102
        except Exception as err:  # noqa: BLE001
            print(type(err).__name__, err)
    return buffer.getvalue()


def gradtrace_output(script: str) -> str:
    """What `script` prints under gradtrace, its error (if any) as torch_output shows one."""
    result = run_text(script)
    if result.error is not None:
        return result.stdout + f"{result.error.kind} {result.error.message}\n"
    return result.stdout
