"""The torch side of `gradtrace check`: its text runs as `python -c` in a Python that has
torch (gradtrace's own process reads only its constants, and never runs script text).

It reads {"timeout", "jobs": [{"source", "name"}]} as JSON on stdin, runs each script with
real torch in a forked child in an empty folder of its own, and writes one JSON report per
job after a MARK line: what the script printed, the exception it raised (type and message)
and every top-level tensor (values, grad, requires_grad, is_leaf, grad_fn name, the
next_functions graph, _version, dtype, shape). Self-contained: standard library and torch
only. `graph` and `clean` mirror check.py's `_graph` and `_clean`, so that both sides
truncate alike; check.py reads MARK, MAX_DEPTH and MAX_NODES from here.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import signal
import sys
import tempfile
import types
import warnings
from typing import Any

MARK = "@@GRADTRACE-CHECK@@"
MAX_DEPTH, MAX_NODES = 12, 200


def clean(x: Any) -> Any:
    if isinstance(x, list):
        return [clean(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return x


def graph(fn: Any, depth: int, budget: list[int]) -> Any:
    if fn is None:
        return None
    if budget[0] <= 0 or depth > MAX_DEPTH:
        return "..."
    budget[0] -= 1
    return {"name": fn.name(),
            "next": [[graph(n, depth + 1, budget), nr] for n, nr in fn.next_functions]}


def values(t: Any) -> dict[str, Any]:
    """A meta tensor has shape and dtype but no values (torch: "Cannot copy out of meta
    tensor; no data!")."""
    return {"shape": list(t.shape), "dtype": str(t.dtype), "device": str(t.device),
            "values": None if t.is_meta else clean(t.detach().cpu().tolist())}


def dump(t: Any) -> dict[str, Any]:
    d = values(t)
    d.update(requires_grad=t.requires_grad, is_leaf=t.is_leaf,
             grad_fn=None if t.grad_fn is None else t.grad_fn.name(),
             next_functions=graph(t.grad_fn, 0, [MAX_NODES]),
             version=None if t.is_inference() else t._version, retains_grad=t.retains_grad,
             grad=None if t.grad is None else values(t.grad))
    return d


class Stdout(io.StringIO):
    name = "<stdout>"  # what the script sees of sys.stdout, as under `python script`


def run(job: dict[str, str]) -> dict[str, Any]:
    """Run one script as `python SCRIPT` would, and report what it did."""
    import torch

    out = Stdout()
    sys.argv = [job["name"]]  # as `python SCRIPT` sets it (argparse's prog, sys.argv)
    main = types.ModuleType("__main__")  # the script's module, where pickle finds its classes
    saved_main, sys.modules["__main__"] = sys.modules.get("__main__"), main
    ns = main.__dict__
    error = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            # (dont_inherit: the script gets its own __future__ flags, not this module's
            # `annotations`, which would turn its annotations into strings)
            exec(compile(job["source"], job["name"], "exec", dont_inherit=True), ns)
        except SystemExit as exc:  # sys.exit(): the run's status, an error only if not 0
            code = exc.code
            status = 0 if code is None else code & 0xFF if isinstance(code, int) else 1
            if status:
                error = {"kind": "exit status", "message": str(status)}
        except BaseException as exc:
            error = {"kind": type(exc).__name__, "message": str(exc)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tensors = {k: dump(v) for k, v in list(ns.items())
                   if isinstance(v, torch.Tensor) and not k.startswith("__")}
    sys.modules["__main__"] = saved_main
    return {"torch_version": torch.__version__, "python": sys.version.split()[0],
            "cpu_capability": torch.backends.cpu.get_cpu_capability().lower(),
            "stdout": out.getvalue(), "error": error, "tensors": tensors}


def isolated(job: dict[str, str], timeout: float) -> str:
    """Each script in a fresh child of this process (torch imported once), where possible."""
    if not hasattr(os, "fork"):
        import torch

        torch.set_grad_enabled(True)
        return json.dumps(run(job))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.chdir(tempfile.mkdtemp(dir="."))  # its own empty folder
            signal.alarm(int(timeout) + 1)
            data = json.dumps(run(job)).encode()
        except BaseException as exc:
            data = json.dumps({"failed": type(exc).__name__ + ": " + str(exc)}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return json.dumps({"failed": f"the torch run ended without a report (status {status}; "
                                     "timed out or crashed)"})
    return data.decode()


def main() -> None:
    import torch  # once, before the forks

    del torch
    jobs = json.loads(sys.stdin.read())
    for job in jobs["jobs"]:
        report = isolated(job, jobs["timeout"])
        sys.stdout.write("\n" + MARK + report + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
