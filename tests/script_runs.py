"""Scripts' printed output under live torch (in this process, or several in a child Python)
and under gradtrace, for the torch-diff tests that compare them line for line."""
from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

from gradtrace.runner import RunResult, run_text


def each_expression(expressions: list[str], setup: str = "", *, dtype: bool = False) -> str:
    """A torch script printing each expression beside its value (and the value's dtype, with
    `dtype`), or beside its error's type and message: one line per expression."""
    calls = ", ".join(f"({e!r}, lambda: {e})" for e in expressions)
    shown = "r, getattr(r, 'dtype', None)" if dtype else "r"
    return f"""import torch
{setup}
for text, f in [{calls}]:
    try:
        r = f()
        print(text, {shown})
    except Exception as e:
        print(text, type(e).__name__, e)
"""


def address_free(text: str) -> str:
    """`text` with every object address as `0x?`: two runs' reprs compare by their form."""
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


def torch_output(script: str) -> str:
    """What `script` prints under torch; an exception's kind and message as its last line.
    Each script starts from torch's default print options, as each gradtrace run does (a
    script that sets them would otherwise change what later tests' torch prints)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_printoptions(profile="default", sci_mode=None)
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


_CHILD_RUNNER = """
import contextlib, io, json, sys, torch
threads = torch.get_num_threads()
out = {}
for name, code in json.loads(sys.stdin.read()).items():
    torch.set_printoptions(profile="default", sci_mode=None)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(False)
    torch.set_float32_matmul_precision("highest")
    buffer, error = io.StringIO(), ""
    with contextlib.redirect_stdout(buffer):
        try:
            exec(code, {})
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
    out[name] = [buffer.getvalue(), error]
print(json.dumps(out))
"""


def torch_outputs_in_child(scripts: dict[str, str]) -> dict[str, list[str]]:
    """name -> [stdout, "Kind: message" or ""] of each script run under torch in one child
    Python, torch's global settings put back between scripts."""
    done = subprocess.run([sys.executable, "-c", _CHILD_RUNNER], input=json.dumps(scripts),
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def file_runs(script: str, tmp_path: Path, stem: str, *, check: bool = False
              ) -> tuple[subprocess.CompletedProcess, RunResult, str]:
    """`script` as a file `stem`.py run by python + torch in a child (its warnings printed
    by Python's own machinery, with that file's path), and as `stem`.gt under gradtrace:
    (torch's completed run, gradtrace's result, gradtrace's stderr). `check`: torch's run
    must succeed."""
    path = tmp_path / f"{stem}.py"
    path.write_text(script)
    torch_run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                               check=check)
    err = io.StringIO()
    return torch_run, run_text(script, f"{stem}.gt", stderr=err), err.getvalue()
