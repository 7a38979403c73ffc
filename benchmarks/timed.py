"""Process wrapper used by run.py: runs one workload the way its runner would, and reports
how long the part after the runner's own import took, measured inside the process.

    python timed.py gradtrace ARGS...      # like the `gradtrace` console script: gradtrace ARGS
    python timed.py module MODULE SCRIPT   # import MODULE (torch, numpy), then run SCRIPT

The last line on stderr is `gradtrace-bench: import_s=... body_s=... body_cpu_s=...`.
Whole-process time is measured outside, by run.py; `body_s` (wall) and `body_cpu_s` (CPU
time of the process, all threads) exclude interpreter start-up and the runner's import,
which for torch is large and noisy (and its shutdown, ~0.45 s), so they are steadier
measures of compute time; the CPU one also resists other processes competing for the CPU.
"""
import os
import sys
import time

# CPU time this process's ancestors spent after the import ("base", summed over forks) and
# this process's own clock at its last fork ("at")
_FORK: dict[str, float] = {}


def _before_fork() -> None:
    _FORK["at"] = time.process_time()


def _after_fork_in_child() -> None:
    _FORK["base"] = _FORK.get("base", 0.0) + _FORK.pop("at", 0.0)


def _report(t0: float, t1: float, t2: float, c1: float, c2: float) -> None:
    sys.stdout.flush()
    sys.stderr.write(f"\ngradtrace-bench: import_s={t1 - t0:.6f} body_s={t2 - t1:.6f} "
                     f"body_cpu_s={c2 - c1:.6f}\n")
    sys.stderr.flush()


def main() -> None:
    mode = sys.argv[1]
    if mode == "gradtrace":
        args = sys.argv[2:]
        t0 = time.perf_counter()
        from gradtrace.cli import main as cli_main  # what the console script imports

        t1, c1 = time.perf_counter(), time.process_time()
        # `gradtrace run` forks: the script runs (and this report is written) in the child,
        # whose CPU clock starts again at 0. Count the parent's CPU from here to the fork,
        # then the child's own (before: the child's clock minus the parent's import time,
        # which came out negative for the empty script).
        os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
        code = 0
        try:
            cli_main(args=args, prog_name="gradtrace")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        t2, c2 = time.perf_counter(), time.process_time()
        c2 += _FORK.get("base", 0.0)  # in the forked child: the parent's part
        _report(t0, t1, t2, c1, c2)
        sys.exit(code)
    elif mode == "module":
        module, script = sys.argv[2], sys.argv[3]
        t0 = time.perf_counter()
        __import__(module)
        t1, c1 = time.perf_counter(), time.process_time()
        import runpy

        sys.argv = [script]
        runpy.run_path(script, run_name="__main__")
        t2, c2 = time.perf_counter(), time.process_time()
        _report(t0, t1, t2, c1, c2)
    else:
        sys.exit(f"timed.py: unknown mode {mode!r}")


if __name__ == "__main__":
    main()
