"""Run the `>>>` examples of torch 2.13's docstrings under torch and under gradtrace.

Run under a Python that has torch 2.13 and gradtrace (the dev venv), from the repo root:

    PYTHONPATH=. python tests/tools/docstring_sweep.py [--only torch.linalg ...] [--match NAME]

For each documented object (the public callables of `torch`, the methods of `torch.Tensor`,
`torch.nn.functional`, the `torch.nn` module classes, `torch.linalg`, `torch.special`,
`torch.fft`, `torch.autograd`, the `torch.distributions` classes, and `torch.nn.init`,
`torch.nn.utils`, `torch.optim` with its schedulers, `torch.utils.data` and `torch.func`) it
takes the docstring's examples as doctest's parser does and writes one script: the imports
the examples assume, `torch.manual_seed(0)`, then each example, a lone expression printed as
doctest shows it.
Each script runs under torch and under `python -m gradtrace run --quiet` (one forked child
per script from a parent that imported either once; at most the two parents at a time), with
`ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2` and a timeout, and is classified:
torch-failed (skipped), agree, refused (NotSupportedError), gt-error (another error or a
timeout), differ (stdout). It prints a table by module and the top refusals and errors; the
scripts and outputs stay in a temporary folder (`--keep DIR` to choose it), with
`results.json` listing every script's class and first message.
"""
from __future__ import annotations

import argparse
import ast
import collections
import doctest
import inspect
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ADDR = re.compile(r"0x[0-9a-fA-F]+")
PRELUDE = ("import math\n\nimport numpy as np\nimport torch\nimport torch.nn as nn\n"
           "import torch.nn.functional as F\n\ntorch.manual_seed(0)\n")
MODULES = ("torch", "torch.Tensor", "torch.nn.functional", "torch.nn", "torch.linalg",
           "torch.special", "torch.fft", "torch.autograd", "torch.distributions",
           "torch.nn.init", "torch.nn.utils", "torch.optim", "torch.utils.data", "torch.func")


def targets(torch):  # type: ignore[no-untyped-def]
    """(module label, name, object, home module) for every documented object of the sweep;
    the home module's names are the ones its docstrings' examples use bare (doctest's
    globals)."""
    import torch.autograd.forward_ad
    import torch.autograd.functional
    import torch.autograd.graph
    import torch.distributions
    import torch.func
    import torch.nn.functional
    import torch.nn.init
    import torch.nn.utils.parametrizations
    import torch.nn.utils.parametrize
    import torch.nn.utils.rnn
    import torch.optim.lr_scheduler
    import torch.optim.swa_utils
    import torch.utils.data

    def public(module, keep=callable):  # type: ignore[no-untyped-def]
        for name in sorted(dir(module)):
            if not name.startswith("_"):
                try:
                    obj = getattr(module, name)
                except Exception:  # noqa: BLE001 (a lazy attribute that fails to load)
                    continue
                home = getattr(obj, "__module__", None) or "torch"
                if keep(obj) and isinstance(home, str) and home.startswith("torch"):
                    yield name, obj  # not what a torch module imported (Counter, Enum)

    def module_class(obj) -> bool:  # type: ignore[no-untyped-def]
        return isinstance(obj, type) and issubclass(obj, torch.nn.Module)

    sweeps = [("torch", torch, callable), ("torch.Tensor", torch.Tensor, lambda o: True),
              ("torch.nn.functional", torch.nn.functional, callable),
              ("torch.nn", torch.nn, module_class)]
    sweeps += [("torch." + label, getattr(torch, label), callable)
               for label in ("linalg", "special", "fft")]
    sweeps += [("torch.autograd", sub, callable)
               for sub in (torch.autograd, torch.autograd.functional,
                           torch.autograd.forward_ad, torch.autograd.graph)]
    sweeps += [("torch.distributions", torch.distributions, lambda o: isinstance(o, type))]
    nn_utils = torch.nn.utils
    sweeps += [("torch.nn.init", torch.nn.init, callable), ("torch.func", torch.func, callable)]
    sweeps += [("torch.nn.utils", sub, callable)
               for sub in (nn_utils, nn_utils.rnn, nn_utils.parametrize,
                           nn_utils.parametrizations)]
    sweeps += [("torch.optim", sub, callable)
               for sub in (torch.optim, torch.optim.lr_scheduler, torch.optim.swa_utils)]
    sweeps += [("torch.utils.data", torch.utils.data, callable)]
    for label, module, keep in sweeps:
        home = "torch" if label == "torch.Tensor" else module.__name__
        prefix = f"{home}." if label != home and label != "torch.Tensor" else ""
        yield from ((label, prefix + n, o, home) for n, o in public(module, keep))


