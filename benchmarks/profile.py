#!/usr/bin/env python3
"""Profile gradtrace on the benchmark workloads: where the time goes.

    python benchmarks/profile.py [--out DIR] [--interval SECONDS] [WORKLOAD.gt ...]

For each workload (default: scalar_graph.gt and train_mlp.gt) it runs
`gradtrace run --quiet` in a child process under pyinstrument (a sampling profiler:
`pip install pyinstrument` into the project venv) and prints the top functions by self
time and by inclusive time, as % of the whole process. The full call trees go to DIR
(default: a temporary directory), as pyinstrument text and HTML.
It then breaks down start-up with `python -X importtime` on startup.gt.

The children run with the same bytecode cache as run.py (an installed gradtrace has
.pyc files; see README). Standard library only in this process.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "workloads"


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "gradtrace-bench-pycache")
    env["NO_COLOR"] = "1"
    # The sampling thread competes with OpenBLAS's worker threads on a small machine, and
    # OpenBLAS then spins: matmul got 50x slower under the profiler on 2 cores. One BLAS
    # thread keeps the profile about the Python code (override: --blas-threads).
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


# --------------------------------------------------------------------------- child side


def _child(script: str, out_dir: str, interval: float, top: int) -> None:
    """Runs inside the project python: profile `gradtrace run --quiet script`."""
    import io

    from pyinstrument import Profiler

    profiler = Profiler(interval=interval)
    profiler.start()
    from gradtrace.cli import main

    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # the script's own output is not part of the report
    try:
        main(args=["run", "--quiet", "--timeout", "3600", script], prog_name="gradtrace")
    except SystemExit:
        pass
    finally:
        sys.stdout = real_stdout
    session = profiler.stop()
    name = Path(script).stem
    Path(out_dir, f"{name}.tree.txt").write_text(profiler.output_text(unicode=True,
                                                                       show_all=False))
    Path(out_dir, f"{name}.html").write_text(profiler.output_html())

    root = session.root_frame()
    total = root.time if root is not None else 0.0
    self_t: dict[str, float] = defaultdict(float)
    incl_t: dict[str, float] = defaultdict(float)

    def key(frame) -> str:  # type: ignore[no-untyped-def]
        path = frame.file_path_short or frame.file_path or "?"
        path = re.sub(r"^.*site-packages/", "", path)
        path = re.sub(r"^.*/(gradtrace/)", r"\1", path)
        return f"{frame.function}  {path}:{frame.line_no}"

    def walk(frame, on_stack: frozenset, self_d: dict, incl_d: dict) -> None:  # type: ignore
        if frame.is_synthetic:  # pyinstrument's "[self]" leaves: counted in the parent
            return
        k = key(frame)
        # self time: the frame's own samples (time minus its real children's)
        child_time = sum(c.time for c in frame.children if not c.is_synthetic)
        self_d[k] += max(0.0, frame.time - child_time)
        if k not in on_stack:  # recursion: count inclusive time once per stack
            incl_d[k] += frame.time
        for c in frame.children:
            walk(c, on_stack | {k}, self_d, incl_d)

    if root is not None:
        walk(root, frozenset(), self_t, incl_t)

    # the same, restricted to executing the script (Interpreter.run: no imports, no parse)
    def find(frame):  # type: ignore[no-untyped-def]
        if frame.function == "run" and frame.class_name == "Interpreter":
            return frame
        for c in frame.children:
            hit = find(c)
            if hit is not None:
                return hit
        return None

    run_frame = find(root) if root is not None else None
    run_self: dict[str, float] = defaultdict(float)
    if run_frame is not None:
        walk(run_frame, frozenset(), run_self, defaultdict(float))
    print(f"profile of `gradtrace run --quiet {Path(script).name}`: {total:.3f} s sampled "
          f"(interval {interval * 1000:g} ms; profiling slows the run down)")
    print(f"\n  top {top} by self time (% of the sampled total)")
    for k, t in sorted(self_t.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {100 * t / total:5.1f}%  {t:7.3f} s  {k}")
    if run_frame is not None:
        rt = run_frame.time
        print(f"\n  executing the script (Interpreter.run, {rt:.3f} s = {100 * rt / total:.0f}% "
              f"of the process): top {top} by self time, % of Interpreter.run")
        for k, t in sorted(run_self.items(), key=lambda kv: -kv[1])[:top]:
            print(f"  {100 * t / rt:5.1f}%  {t:7.3f} s  {k}")
    print(f"\n  top {top} gradtrace functions by inclusive time")
    items = [(k, t) for k, t in incl_t.items() if "gradtrace/" in k and "<module>" not in k]
    for k, t in sorted(items, key=lambda kv: -kv[1])[:top]:
        print(f"  {100 * t / total:5.1f}%  {t:7.3f} s  {k}")


# --------------------------------------------------------------------------- import time


def importtime(python: str, env: dict[str, str], top: int) -> None:
    argv = [python, "-X", "importtime", "-c",
            "import sys; from gradtrace.cli import main; sys.argv = ['gradtrace', 'run', "
            f"'--quiet', {str(WORK / 'startup.gt')!r}]; main()"]
    subprocess.run(argv, env=env, capture_output=True)  # warm the bytecode cache
    res = subprocess.run(argv, env=env, capture_output=True, text=True)
    rows = []
    for line in res.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)) // 2, m.group(4)))
    total = sum(r[0] for r in rows)
    by_pkg: dict[str, int] = defaultdict(int)
    for self_us, _, _, mod in rows:
        by_pkg[mod.split(".")[0]] += self_us
    print(f"\nimport time of `gradtrace run --quiet startup.gt` (python -X importtime): "
          f"{total / 1000:.0f} ms in {len(rows)} modules")
    print("  self time by top-level package")
    for pkg, us in sorted(by_pkg.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {us / 1000:7.1f} ms  {100 * us / total:5.1f}%  {pkg}")
    print("  largest cumulative imports (level 0-3 of the import tree)")
    for self_us, cum_us, level, mod in sorted(rows, key=lambda r: -r[1])[:top]:
        if level <= 3:
            print(f"  {cum_us / 1000:7.1f} ms cumulative  {self_us / 1000:6.1f} ms self  "
                  f"{'  ' * level}{mod}")


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("workloads", nargs="*", help="scripts (default: scalar_graph.gt, "
                   "train_mlp.gt from benchmarks/workloads)")
    p.add_argument("--out", help="where the full profiles go (default: a temporary dir)")
    p.add_argument("--interval", type=float, default=0.001, help="sampling interval, s")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--python", help="the project python (default: .venv/bin/python)")
    p.add_argument("--blas-threads", type=int, help="OPENBLAS_NUM_THREADS for the profiled "
                   "process (default 1, see child_env)")
    args = p.parse_args()
    python = args.python or str(ROOT / ".venv" / "bin" / "python")
    env = child_env()
    if args.blas_threads:
        env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(args.blas_threads)
    if subprocess.run([python, "-c", "import pyinstrument"], env=env,
                      capture_output=True).returncode != 0:
        print(f"pyinstrument is not installed for {python}: "
              f"{python} -m pip install pyinstrument", file=sys.stderr)
        return 1
    out = args.out or tempfile.mkdtemp(prefix="gradtrace-profile-")
    os.makedirs(out, exist_ok=True)
    scripts = args.workloads or [str(WORK / "scalar_graph.gt"), str(WORK / "train_mlp.gt")]
    for script in scripts:
        subprocess.run([python, __file__, "--child", script, out, str(args.interval),
                        str(args.top)], env=env, check=False)
        print()
    importtime(python, env, args.top)
    print(f"\nfull call trees: {out}/<workload>.tree.txt and .html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
