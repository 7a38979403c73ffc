#!/usr/bin/env python3
"""Graph drawings and `view` pages of large runs: time and size (issue 14, items 9 and 10).

    python benchmarks/graphs.py [--rounds N] [--python PATH] [--code DIR] [--json FILE]

Each measurement is one whole process (`python -m gradtrace graph|view ...`), as a user
runs it: the script, then the drawing (Graphviz included). Reported: the median wall time
over the rounds (min-max), the CPU time of the process and its children (Graphviz), and
the size of what was written. --code DIR runs the gradtrace found in DIR instead of this
checkout (to measure an older version: `git archive COMMIT | tar -x -C DIR`).

Targets (issue 14): `graph --format svg` of a 300-step training loop in at most 15 s and
400 kB; of a 20,000-node chain in at most 30 s. Standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "workloads"
LIMITS = ["--timeout", "3600", "--max-memory", "8192"]

# (name, command, workload, extra options, output suffix, target seconds, target bytes)
CASES = [
    ("graph svg, 300-step loop", "graph", "train_300", ["--format", "svg"], "svg", 15, 400_000),
    ("graph png, 300-step loop", "graph", "train_300", ["--format", "png"], "png", None, None),
    ("graph svg, 20,000-node chain", "graph", "chain_20k", ["--format", "svg"], "svg", 30, None),
    ("graph png, 20,000-node chain", "graph", "chain_20k", ["--format", "png"], "png", None,
     None),
    ("graph svg --max-nodes 0, 2,000-node chain", "graph", "chain_2k",
     ["--format", "svg", "--max-nodes", "0"], "svg", None, None),
    ("view, 300-step loop", "view", "train_300", [], "html", None, None),
    ("view, 20,000-node chain", "view", "chain_20k", [], "html", None, None),
    ("run --quiet, 300-step loop (the script alone)", "run", "train_300", ["--quiet"], None,
     None, None),
    ("run --quiet, 20,000-node chain (the script alone)", "run", "chain_20k", ["--quiet"],
     None, None, None),
]


def run_once(python: str, env: dict[str, str], code: str, command: str, workload: str,
             options: list[str], suffix: str | None) -> tuple[float, float, int | None, str]:
    """(wall s, CPU s of the process and its children, output bytes, error or '')."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"out.{suffix}" if suffix else None
        argv = [python, "-m", "gradtrace", command, str(WORK / f"{workload}.gt"), *options,
                *LIMITS]
        if out is not None:
            argv += ["-o", str(out)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        # in `code`: `python -m` puts the working directory first on sys.path
        done = subprocess.run(argv, env=env, cwd=code, capture_output=True, text=True,
                              check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            return wall, cpu, None, (done.stderr.strip().splitlines() or ["?"])[-1][:200]
        size = out.stat().st_size if out is not None else None
        return wall, cpu, size, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--code", default=str(ROOT), help="directory holding gradtrace/")
    parser.add_argument("--only", default=None, help="run the cases whose name has this text")
    parser.add_argument("--json", default=None, help="also write every sample to FILE")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    env["PYTHONPATH"] = args.code + os.pathsep + env.get("PYTHONPATH", "")
    env["NO_COLOR"] = "1"
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    cases = [c for c in CASES if args.only is None or args.only in c[0]]
    samples: dict[str, list[tuple[float, float, int | None, str]]] = {c[0]: [] for c in cases}
    for r in range(args.rounds):
        order = cases if r % 2 == 0 else list(reversed(cases))
        for name, command, workload, options, suffix, _, _ in order:
            samples[name].append(run_once(args.python, env, args.code, command, workload,
                                          options, suffix))
    print(f"{'case':50} {'wall s (min-max)':>22} {'cpu s':>7} {'bytes':>11}  target")
    for name, _, _, _, _, seconds, size in cases:
        runs = samples[name]
        errors = [e for *_, e in runs if e]
        if errors:
            print(f"{name:50} FAILED: {errors[0]}")
            continue
        walls = [w for w, *_ in runs]
        cpu = statistics.median(c for _, c, _, _ in runs)
        out = runs[-1][2]
        wall = statistics.median(walls)
        target = []
        if seconds is not None:
            target.append(f"≤ {seconds} s: {'met' if wall <= seconds else 'NOT met'}")
        if size is not None and out is not None:
            target.append(f"≤ {size:,} B: {'met' if out <= size else 'NOT met'}")
        spread = f"{wall:.2f} ({min(walls):.2f}-{max(walls):.2f})"
        print(f"{name:50} {spread:>22} {cpu:7.2f} {out if out is not None else '-':>11}  "
              f"{'; '.join(target)}")
    if args.json:
        Path(args.json).write_text(json.dumps(samples, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