# names the examples use without importing them, and the import each assumes
ASSUMED = {"numpy": "import numpy", "itertools": "import itertools", "io": "import io",
           "D": "import torch.distributions as D", "linalg": "from torch import linalg",
           "Function": "from torch.autograd import Function"}


def imports(examples: list[doctest.Example], home: str) -> str:
    """The imports of the names the examples use but never define: ASSUMED's, or the home
    module's own names (`Normal` in torch.distributions, `jacobian` in
    torch.autograd.functional)."""
    import builtins
    import importlib

    used: set[str] = set()
    bound = set(dir(builtins)) | {"math", "np", "torch", "nn", "F"}
    for example in examples:
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.alias):
                bound.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
    module = importlib.import_module(home)
    lines = []
    for name in sorted(used - bound):
        if name in ASSUMED:
            lines.append(ASSUMED[name])
        elif home != "torch" and str(getattr(getattr(module, name, None), "__module__",
                                             "")).startswith("torch"):
            lines.append(f"from {home} import {name}")
    return "".join(line + "\n" for line in lines)


def script(examples: list[doctest.Example], home: str = "torch") -> str:
    """The examples as one script: a lone expression's value printed as doctest would."""
    extra = imports(examples, home)
    parts = [PRELUDE.replace("\ntorch.manual_seed", extra + "\ntorch.manual_seed")]
    for example in examples:
        source = example.source.rstrip("\n")
        try:
            ast.parse(source, mode="eval")
        except SyntaxError:
            parts.append(source + "\n")
            continue
        parts.append(f"_doctest_value = (\n{source}\n)\nif _doctest_value is not None:\n"
                     "    print(repr(_doctest_value))\n")
    return "\n".join(parts)


def collect(folder: pathlib.Path, only: list[str] | None, match: str | None) -> list[dict]:
    """Write a script per docstring with examples (the first object of each docstring)."""
    import torch

    parser = doctest.DocTestParser()
    seen: set[tuple[str, ...]] = set()
    entries = []
    for label, name, obj, home in targets(torch):
        if (only and label not in only) or (match and match not in name):
            continue
        doc = inspect.getdoc(obj)
        if not doc or ">>>" not in doc:
            continue
        try:
            examples = parser.get_examples(doc)
        except ValueError:  # a malformed `doctest:` directive
            continue
        key = tuple(e.source for e in examples)
        if not examples or key in seen:
            continue
        seen.add(key)
        stem = f"{label}.{name}".replace(".", "_")
        (folder / f"{stem}.py").write_text(script(examples, home))
        entries.append({"module": label, "name": name, "stem": stem})
    return entries


def worker(kind: str, folder: pathlib.Path, stems: list[str], timeout: float) -> None:
    """Import torch (or gradtrace) once, then run each script in a forked child, its stdout,
    stderr and exit status written beside it as STEM.KIND.out/.err/.rc."""
    if kind == "torch":
        import torch  # noqa: F401
    else:
        import gradtrace.cli  # noqa: F401
        import gradtrace.runner  # noqa: F401
    for stem in stems:
        path = folder / f"{stem}.py"
        out, err = folder / f"{stem}.{kind}.out", folder / f"{stem}.{kind}.err"
        pid = os.fork()
        if pid == 0:
            _child(kind, path, out, err)
        start, status = time.monotonic(), None
        while status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
            elif time.monotonic() - start > timeout:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                status = "timeout"
            else:
                time.sleep(0.01)
        (folder / f"{stem}.{kind}.rc").write_text(str(status))


