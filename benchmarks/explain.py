#!/usr/bin/env python3
"""`gradtrace explain` on long runs: time, CPU, memory and lines printed (issue 14, item 8).

    python benchmarks/explain.py                    # 3 rounds of each workload
    python benchmarks/explain.py --rounds 5 --source /path/to/other/checkout

Workloads: a 5,000-statement chain (`x{i} = torch.tanh(x{i-1} * w + b) * 0.9`: 4 recorded
nodes a statement, ~20,000 nodes, written to a temporary file) and the 200-step training
loop of workloads/train_mlp.gt. Each round runs `gradtrace explain` as a whole process
(output to a pipe, as a user redirecting it would get), waited for with os.wait4: wall
time, the child's CPU time, its peak RSS, and the number of lines it printed. `--source`
runs another checkout of gradtrace (its directory goes first on PYTHONPATH), for a
before/after comparison. Standard library only; nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHAIN_STATEMENTS = 5000


def chain_script(statements: int = CHAIN_STATEMENTS) -> str:
    lines = ["import torch",
             "w = torch.tensor([0.9, -0.5, 0.3], requires_grad=True)",
             "b = torch.tensor([0.1, 0.2, -0.1], requires_grad=True)",
             "x0 = torch.tensor([0.5, -0.2, 0.1], requires_grad=True)"]
    lines += [f"x{i} = torch.tanh(x{i - 1} * w + b) * 0.9" for i in range(1, statements + 1)]
    lines += [f"x{statements}.sum().backward()", "print(w.grad, b.grad)"]
    return "\n".join(lines) + "\n"


def run_once(python: str, source: Path, script: Path, extra: list[str]) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(source), COLUMNS="", OPENBLAS_NUM_THREADS="1")
    env.pop("COLUMNS")
    args = [python, "-m", "gradtrace", "explain", "--timeout", "3600", *extra, str(script)]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.DEVNULL, env=env,
                                cwd=str(source))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        lines = out.read().decode("utf-8", "replace").count("\n")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "lines": lines,
            "status": os.waitstatus_to_exitcode(status)}


def _spread(samples: list[dict[str, float]], key: str) -> str:
    values = [s[key] for s in samples]
    return f"{statistics.median(values):6.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the gradtrace checkout to run (default: this one)")
    parser.add_argument("--only", choices=["chain", "mlp"], default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        chain = Path(tmp) / "chain5000.gt"
        chain.write_text(chain_script(), encoding="utf-8")
        workloads = {"chain": (chain, []), "mlp": (HERE / "workloads" / "train_mlp.gt", [])}
        print(f"gradtrace explain · source {args.source} · {args.rounds} rounds "
              "· median (min-max)")
        print(f"{'workload':<10} {'wall s':>16} {'cpu s':>16} {'peak MB':>8} {'lines':>8} "
              f"{'exit':>4}")
        for name, (script, extra) in workloads.items():
            if args.only and name != args.only:
                continue
            samples = [run_once(args.python, args.source, script, extra)
                       for _ in range(args.rounds)]
            print(f"{name:<10} {_spread(samples, 'wall'):>16} {_spread(samples, 'cpu'):>16} "
                  f"{statistics.median(s['rss_mb'] for s in samples):8.0f} "
                  f"{int(statistics.median(s['lines'] for s in samples)):>8,} "
                  f"{samples[0]['status']:>4}")


if __name__ == "__main__":
    main()
