"""Instructions per loop iteration, counted by valgrind's callgrind: the deterministic view of
the benchmark's compute workloads, for machines whose clocks are too noisy to compare two
versions of the code (README, "Profile").

    python benchmarks/instructions.py                 # ~6 min on 2 cores; needs valgrind
    python benchmarks/instructions.py --no-torch      # gradtrace and numpy only (~2 min)
    python benchmarks/instructions.py --python P      # gradtrace's python (default: .venv)
    python benchmarks/instructions.py --objects       # also: per shared library, per iteration

Each count is (instructions of a run with N iterations - of a run with M) / (N - M), so
interpreter start-up, imports and parsing cancel out. Instructions are not time: numpy's
and torch's compiled loops retire more instructions per nanosecond than Python code does.
Uses only the standard library.

Under valgrind the program does not see the host's CPU: valgrind answers CPUID as an Intel
(Haswell-like) AVX2 CPU without AVX-512. MKL picks its kernels by vendor, so on an AMD host
the counted run takes MKL's AVX2 kernels (libmkl_avx2, libmkl_vml_avx2: `vsTanh` as
`sTanh_L9HA`) while the timed run takes its generic ones (libmkl_def, libmkl_vml_def:
`sTanh_EXHA`, ~3.3x the time per element here); torch's own MKL does the same in both.
`--objects` prints each row's instructions per shared library, which shows the path taken.
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from run import find_torch  # benchmarks/run.py, next to this script

HERE = Path(__file__).resolve().parent
WORK = HERE / "workloads"
COLLECTED = re.compile(r"Collected : (\d+)")

# The workload's loop length is replaced by {n}; the scripts run as they are otherwise.
# The limits are raised as run.py raises them: under valgrind on a loaded machine the script
# can pass the default 60 s --timeout, and a run stopped early counted its instructions as
# if it had finished (round 3 found negative per-step counts that way).
GRADTRACE = """
import io
from gradtrace.interpreter.runtime import Limits
from gradtrace.runner import run_text
text = open({path!r}).read().replace({loop!r}, "range({{n}})")
result = run_text(text, stdout=io.StringIO(), trace={trace}, trace_values={values},
                  limits=Limits(timeout=3600.0, max_memory=8 << 30))
if result.error is not None:
    raise SystemExit(result.error.format())
"""
PLAIN = """
exec(compile(open({path!r}).read().replace({loop!r}, "range({{n}})"), {path!r}, "exec"))
"""


@dataclass(frozen=True)
class Count:
    name: str
    python: str
    code: str  # with {n}
    small: int
    big: int
    per: str  # what one iteration is

    def run(self, n: int, keep: str = "/dev/null") -> int:
        """Instructions of a run with n iterations; `keep`: where callgrind writes its
        profile (for `--objects`)."""
        env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1",
                   OMP_NUM_THREADS="1")
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={keep}", self.python,
             "-c", self.code.format(n=n)], capture_output=True, text=True, env=env)
        found = COLLECTED.search(out.stderr)
        if out.returncode != 0 or found is None:
            raise RuntimeError(f"{self.name} (n={n}) failed:\n{out.stderr[-2000:]}")
        return int(found.group(1))


_NAMED = re.compile(r"^(c?ob|c?fn|c?fl|fi|fe|cfi)=\((\d+)\)(?: (.*))?$")


def by_object(path: str) -> collections.Counter[str]:
    """Self cost (instructions) per shared object in a callgrind profile: the cost lines
    under each `ob=`, without the inclusive cost lines that follow a `calls=` line."""
    names: dict[str, str] = {}
    cost: collections.Counter[str] = collections.Counter()
    current = "?"
    after_call = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = _NAMED.match(line)
            if m:
                kind, idx, name = m.groups()
                if kind in ("ob", "cob"):
                    if name:
                        names[idx] = name.strip().rsplit("/", 1)[-1]
                    if kind == "ob":
                        current = names.get(idx, "?")
                continue
            if line.startswith("calls="):
                after_call = True
                continue
            if line[:1].isdigit() or line[:1] in "+-*":
                if after_call:
                    after_call = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    cost[current] += int(parts[1])
    return cost


def counts(python: str, torch_python: str | None) -> list[Count]:
    scalar = str(WORK / "scalar_graph.gt")
    train = str(WORK / "train_mlp.gt")
    by_hand = str(WORK / "train_mlp_numpy.py")
    out = [
        Count("scalar graph, gradtrace run --quiet", python,
              GRADTRACE.format(path=scalar, loop="range(20000)", trace=False, values=True), 100,
              3100, "iteration (2 ops + their backward)"),
        Count("scalar graph, gradtrace traced (explain)", python,
              GRADTRACE.format(path=scalar, loop="range(20000)", trace=True, values=True), 100,
              3100, "iteration"),
        Count("training loop, gradtrace run --quiet", python,
              GRADTRACE.format(path=train, loop="range(200)", trace=False, values=True), 1, 21,
              "step"),
        # `gradtrace run`'s report keeps no value its tables do not show (trace_values)
        Count("training loop, gradtrace traced (report)", python,
              GRADTRACE.format(path=train, loop="range(200)", trace=True, values=False), 1, 21,
              "step"),
        Count("training loop, gradtrace traced (explain)", python,
              GRADTRACE.format(path=train, loop="range(200)", trace=True, values=True), 1, 21,
              "step"),
        Count("training loop, numpy by hand", python,
              PLAIN.format(path=by_hand, loop="range(200)"), 1, 21, "step"),
    ]
    if torch_python:
        out += [
            Count("scalar graph, torch", torch_python,
                  PLAIN.format(path=scalar, loop="range(20000)"), 100, 3100, "iteration"),
            Count("training loop, torch", torch_python,
                  PLAIN.format(path=train, loop="range(200)"), 1, 21, "step"),
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--python", help="the python with gradtrace installed (default: .venv)")
    p.add_argument("--torch-python", help="a python with torch (default: /work/torchenv, "
                   "else python3 if it imports torch)")
    p.add_argument("--no-torch", action="store_true", help="skip the torch rows")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--objects", action="store_true",
                   help="also print each row's instructions per iteration by shared library")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed (apt-get install valgrind)",
              file=sys.stderr)
        return 2
    python = args.python or str(HERE.parent / ".venv" / "bin" / "python")
    torch_python = None
    if not args.no_torch:
        torch_python = find_torch(args.torch_python)[0]
        if torch_python is None:
            print("instructions: no python with torch found: torch rows skipped",
                  file=sys.stderr)
    todo = counts(python, torch_python)
    runs = [(c, n) for c in todo for n in (c.small, c.big)]
    with tempfile.TemporaryDirectory(prefix="gradtrace-callgrind-") as tmp:
        keep = {r: (os.path.join(tmp, f"{i}.out") if args.objects else "/dev/null")
                for i, r in enumerate(runs)}
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            totals = dict(zip(runs, pool.map(lambda r: r[0].run(r[1], keep[r]), runs)))
        print(f"{'workload':52s} {'instructions':>14s}  per")
        for c in todo:
            per = (totals[(c, c.big)] - totals[(c, c.small)]) / (c.big - c.small)
            print(f"{c.name:52s} {per:14,.0f}  {c.per}")
        if args.objects:
            for c in todo:
                small, big = by_object(keep[(c, c.small)]), by_object(keep[(c, c.big)])
                print(f"\n{c.name}, per {c.per}, by shared library:")
                diff = {k: (big[k] - small[k]) / (c.big - c.small) for k in big | small}
                for name, per in sorted(diff.items(), key=lambda kv: -kv[1])[:8]:
                    print(f"  {per:14,.0f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