def _child(kind: str, path: pathlib.Path, out: pathlib.Path, err: pathlib.Path) -> None:
    """Run one script with fds 1 and 2 sent to files; never returns."""
    code = 1
    try:
        os.chdir(path.parent)
        for fd, target in ((1, out), (2, err)):
            handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(handle, fd)
            os.close(handle)
        sys.argv = [str(path)]
        if kind == "torch":
            import runpy
            import traceback

            try:
                runpy.run_path(str(path), run_name="__main__")
                code = 0
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:  # noqa: BLE001 (the script's own error, reported)
                traceback.print_exc()
        else:
            from gradtrace.cli import main

            sys.argv = ["gradtrace", "run", "--quiet", str(path)]
            try:
                main()
                code = 0
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def final_error(stderr: str) -> str:
    """The error's first line as `Kind: message` (a traceback's or gradtrace's report)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in lines:
        found = re.match(r"^\S+:\d+:\d+: (\w+(?:Error|Exception|Interrupt|Exit)\w*: .*)$", line)
        if found:
            return found.group(1)
    for i in range(len(lines) - 1, -1, -1):
        if re.match(r"^[\w.]+(Error|Exception|Warning)\w*(: |$)", lines[i]):
            return lines[i]
    return lines[-1] if lines else ""


def classify(folder: pathlib.Path, stem: str) -> tuple[str, str]:
    """The script's class and its first message (the refusal, error or differing line)."""
    def read(kind: str, ext: str) -> str:
        path = folder / f"{stem}.{kind}.{ext}"
        return path.read_text(errors="replace") if path.exists() else ""

    if read("torch", "rc") != "0":
        return "torch-failed", final_error(read("torch", "err"))
    rc = read("gradtrace", "rc")
    if rc == "timeout":
        return "gt-error", "timeout"
    if rc != "0":
        message = final_error(read("gradtrace", "err"))
        if message.startswith("NotSupportedError"):
            return "refused", message.split(": ", 1)[-1]
        return "gt-error", message
    want = ADDR.sub("0x?", read("torch", "out")).splitlines()
    got = ADDR.sub("0x?", read("gradtrace", "out")).splitlines()
    if want == got:
        return "agree", ""
    for i, line in enumerate(want):
        if i >= len(got) or got[i] != line:
            return "differ", f"line {i + 1}: {line[:120]!r}"
    return "differ", f"line {len(want) + 1}: (extra) {got[len(want)][:120]!r}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=MODULES, action="append",
                        help="sweep this module (repeatable)")
    parser.add_argument("--match", help="only objects whose name contains this")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per script")
    parser.add_argument("--keep", help="folder for the scripts and outputs (default: a "
                                       "new temporary folder)")
    parser.add_argument("--top", type=int, default=25, help="messages listed per kind")
    parser.add_argument("--gradtrace-root", default=str(ROOT),
                        help="the folder whose gradtrace package runs the scripts (another "
                             "checkout, to compare; default: this one)")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "FOLDER"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        folder = pathlib.Path(args.worker[1])
        stems = json.loads((folder / "stems.json").read_text())
        worker(args.worker[0], folder, stems, args.timeout)
        return
    folder = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="docstring_sweep_"))
    folder.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(HERE))
    from record_conformance import torch_environment

    env = torch_environment("avx2")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    entries = collect(folder, args.only, args.match)
    (folder / "stems.json").write_text(json.dumps([e["stem"] for e in entries]))
    print(f"{len(entries)} docstrings with examples; scripts in {folder}", flush=True)
    other = dict(env, PYTHONPATH=os.pathsep.join([args.gradtrace_root, env["PYTHONPATH"]]))
    procs = [subprocess.Popen([sys.executable, __file__, "--timeout", str(args.timeout),
                               "--worker", kind, str(folder)],
                              env=other if kind == "gradtrace" else env)
             for kind in ("torch", "gradtrace")]
    for proc in procs:
        proc.wait()
    report(folder, entries, args.top)


def report(folder: pathlib.Path, entries: list[dict], top: int) -> None:
    """Print the table by module and the commonest refusals and errors; write results.json."""
    classes = ("agree", "differ", "refused", "gt-error", "torch-failed")
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    messages: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for entry in entries:
        entry["class"], entry["message"] = classify(folder, entry["stem"])
        table[entry["module"]][entry["class"]] += 1
        table["total"][entry["class"]] += 1
        if entry["class"] in ("refused", "gt-error"):
            messages[entry["class"]][ADDR.sub("0x?", entry["message"])[:150]] += 1
    (folder / "results.json").write_text(json.dumps(entries, indent=1))
    print(f"\n{'module':22}" + "".join(f"{c:>13}" for c in classes))
    for module in [*MODULES, "total"]:
        if module in table:
            print(f"{module:22}" + "".join(f"{table[module][c]:>13}" for c in classes))
    for kind in ("refused", "gt-error"):
        print(f"\ntop {kind} messages:")
        for message, count in messages[kind].most_common(top):
            print(f"{count:5}  {message}")
    print(f"\nresults: {folder / 'results.json'}")


if __name__ == "__main__":
    main()
